"""``sweep run``: one cell is one judge run, with its own model server started, waited for and stopped."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agenthorizon.cli import main
from agenthorizon.judging.runs.folder import is_result_name
from sweep_files import command_judge_table, openai_judge_table, toml_text, write_sweep


def _results(folder: Path) -> dict[str, dict]:
    return {path.stem: json.loads(path.read_text()) for path in folder.iterdir() if is_result_name(path)}


def _server_pid(log: Path) -> int:
    return int(re.findall(r"listening on 127\.0\.0\.1:\d+, pid (\d+)", log.read_text())[-1])


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_cell_with_a_server_starts_it_judges_against_it_and_stops_it(tiny_root, tmp_path):
    path = write_sweep(tmp_path, tiny_root, judges=openai_judge_table("--startup", "0.5"), configs='["AH"]')
    assert main(["sweep", "run", str(path), "--cell", "1"]) == 0
    folder = tmp_path / "runs" / "direct" / "AH"
    results = _results(folder)
    assert len(results) == 4 and {r["parse_status"] for r in results.values()} == {"ok"}  # shard 2 of 2 of AH's 8
    log = folder / "sweep" / "server-shard-2-of-2.log"
    text = log.read_text()
    # The server's own output is kept: it was polled until ready, then judged against.
    assert "request /v1/models" in text and "request /v1/chat/completions" in text
    assert _gone(_server_pid(log))
    manifest = json.loads((folder / "sweep" / "shard-2-of-2.json").read_text())
    assert (manifest["shard_index"], manifest["shard_count"], manifest["n_items"], manifest["cell"]) == (2, 2, 4, 1)


def test_a_server_that_never_answers_is_stopped_and_its_log_named(tiny_root, tmp_path, capsys):
    table = openai_judge_table("--startup", "3600").replace("server_timeout = 60", "server_timeout = 2")
    path = write_sweep(tmp_path, tiny_root, judges=table, configs='["AH"]')
    assert main(["sweep", "run", str(path), "--cell", "0"]) == 1
    log = tmp_path / "runs" / "direct" / "AH" / "sweep" / "server-shard-1-of-2.log"
    err = capsys.readouterr().err
    assert "did not answer" in err and "within 2 s" in err and str(log) in err
    assert _gone(_server_pid(log))
    assert not _results(log.parent.parent)


def test_a_cell_stopped_while_its_server_loads_stops_the_server(tiny_root, tmp_path):
    path = write_sweep(tmp_path, tiny_root, judges=openai_judge_table("--startup", "3600"), configs='["AH"]')
    log = tmp_path / "runs" / "direct" / "AH" / "sweep" / "server-shard-1-of-2.log"
    process = subprocess.Popen([sys.executable, "-m", "agenthorizon", "sweep", "run", str(path), "--cell", "0"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (log.exists() and "pid" in log.read_text()):
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)  # as scancel or a pod's deletion does
    assert process.wait(timeout=60) != 0
    pid = _server_pid(log)
    gone = _gone(pid)
    if not gone:
        os.kill(pid, signal.SIGKILL)  # the bug this test is about: leave nothing behind anyway
    assert gone


def test_a_server_that_exits_is_reported_with_its_status(tiny_root, tmp_path, capsys):
    crash = shlex.join([sys.executable, "-c", "import sys; print('no GPU'); sys.exit(3)", "{port}"])
    table = ('[[judge]]\nspec = "openai:sweep-model"\nname = "direct"\n'
             f'server = {toml_text(crash)}\n'
             'options = { base-url = "http://127.0.0.1:{port}/v1", images = "none" }\n')
    path = write_sweep(tmp_path, tiny_root, judges=table, configs='["AH"]')
    assert main(["sweep", "run", str(path), "--cell", "0"]) == 1
    assert "exited with status 3" in capsys.readouterr().err
    assert "no GPU" in (tmp_path / "runs" / "direct" / "AH" / "sweep" / "server-shard-1-of-2.log").read_text()


@pytest.mark.parametrize("variable", ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"])
def test_the_cell_comes_from_the_schedulers_variable(tiny_root, tmp_path, monkeypatch, variable):
    monkeypatch.delenv("SLURM_ARRAY_TASK_ID", raising=False)
    monkeypatch.delenv("JOB_COMPLETION_INDEX", raising=False)
    monkeypatch.setenv(variable, "3")
    path = write_sweep(tmp_path, tiny_root, judges='[[judge]]\nspec = "lexical"\n')
    assert main(["sweep", "run", str(path)]) == 0
    # Cell 3: AH-S, shard 2 of 2 (5 of its 11 items); nothing else was judged.
    assert len(_results(tmp_path / "runs" / "lexical" / "AH-S")) == 5
    assert not (tmp_path / "runs" / "lexical" / "AH").exists()


def test_without_a_cell_or_a_scheduler_variable_run_says_what_it_needs(tiny_root, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SLURM_ARRAY_TASK_ID", raising=False)
    monkeypatch.delenv("JOB_COMPLETION_INDEX", raising=False)
    path = write_sweep(tmp_path, tiny_root, judges='[[judge]]\nspec = "lexical"\n')
    assert main(["sweep", "run", str(path)]) == 2
    assert "SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX" in capsys.readouterr().err
    assert main(["sweep", "run", str(path), "--cell", "4"]) == 2
    assert "has cells 0..3" in capsys.readouterr().err


def test_a_cell_folder_holding_another_run_is_refused(tiny_root, tmp_path, capsys):
    path = write_sweep(tmp_path, tiny_root, judges=command_judge_table(), configs='["AH"]')
    folder = tmp_path / "runs" / "cmd" / "AH"
    # Another experiment already lives there: an unsharded run of another judge.
    assert main(["judge", "--data", str(tiny_root), "--config", "AH", "--judge", "lexical", "--out", str(folder),
                 "--no-progress"]) == 0
    before = sorted(p.name for p in folder.iterdir())
    assert main(["sweep", "run", str(path), "--cell", "0"]) == 2
    err = capsys.readouterr().err
    assert "holds another run" in err and "run.json (an unsharded run)" in err
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing written


def test_a_rerun_of_a_finished_cell_judges_nothing_again(tiny_root, tmp_path, capsys):
    path = write_sweep(tmp_path, tiny_root, judges=command_judge_table(), configs='["AH"]')
    assert main(["sweep", "run", str(path), "--cell", "0"]) == 0
    folder = tmp_path / "runs" / "cmd" / "AH"
    first = {name: (folder / f"{name}.json").stat().st_mtime_ns for name in _results(folder)}
    capsys.readouterr()
    assert main(["sweep", "run", str(path), "--cell", "0"]) == 0
    assert {name: (folder / f"{name}.json").stat().st_mtime_ns for name in _results(folder)} == first
