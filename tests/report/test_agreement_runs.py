"""``agenthorizon agreement`` on real runs: repeated runs of a judge, counted again from the result files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.schema import LABEL_FILE_HARD
from test_leaderboard import _labels


@pytest.fixture(scope="module")
def repeats(small_root, tmp_path_factory):
    """Three runs of one random judge at three seeds (a judge that disagrees with itself) and one of lexical."""
    base = tmp_path_factory.mktemp("agreement")
    dataset = agenthorizon.load_dataset(small_root, "AH", split="test", images=None)
    folders = []
    for spec in ("random:1", "random:2", "random:3", "lexical"):
        folders.append(base / spec.replace(":", "-"))
        run_judge(spec, dataset, folders[-1], config="AH", data_root=small_root, progress=False)
    return folders


def _category(folder, tid):
    path = folder / f"{tid}.json"
    result = json.loads(path.read_text()) if path.exists() else None
    if not result or result["parse_status"] != "ok":
        return 2
    return 0 if result["verdict"]["success"] else 1


def test_agreement_of_real_runs_equals_scikit_learn_and_statsmodels(small_root, repeats, capsys):
    assert main(["agreement", *map(str, repeats), "--data", str(small_root), "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    labels = _labels(small_root, LABEL_FILE_HARD)
    codes = np.array([[_category(folder, tid) for folder in repeats] for tid in labels])
    assert result["n"] == len(labels) and len(result["judges"]) == 4
    kappas = list(result["cohen_kappa"].values())
    expected = [cohen_kappa_score(codes[:, i], codes[:, j]) for i in range(4) for j in range(i + 1, 4)]
    assert kappas == pytest.approx(expected)
    assert result["fleiss_kappa"] == pytest.approx(fleiss_kappa(aggregate_raters(codes, n_cat=3)[0]))
    assert result["flip_rate"] == pytest.approx(np.mean([len(set(row)) > 1 for row in codes.tolist()]))
    # the majority vote, scored strictly: more than half of the four runs, else wrong
    truth = {tid: label == "positive" for tid, label in labels.items()}
    vote = {tid: (True if (row == 0).sum() > 2 else False if (row == 1).sum() > 2 else None)
            for tid, row in zip(labels, codes)}
    right = {tid: vote[tid] is not None and vote[tid] == truth[tid] for tid in labels}
    positive = np.mean([right[t] for t in labels if truth[t]])
    negative = np.mean([right[t] for t in labels if not truth[t]])
    assert result["majority_vote"]["balanced_accuracy"] == pytest.approx((positive + negative) / 2)


def test_the_table_names_the_coefficients(small_root, repeats, capsys):
    assert main(["agreement", *map(str, repeats[:3]), "--data", str(small_root)]) == 0
    out = capsys.readouterr().out
    assert "Fleiss' kappa" in out and "Krippendorff's alpha" in out and "flip rate" in out and "Majority vote" in out


def test_one_run_is_refused(small_root, repeats, capsys):
    assert main(["agreement", str(repeats[0]), "--data", str(small_root)]) == 2
    assert "at least two run folders" in capsys.readouterr().err


def test_calibration_of_real_runs_is_selective_accuracy_of_the_result_files(small_root, repeats, capsys):
    assert main(["calibration", str(repeats[3]), "--data", str(small_root), "--format", "json", "--bootstrap", "100"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["runs"].values()
    labels = _labels(small_root, LABEL_FILE_HARD)
    levels = ("low", "medium", "high")
    rank, right = [], []
    for tid, label in labels.items():
        verdict = json.loads((repeats[3] / f"{tid}.json").read_text())["verdict"]
        rank.append(levels.index(verdict["confidence"]) if verdict.get("confidence") in levels else -1)
        right.append(verdict["success"] == (label == "positive"))
    rank, right = np.array(rank), np.array(right)
    for point in result["selective"][1:]:
        kept = rank >= levels.index(point["threshold"])
        assert point["kept"] == kept.sum() and point["accuracy"] == pytest.approx(right[kept].mean())
    from sklearn.metrics import roc_auc_score
    assert result["auroc"] == pytest.approx(roc_auc_score(right[rank >= 0], rank[rank >= 0]))


def test_items_list_each_items_counts_and_pairwise_disagreement(small_root, repeats, capsys):
    assert main(["agreement", *map(str, repeats[:3]), "--data", str(small_root), "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    labels = _labels(small_root, LABEL_FILE_HARD)
    codes = np.array([[_category(folder, tid) for folder in repeats[:3]] for tid in labels])
    table, _ = aggregate_raters(codes, n_cat=3)  # statsmodels' items x categories counts
    items = {item["trajectory_id"]: item for item in result["items"]}
    assert list(items) == list(labels)
    for row, (tid, counts) in zip(codes.tolist(), zip(labels, table)):
        item = items[tid]
        assert [item["success"], item["failure"], item["invalid"]] == counts.tolist()
        pairs = [(a, b) for i, a in enumerate(row) for b in row[i + 1:]]
        assert item["disagreement"] == pytest.approx(np.mean([a != b for a, b in pairs]))
    assert np.mean([item["disagreement"] > 0 for item in items.values()]) == pytest.approx(result["flip_rate"])


def test_the_majority_written_as_a_run_is_scored_by_score_and_ranked_by_leaderboard(small_root, repeats, tmp_path,
                                                                                     capsys):
    folder = tmp_path / "majority"
    assert main(["agreement", *map(str, repeats[:3]), "--data", str(small_root), "--format", "json",
                 "--write-majority", str(folder)]) == 0
    said = json.loads(capsys.readouterr().out)
    # `score` of the folder equals the majority computed here from the member result files
    main(["score", str(folder), "--data", str(small_root), "--format", "json"])
    scored = json.loads(capsys.readouterr().out)
    labels = _labels(small_root, LABEL_FILE_HARD)
    codes = np.array([[_category(member, tid) for member in repeats[:3]] for tid in labels])
    vote = [True if (row == 0).sum() >= 2 else False if (row == 1).sum() >= 2 else None for row in codes]
    truth = np.array([label == "positive" for label in labels.values()])
    right = np.array([v is not None and v == t for v, t in zip(vote, truth)])
    report = scored["report"] if "report" in scored else scored
    assert report["balanced_accuracy"] == pytest.approx((right[truth].mean() + right[~truth].mean()) / 2)
    assert report["n_invalid"] == sum(v is None for v in vote)
    assert said["majority_vote"]["balanced_accuracy"] == pytest.approx(report["balanced_accuracy"])
    record = json.loads((folder / "run.json").read_text())
    assert record["judge_key"] == said["majority_judge_key"]
    # three seeds are three judge keys: an ensemble, named by its members
    assert record["label"] == "majority of random:1, random:2, random:3"
    member_keys = {json.loads((member / "run.json").read_text())["judge_key"] for member in repeats[:3]}
    assert record["judge_key"] not in member_keys
    # the leaderboard ranks it beside its members, as its own row
    assert main(["leaderboard", str(folder), *map(str, repeats[:3]), "--data", str(small_root),
                 "--format", "json"]) == 0
    board = capsys.readouterr().out
    assert record["label"] in board


def test_an_ensemble_of_different_judges_has_its_own_key_and_is_not_written_over_a_run(small_root, repeats, tmp_path,
                                                                                       capsys):
    first, second = tmp_path / "a", tmp_path / "b"
    assert main(["agreement", str(repeats[0]), str(repeats[3]), str(repeats[1]), "--data", str(small_root),
                 "--write-majority", str(first)]) == 0
    assert main(["agreement", *map(str, repeats[:3]), "--data", str(small_root), "--write-majority", str(second)]) == 0
    capsys.readouterr()
    keys = [json.loads((folder / "run.json").read_text())["judge_key"] for folder in (first, second)]
    assert keys[0] != keys[1]
    assert main(["agreement", *map(str, repeats[:3]), "--data", str(small_root),
                 "--write-majority", str(repeats[0])]) == 2
    assert "not empty" in capsys.readouterr().err
