"""``agenthorizon.score_runs``: the one scoring of run folders, and every command that calls it, on the same real runs.

The runs are made by the real runner through ``sweep run --cell K`` (two judges x AH, AH-S x 2 shards, the
shards of a config in one folder) plus a ``--limit`` run on ``all`` in a folder of its own (a partial judge).
The numbers are checked against the result files and label files read here, from the definitions
(scikit-learn's balanced accuracy), and each command's JSON against the notebook call.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.runs.folder import is_result_name
from agenthorizon.schema import LABEL_FILE_EASY, LABEL_FILE_HARD
from sweep_files import write_sweep

JUDGES = '[[judge]]\nspec = "lexical"\n[[judge]]\nspec = "random:3"\n'


@pytest.fixture(scope="module")
def runs(tiny_root, tmp_path_factory):
    base = tmp_path_factory.mktemp("scored-runs")
    path = write_sweep(base, tiny_root, judges=JUDGES)
    for cell in range(8):
        assert main(["sweep", "run", str(path), "--cell", str(cell)]) == 0
    sweep_folders = sorted({folder.parent for folder in (base / "runs").glob("*/*/run-shard-*.json")})
    partial = base / "partial"
    assert main(["judge", "--data", str(tiny_root), "--config", "all", "--judge", "constant:false", "--limit", "5",
                 "--out", str(partial), "--no-progress"]) == 0
    return path, sweep_folders, partial


def _labels(root: Path) -> dict[str, tuple[str, bool]]:
    labels = {}
    for name in (LABEL_FILE_HARD, LABEL_FILE_EASY):
        for line in (root / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            labels[row["trajectory_id"]] = (row["label"], name == LABEL_FILE_HARD)
    return labels


def _said(folders: list[Path]) -> dict[str, bool | None]:
    """Trajectory id -> the verdict's success in the result files, None when it has none."""
    said = {}
    for folder in folders:
        for path in filter(is_result_name, folder.iterdir()):
            result = json.loads(path.read_text(encoding="utf-8"))
            ok = result["parse_status"] == "ok"
            said[result["trajectory_id"]] = result["verdict"]["success"] if ok else None
    return said


def _balanced(labels, said, hard: bool) -> float:
    """Balanced accuracy from the definition: an item without a valid verdict counts as the wrong answer."""
    truth, guess = [], []
    for tid, (label, is_hard) in labels.items():
        if is_hard is not hard:
            continue
        positive = label == "positive"
        truth.append(positive)
        guess.append(said.get(tid) if said.get(tid) is not None else not positive)
    return balanced_accuracy_score(truth, guess)


def test_score_runs_groups_merges_shards_marks_partial_and_scores_from_the_definitions(runs, tiny_root):
    _, folders, partial = runs
    scored = agenthorizon.score_runs([*folders, partial], tiny_root, bootstrap=50, seed=1)
    labels = _labels(tiny_root)
    assert [judge.label for judge in scored.judges] == ["lexical", "random:3", "constant:false"]
    for judge in scored.judges:
        said = _said(judge.folders())
        for config, hard in (("AH", True), ("AH-S", False)):
            assert judge.reports[config].balanced_accuracy == pytest.approx(_balanced(labels, said, hard))
            assert judge.reports[config].intervals is not None
        assert judge.overall.n == len(labels) and judge.config == "all"
    lexical, _, limited = scored.judges
    assert len(lexical.folders()) == 2 and lexical.partial is None and len(lexical.predictions) == len(labels)
    assert limited.partial is not None and (limited.partial.judged, limited.partial.total) == (5, len(labels))
    # The items were validated once: the per-config reports are subsets of the judge's one ItemOutcomes.
    hard = np.array([labels[row["trajectory_id"]][1] for row in scored.references["all"].rows])
    assert lexical.reports["AH"].n == int(hard.sum()) and lexical.reports["AH-S"].n == int((~hard).sum())
    assert [m["n_items"] for m in scored.manifests()] == [int(hard.sum()), int((~hard).sum())]


def test_score_runs_refuses_two_runs_of_one_judge_on_one_config(runs, tiny_root, tmp_path):
    _, folders, _ = runs
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in folders[0].iterdir():
        if path.is_file() and not path.name.endswith(".lock"):
            (copy / path.name).write_bytes(path.read_bytes())
    with pytest.raises(ValueError, match="two runs of judge lexical"):
        agenthorizon.score_runs([folders[0], copy], tiny_root)


def _reports(scored) -> dict[str, dict]:
    return {judge.key: {config: report and report.to_dict() for config, report in judge.reports.items()}
            for judge in scored.judges}


def test_every_command_gives_the_numbers_of_the_notebook_call(runs, tiny_root, tmp_path, capsys):
    path, folders, partial = runs
    scored = agenthorizon.score_runs([*folders, partial], tiny_root, bootstrap=50, seed=1)

    capsys.readouterr()
    assert main(["leaderboard", *map(str, [*folders, partial]), "--data", str(tiny_root), "--bootstrap", "50",
                 "--seed", "1", "--format", "json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert {row["judge_key"]: row["reports"] for row in board["judges"]} == _reports(scored)
    overall = {judge.key: judge.overall.to_dict() for judge in scored.judges}
    assert {row["judge_key"]: row["all_scored_items"] for row in board["judges"]} == overall
    assert [row["partial"] is not None for row in board["judges"]] == [False, False, True]

    # sweep collect: the grid's folders, the same numbers.
    assert main(["sweep", "collect", str(path), "--bootstrap", "50", "--seed", "1", "--format", "json"]) == 0
    collected = json.loads(capsys.readouterr().out)
    grid = agenthorizon.score_runs(folders, tiny_root, bootstrap=50, seed=1)
    assert {row["judge_key"]: row["reports"] for row in collected["judges"]} == _reports(grid)

    # score: one judge's AH folder (both shards) is that judge's AH report (plus its cost and runtime).
    ah = next(folder for folder in folders if folder.parts[-2:] == ("lexical", "AH"))
    assert main(["score", str(ah), "--data", str(tiny_root), "--bootstrap", "50", "--seed", "1",
                 "--format", "json"]) == 0
    scored_alone = json.loads(capsys.readouterr().out)
    expected = scored.judges[0].reports["AH"].to_dict()
    assert {key: scored_alone[key] for key in expected if key not in ("cost", "runtime")} == {
        key: value for key, value in expected.items() if key not in ("cost", "runtime")}

    # partition: per item, the number of judges whose one validation said it right.
    out = tmp_path / "split"
    assert main(["partition", *map(str, folders), "--data", str(tiny_root), "--threshold", "0", "--out", str(out),
                 "--labels-only"]) == 0
    items = json.loads((out / "partition.json").read_text())["items"]
    rows = grid.references["all"].rows
    counts = sum(judge.outcomes.correct.astype(int) for judge in grid.judges)
    assert {tid: item["n_correct"] for tid, item in items.items()} == {
        row["trajectory_id"]: int(count) for row, count in zip(rows, counts)}
    labels, said = _labels(tiny_root), [_said(judge.folders()) for judge in grid.judges]
    assert {tid: item["n_correct"] for tid, item in items.items()} == {
        tid: sum(s.get(tid) is (label == "positive") for s in said) for tid, (label, _) in labels.items()}
