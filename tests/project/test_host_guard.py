"""The session guard (tests/host_guard.py, wired in tests/conftest.py) notices what a test run changed
on the machine: each check runs on a stand-in machine under the test's own folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import host_guard
from host_guard import Host, declared_entries, differences, final_problems, running_descendants, snapshot

TESTS = Path(__file__).resolve().parents[1]


def stand_in(tmp_path: Path) -> Host:
    """A machine of a few folders: a root with etc, usr and root, a home with a CLI config, a temp folder."""
    for folder in ("root/etc", "root/usr/bin", "root/root", "home/.claude/projects", "temp"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "root/etc/hosts").write_text("127.0.0.1 localhost\n")
    (tmp_path / "home/.claude/projects/a.json").write_text("{}")
    (tmp_path / "hostname").write_text("vm\n")
    return Host(root=tmp_path / "root", home=tmp_path / "home", temp=tmp_path / "temp",
                hostname_file=tmp_path / "hostname")


def test_a_planted_file_a_new_hostname_a_touched_cli_config_and_a_temp_leftover_are_each_named(tmp_path):
    host = stand_in(tmp_path)
    before = snapshot(host)
    assert differences(before, snapshot(host)) == []
    (host.root / "etc" / "planted.txt").write_text("was here")
    (host.root / "planted.txt").write_text("was here")
    host.hostname_file.write_text("agenthorizon hostile agent was here\n")
    (host.home / ".claude" / "projects" / "a.json").write_text('{"changed": true}')
    os.utime(host.home / ".claude" / "projects" / "a.json", ns=(1, 1))  # a change even within one mtime tick
    (host.home / ".codex").mkdir()
    (host.temp / "agenthorizon-runs-x1").mkdir()
    (host.temp / "agenthorizon-tests-y2").mkdir()  # a session's own folder, removed by that session
    (host.temp / "unrelated").mkdir()
    (host.root / "usr" / "bin").rmdir()
    assert differences(before, snapshot(host)) == [
        "hostname changed from 'vm' to 'agenthorizon hostile agent was here'",
        "/: added planted.txt",
        "/etc: added planted.txt",
        "/usr: removed bin",
        "~/.codex (the real home's CLI config): created",
        "~/.claude (the real home's CLI config): changed: projects/a.json",
        f"{host.temp}: left behind agenthorizon-runs-x1",
    ]


def test_what_the_suite_installs_on_purpose_is_allowed_by_name_only(tmp_path):
    host = stand_in(tmp_path)
    before = snapshot(host)
    (host.root / "root" / ".cache").mkdir()
    (host.root / "etc" / "chromium").mkdir()
    (host.root / "etc" / "planted.txt").write_text("x")
    allowed = declared_entries([Path("/root/.cache/agenthorizon-tests")]) | {"/etc/chromium"}
    assert allowed == {"/root/.cache", "/etc/chromium"}
    assert differences(before, snapshot(host), allowed) == ["/etc: added planted.txt"]


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="a Debian machine's dpkg")
def test_dpkg_names_the_package_that_owns_an_entry():
    # Read-only queries of this machine's dpkg database.
    assert host_guard.owned_by_packages(["/etc/debian_version"], {"base-files"}) == {"/etc/debian_version"}
    assert host_guard.owned_by_packages(["/etc/debian_version", "/etc/planted.txt"], {"bubblewrap"}) == set()
    assert "base-files" in host_guard.package_closure(["base-files"])


def test_a_process_left_running_is_named_and_one_that_ended_is_not(tmp_path):
    host = stand_in(tmp_path)
    before = snapshot(host)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        left = final_problems(host, before, os.getpid(), (), (), grace_s=0)
        assert [line for line in left if f"still running: {sleeper.pid} " in line] == [
            f"still running: {sleeper.pid} {sys.executable} -c import time; time.sleep(60)"]
    finally:
        sleeper.kill()
        sleeper.wait()
    assert not any(str(sleeper.pid) in line for line in running_descendants(os.getpid()))


# A session of the real tests/conftest.py (loaded as a plugin) watching a stand-in machine
# (AGENTHORIZON_HOST_GUARD_STAND_IN; its temporary folder is the TMPDIR the session starts with),
# whose one test changes that machine as GUARD_CHANGE says.
CHANGING = """
import os, tempfile
from pathlib import Path
def test_changes_the_machine():
    machine = Path(os.environ["AGENTHORIZON_HOST_GUARD_STAND_IN"])
    if os.environ["GUARD_CHANGE"] == "temp":
        tempfile.mkdtemp(prefix="agenthorizon-runs-", dir=machine / "temp")
    elif os.environ["GUARD_CHANGE"] == "etc and hostname":
        (machine / "root" / "etc" / "planted.txt").write_text("was here")
        (machine / "hostname").write_text("was here")
"""


@pytest.mark.parametrize(("workers", "change"), [("0", "temp"), ("0", "nothing"), ("2", "etc and hostname")])
@pytest.mark.slow
def test_a_session_that_changes_the_machine_fails_and_names_the_change(tmp_path, workers, change):
    machine = tmp_path / "machine"
    host = stand_in(machine)
    (tmp_path / "test_changing.py").write_text(textwrap.dedent(CHANGING))
    env = {**os.environ, "TMPDIR": str(host.temp), host_guard.STAND_IN_VARIABLE: str(machine),
           "GUARD_CHANGE": change, "PYTHONPATH": str(TESTS)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-q", "-n", workers, "-p", "no:cacheprovider",
                           str(tmp_path / "test_changing.py")], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    shown = done.stdout + done.stderr
    if change == "nothing":
        assert done.returncode == 0, shown
        assert "host guard" not in shown
    else:
        assert done.returncode == 1 and "1 passed" in done.stdout, shown
        assert "the test session changed this machine (tests/host_guard.py):" in done.stdout
    if change == "temp":
        (leftover,) = [p.name for p in host.temp.iterdir() if p.name.startswith("agenthorizon-runs-")]
        assert f"{host.temp}: left behind {leftover}" in done.stdout
    if change == "etc and hostname":
        assert "hostname changed from 'vm' to 'was here'" in done.stdout and "/etc: added planted.txt" in done.stdout
    assert not [p for p in host.temp.iterdir() if p.name.startswith("agenthorizon-tests-")]  # the session's own, removed
