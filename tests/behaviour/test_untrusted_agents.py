"""Command agents are untrusted programs: under bubblewrap they cannot find the labels, and
stopping a run (timeout, Ctrl-C, a second Ctrl-C, SIGTERM) leaves no process and no
working directory behind.

The agents here are real scripts run by the real CLI (``python -m agenthorizon judge``), so
``/proc/$PPID/cmdline`` really holds ``--data <release>``."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.judging.judges import CommandJudge
from agenthorizon.judging.runs.folder import is_result_name
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.schema import LABEL_FILES

CHEAT = r"""
import json, os, re, sys
prompt = sys.stdin.read()
tid = re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", prompt).group(0)
LABEL_FILES = %r

def label_files(root, budget=[20000]):
    hits = []
    for folder, dirs, files in os.walk(root):
        budget[0] -= 1
        if budget[0] < 0:
            break
        dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev")]
        hits += [os.path.join(folder, f) for f in files if f in LABEL_FILES]
    return hits

# 1. the harness's command line, and every other process's
roots, how = [], []
for pid in [str(os.getppid())] + [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        words = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace").split("\0")
    except OSError:
        continue
    roots += [words[i + 1] for i, word in enumerate(words[:-1]) if word == "--data"]
found = [path for root in dict.fromkeys(roots) for path in label_files(root)]
if found:
    how.append("cmdline")
# 2. the file system
if not found:
    for top in os.listdir("/"):
        if top not in ("proc", "sys", "dev", "usr", "lib", "lib64", "bin", "sbin", "etc", "opt"):
            found += label_files("/" + top)
    if found:
        how.append("filesystem")
labels = {}
for path in found:
    for line in open(path):
        row = json.loads(line)
        labels[row["trajectory_id"]] = row
row = labels.get(tid)
if row is None:
    print(json.dumps({"success": True, "reasoning": "found nothing"}))
else:
    verdict = {"success": row["label"] == "positive", "reasoning": "cheated via " + "+".join(how)}
    if not verdict["success"]:
        verdict["mistake_type"] = row["mistake_type"]
    print(json.dumps(verdict))
""" % (LABEL_FILES,)

# Spawns a grandchild in its own session that ignores SIGTERM and carries MARK in its
# command line, then answers at once when the item is in AH_FAST, else hangs.
LINGER = r"""
import json, os, re, subprocess, sys, time
prompt = sys.stdin.read()
tid = re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", prompt).group(0)
subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)",
                  sys.argv[1]], start_new_session=True)
if tid in os.environ.get("AH_FAST", ""):
    print(json.dumps({"success": True, "reasoning": "quick"}))
    sys.exit(0)
import signal
signal.signal(signal.SIGTERM, signal.SIG_IGN)
time.sleep(600)
"""


def survivors(mark: str) -> list[str]:
    """Command lines of live (not zombie) processes carrying ``mark``, seen from the host."""
    alive = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            words = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if mark in words and state != "Z":
            alive.append(" ".join(words))
    return alive


def wait_until(condition, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def results(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in out.iterdir() if is_result_name(p)} if out.exists() else {}


def cli(tiny_root: Path, out: Path, judge: str, tmpdir: Path, *extra: str, env: dict | None = None) -> subprocess.Popen:
    """``agenthorizon judge`` in its own process, its temporary files (work dirs) in ``tmpdir``.

    ``env`` is added to its environment; the ``AH_*`` variables of it, which the tests' agents read,
    are passed on to the agent with ``--env`` (an agent gets no other variable of the harness's)."""
    tmpdir.mkdir(exist_ok=True)
    passed = [word for name in (env or {}) if name.startswith("AH_") for word in ("--env", name)]
    command = [sys.executable, "-m", "agenthorizon", "judge", "--data", str(tiny_root), "--config", "AH",
               "--judge", judge, "--out", str(out), "--no-progress", "--bootstrap", "0", *passed, *extra]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmpdir), **(env or {})})


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_cheating_agent_finds_the_labels_only_without_the_sandbox(bubblewrap, tiny_root, tmp_path, sandbox):
    script = tmp_path / "cheat.py"
    script.write_text(CHEAT)
    out = tmp_path / "run"
    process = cli(tiny_root, out, f"command:{sys.executable} {script}", tmp_path / "tmp", "--sandbox", sandbox,
                  "--concurrency", "2")
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    reasons = {r["verdict"]["reasoning"] for r in results(out).values()}
    if sandbox == "bwrap":
        assert reasons == {"found nothing"}  # neither /proc nor the file system gave the labels away
        assert "balanced accuracy 50.0%" in stdout
    else:  # the control: the same agent unconfined reads the labels through --data (proves the test can fail)
        assert reasons == {"cheated via cmdline"} and "balanced accuracy 100.0%" in stdout
        assert "unconfined" in stderr  # --sandbox none warns
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_an_agents_setsid_grandchild_never_outlives_the_item(bubblewrap, tiny_root, tmp_path, sandbox):
    dataset = agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths")
    ids = list(dataset["trajectory_id"])
    mark = f"agenthorizon-test-{secrets.token_hex(6)}"
    script = tmp_path / "linger.py"
    script.write_text(LINGER)
    workdirs = tmp_path / "work"
    workdirs.mkdir()
    os.environ["AH_FAST"] = ",".join(ids[:2])
    try:
        judge = CommandJudge([sys.executable, str(script), mark], sandbox=sandbox, timeout=3,
                             workdir_root=str(workdirs), env={"AH_FAST": os.environ["AH_FAST"]})
        # Two items answer at once (their grandchild must die with them, and must not keep
        # the item waiting on its output); two hang until the 3 s timeout kills them.
        summary = run_judge(judge, dataset.select(range(4)), tmp_path / "run", progress=False, concurrency=4,
                            retries=0)
    finally:
        del os.environ["AH_FAST"]
    assert summary.counts.ok == 2 and summary.counts.error == 2
    assert all("timed out after 3 s" in message for message in summary.errors.values())
    assert wait_until(lambda: not survivors(mark), 10), survivors(mark)
    assert list(workdirs.iterdir()) == []


@pytest.mark.parametrize("signals", [("SIGINT",), ("SIGTERM",), ("SIGINT", "SIGINT")])
def test_stopping_a_run_stops_every_agent_and_keeps_the_answers(bubblewrap, tiny_root, tmp_path, signals):
    dataset = agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths")
    first = list(dataset["trajectory_id"])[0]
    mark = f"agenthorizon-test-{secrets.token_hex(6)}"
    script = tmp_path / "linger.py"
    script.write_text(LINGER)
    out = tmp_path / "run"
    process = cli(tiny_root, out, f"command:{sys.executable} {script} {mark}", tmp_path / "tmp",
                  "--concurrency", "2", "--timeout", "600", env={"AH_FAST": first})
    try:
        # The first item answers; then two agents hang, each with a lingering grandchild.
        grandchildren = lambda: [line for line in survivors(mark) if " -c " in line]
        assert wait_until(lambda: len(results(out)) == 1 and len(grandchildren()) >= 2, 120), (
            results(out), survivors(mark), process.poll())
        started = time.monotonic()
        for name in signals:
            process.send_signal(getattr(signal, name))
            time.sleep(0.01)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert time.monotonic() - started < 30  # not the agents' 600 s
    number = getattr(signal, signals[0])
    # A second Ctrl-C that lands after the clean stop, while Python shuts down
    # (its handlers already reset to the default), ends the process by the signal.
    assert process.returncode in ((128 + number,) if len(signals) == 1 else (128 + number, -number))
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1].startswith(f"agenthorizon judge: interrupted ({signals[0]})")
    assert wait_until(lambda: not survivors(mark), 10), survivors(mark)
    assert list((tmp_path / "tmp").iterdir()) == []  # every working directory removed
    kept = results(out)
    assert list(kept) == [first] and kept[first]["verdict"]["reasoning"] == "quick"  # the answer is kept
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "interrupted" and record["counts"]["ok"] == 1
    assert record["interruption"] == {
        "cause": "signal", "reason": "KeyboardInterrupt" if signals[0] == "SIGINT" else "RunInterrupted: interrupted by SIGTERM"
    }


def test_sandbox_modes_warn_or_refuse_when_bubblewrap_is_missing_or_unusable(tmp_path, monkeypatch):
    from agenthorizon.judging.judges import PreflightError

    python = sys.executable
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no bwrap anywhere
    with pytest.warns(UserWarning, match="bubblewrap is not installed.*apt-get install bubblewrap"):
        assert CommandJudge([python, "-c", "pass"]).sandbox == "none"
    with pytest.warns(UserWarning, match="unconfined"):
        assert CommandJudge([python, "-c", "pass"], sandbox="none").sandbox == "none"
    with pytest.raises(ValueError, match="needs bubblewrap, which is not installed; install bubblewrap"):
        CommandJudge([python, "-c", "pass"], sandbox="bwrap")
    with pytest.raises(ValueError, match="sandbox must be one of"):
        CommandJudge([python, "-c", "pass"], sandbox="docker")

    # A bwrap that is installed but cannot create namespaces (some containers): the
    # run must fail before the first item with the fix, not fail every item.
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    (fake / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}/usr/bin:/bin")
    judge = CommandJudge([python, "-c", "pass"], sandbox="bwrap")
    with pytest.raises(PreflightError, match="No permissions to create new namespace.*--sandbox none"):
        judge.preflight()


def test_cli_timeout_is_the_agents_limit_and_kills_its_sandbox(bubblewrap, tiny_root, tmp_path):
    mark = f"agenthorizon-test-{secrets.token_hex(6)}"
    script = tmp_path / "linger.py"
    script.write_text(LINGER)
    out = tmp_path / "run"
    started = time.monotonic()
    process = cli(tiny_root, out, f"command:{sys.executable} {script} {mark}", tmp_path / "tmp",
                  "--timeout", "2", "--retries", "0", "--limit", "2", "--concurrency", "2")
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 1 and "Traceback" not in stderr
    assert "2 item(s) have no valid result yet (error 2)" in stderr
    errors = [r["error"] for r in results(out).values()]
    assert len(errors) == 2 and all("timed out after 2 s" in e for e in errors)  # the agent's own limit
    assert time.monotonic() - started < 120  # not the old 1800 s default
    assert wait_until(lambda: not survivors(mark), 10), survivors(mark)
    assert list((tmp_path / "tmp").iterdir()) == []
