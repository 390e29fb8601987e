"""`agenthorizon score` and `agenthorizon leaderboard` on result directories."""

from __future__ import annotations

import csv
import io
import json
import uuid
from pathlib import Path

import pytest

from agenthorizon.cli import main
from agenthorizon.release.labels import manifest_sha256
from agenthorizon.judging.runs.records import write_json_atomic
from agenthorizon.schema import CONFIG_AH, CONFIG_AH_S, POSITIVE
from agenthorizon.scoring.metrics import score
from agenthorizon.release.source import load_references


def _result(trajectory_id: str, success, *, status: str = "ok", mistake_type=None) -> dict:
    verdict = None if status != "ok" else {"success": success, "mistake_type": mistake_type, "reasoning": "r"}
    return {"trajectory_id": trajectory_id, "judge": "test", "parse_status": status, "verdict": verdict}


def _write_run(run_dir: Path, rows, *, judge: str, config: str, wrong_every: int = 0) -> dict[str, dict]:
    """A run directory answering every row (wrong on every `wrong_every`-th)."""
    written = {}
    for i, row in enumerate(rows):
        truth = row["label"] == POSITIVE
        answer = (not truth) if wrong_every and i % wrong_every == 0 else truth
        record = _result(row["trajectory_id"], answer, mistake_type=row["mistake_type"] or None)
        write_json_atomic(run_dir / f"{row['trajectory_id']}.json", record)
        written[row["trajectory_id"]] = record
    write_json_atomic(run_dir / "run.json", {"judge": {"name": judge}, "config": config})
    return written


@pytest.fixture()
def ah_rows(tiny_root):
    return load_references(tiny_root, CONFIG_AH)


@pytest.fixture()
def damaged_run(tmp_path, ah_rows):
    """Results for AH with one missing, one malformed, one unexpected file and a stray note."""
    run_dir = tmp_path / "run"
    written = _write_run(run_dir, ah_rows, judge="test", config=CONFIG_AH, wrong_every=3)
    missing_id = ah_rows[0]["trajectory_id"]
    (run_dir / f"{missing_id}.json").unlink()
    del written[missing_id]
    malformed_id = ah_rows[1]["trajectory_id"]
    (run_dir / f"{malformed_id}.json").write_text('{"parse_status": "ok", "verd', encoding="utf-8")
    written[malformed_id] = None
    unexpected_id = str(uuid.UUID(int=12345))
    write_json_atomic(run_dir / f"{unexpected_id}.json", _result(unexpected_id, True))
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
    expected = score({k: v if v is not None else "{" for k, v in written.items()}, ah_rows)
    assert data["balanced_accuracy"] == pytest.approx(expected.balanced_accuracy)


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
    half = len(ah_rows) // 2
    _write_run(tmp_path / "shard0", ah_rows[:half], judge="j", config=CONFIG_AH)
    jsonl = tmp_path / "rest.jsonl"
    jsonl.write_text(
        "".join(json.dumps({"trajectory_id": r["trajectory_id"], "success": r["label"] == POSITIVE}) + "\n" for r in ah_rows[half:]),
        encoding="utf-8",
    )
    args = ["score", str(tmp_path / "shard0"), str(jsonl), "--data", str(tiny_root), "--format", "json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["balanced_accuracy"] == 1.0 and data["n_invalid"] == 0


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


def test_leaderboard_groups_runs_by_judge(tiny_root, tmp_path, ah_rows, capsys):
    ah_s_rows = load_references(tiny_root, CONFIG_AH_S)
    _write_run(tmp_path / "good-ah", ah_rows, judge="good", config=CONFIG_AH)
    _write_run(tmp_path / "good-ahs", ah_s_rows, judge="good", config=CONFIG_AH_S)
    _write_run(tmp_path / "bad-ah", ah_rows, judge="bad", config=CONFIG_AH, wrong_every=2)
    runs = [str(tmp_path / name) for name in ("bad-ah", "good-ah", "good-ahs")]
    assert main(["leaderboard", *runs, "--data", str(tiny_root), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    judges = {entry["judge"]: entry for entry in data["judges"]}
    assert [entry["judge"] for entry in data["judges"]] == ["good", "bad"]  # ranked by AH balanced
    assert judges["good"]["reports"][CONFIG_AH]["balanced_accuracy"] == 1.0
    assert judges["good"]["reports"][CONFIG_AH_S]["n"] == len(ah_s_rows)
    assert judges["bad"]["reports"][CONFIG_AH_S] is None  # not run there: blank, not zero
    assert judges["bad"]["reports"][CONFIG_AH]["balanced_accuracy"] < 1.0
    assert [m["config"] for m in data["manifests"]] == [CONFIG_AH, CONFIG_AH_S]

    assert main(["leaderboard", *runs, "--data", str(tiny_root), "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "| judge | AH bal. | AH pos | AH neg | AH-S bal. | AH-S pos | AH-S neg |" in markdown
    assert "| good | 100.0 | 100.0 | 100.0 | 100.0 | 100.0 | 100.0 |" in markdown
    assert f"sha256 {manifest_sha256(ah_rows)}" in markdown


def test_leaderboard_rejects_a_directory_without_run_record(tiny_root, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["leaderboard", str(tmp_path / "empty"), "--data", str(tiny_root)]) == 2
    assert "no run.json" in capsys.readouterr().err


def test_leaderboard_refuses_shards_of_two_judges_in_one_folder(tiny_root, tmp_path, capsys):
    folder = tmp_path / "mixed"
    for index, name in enumerate(("good", "bad")):
        shard = {"judge": {"name": name}, "config": CONFIG_AH}
        write_json_atomic(folder / f"run-shard-{index}-of-2.json", shard)
    assert main(["leaderboard", str(folder), "--data", str(tiny_root)]) == 2
    error = capsys.readouterr().err
    assert "run-shard-1-of-2.json" in error and "judge" in error and "differs" in error
