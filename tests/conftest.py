"""Shared fixtures: sample corpora in the exact release layout, and an isolated,
offline Hugging Face environment so no test can touch the network or the
user's caches."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

import host_guard

# The guard's view of the machine, taken before TMPDIR below points into the session's own folder.
_HOST = host_guard.host_from_environment()

# Everything a test session writes to the temporary directory -- its own
# files, the examples' and the CLI subprocesses' (they inherit TMPDIR) -- goes
# into one folder removed when the process ends, so runs of the suite do not
# pile up folders in /tmp.
_SESSION_TMP = Path(tempfile.mkdtemp(prefix="agenthorizon-tests-"))
atexit.register(shutil.rmtree, _SESSION_TMP, ignore_errors=True)
os.environ["TMPDIR"] = str(_SESSION_TMP)
tempfile.tempdir = None  # gettempdir() reads TMPDIR again

# Set before datasets / huggingface_hub are imported anywhere in the session.
_HF_HOME = _SESSION_TMP / "hf"
_HF_HOME.mkdir()
os.environ["HF_HOME"] = str(_HF_HOME)
os.environ["HF_DATASETS_CACHE"] = str(_HF_HOME / "datasets")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("TQDM_DISABLE", "1")
# The per-user folders programs write without being asked -- Inspect's data folder, Chromium's
# profile, matplotlib's font cache, pip's cache -- are the session's, not the real home's. (The
# tests' installs keep their own place, tests/debian_packages.py's cache_root.)
for _variable, _folder in (("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache"), ("XDG_DATA_HOME", "data"),
                           ("XDG_STATE_HOME", "state")):
    os.environ[_variable] = str(_SESSION_TMP / "xdg" / _folder)


# Fixtures that provision the machine: apt-get (bubblewrap, Chromium), npm (the
# agentic CLIs), a second virtual environment from the package registry. Every
# test that uses one is marked `system`, so `pytest -m "not system"` is a run that
# installs nothing; the README's test command (and CI) runs them all.
PROVISIONING_FIXTURES = frozenset({"agent_clis", "bubblewrap", "chromium", "datasets3_python", "slurm"})
# Fixtures that take tens of seconds each (a real `inspect eval` and a runner run against a loopback
# server, tests/inspect) or start a real server process with clients in subprocesses (`hub`: olah):
# their tests are marked `slow`, out of the quick tier `-m "not system and not slow"`.
SLOW_FIXTURES = frozenset({"routes", "interleaved", "hub"})


# The machine as the session found it (tests/host_guard.py); set in the xdist controller or the one
# process of -n 0, never in a worker: each worker sees only part of the session.
_HOST_BEFORE = pytest.StashKey[dict]()


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):
        session.config.stash[_HOST_BEFORE] = host_guard.snapshot(_HOST)


@pytest.hookimpl(trylast=True)  # after xdist has stopped its workers
def pytest_sessionfinish(session: pytest.Session) -> None:
    before = session.config.stash.get(_HOST_BEFORE, None)
    if before is None:
        return
    from debian_packages import PACKAGES, cache_root

    # The test cache, and npm's download cache that the CLIs' install (tests/agent_clis.py) fills.
    declared = [cache_root(), host_guard.real_home() / ".npm"]
    problems = host_guard.final_problems(_HOST, before, os.getpid(), PACKAGES, declared)
    if not problems:
        return
    report = "\n".join(["the test session changed this machine (tests/host_guard.py):", *problems])
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.section("host guard", sep="=", red=True, bold=True)
        reporter.write_line(report)
    else:
        print(report, file=sys.stderr)
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if PROVISIONING_FIXTURES.intersection(fixtures):
            item.add_marker(pytest.mark.system)
        if SLOW_FIXTURES.intersection(fixtures):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A read-only-by-convention `tiny` corpus; copy it before changing files."""
    from agenthorizon.release.sample import generate

    root = tmp_path_factory.mktemp("tiny") / "release"
    generate(root, preset="tiny", seed=0)
    return root


@pytest.fixture(scope="session")
def small_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A read-only-by-convention `small` corpus (the demo's)."""
    from agenthorizon.release.sample import generate

    root = tmp_path_factory.mktemp("small") / "release"
    generate(root, preset="small", seed=0)
    return root


@pytest.fixture()
def tiny_copy(tiny_root: Path, tmp_path: Path) -> Path:
    """A private copy of the tiny corpus that a test may damage."""
    import shutil

    target = tmp_path / "release"
    shutil.copytree(tiny_root, target)
    return target


@pytest.fixture()
def datasets_cache(tmp_path: Path) -> Path:
    """A fresh datasets cache directory for tests that count cache builds."""
    path = tmp_path / "hf-cache"
    path.mkdir()
    return path


@pytest.fixture(scope="session")
def hub(tmp_path_factory: pytest.TempPathFactory):
    """A real Hub-compatible server (olah) on a free loopback port, serving git repos
    that tests add; stopped by its pid at the end of the session (tests/hub_server.py)."""
    from hub_server import HubUnavailable, start_hub

    try:
        server = start_hub(tmp_path_factory.mktemp("hub"))
    except HubUnavailable as error:
        pytest.fail(str(error), pytrace=False)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def bubblewrap() -> str:
    """Make sure Debian's bubblewrap is installed (apt-get as root), as the browser tests get Chromium."""
    import shutil

    from debian_packages import ensure_debian_packages

    ensure_debian_packages(["bubblewrap"], lambda: shutil.which("bwrap") is not None, "the sandbox tests")
    return shutil.which("bwrap")


@pytest.fixture(scope="session")
def slurm():
    """A real single-node Slurm cluster (tests/slurm_cluster.py), ``SLURM_CONF`` set for the clients while it runs;
    stopped, with its scratch folder removed, at the end of the session. Skips with the reason where it cannot run."""
    from slurm_cluster import start_cluster

    cluster = start_cluster()
    previous = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = str(cluster.conf)
    try:
        yield cluster
    finally:
        if previous is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = previous
        cluster.stop()


@pytest.fixture(scope="session")
def agent_clis() -> Path:
    """The ``bin`` folder of the real Codex, Claude Code, Gemini CLI and OpenCode at their tested
    versions, installed from the npm registry into a per-user cache once per machine (tests/agent_clis.py)."""
    from agent_clis import install_clis

    prefix, _ = install_clis()
    return prefix / "bin"
