"""Comparisons that cannot silently mislead (issue 9), on runs made the way users make them.

Every run here comes from the real runner through ``agenthorizon judge``:
two ``openai:`` models against an OpenAI-compatible server on loopback and
two ``command:`` judges, on the tiny sample corpus. Each test is one of the
issue's reproduced failures.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from agenthorizon.cli import main
from agenthorizon.release.files import load_references
from loopback import ModelServer

ALPHA = '```json\n{"success": true, "confidence": "high", "reasoning": "all steps done"}\n```'
BETA = 'The date is wrong.\n{"success": false, "mistake_type": "Critical Mistake", "confidence": "low", "reasoning": "no"}'
YES = 'import json, sys; sys.stdin.read(); print(json.dumps({"success": True, "reasoning": "fine"}))'
NO = (
    'import json, sys; sys.stdin.read(); '
    'print(json.dumps({"success": False, "mistake_type": "Bad Side Effect", "reasoning": "side effect"}))'
)


def judge(root, spec, out, *extra):
    """``agenthorizon judge`` as a user types it; returns the exit code."""
    return main(["judge", "--data", str(root), "--judge", spec, "--out", str(out), "--bootstrap", "0", "--no-progress", *extra])


@pytest.fixture(scope="module")
def fleet(tiny_root, tmp_path_factory):
    """Runs of four real judges: alpha and beta (openai:) on AH and AH-S, yes and no (command:) on AH."""
    base = tmp_path_factory.mktemp("fleet")
    server = ModelServer({"alpha": lambda body: ALPHA, "beta": lambda body: BETA})
    scripts = {}
    for name, code in (("yes", YES), ("no", NO)):
        scripts[name] = base / f"{name}.py"
        scripts[name].write_text(code)
    specs = {
        "alpha": "openai:alpha",
        "beta": "openai:beta",
        "yes": f"command:{sys.executable} {scripts['yes']}",
        "no": f"command:{sys.executable} {scripts['no']}",
    }
    runs = {}
    try:
        for name in ("alpha", "beta"):
            for config in ("AH", "AH-S"):
                out = base / f"{name}-{config}"
                assert judge(tiny_root, specs[name], out, "--config", config, "--base-url", server.base_url) == 0
                runs[name, config] = out
        for name in ("yes", "no"):
            out = base / f"{name}-AH"
            assert judge(tiny_root, specs[name], out, "--config", "AH") == 0
            runs[name, "AH"] = out
    finally:
        server.close()
    return {"root": tiny_root, "runs": runs, "specs": specs, "base": base, "scripts": scripts}


def leaderboard(fleet, *folders, fmt="json"):
    return main(["leaderboard", *map(str, folders), "--data", str(fleet["root"]), "--format", fmt])


# --- failure 1: one judge identity ----------------------------------------------------------


@pytest.mark.slow
def test_leaderboard_has_one_row_per_judge_settings_not_per_judge_class(fleet, capsys):
    runs = fleet["runs"]
    assert leaderboard(fleet, *runs.values()) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {row["judge"]: row for row in data["judges"]}
    # Two openai: models and two command: judges are four rows, labelled by model, else spec.
    assert set(rows) == {"alpha", "beta", fleet["specs"]["yes"], fleet["specs"]["no"]}
    assert len({row["judge_key"] for row in rows.values()}) == 4
    ah, ah_s = (len(load_references(fleet["root"], config)) for config in ("AH", "AH-S"))
    # One key on AH and on AH-S is one row with both columns filled.
    alpha, beta = rows["alpha"], rows["beta"]
    assert alpha["reports"]["AH"]["n"] == ah and alpha["reports"]["AH-S"]["n"] == ah_s
    assert alpha["reports"]["AH"]["positive_accuracy"] == 1.0 and alpha["reports"]["AH"]["negative_accuracy"] == 0.0
    assert beta["reports"]["AH-S"]["positive_accuracy"] == 0.0 and beta["reports"]["AH-S"]["negative_accuracy"] == 1.0
    # Every answer was read (fenced JSON, prose then an object): nothing invalid.
    assert all(row["reports"]["AH"]["n_invalid"] == 0 for row in rows.values())
    assert rows[fleet["specs"]["yes"]]["reports"]["AH-S"] is None  # not run there: blank, not merged
    assert sorted(Path(p).name for p in alpha["runs"]) == ["alpha-AH", "alpha-AH-S"]


@pytest.mark.slow
def test_model_a_on_ah_and_model_b_on_ah_s_stay_two_rows(fleet, capsys):
    runs = fleet["runs"]
    assert leaderboard(fleet, runs["alpha", "AH"], runs["beta", "AH-S"]) == 0
    rows = {row["judge"]: row for row in json.loads(capsys.readouterr().out)["judges"]}
    assert rows["alpha"]["reports"]["AH-S"] is None and rows["beta"]["reports"]["AH"] is None


def test_two_runs_of_one_judge_on_one_config_name_both_folders(fleet, tmp_path, capsys):
    again = tmp_path / "alpha-again"
    server = ModelServer({"alpha": lambda body: ALPHA})
    try:
        assert judge(fleet["root"], "openai:alpha", again, "--config", "AH", "--base-url", server.base_url) == 0
    finally:
        server.close()
    capsys.readouterr()
    first = fleet["runs"]["alpha", "AH"]
    assert leaderboard(fleet, first, again) == 2
    error = capsys.readouterr().err
    assert str(first) in error and str(again) in error and "two runs of judge alpha" in error


def test_the_same_model_at_another_temperature_is_another_row(fleet, tmp_path, capsys):
    hot = tmp_path / "alpha-hot"
    server = ModelServer({"alpha": lambda body: ALPHA})
    try:
        code = judge(fleet["root"], "openai:alpha", hot, "--config", "AH", "--base-url", server.base_url,
                     "--temperature", "0.7")
    finally:
        server.close()
    assert code == 0
    capsys.readouterr()
    assert leaderboard(fleet, fleet["runs"]["alpha", "AH"], hot, fmt="markdown") == 0
    out = capsys.readouterr().out
    assert out.count("| openai:alpha [") == 2  # two rows, told apart by their judge keys


def test_report_labels_runs_by_model_and_spec(fleet, tmp_path, capsys):
    runs = fleet["runs"]
    out = tmp_path / "report.html"
    folders = [runs["alpha", "AH"], runs["beta", "AH"], runs["yes", "AH"], runs["no", "AH"]]
    assert main(["report", *map(str, folders), "--data", str(fleet["root"]), "--out", str(out),
                 "--bootstrap", "0", "--thumbnails", "0"]) == 0
    html = out.read_text()
    for label in ("alpha", "beta", fleet["specs"]["yes"], fleet["specs"]["no"]):
        assert label in html
    from agenthorizon.judging.runs.folder import read_run_record

    assert read_run_record(runs["alpha", "AH"]).judge_key in html  # the run facts name the key


# --- failure 2: one item selection --------------------------------------------------------


def test_score_reads_the_config_the_run_was_made_on(tiny_root, tmp_path, capsys):
    out = tmp_path / "lexical"
    assert judge(tiny_root, "lexical", out) == 0  # judge's default config
    capsys.readouterr()
    assert main(["score", str(out), "--data", str(tiny_root), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    record = json.loads((out / "run.json").read_text())
    assert data["manifest"]["config"] == record["selection"]["config"] == record["config"]
    assert data["n"] == record["data"]["n_items"]
    assert data["unexpected_ids"] == [] and data["invalid_by_reason"]["missing"] == 0
    # --config is optional, and an error when it contradicts the run.
    assert main(["score", str(out), "--data", str(tiny_root), "--config", "AH"]) == 2
    assert "--config AH contradicts the recorded config" in capsys.readouterr().err


def test_exclude_dev_is_recorded_and_honoured_by_score_and_report(tiny_root, tmp_path, capsys):
    out = tmp_path / "constant"
    assert judge(tiny_root, "constant:true", out, "--config", "all", "--exclude-dev") == 0
    capsys.readouterr()
    wanted = load_references(tiny_root, "all", exclude_dev=True)
    assert len(wanted) < len(load_references(tiny_root, "all"))  # the tiny corpus has dev items
    assert main(["score", str(out), "--data", str(tiny_root), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n"] == len(wanted) and data["selection"]["exclude_dev"] is True
    from agenthorizon.report.runs import load_runs

    assert len(load_runs([out], tiny_root, images=None).rows) == len(wanted)


def test_exclude_dev_with_ah_d_is_one_message_everywhere(tiny_root, tmp_path, capsys):
    from agenthorizon.release.splits import EXCLUDE_DEV_WITH_AH_D, Selection

    assert judge(tiny_root, "lexical", tmp_path / "r", "--config", "AH-D", "--exclude-dev") == 2
    assert EXCLUDE_DEV_WITH_AH_D in capsys.readouterr().err
    with pytest.raises(ValueError, match=EXCLUDE_DEV_WITH_AH_D):
        Selection("AH-D", exclude_dev=True)
    with pytest.raises(ValueError, match=EXCLUDE_DEV_WITH_AH_D):
        load_references(tiny_root, "AH-D", exclude_dev=True)


def test_negative_counts_are_usage_errors(tiny_root, tmp_path, capsys):
    for command in (["score", str(tmp_path)], ["leaderboard", str(tmp_path)], ["report", str(tmp_path)]):
        with pytest.raises(SystemExit) as raised:
            main([*command, "--data", str(tiny_root), "--bootstrap", "-1"])
        assert raised.value.code == 2
        assert "expected an integer >= 0, got '-1'" in capsys.readouterr().err


# --- failure 5: trust nothing by name -----------------------------------------------------


def test_duplicate_reference_ids_are_an_error_in_every_form(tiny_root):
    from agenthorizon import score

    rows = load_references(tiny_root, "AH")
    doubled = rows + rows[:1]
    for predictions in ([True] * len(doubled), {rows[0]["trajectory_id"]: True}):
        with pytest.raises(ValueError, match=rf"references\[{len(rows)}\]: duplicate trajectory_id"):
            score(predictions, doubled)


def test_a_result_under_another_items_name_or_from_another_judge_is_invalid_and_redone(tiny_root, tmp_path, capsys):
    import shutil

    from agenthorizon import load_dataset, run_judge

    dataset = load_dataset(tiny_root, "AH", split="test", images="paths")
    ids = list(dataset["trajectory_id"])
    mine, other = tmp_path / "true", tmp_path / "false"
    run_judge("constant:true", dataset, mine, data_root=tiny_root, progress=False)
    run_judge("constant:false", dataset, other, data_root=tiny_root, progress=False)
    shutil.copy(mine / f"{ids[0]}.json", mine / f"{ids[1]}.json")  # another item's result
    shutil.copy(other / f"{ids[2]}.json", mine / f"{ids[2]}.json")  # another judge's result

    assert main(["score", str(mine), "--data", str(tiny_root), "--format", "json"]) == 1  # resumable
    data = json.loads(capsys.readouterr().out)
    assert data["invalid_by_reason"]["id_mismatch"] == 1 and data["invalid_by_reason"]["judge_mismatch"] == 1
    assert main(["score", str(mine), "--data", str(tiny_root)]) == 1
    table = capsys.readouterr().out
    assert f"holding another item's result (scored as id_mismatch): 1: {mine / ids[1]}.json" in table
    assert "written by another judge (scored as judge_mismatch): 1" in table

    summary = run_judge("constant:true", dataset, mine, data_root=tiny_root, progress=False)
    assert summary.judged == 2 and summary.counts.skipped == len(ids) - 2
    for tid in ids[1:3]:
        result = json.loads((mine / f"{tid}.json").read_text())
        assert result["trajectory_id"] == tid and result["verdict"]["success"] is True
    assert summary.score.n_invalid == 0


# --- failure 6: one experiment per folder -----------------------------------------------------


def test_resume_refuses_other_sampling_or_image_settings_naming_them(tiny_root, tmp_path, capsys):
    out = tmp_path / "alpha"
    server = ModelServer({"alpha": lambda body: ALPHA})
    try:
        base = ("--config", "AH", "--base-url", server.base_url, "--limit", "2")
        assert judge(tiny_root, "openai:alpha", out, *base) == 0
        before = (out / "run.json").read_text()
        capsys.readouterr()
        assert judge(tiny_root, "openai:alpha", out, *base, "--temperature", "0.5") == 2
        error = capsys.readouterr().err
        assert "sampling.temperature is 0.0 in the folder's run and 0.5 in this command" in error and "max_tokens" not in error
        assert judge(tiny_root, "openai:alpha", out, *base, "--max-tokens", "99") == 2
        assert "sampling.max_tokens is 2048 in the folder's run and 99 in this command" in capsys.readouterr().err
        assert judge(tiny_root, "openai:alpha", out, *base, "--images", "none") == 2
        assert "images.mode is 'auto' in the folder's run and 'none' in this command" in capsys.readouterr().err
        assert judge(tiny_root, "openai:alpha", out, *base) == 0  # the same settings resume
    finally:
        server.close()
    assert json.loads((out / "run.json").read_text())["sampling"] == json.loads(before)["sampling"]


def test_a_second_runner_fails_at_once_naming_the_holder(tiny_root, tmp_path, capsys):
    import socket

    out = tmp_path / "run"
    out.mkdir()
    holder = {"pid": os.getpid(), "host": socket.gethostname(), "started_at": "2026-11-30T12:00:00+00:00"}
    (out / "run.lock").write_text(json.dumps(holder))
    assert judge(tiny_root, "lexical", out, "--config", "AH") == 2
    error = capsys.readouterr().err
    assert f"pid {os.getpid()} on host {socket.gethostname()}, started 2026-11-30T12:00:00" in error
    assert not any(out.glob("*-*-*-*-*.json"))  # nothing judged


def test_a_stale_lock_of_a_dead_process_is_taken_over(tiny_root, tmp_path, capsys):
    import socket

    out = tmp_path / "run"
    out.mkdir()
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(finished.stdout)
    (out / "run.lock").write_text(json.dumps({"pid": dead, "host": socket.gethostname(), "started_at": "x"}))
    assert judge(tiny_root, "lexical", out, "--config", "AH") == 0
    assert not (out / "run.lock").exists()  # released at the end
    assert json.loads((out / "run.json").read_text())["counts"]["missing"] == 0


def test_shards_of_one_run_can_work_in_one_folder_at_once(tiny_root, tmp_path):
    from agenthorizon.judging.runs.folder import RunDirectory

    out = tmp_path / "run"
    first = RunDirectory(out, "run-shard-1-of-2.json")
    first.acquire()
    try:
        assert judge(tiny_root, "lexical", out, "--config", "AH", "--shard", "2/2") == 0
    finally:
        first.release()
    assert not (out / "run-shard-1-of-2.lock").exists()


def test_shards_of_another_split_are_refused_in_one_folder_naming_both(tiny_root, tmp_path, capsys):
    """Before, ``--shard 1/2`` then ``--shard 1/3`` into one --out were merged without a word (overlapping items)."""
    out = tmp_path / "run"
    assert judge(tiny_root, "lexical", out, "--config", "AH", "--shard", "1/2") == 0
    before = sorted(path.name for path in out.iterdir())
    capsys.readouterr()
    for other in ("1/3", None):
        assert judge(tiny_root, "lexical", out, "--config", "AH", *(("--shard", other) if other else ())) == 2
        error = capsys.readouterr().err
        shown = f"--shard {other}" if other else "a whole run (no --shard)"
        assert f"already holds --shard 1/2 (run-shard-1-of-2.json); this run is {shown}" in error, error
    assert sorted(path.name for path in out.iterdir()) == before  # nothing judged, no record written
    assert judge(tiny_root, "lexical", out, "--config", "AH", "--shard", "2/2") == 0  # the same split still may


# --- failures 3 and 4: one parse rule, and wrong shapes named ------------------------------


def test_the_same_raw_text_scores_the_same_on_every_route(fleet, tmp_path, capsys):
    # Alpha answers fenced JSON, beta prose followed by the verdict object.
    import agenthorizon
    from agenthorizon.judging.runs.folder import read_results

    root = fleet["root"]
    rows = load_references(root, "AH")
    for name, text in (("alpha", ALPHA), ("beta", BETA)):
        runner = json.loads((fleet["runs"][name, "AH"] / "run.json").read_text())
        assert runner["counts"]["unparseable"] == 0
        from_runner = agenthorizon.score(read_results([fleet["runs"][name, "AH"]]).predictions(), rows)
        from_text = agenthorizon.score([text] * len(rows), rows)
        metric = agenthorizon.load_metric().compute(predictions=[text] * len(rows), references=rows)
        raw = tmp_path / f"{name}.jsonl"
        raw.write_text("".join(json.dumps({"trajectory_id": r["trajectory_id"], "raw_output": text}) + "\n" for r in rows))
        assert main(["score", str(raw), "--data", str(root), "--config", "AH", "--format", "json"]) == 0
        from_cli = json.loads(capsys.readouterr().out)
        assert from_text.n_invalid == metric["n_invalid"] == from_cli["n_invalid"] == 0
        assert (
            from_runner.balanced_accuracy == from_text.balanced_accuracy
            == metric["balanced_accuracy"] == from_cli["balanced_accuracy"] == 0.5
        )


def test_known_wrong_shapes_warn_with_the_fix_and_still_score_invalid(tiny_root, tmp_path, capsys):
    import agenthorizon
    from agenthorizon.scoring.predictions import PredictionShapeWarning

    rows = load_references(tiny_root, "AH")
    truth = [row["label"] == "positive" for row in rows]
    cases = [
        ([int(t) for t in truth], "integers 0/1", "bool(x)"),
        ([str(t).lower() for t in truth], 'strings such as "true"', "pass Booleans"),
        ([row["label"] for row in rows], 'label strings "positive"/"negative"', '"positive" -> True'),
        ([{"prediction": t} for t in truth], '{"prediction": ...} objects', 'name the key "success"'),
    ]
    metric = agenthorizon.load_metric()
    for predictions, shape, fix in cases:
        with pytest.warns(PredictionShapeWarning, match=f"{len(rows)} of {len(rows)} predictions are .*{re.escape(fix)}") as caught:
            report = agenthorizon.score(predictions, rows)
        assert shape in str(caught[0].message)
        assert report.n_invalid == len(rows) and report.balanced_accuracy == 0.0  # strict all the same
        with pytest.warns(PredictionShapeWarning, match=re.escape(fix)):
            result = metric.compute(predictions=predictions, references=rows)
        assert result["n_invalid"] == len(rows) and sum(result["invalid_by_reason"].values()) == len(rows)

    jsonl = tmp_path / "predictions.jsonl"
    jsonl.write_text("".join(json.dumps({"trajectory_id": r["trajectory_id"], "prediction": t}) + "\n"
                             for r, t in zip(rows, truth)))
    assert main(["score", str(jsonl), "--data", str(tiny_root), "--config", "AH"]) == 0
    out = capsys.readouterr().out
    assert f'Warning: {len(rows)} of {len(rows)} predictions are {{"prediction": ...}} objects' in out
    assert 'name the key "success"' in out


def test_metric_compute_counts_invalid_predictions_by_reason():
    import agenthorizon

    result = agenthorizon.load_metric().compute(
        predictions=[True, None, "no verdict here", '{"success": "yes"}'],
        references=["positive", "positive", "negative", "negative"],
    )
    reasons = result["invalid_by_reason"]
    assert (reasons["missing"], reasons["no_json"], reasons["non_boolean"]) == (1, 1, 1)
    assert result["n_invalid"] == 3


# --- exit codes --------------------------------------------------------------------------------


def test_exit_codes_say_whether_every_item_has_a_result(tiny_root, tmp_path, capsys):
    flaky = tmp_path / "flaky.py"
    # Fails on the items whose id starts with a hex digit below 8, answers the others.
    flaky.write_text(
        "import glob, json, os, sys\n"
        "sys.stdin.read()\n"
        "tid = os.path.basename(glob.glob('data/jsons/*.json')[0])\n"
        "sys.exit(3) if tid[0] in '01234567' else print(json.dumps({'success': True}))\n"
    )
    out = tmp_path / "run"
    assert judge(tiny_root, f"command:{sys.executable} {flaky}", out, "--config", "AH", "--retries", "0") == 1
    captured = capsys.readouterr()
    assert "have no valid result yet (error " in captured.err and "Re-running the same command resumes them" in captured.err
    assert main(["score", str(out), "--data", str(tiny_root)]) == 1
    assert "Re-running `agenthorizon judge` into the same --out resumes them" in capsys.readouterr().err
    # Now every item answers: the resumed run and its score exit 0.
    flaky.write_text("import json, sys; sys.stdin.read(); print(json.dumps({'success': True}))\n")
    assert judge(tiny_root, f"command:{sys.executable} {flaky}", out, "--config", "AH", "--retries", "0") == 0
    assert main(["score", str(out), "--data", str(tiny_root)]) == 0
    # A limited run leaves items missing for score, which says so with 1.
    partial = tmp_path / "partial"
    assert judge(tiny_root, "lexical", partial, "--config", "AH", "--limit", "2") == 0  # all 2 selected done
    assert main(["score", str(partial), "--data", str(tiny_root)]) == 1
    # 2: usage and input errors.
    assert main(["score", str(tmp_path / "nowhere"), "--data", str(tiny_root)]) == 2


@pytest.mark.slow
def test_two_real_runners_on_one_folder_the_second_fails_at_once(tiny_root, tmp_path, capsys):
    # The first runner's judge waits for a file, so it holds the folder while the second starts.
    gate = tmp_path / "go"
    waiter = tmp_path / "waiter.py"
    waiter.write_text(
        "import json, pathlib, sys, time\n"
        "sys.stdin.read()\n"
        f"while not pathlib.Path({str(gate)!r}).exists():\n"
        "    time.sleep(0.05)\n"
        "print(json.dumps({'success': True}))\n"
    )
    out = tmp_path / "run"
    # The gate file lives outside the agent's work folder, so the agent runs unconfined.
    argv = ["judge", "--data", str(tiny_root), "--config", "AH", "--judge", f"command:{sys.executable} {waiter}",
            "--sandbox", "none", "--out", str(out), "--limit", "1", "--bootstrap", "0", "--no-progress"]
    first = subprocess.Popen([sys.executable, "-m", "agenthorizon", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        while not (out / "run.lock").exists():
            assert first.poll() is None, first.communicate()
            time.sleep(0.05)  # waiting for the first runner to start; nothing is timed
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # --sandbox none warns; not what is tested here
            assert main(argv) == 2
        assert f"is in use by another runner (pid {first.pid} on host" in capsys.readouterr().err
    finally:
        gate.touch()
        try:
            first.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            first.kill()  # never leave the first runner (and its agent) behind
            first.communicate()
            raise
    assert first.returncode == 0
    assert len(list(out.glob("*-*-*-*-*.json"))) == 1 and not (out / "run.lock").exists()


def test_a_damaged_run_record_names_the_file_and_the_field(tiny_root, tmp_path, capsys):
    out = tmp_path / "run"
    assert judge(tiny_root, "lexical", out, "--config", "AH") == 0
    record = json.loads((out / "run.json").read_text())
    record["selection"]["exclude_dev"] = "yes"
    (out / "run.json").write_text(json.dumps(record))
    capsys.readouterr()
    assert main(["score", str(out), "--data", str(tiny_root)]) == 2
    error = capsys.readouterr().err
    assert f"{out / 'run.json'}: field 'selection': exclude_dev must be true or false, got 'yes'" in error


def test_one_model_under_two_harnesses_is_labelled_by_harness():
    from agenthorizon.judging.judges import make_judge
    from agenthorizon.judging.runs.records import RunRecord, distinct_labels

    records = [RunRecord.build(make_judge(spec).spec(), None) for spec in ("codex:gpt-5.5", "opencode:gpt-5.5")]
    assert records[0].label == records[1].label == "gpt-5.5"
    assert records[0].judge_key != records[1].judge_key
    assert distinct_labels(records) == ["codex:gpt-5.5 --agent-tools paper", "opencode:gpt-5.5 --agent-tools paper"]


def test_a_dev_manifest_is_recorded_and_rebuilt_by_score(tiny_root, tmp_path, capsys):
    dev_ids = [row["trajectory_id"] for row in load_references(tiny_root, "AH-D")][:2]
    manifest = tmp_path / "dev.txt"
    manifest.write_text("\n".join(dev_ids) + "\n")
    out = tmp_path / "run"
    assert judge(tiny_root, "lexical", out, "--config", "AH-D", "--dev-manifest", str(manifest)) == 0
    selection = json.loads((out / "run.json").read_text())["selection"]
    assert selection["dev_manifest"] == str(manifest.resolve()) and len(selection["dev_manifest_sha256"]) == 64
    capsys.readouterr()
    assert main(["score", str(out), "--data", str(tiny_root), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 2


def test_a_mistyped_data_option_is_refused_not_recorded_as_provenance(tiny_root, tmp_path):
    import agenthorizon

    dataset = agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths")
    with pytest.raises(ValueError, match="unknown key\\(s\\) exclude_dv; expected dev_groups"):
        agenthorizon.run_judge("lexical", dataset, tmp_path / "run", data_root=tiny_root, progress=False,
                               data_options={"exclude_dv": True})
    assert not (tmp_path / "run" / "run.json").exists()


def test_compare_and_comparison_keep_their_public_names():
    import agenthorizon
    from agenthorizon.scoring import compare as module

    assert agenthorizon.compare is module.compare and agenthorizon.Comparison is module.Comparison
    result = agenthorizon.compare([True, False], [True, True], ["positive", "negative"], bootstrap=0)
    assert (result.balanced_accuracy_a, result.balanced_accuracy_b) == (1.0, 0.5)
