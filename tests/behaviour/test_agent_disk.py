"""Each agent's disk is bounded (issue 30 §4.3), its limits are named from facts, and its cgroup is
used where the machine offers one and said plainly where it does not.

Real agents (Python scripts, and ``head``) under real bubblewrap, run as root (as CI runs) by the
real CLI or the real runner in a child process. The item folders live on a small tmpfs the test
mounts under its own temporary folder: the host file system an agent could have filled.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.judging.judges.agent_cgroup import find_cgroup_parent
from test_confined_agents import PLANTED_RUN
from test_untrusted_agents import cli, results

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tmpfs, and the promises of a root harness")

BUDGET = 8 * 2**20
HOST_BYTES = 48 * 2**20

# Writes 1 MiB pieces into every folder it can write (cwd, TMPDIR, /var/tmp, /run, /tmp), a new file
# each time, until the kernel refuses; then says how far it got and fails.
FILL = r"""
import errno, json, os, re, sys
tid = re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", sys.stdin.read()).group(0)
if json.loads(os.environ["AH_MODES"]).get(tid) != "fill":
    print(json.dumps({"success": True, "reasoning": "answer"}))
    sys.exit(0)
written, refused = {}, None
folders = [".", os.environ["TMPDIR"], "/var/tmp", "/run", "/tmp"]
piece = b"x" * 2**20
for n in range(200):  # 200 MiB: more than the host's 48 MiB file system, far more than the budget
    folder = folders[n % len(folders)]
    try:
        with open(os.path.join(folder, f"fill-{n}"), "wb") as handle:
            handle.write(piece)
        written[folder] = written.get(folder, 0) + len(piece)
    except OSError as error:
        refused = errno.errorcode[error.errno]
        break
print(json.dumps({"written": sum(written.values()), "refused": refused}), file=sys.stderr)
sys.exit(1)
"""


def mount_tmpfs(folder: Path, size: int) -> None:
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(folder)], check=True)


def used(folder: Path) -> int:
    info = os.statvfs(folder)
    return (info.f_blocks - info.f_bfree) * info.f_frsize


def test_an_agent_filling_its_disk_stops_at_the_budget_and_the_host_is_untouched(bubblewrap, tiny_root, tmp_path):
    ids = list(agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths")["trajectory_id"])[:2]
    modes = dict(zip(ids, ["fill", "answer"]))
    script = tmp_path / "fill.py"
    script.write_text(FILL)
    host = tmp_path / "host"
    mount_tmpfs(host, HOST_BYTES)
    peak, done = [0], threading.Event()

    def watch() -> None:  # the most the host file system holds while the agents run
        while not done.wait(0.005):
            peak[0] = max(peak[0], used(host))

    watcher = threading.Thread(target=watch, daemon=True)
    try:
        before = used(host)
        watcher.start()
        out = tmp_path / "run"
        process = cli(tiny_root, out, f"command:{sys.executable} {script}", host / "items", "--limit", "2",
                      "--concurrency", "1", "--retries", "0", "--agent-max-disk", "8MiB",
                      env={"AH_MODES": json.dumps(modes)})
        stdout, stderr = process.communicate(timeout=300)
        done.set()
        watcher.join(5)
    finally:
        done.set()
        subprocess.run(["umount", "-l", str(host)], check=False)
    assert process.returncode == 1 and "1 item(s) have no valid result yet (error 1)" in stderr, stderr
    found = results(out)
    error = found[ids[0]]["error"]
    # The kernel refused at the budget: ENOSPC (the budget full) or EFBIG (a file at the per-file limit).
    report = json.loads(error[error.index('{"written"'):].split("}")[0] + "}")
    assert report["refused"] in ("ENOSPC", "EFBIG"), report
    assert BUDGET - 2 * 2**20 <= report["written"] <= BUDGET, report  # /tmp, /var/tmp, /run, cwd, TMPDIR: one budget
    assert "the disk budget (8 MiB for all it writes in the sandbox; --agent-max-disk)" in error, error
    # The host file system never held what the agent wrote: only the item's own files (well under 1 MiB).
    assert peak[0] - before < 2**20, (peak[0], before)
    assert found[ids[1]]["parse_status"] == "ok" and found[ids[1]]["verdict"]["reasoning"] == "answer"
    record = json.loads((out / "run.json").read_text())
    assert record["judge"]["limits"]["disk_bytes"] == BUDGET
    assert record["judge"]["exposure"]["disk_bytes"] == BUDGET


# A preset-like harness (run by test_confined_agents' PLANTED_RUN) that writes its answer file (a host-visible
# folder): too big from Python (EFBIG), or by `head`, which the kernel kills with SIGXFSZ (Python ignores that
# signal, a C program does not).
WRITER = r"""#!{python}
import json, os, re, sys
import signal
if sys.argv[1:] == ["--version"]:
    print("writer 1.0")
    sys.exit(0)
answer = sys.argv[1]
tid = re.search(r"[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}", sys.stdin.read()).group(0)
mode = json.loads(os.environ["AH_MODES"]).get(tid, "answer")
if mode == "python":
    with open(answer, "wb") as handle:
        handle.write(b"x" * (12 * 2**20))
elif mode == "head":
    fd = os.open(answer, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python's own ignoring would pass to head through exec
    os.execvp("head", ["head", "-c", str(12 * 2**20), "/dev/zero"])
with open(answer, "w") as handle:
    handle.write(json.dumps({{"success": True, "reasoning": mode}}))
"""



def test_a_file_over_the_file_size_limit_in_the_answer_folder_is_named_from_facts(bubblewrap, tiny_root, tmp_path):
    ids = list(agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths",
                                         cache_dir=tmp_path / "cache")["trajectory_id"])[:3]
    modes = dict(zip(ids, ["python", "head", "answer"]))
    writer = tmp_path / "writer.py"
    writer.write_text(WRITER.format(python=sys.executable))
    writer.chmod(0o755)
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-c", PLANTED_RUN, str(tiny_root), str(writer), str(out),
                           str(tmp_path / "cache"), json.dumps({"agent_max_disk": "8MiB"}), "3"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TMPDIR": str(tmp_path), "AH_MODES": json.dumps(modes)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"error": 2}
    found = results(out)
    python, head, answer = (found[tid] for tid in ids)
    # Python's EFBIG leaves an 8 MiB file: measured in the answer folder, not read from stderr.
    assert ("wrote a file of 8 MiB to its answer folder: the file-size limit (8 MiB per file; --agent-max-disk)"
            in python["error"]), python["error"]
    assert ("was killed by SIGXFSZ: it wrote past the file-size limit (8 MiB per file; --agent-max-disk)"
            in head["error"]), head["error"]
    assert answer["parse_status"] == "ok" and answer["verdict"]["reasoning"] == "answer"


def test_the_run_says_whether_agents_get_a_cgroup_and_why_not(bubblewrap, tiny_root, tmp_path):
    """Where cgroup v2 offers no memory/pids controller to the harness (this machine: a hybrid host whose
    cgroup v1 hierarchies hold them), the run warns and records why; where it does, each agent gets one."""
    parent = find_cgroup_parent()
    script = tmp_path / "fill.py"
    script.write_text(FILL)
    out = tmp_path / "run"
    process = cli(tiny_root, out, f"command:{sys.executable} {script}", tmp_path / "tmp", "--limit", "1",
                  "--retries", "0", env={"AH_MODES": "{}"})
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    record = json.loads((out / "run.json").read_text())["judge"]["cgroup"]
    if parent.path is None:
        assert record == {"used": False, "reason": parent.reason}
        assert "agents run without a cgroup of their own" in stderr and parent.reason in stderr
    else:
        assert record["used"] is True and record["memory_max_bytes"] == 8 * 2**30 and record["pids_max"] == 1024
        assert not [p for p in parent.path.iterdir() if p.name.startswith(f"agenthorizon-")]  # removed afterwards
