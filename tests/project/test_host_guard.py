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


# A session of the real tests/conftest.py (loaded as a plugin) whose test leaves a folder in what
# it takes for the system temporary folder (the TMPDIR it was started with: a folder of this test's).
LEAKY = """
import os, tempfile
def test_leaves_a_folder():
    if os.environ["GUARD_LEAK"] == "1":
        tempfile.mkdtemp(prefix="agenthorizon-runs-", dir=os.environ["GUARD_SYSTEM_TEMP"])
"""


@pytest.mark.parametrize(("workers", "leak"), [("0", "1"), ("0", "0"), ("2", "1")])
def test_a_session_that_leaves_something_fails_and_names_it(tmp_path, workers, leak):
    system_temp = tmp_path / "system-temp"
    system_temp.mkdir()
    (tmp_path / "test_leaky.py").write_text(textwrap.dedent(LEAKY))
    env = {**os.environ, "TMPDIR": str(system_temp), "GUARD_SYSTEM_TEMP": str(system_temp), "GUARD_LEAK": leak,
           "PYTHONPATH": str(TESTS)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-q", "-n", workers, "-p", "no:cacheprovider",
                           str(tmp_path / "test_leaky.py")], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    if leak == "1":
        (leftover,) = [p.name for p in system_temp.iterdir() if p.name.startswith("agenthorizon-runs-")]
        assert done.returncode == 1, done.stdout + done.stderr
        assert "1 passed" in done.stdout and "the test session changed this machine" in done.stdout
        assert f"{system_temp}: left behind {leftover}" in done.stdout
    else:
        assert done.returncode == 0, done.stdout + done.stderr
        assert "host guard" not in done.stdout
    assert not [p for p in system_temp.iterdir() if p.name.startswith("agenthorizon-tests-")]  # the session's own, removed
