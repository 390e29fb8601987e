"""`agenthorizon score` and `agenthorizon leaderboard` on result directories made by the real runner."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from agenthorizon.cli import main
from agenthorizon.data.load import load_dataset
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.release.files import load_references
from agenthorizon.release.labels import manifest_sha256
from agenthorizon.schema import CONFIG_AH, CONFIG_AH_S, POSITIVE
from agenthorizon.scoring.metrics import score
from stub_judges import Answers


def _answers(rows, wrong_every: int = 0) -> dict[str, bool]:
    """The label of every row as a verdict, wrong on every `wrong_every`-th."""
    answers = {}
    for i, row in enumerate(rows):
        truth = row["label"] == POSITIVE
        answers[row["trajectory_id"]] = (not truth) if wrong_every and i % wrong_every == 0 else truth
    return answers


def _run(root: Path, run_dir: Path, config: str, answers: dict[str, bool], **options) -> None:
    """A run folder of the stub judge on `config`, written by run_judge."""
    dataset = load_dataset(root, config, split="test", images="paths", cache_dir=run_dir.parent / "cache")
    summary = run_judge(Answers(answers), dataset, run_dir, config=config, data_root=root, progress=False, **options)
    assert summary.record.status == "finished"


@pytest.fixture()
def ah_rows(tiny_root):
    return load_references(tiny_root, CONFIG_AH)


@pytest.fixture()
def damaged_run(tiny_root, tmp_path, ah_rows):
    """A runner's folder for AH with one result missing, one malformed, one of an item outside AH and a stray note."""
    run_dir = tmp_path / "run"
    answers = _answers(ah_rows, wrong_every=3)
    _run(tiny_root, run_dir, CONFIG_AH, answers)
    written = dict(answers)
    missing_id = ah_rows[0]["trajectory_id"]
    (run_dir / f"{missing_id}.json").unlink()
    del written[missing_id]
    malformed_id = ah_rows[1]["trajectory_id"]
    (run_dir / f"{malformed_id}.json").write_text('{"parse_status": "ok", "verd', encoding="utf-8")
    written[malformed_id] = None
    # The same judge's result for an AH-S item, copied in: a result outside the config.
    ah_s_rows = load_references(tiny_root, CONFIG_AH_S)
    _run(tiny_root, tmp_path / "other", CONFIG_AH_S, _answers(ah_s_rows))
    unexpected_id = next(row["trajectory_id"] for row in ah_s_rows if row["trajectory_id"] not in answers)
    shutil.copy(tmp_path / "other" / f"{unexpected_id}.json", run_dir)
    (run_dir / "notes.txt").write_text("not a result", encoding="utf-8")
    return run_dir, written, missing_id, malformed_id, unexpected_id


def test_score_json_counts_missing_malformed_and_lists_unexpected(tiny_root, damaged_run, ah_rows, capsys):
    run_dir, written, missing_id, malformed_id, unexpected_id = damaged_run
    # 1: a missing and an unreadable result (re-running the judge resumes them)
    assert main(["score", str(run_dir), "--data", str(tiny_root), "--config", CONFIG_AH, "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["n"] == len(ah_rows)  # the manifest is the denominator
    assert data["invalid_by_reason"]["missing"] == 1
    assert data["invalid_by_reason"]["malformed_json"] == 1
    assert data["manifest"] == {"config": CONFIG_AH, "n_items": len(ah_rows), "sha256": manifest_sha256(ah_rows)}
    assert data["unexpected_ids"] == [unexpected_id]
    assert [Path(p).name for p in data["ignored_files"]] == ["notes.txt"]
    # Computed from the stub's answers, not from the files: what the folder must score.
    expected = score({k: v if v is not None else "{" for k, v in written.items()}, ah_rows)
    assert data["balanced_accuracy"] == pytest.approx(expected.balanced_accuracy)
    assert data["n_invalid"] == expected.n_invalid == 2


def test_score_table_states_manifest_and_problems(tiny_root, damaged_run, ah_rows, capsys):
    run_dir, _, _, _, unexpected_id = damaged_run
    assert main(["score", str(run_dir), "--data", str(tiny_root)]) == 1
    out = capsys.readouterr().out
    assert f"{len(ah_rows)} items, sha256 {manifest_sha256(ah_rows)}" in out
    assert "items without a result (scored as missing): 1" in out
    assert "Unreadable result files (scored as malformed_json): 1" in out
    assert f"Unexpected results for items outside the config (not scored): 1: {unexpected_id}" in out
    assert "Ignored files" in out and "notes.txt" in out


def test_shards_are_merged_and_jsonl_is_read(tiny_root, tmp_path, ah_rows, capsys):
    # A shard's folder from the runner, the other shard's items as JSONL lines.
    _run(tiny_root, tmp_path / "shard1", CONFIG_AH, _answers(ah_rows), shard="1/2")
    in_shard = {path.stem for path in (tmp_path / "shard1").glob("*-*-*-*-*.json")}
    assert (tmp_path / "shard1" / "run-shard-1-of-2.json").is_file() and 0 < len(in_shard) < len(ah_rows)
    jsonl = tmp_path / "rest.jsonl"
    jsonl.write_text(
        "".join(json.dumps({"trajectory_id": r["trajectory_id"], "success": r["label"] == POSITIVE}) + "\n"
                for r in ah_rows if r["trajectory_id"] not in in_shard),
        encoding="utf-8",
    )
    args = ["score", str(tmp_path / "shard1"), str(jsonl), "--data", str(tiny_root), "--format", "json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["balanced_accuracy"] == 1.0 and data["n_invalid"] == 0 and data["n"] == len(ah_rows)


def test_a_result_shaped_jsonl_line_scores_as_its_status_like_the_same_file_in_a_folder(tiny_root, tmp_path, ah_rows, capsys):
    # One definition of "a result record": {"parse_status": "no_json"} without a verdict is an
    # unparseable answer whether it is a file of a run folder or a line of a JSONL file.
    run_dir = tmp_path / "run"
    _run(tiny_root, run_dir, CONFIG_AH, _answers(ah_rows))
    target = ah_rows[0]["trajectory_id"]
    result = json.loads((run_dir / f"{target}.json").read_text())
    del result["verdict"]
    result["parse_status"] = "no_json"
    (run_dir / f"{target}.json").write_text(json.dumps(result), encoding="utf-8")
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text(
        "".join(json.dumps({"trajectory_id": r["trajectory_id"], "parse_status": "no_json"} if r["trajectory_id"] == target
                           else {"trajectory_id": r["trajectory_id"], "success": r["label"] == POSITIVE}) + "\n"
                for r in ah_rows),
        encoding="utf-8",
    )
    reasons = []
    for source in (run_dir, jsonl):
        assert main(["score", str(source), "--data", str(tiny_root), "--config", CONFIG_AH, "--format", "json"]) == 0
        reasons.append(json.loads(capsys.readouterr().out)["invalid_by_reason"])
    assert reasons[0] == reasons[1] and reasons[0]["no_json"] == 1


def test_score_bootstrap_csv_and_out_file(tiny_root, damaged_run, tmp_path):
    run_dir = damaged_run[0]
    out = tmp_path / "report.csv"
    args = ["score", str(run_dir), "--data", str(tiny_root), "--bootstrap", "200", "--seed", "1", "--format", "csv", "--out", str(out)]
    assert main(args) == 1  # the damaged run is incomplete; the report is written all the same
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    balanced = next(row for row in rows if row["metric"] == "balanced accuracy")
    assert float(balanced["value low"]) <= float(balanced["value"]) <= float(balanced["value high"])
    assert balanced["manifest_sha256"]


def test_score_slices_from_the_dataset(tiny_root, damaged_run, capsys):
    run_dir = damaged_run[0]
    args = ["score", str(run_dir), "--data", str(tiny_root), "--slices", "os,step_bucket,direction", "--format", "json"]
    assert main(args) == 1
    data = json.loads(capsys.readouterr().out)
    assert set(data["slices"]) == {"os", "step_bucket", "direction"}
    assert sum(s["n"] for s in data["slices"]["os"].values()) == data["n"]


def test_bad_input_is_one_clear_line(tiny_root, tmp_path, capsys):
    assert main(["score", str(tmp_path / "nope"), "--data", str(tiny_root)]) == 2
    assert "no such results directory" in capsys.readouterr().err
    assert main(["score", str(tmp_path), "--data", str(tiny_root), "--slices", "planet"]) == 2
    assert "unknown slice(s) planet" in capsys.readouterr().err


@pytest.fixture(scope="module")
def real_runs(tiny_root, tmp_path_factory):
    """Runs made by the real runner: lexical on AH and AH-S, constant:true on AH."""
    base = tmp_path_factory.mktemp("leaderboard")
    for spec, config, name in (("lexical", CONFIG_AH, "lex-ah"), ("lexical", CONFIG_AH_S, "lex-ahs"),
                               ("constant:true", CONFIG_AH, "yes-ah")):
        argv = ["judge", "--data", str(tiny_root), "--config", config, "--judge", spec, "--out", str(base / name),
                "--bootstrap", "0", "--no-progress"]
        assert main(argv) == 0
    return base


def test_leaderboard_groups_runs_by_judge(tiny_root, real_runs, ah_rows, capsys):
    from agenthorizon.judging.runs.folder import read_results

    capsys.readouterr()
    ah_s_rows = load_references(tiny_root, CONFIG_AH_S)
    runs = [str(real_runs / name) for name in ("yes-ah", "lex-ah", "lex-ahs")]
    assert main(["leaderboard", *runs, "--data", str(tiny_root), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    judges = {entry["judge"]: entry for entry in data["judges"]}
    expected = {
        name: score(read_results([real_runs / folder]).predictions(), rows).balanced_accuracy
        for name, folder, rows in (("lexical", "lex-ah", ah_rows), ("constant:true", "yes-ah", ah_rows))
    }
    assert expected["lexical"] != expected["constant:true"]  # so the ranking is tested
    ranked = sorted(expected, key=lambda name: -expected[name])
    assert [entry["judge"] for entry in data["judges"]] == ranked  # ranked by AH balanced
    assert judges["lexical"]["reports"][CONFIG_AH]["balanced_accuracy"] == expected["lexical"]
    assert judges["lexical"]["reports"][CONFIG_AH_S]["n"] == len(ah_s_rows)  # its AH-S run, same row
    assert judges["constant:true"]["reports"][CONFIG_AH_S] is None  # not run there: blank, not zero
    assert judges["constant:true"]["reports"][CONFIG_AH]["balanced_accuracy"] == 0.5
    assert [m["config"] for m in data["manifests"]] == [CONFIG_AH, CONFIG_AH_S]

    assert main(["leaderboard", *runs, "--data", str(tiny_root), "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "| judge | AH bal. | AH pos | AH neg | AH-S bal. | AH-S pos | AH-S neg |" in markdown
    assert "| constant:true | 50.0 | 100.0 | 0.0 | – | – | – |" in markdown
    assert f"sha256 {manifest_sha256(ah_rows)}" in markdown


def test_leaderboard_rejects_a_directory_without_run_record(tiny_root, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["leaderboard", str(tmp_path / "empty"), "--data", str(tiny_root)]) == 2
    assert "no run.json" in capsys.readouterr().err


def test_leaderboard_takes_the_shards_of_one_run_from_separate_folders_as_one_row(tiny_root, tmp_path, ah_rows, capsys):
    answers = _answers(ah_rows, wrong_every=3)
    for index in (1, 2):
        _run(tiny_root, tmp_path / f"shard{index}", CONFIG_AH, answers, shard=f"{index}/2")
    capsys.readouterr()
    assert main(["leaderboard", str(tmp_path / "shard1"), str(tmp_path / "shard2"), "--data", str(tiny_root),
                 "--format", "json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["judges"]
    report = entry["reports"][CONFIG_AH]
    assert report["n"] == len(ah_rows) and report["n_invalid"] == 0
    assert report["balanced_accuracy"] == pytest.approx(score(answers, ah_rows).balanced_accuracy)


def test_leaderboard_refuses_shards_of_two_judges_in_one_folder(tiny_root, tmp_path, capsys):
    # The runner refuses a second judge in a folder; a copied record file is how
    # two experiments end up mixed, and reading must catch it.
    import shutil

    for index, spec in ((1, "constant:true"), (2, "constant:false")):
        argv = ["judge", "--data", str(tiny_root), "--config", CONFIG_AH, "--judge", spec, "--shard", f"{index}/2",
                "--out", str(tmp_path / spec.replace(":", "-")), "--bootstrap", "0", "--no-progress"]
        assert main(argv) == 0
    folder = tmp_path / "constant-true"
    shutil.copy(tmp_path / "constant-false" / "run-shard-2-of-2.json", folder)
    capsys.readouterr()
    assert main(["leaderboard", str(folder), "--data", str(tiny_root)]) == 2
    error = capsys.readouterr().err
    assert "run-shard-2-of-2.json" in error and "judge" in error and "differs" in error
