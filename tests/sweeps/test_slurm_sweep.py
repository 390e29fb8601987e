"""A sweep through real Slurm (tests/slurm_cluster.py): submit, cancel a task mid-run, resubmit it alone, collect.

Two judges (an ``openai:`` judge against the loopback server its cells start,
a ``command:`` judge) x AH, AH-S x 2 shards on the tiny corpus. Without
Slurm (not root, not installable) the ``slurm`` fixture skips with the reason.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

from agenthorizon.cli import main
from agenthorizon.judging.runs.folder import is_result_name
from agenthorizon.judging.runs.shards import shard_ids
from agenthorizon.release.files import load_references
from agenthorizon.report.leaderboard import leaderboard
from sweep_files import sweep_status, MODEL_SERVER, command_judge_table, command_spec, openai_judge_table, write_sweep

DELAY = 1.5


def _single_process_runs(tiny_root: Path, out: Path) -> list[Path]:
    """The same two judges, each config in one `agenthorizon judge` process, against the same server program."""
    from agenthorizon.sweeps.server import free_port, model_server

    folders = []
    port = free_port()
    with model_server(shlex.join([sys.executable, str(MODEL_SERVER), "--port", "{port}"]), port,
                      out.parent / "single-server.log", 60) as base_url:
        for config in ("AH", "AH-S"):
            for name, flags in (("direct", ["--judge", "openai:sweep-model", "--base-url", base_url, "--images", "none"]),
                                ("cmd", ["--judge", command_spec(DELAY), "--sandbox", "none", "--concurrency", "4"])):
                folder = out / name / config
                assert main(["judge", "--data", str(tiny_root), "--config", config, "--out", str(folder),
                             "--no-progress", *flags]) == 0
                folders.append(folder)
    return folders


def test_a_sweep_through_sbatch_survives_a_cancelled_task_and_collects_as_one_process(slurm, tiny_root, tmp_path, capsys):
    judges = openai_judge_table() + command_judge_table(delay=DELAY)
    path = write_sweep(tmp_path, tiny_root, judges=judges, extra="throttle = 2")
    capsys.readouterr()
    assert main(["sweep", "submit", str(path), "--dry-run"]) == 0
    scripts = capsys.readouterr().out
    assert scripts.count("#SBATCH --array=0-3%2") == 2 and "--judge 1" in scripts
    assert main(["sweep", "submit", str(path)]) == 0
    printed = capsys.readouterr().out
    state = json.loads((tmp_path / "runs" / "sweep-state.json").read_text())
    jobs = {job["judge"]: job for job in state["jobs"]}
    assert [jobs[0]["cells"], jobs[1]["cells"]] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert f"job {jobs[0]['job_id']}" in printed and f"job {jobs[1]['job_id']}" in printed

    # Cancel cell 4 (the command judge on AH, shard 1: array task 0 of judge 1's job) once it has answered an item.
    # The folder holds both AH shards (cells 4 and 5 run at once): wait for an answer of shard 1's own items.
    folder = tmp_path / "runs" / "cmd" / "AH"
    own = shard_ids([row["trajectory_id"] for row in load_references(tiny_root, "AH")], (1, 2))
    deadline = time.monotonic() + 300
    while not (folder.is_dir() and any(is_result_name(p) and p.stem in own for p in folder.iterdir())):
        assert time.monotonic() < deadline, slurm.command("squeue")
        time.sleep(0.1)
    slurm.command("scancel", f"{jobs[1]['job_id']}_0")
    slurm.wait_idle()
    states = sweep_status(path, capsys)
    assert states[4][0] == "partial", states
    assert 1 <= int(states[4][1].split("/")[0]) < 4
    assert all(states[cell][0] == "done" for cell in (0, 1, 2, 3, 5, 6, 7)), states
    assert "CANCELLED" in (tmp_path / "runs" / "cmd" / "slurm" / f"{jobs[1]['job_id']}_0.out").read_text()

    # --only-unfinished resubmits exactly the cancelled cell; resume judges only what it lacks.
    kept = {p.name: p.stat().st_mtime_ns for p in folder.iterdir() if is_result_name(p)}
    assert main(["sweep", "submit", str(path), "--only-unfinished"]) == 0
    state = json.loads((tmp_path / "runs" / "sweep-state.json").read_text())
    assert len(state["jobs"]) == 3 and state["jobs"][-1]["cells"] == [4] and state["jobs"][-1]["judge"] == 1
    slurm.wait_idle()
    assert set(sweep_status(path, capsys).values()) <= {("done", "4/4"), ("done", "6/6"), ("done", "5/5")}
    assert {name: (folder / name).stat().st_mtime_ns for name in kept} == kept

    # The grid's leaderboard equals one process per judge and config, item for item.
    capsys.readouterr()
    assert main(["sweep", "collect", str(path), "--format", "json"]) == 0
    collected = json.loads(capsys.readouterr().out)
    from agenthorizon.cli.sweep import _grid
    from agenthorizon.sweeps.collect import collect

    grid, items, _ = _grid(str(path))
    board = collect(grid, items).board
    reference = leaderboard(_single_process_runs(tiny_root, tmp_path / "single"), tiny_root)
    assert board.predictions == reference.predictions
    assert {key: len(value) for key, value in board.predictions.items()} == {row.judge_key: 19 for row in board}
    assert [row.reports["AH"].balanced_accuracy for row in board] == [row.reports["AH"].balanced_accuracy for row in reference]
    assert collected  # the command's own output parsed as JSON


# A command judge that fails (exit 1, no verdict) on about half the items (its prompt's sha256): its `judge` run
# ends with error results, so the array task exits 1 (Slurm: FAILED) with some of its items answered.
FLAKY_JUDGE = (
    "command:" + shlex.quote(sys.executable) + " -c "
    + shlex.quote("import sys, json, hashlib; t = sys.stdin.read(); "
                  "hashlib.sha256(t.encode()).digest()[0] % 2 and sys.exit(1); "
                  "print(json.dumps({'success': True, 'reasoning': 'read it'}))")
)


def test_a_failed_array_task_shows_failed_with_its_slurm_state_from_sacct_or_scontrol(slurm, tiny_root, tmp_path, capsys):
    from sweep_files import toml_text

    from agenthorizon.sweeps.slurm import ended_states

    judge = (f'[[judge]]\nspec = {toml_text(FLAKY_JUDGE)}\nname = "flaky"\n'
             'options = { sandbox = "none", concurrency = 1, retries = 0 }\n')
    path = write_sweep(tmp_path, tiny_root, judges=judge, configs='["AH"]', shards=1)
    capsys.readouterr()
    assert main(["sweep", "submit", str(path)]) == 0
    job_id = json.loads((tmp_path / "runs" / "sweep-state.json").read_text())["jobs"][0]["job_id"]
    slurm.wait_idle()
    # Slurm's own word for the task, read here as the command reads it (the fixture has no accounting
    # database, so `sacct` says so and scontrol answers), and checked against scontrol's own output.
    states, note = ended_states([job_id])
    assert states == {(job_id, 0): "FAILED"}, (states, note)
    assert "JobState=FAILED" in slurm.command("scontrol", "--oneliner", "show", "job", job_id)
    assert main(["sweep", "status", str(path)]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.split()[:1] == ["0"])
    state, items, word = line.split()[1:4]
    answered, total = map(int, items.split("/"))
    assert (state, word) == ("failed", "FAILED") and 0 < answered < total, out
    assert "accounting storage is disabled" in out or note is None, out
    # --only-unfinished resubmits the failed cell.
    assert main(["sweep", "submit", str(path), "--only-unfinished"]) == 0
    assert json.loads((tmp_path / "runs" / "sweep-state.json").read_text())["jobs"][-1]["cells"] == [0]
    slurm.wait_idle()
