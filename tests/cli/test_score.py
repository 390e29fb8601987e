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
from agenthorizon.release.files import load_references


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
    from agenthorizon.judging.runs.records import read_results

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


def test_a_run_folder_written_before_typed_records_still_reads():
    # tests/golden/run-v1: lexical on AH with --exclude-dev --limit 3, written by
    # agenthorizon before format_version 2 (run.json without selection or
    # judge_key, results without judge_key).
    from agenthorizon.judging.runs.records import judge_key, read_results, read_run_record
    from agenthorizon.release.splits import Selection

    folder = Path(__file__).resolve().parents[1] / "golden" / "run-v1"
    record = read_run_record(folder)
    assert record.format_version == 1 and record.label == "lexical"
    assert record.selection == Selection(
        CONFIG_AH, exclude_dev=True, label_manifest_sha256=json.loads((folder / "run.json").read_text())["data"]["manifest_sha256"]
    )
    # The same judge today has the same key, so old and new runs share a leaderboard row.
    from agenthorizon.judging.judges import make_judge

    assert record.judge_key == judge_key(make_judge("lexical").spec())
    results = read_results([folder])
    assert len(results.results) == 3 and not results.unreadable and not results.untrusted
    assert record.to_dict()["format_version"] == 2  # rewritten in the current format
