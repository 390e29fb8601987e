"""What the sandbox promises a root harness (CI runs as root): the agent holds no capability, cannot
reach a file by handle, writes nowhere but its own folders, sees nothing beside its program; its
output and its resources are bounded, and a limit it hits is an error naming the limit.

Every agent here is a real Python script run by the real CLI (``python -m agenthorizon judge``)
under real bubblewrap; each attack is also run with ``--sandbox none``, where it must succeed, so
that the test can fail.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import agenthorizon
from test_untrusted_agents import cli, results
from throwaway_host import throwaway_argv

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the promises of a root harness (CI runs as root)")

# The hostile agent. AH_HANDLES holds file handles of the label files and of the roots of the
# release and of its file system, taken on the host (what an attacker would guess or brute-force);
# AH_RELEASE the release's path. It reports what it could do as its verdict's reasoning.
HOSTILE = r"""#!{python}
import ctypes, errno, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
libc = ctypes.CDLL(None, use_errno=True)


class Handle(ctypes.Structure):
    _fields_ = [("handle_bytes", ctypes.c_uint), ("handle_type", ctypes.c_int), ("f_handle", ctypes.c_ubyte * 128)]


def by_handle(text):
    kind, data = text.split(":")
    raw = bytes.fromhex(data)
    handle = Handle(len(raw), int(kind))
    handle.f_handle[: len(raw)] = raw
    mount = os.open(".", os.O_RDONLY | os.O_DIRECTORY)  # a mount on the same file system
    fd = libc.open_by_handle_at(mount, ctypes.byref(handle), os.O_RDONLY)
    if fd < 0:
        return errno.errorcode[ctypes.get_errno()]
    try:
        return "opened: " + repr(os.listdir(fd)[:3] if os.path.isdir(f"/proc/self/fd/{{fd}}") else os.read(fd, 60))
    except OSError as error:
        return "opened: " + str(error)


def own_handle():
    handle, mount_id = Handle(128), ctypes.c_int()
    if libc.name_to_handle_at(-100, b".", ctypes.byref(handle), ctypes.byref(mount_id), 0) < 0:
        return errno.errorcode[ctypes.get_errno()]
    return by_handle(f"{{handle.handle_type}}:{{bytes(handle.f_handle[: handle.handle_bytes]).hex()}}")


def write(path):
    try:
        with open(path, "a") as handle:
            handle.write("agenthorizon hostile agent was here\n")
        return "written"
    except OSError as error:
        return errno.errorcode[error.errno]


release = os.environ["AH_RELEASE"]
status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\t" in line)
found = {{
    "uid": os.getuid(),
    "cap_eff": status["CapEff"].strip(),
    "cap_bnd": status["CapBnd"].strip(),
    "handles": {{name: by_handle(text) for name, text in json.loads(os.environ["AH_HANDLES"]).items()}},
    "own_handle": own_handle(),
    "writes": {{path: write(path) for path in (
        os.path.join(release, "sandbox", "AGENTS.md"), os.path.join(release, "planted.txt"),
        os.path.join(HERE, "planted.txt"), os.path.join(os.path.dirname(os.getcwd()), "planted.txt"),
        *json.loads(os.environ["AH_SYSTEM"]))}},
    "own_writes": {{path: write(path) for path in ("planted.txt", "/dev/null", os.path.join(os.environ["TMPDIR"], "t"))}},
    "siblings": sorted(os.listdir(HERE)),
    "tmp_bytes": os.statvfs("/tmp").f_blocks * os.statvfs("/tmp").f_frsize,
}}
print(json.dumps({{"success": True, "reasoning": json.dumps(found)}}))
"""


class _Handle(ctypes.Structure):
    _fields_ = [("handle_bytes", ctypes.c_uint), ("handle_type", ctypes.c_int), ("f_handle", ctypes.c_ubyte * 128)]


def file_handle(path: Path) -> str:
    """``type:hex`` of ``path``'s file handle (name_to_handle_at), as an attacker would encode one."""
    libc = ctypes.CDLL(None, use_errno=True)
    handle, mount_id = _Handle(128), ctypes.c_int()
    assert libc.name_to_handle_at(-100, str(path).encode(), ctypes.byref(handle), ctypes.byref(mount_id), 0) == 0
    return f"{handle.handle_type}:{bytes(handle.f_handle[:handle.handle_bytes]).hex()}"


def file_system_root(path: Path) -> Path:
    """The mount point of the file system holding ``path``."""
    device = path.stat().st_dev
    while path.parent != path and path.parent.stat().st_dev == device:
        path = path.parent
    return path


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


# What the hostile agent tries to change on the machine itself.
SYSTEM = ("/etc/planted.txt", "/usr/planted.txt", "/planted.txt", "/proc/sys/kernel/hostname")


def host_state() -> dict[str, object]:
    """The hostname, and which of the SYSTEM files exist, on the host."""
    return {"hostname": Path("/proc/sys/kernel/hostname").read_text(),
            **{path: os.path.exists(path) for path in SYSTEM[:-1]}}


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_hostile_agent_has_no_capability_no_handle_no_write_and_no_siblings(bubblewrap, tiny_copy, tmp_path,
                                                                             tmp_path_factory, sandbox):
    # The layout of the issue: the agent script in a project folder that also holds the release.
    project = tmp_path / "proj"
    project.mkdir()
    release = project / "release"
    tiny_copy.rename(release)
    agent = project / "agent.py"
    agent.write_text(HOSTILE.format(python=sys.executable))
    agent.chmod(0o755)
    labels = sorted(release.glob("*.jsonl"))
    handles = {path.name: file_handle(path) for path in labels}
    handles["release root"] = file_handle(release)
    handles["file system root"] = file_handle(file_system_root(release))
    before = tree_digest(release)
    out = tmp_path / "run"
    host = host_state()
    assert not any(host[path] for path in SYSTEM[:-1]), f"left by an earlier run: {host}"
    # The judge runs in a throwaway namespace (tests/throwaway_host.py): the control's writes to the
    # system folders and the hostname must succeed, and must not reach this machine; were the sandbox
    # broken, the confined agent's would not reach it either (and its writes would show as written).
    (tmp_path / "tmp").mkdir()
    command = [sys.executable, "-m", "agenthorizon", "judge", "--data", str(release), "--config", "AH",
               "--judge", f"command:{agent}", "--out", str(out), "--no-progress", "--bootstrap", "0",
               "--sandbox", sandbox, "--limit", "1",
               # the agent gets no variable of the harness's but those named (--env)
               "--env", "AH_HANDLES", "--env", "AH_RELEASE", "--env", "AH_SYSTEM"]
    done = subprocess.run(throwaway_argv(command, tmp_path_factory.mktemp("throwaway"), [tmp_path]),
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TMPDIR": str(tmp_path / "tmp"), "AH_HANDLES": json.dumps(handles),
                               "AH_RELEASE": str(release), "AH_SYSTEM": json.dumps(SYSTEM)})
    assert done.returncode == 0, done.stderr
    assert host_state() == host  # the host's hostname and system folders, untouched either way
    (result,) = results(out).values()
    found = json.loads(result["verdict"]["reasoning"])
    print(sandbox, json.dumps(found, indent=1))
    assert found["own_writes"]["planted.txt"] == "written" and found["own_writes"]["/dev/null"] == "written"
    if sandbox == "bwrap":
        assert found["uid"] == 65534  # nobody, in a user namespace of its own
        assert int(found["cap_eff"], 16) == 0 and int(found["cap_bnd"], 16) == 0  # (a)
        assert set(found["handles"].values()) == {"EPERM"} and found["own_handle"] == "EPERM"  # (b)
        assert set(found["writes"].values()) <= {"ENOENT", "EACCES", "EROFS"}, found["writes"]  # (c)
        assert tree_digest(release) == before
        assert found["siblings"] == ["agent.py"]  # (d)
        assert found["tmp_bytes"] == 2**30  # the private /tmp is memory: bounded
        assert sorted(p.name for p in project.iterdir()) == ["agent.py", "release"]
        assert list((tmp_path / "tmp").iterdir()) == []
        # What it was given is recorded: the script file alone, never its folder.
        exposure = json.loads((out / "run.json").read_text())["judge"]["exposure"]
        assert str(agent) in exposure["read_only"] and str(project) not in exposure["read_only"] + exposure["read_write"]
    else:  # the control: unconfined, as root, every one of these attacks works
        assert int(found["cap_eff"], 16) != 0
        assert all(value.startswith("opened") for value in found["handles"].values()), found["handles"]
        assert found["writes"][str(release / "sandbox" / "AGENTS.md")] == "written"
        assert all(found["writes"][path] == "written" for path in SYSTEM), found["writes"]
        assert "release" in found["siblings"]


def test_dry_run_prints_what_an_agent_gets_without_judging(bubblewrap, tiny_root, tmp_path):
    agent = tmp_path / "proj" / "agent.py"
    agent.parent.mkdir()
    agent.write_text(HOSTILE.format(python=sys.executable))
    agent.chmod(0o755)
    (agent.parent / "notes.txt").write_text("a sibling")
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "agenthorizon", "judge", "--data", str(tiny_root), "--config", "AH",
                           "--judge", f"command:{agent}", "--out", str(out), "--dry-run"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    read_only = done.stdout.split("read-only:\n")[1].split("read-write:")[0].split()
    read_write = done.stdout.split("read-write:\n")[1].split("private")[0].split()
    assert str(agent) in read_only and str(agent.parent) not in read_only
    assert str(Path(sys.executable).parent.parent) in read_only  # the interpreter's virtual environment
    assert read_write == ["<item>/out", "<item>/usage"]  # the item's other folders are on its disk budget
    private = done.stdout.split("private per item, on the disk budget:\n")[1].split("limits:")[0].split()
    assert private == ["/tmp", "/var/tmp", "/run", "<item>/work", "<item>/tmp"]
    assert "disk: 1 GiB for all the agent writes" in done.stdout
    assert "nobody (uid 65534)" in done.stdout and "no capability" in done.stdout
    assert not out.exists()  # nothing judged, no run folder


def bench_agent_output():
    """benchmarks/bench_agent_output.py: its loud agent, judged by the CLI in a process that reports its peak memory."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_agent_output.py"
    spec = importlib.util.spec_from_file_location("bench_agent_output", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_50_mb_answer_is_cut_to_its_end_with_bounded_memory(bubblewrap, tiny_root, tmp_path):
    cap, bench = 4 * 2**20, bench_agent_output()
    quiet, quiet_peak, _ = bench.judge_once(tiny_root, tmp_path, "quiet", 1000, "4M")
    loud, loud_peak, size = bench.judge_once(tiny_root, tmp_path, "loud", 50 * 10**6, "4M")
    print(f"harness peak RSS: {quiet_peak} MiB quiet, {loud_peak} MiB with 50 MB of output; result {size} bytes")
    assert quiet["telemetry"]["truncated_bytes"] is None
    # The verdict, at the very end, is read from what was kept; the drop is said, in telemetry and text.
    assert loud["parse_status"] == "ok" and loud["verdict"]["reasoning"] == "at the end"
    dropped = loud["telemetry"]["truncated_bytes"]
    assert 50 * 10**6 - cap <= dropped <= 50 * 10**6 - cap + 2048
    # the one note every judge kind opens a cut answer with (output_cap.truncation_note)
    assert loud["raw_output"].startswith(f"[agenthorizon: answer cut to its last {cap} bytes (max_output_bytes); "
                                         f"the first {dropped} bytes were dropped]\n")
    assert size < cap + 64 * 1024
    # Less than the output itself: the harness never held the 50 MB (it used to hold several copies).
    assert (loud_peak - quiet_peak) * 2**20 < 50 * 10**6 / 2


LIMITED = r"""
import json, os, re, sys, time
tid = re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", sys.stdin.read()).group(0)
mode = json.loads(os.environ["AH_MODES"]).get(tid, "answer")
if mode == "fork bomb":
    while True:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
elif mode == "allocate":
    hog = bytearray(2**30)
elif mode == "open files":
    files = [open("/dev/null") for _ in range(10000)]
print(json.dumps({"success": True, "reasoning": mode}))
"""


def test_an_agent_over_a_limit_is_an_error_naming_it_and_the_run_goes_on(bubblewrap, tiny_root, tmp_path):
    ids = list(agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths")["trajectory_id"])[:4]
    modes = dict(zip(ids, ["fork bomb", "allocate", "open files", "answer"]))
    script = tmp_path / "limited.py"
    script.write_text(LIMITED)
    out = tmp_path / "run"
    process = cli(tiny_root, out, f"command:{sys.executable} {script}", tmp_path / "tmp", "--limit", "4",
                  "--concurrency", "1", "--retries", "0", "--agent-max-processes", "32", "--agent-max-memory", "256M",
                  "--agent-max-files", "64", env={"AH_MODES": json.dumps(modes)})
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 1 and "3 item(s) have no valid result yet (error 3)" in stderr, stderr
    found = results(out)
    errors = {modes[tid]: found[tid]["error"] for tid in ids[:3]}
    assert "the process limit (32 processes and threads; --agent-max-processes)" in errors["fork bomb"]
    assert "the memory limit (256 MiB per process; --agent-max-memory)" in errors["allocate"]
    assert "the open-file limit (64 per process; --agent-max-files)" in errors["open files"]
    assert found[ids[3]]["parse_status"] == "ok" and found[ids[3]]["verdict"]["reasoning"] == "answer"
    record = json.loads((out / "run.json").read_text())
    assert record["judge"]["limits"] == {"processes": 32, "memory_bytes": 256 * 2**20, "open_files": 64,
                                         "disk_bytes": 2**30}


TOGETHER = r"""
import json, os, socket, sys, time
children = []
for _ in range(20):  # 20 of the 32 processes allowed, held until the other agent holds its 20 too
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    children.append(pid)
with socket.create_connection(("127.0.0.1", int(os.environ["AH_PORT"])), timeout=60) as meeting:
    meeting.settimeout(60)
    together = meeting.recv(16) == b"both"
print(json.dumps({"success": True, "reasoning": "together" if together else "alone"}))
"""


def test_the_process_limit_counts_each_agent_apart(bubblewrap, tiny_root, tmp_path):
    """RLIMIT_NPROC counts per user within a user namespace: two agents, both nobody on the host,
    each hold 20 processes at the same moment under a limit of 32 (40 would be refused were they counted together)."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(120)
    met: list[socket.socket] = []

    def meet() -> None:
        try:
            while len(met) < 2:
                met.append(server.accept()[0])
            for connection in met:
                connection.sendall(b"both")
        except OSError:
            pass
        finally:
            for connection in met:
                connection.close()

    meeting = threading.Thread(target=meet, daemon=True)
    meeting.start()
    script = tmp_path / "together.py"
    script.write_text(TOGETHER)
    out = tmp_path / "run"
    try:
        process = cli(tiny_root, out, f"command:{sys.executable} {script}", tmp_path / "tmp", "--limit", "2",
                      "--concurrency", "2", "--retries", "0", "--agent-max-processes", "32",
                      "--agent-endpoint", f"http://127.0.0.1:{server.getsockname()[1]}",
                      env={"AH_PORT": str(server.getsockname()[1])})
        stdout, stderr = process.communicate(timeout=300)
    finally:
        server.close()
        meeting.join(10)
    assert process.returncode == 0, stderr
    assert [r["verdict"]["reasoning"] for r in results(out).values()] == ["together", "together"]


def test_a_machine_that_refuses_user_namespaces_is_told_how_to_allow_them(bubblewrap, tmp_path):
    # A real refusal: the check runs as an unprivileged user (no setpriv step) inside a bubblewrap
    # that forbids user namespaces, as a host with user.max_user_namespaces=0 does.
    probe = tmp_path / "probe"
    probe.mkdir()
    code = ("from pathlib import Path\nfrom agenthorizon.judging.judges.sandbox import check_sandbox\n"
            f"check_sandbox(Path({str(probe)!r}))\n")
    done = subprocess.run(["bwrap", "--dev-bind", "/", "/", "--unshare-user", "--uid", "1000", "--gid", "1000",
                           "--disable-userns", "--", sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    message = done.stderr.strip().splitlines()[-1]
    assert "this machine refuses user namespaces" in message and "sysctl -w user.max_user_namespaces" in message
    assert "--sandbox none" in message


def test_a_program_is_exposed_as_its_file_unless_it_belongs_to_an_installation(tmp_path):
    from agenthorizon.judging.judges.sandbox import program_paths

    def executable(path: Path, text: str = "#!/bin/sh\n") -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)
        return path

    # A script in a project folder beside a release: that file, never the folder.
    script = executable(tmp_path / "proj" / "agent.py")
    (tmp_path / "proj" / "release").mkdir()
    assert program_paths([str(script)], os.environ) == [script]
    # ... even in a folder named bin, when nothing makes it an installation.
    lone = executable(tmp_path / "scripts" / "bin" / "judge")
    assert program_paths([str(lone)], os.environ) == [lone]
    # npm's global prefix: the link in bin/, the whole prefix, the real file.
    prefix = tmp_path / "npm"
    real = executable(prefix / "lib" / "node_modules" / "cli" / "cli.js")
    (prefix / "bin").mkdir()
    (prefix / "bin" / "cli").symlink_to(real)
    assert program_paths(["cli"], {"PATH": str(prefix / "bin")}) == [prefix / "bin" / "cli", prefix, real]
    # A virtual environment's program, and a script whose #! names it: the environment.
    venv = tmp_path / "venv"
    tool = executable(venv / "bin" / "tool")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    assert program_paths([str(tool)], os.environ) == [tool, venv]
    other = executable(tmp_path / "elsewhere" / "run.py", f"#!{tool}\n")
    assert program_paths([str(other)], os.environ) == [other, tool, venv]


# A fake harness CLI: no real CLI can be made to plant a link or a FIFO in place of its answer file
# on request, so this script stands in for one that does (a hostile agent's last act). It writes its
# answer file as the item's mode (AH_MODES: trajectory id -> mode) says.
PLANTER = r"""#!{python}
import json, os, re, sys
if sys.argv[1:] == ["--version"]:
    print("planter 1.0")
    sys.exit(0)
answer = sys.argv[1]
tid = re.search(r"[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}", sys.stdin.read()).group(0)
mode = json.loads(os.environ["AH_MODES"])[tid]
verdict = json.dumps({{"success": True, "reasoning": mode}})
if mode == "link to the labels":
    os.symlink(os.environ["AH_LABELS"], answer)
elif mode == "fifo":
    os.mkfifo(answer)
elif mode == "sparse":
    with open(answer, "wb") as handle:
        handle.seek(2**34)  # 16 GiB long, next to nothing on disk
        handle.write(b"\n" + verdict.encode())
else:
    with open(answer, "w") as handle:
        handle.write(verdict)
print("the answer is in the file")
"""

# The real runner in a child process, so that a harness blocked on a FIFO is a test failing on its
# timeout rather than a hung suite.
PLANTED_RUN = r"""
import json, sys
import agenthorizon
from agenthorizon.judging.judges.presets import Harness, HarnessJudge
from agenthorizon.judging.runs.runner import run_judge
root, planter, out, cache, options, limit = sys.argv[1:]
harness = Harness(name="planter", title="Planter", package="planter", tested_version="1.0",
                  argv=(planter, "{answer_file}"), stdin="{prompt}", reader="text",
                  tools={"paper": (), "read-only": ()}, answer_file=True, passed_env=("AH_*",))
dataset = agenthorizon.load_dataset(root, "AH", split="test", images="paths", cache_dir=cache)
judge = HarnessJudge(harness, "m", sandbox="bwrap", **json.loads(options))
summary = run_judge(judge, dataset, out, data_root=root, limit=int(limit), concurrency=1, retries=0, progress=False)
print(json.dumps({"error": summary.counts.error}))
"""


def test_an_answer_file_that_is_a_link_or_a_fifo_is_refused_and_the_run_goes_on(bubblewrap, tiny_root, tmp_path):
    """The harness reads the answer file as root outside the sandbox: a link to a host file must not
    bring that file into the result, nor a FIFO hang the item."""
    ids = list(agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths",
                                         cache_dir=tmp_path / "cache")["trajectory_id"])[:4]
    modes = dict(zip(ids, ["link to the labels", "fifo", "sparse", "answer"]))
    labels = tiny_root / "AgentHorizon.jsonl"
    assert '"label": ' in labels.read_text()  # what a followed link would have copied into the result
    planter = tmp_path / "planter.py"
    planter.write_text(PLANTER.format(python=sys.executable))
    planter.chmod(0o755)
    out = tmp_path / "run"
    # A disk budget over the sparse file's 16 GiB: the file-size limit would refuse it (test_agent_disk.py).
    options = {"max_output_bytes": 4096, "agent_max_disk": "32GiB"}
    done = subprocess.run([sys.executable, "-c", PLANTED_RUN, str(tiny_root), str(planter), str(out),
                           str(tmp_path / "cache"), json.dumps(options), "4"], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TMPDIR": str(tmp_path), "AH_MODES": json.dumps(modes),
                               "AH_LABELS": str(labels)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"error": 2}
    found = results(out)
    link, fifo, sparse, answer = (found[tid] for tid in ids)
    assert f"answer file {tmp_path}" in link["error"]  # the item's answer folder, on the host
    assert f"answer.txt is a symbolic link to {str(labels)!r}; refused" in link["error"]
    assert "answer.txt is a FIFO (named pipe); refused" in fifo["error"]
    for result in found.values():
        assert all('"label": ' not in (result[field] or "") for field in ("raw_output", "error")), result
    # A 16 GiB sparse file costs a read of its last max_output_bytes: its verdict, at the end, is read.
    assert sparse["parse_status"] == "ok" and sparse["verdict"]["reasoning"] == "sparse"
    assert len(sparse["raw_output"]) < 4096
    assert sparse["telemetry"]["truncated_bytes"] >= 2**34 - 4096  # the 16 GiB cut from the file are counted
    assert answer["parse_status"] == "ok" and answer["verdict"]["reasoning"] == "answer"


DEEP = r"""
import json, os
for _ in range(3000):  # deeper than Python's recursion limit, and than PATH_MAX from the item's folder
    os.mkdir("d")
    os.chdir("d")
print(json.dumps({"success": True, "reasoning": "deep"}))
"""


def test_an_agent_leaving_a_very_deep_tree_is_judged_and_its_folder_removed(bubblewrap, tiny_root, tmp_path):
    """The item's folder is removed after the agent, whatever it left: a tree deeper than Python's
    recursion limit made shutil.rmtree (Python 3.11) raise RecursionError and leave the folder behind."""
    script = tmp_path / "deep.py"
    script.write_text(DEEP)
    out = tmp_path / "run"
    process = cli(tiny_root, out, f"command:{sys.executable} {script}", tmp_path / "tmp", "--limit", "2",
                  "--concurrency", "1", "--retries", "0")
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    assert [r["verdict"]["reasoning"] for r in results(out).values()] == ["deep", "deep"]
    assert list((tmp_path / "tmp").iterdir()) == []
