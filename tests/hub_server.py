"""A real Hub-compatible server on loopback for the Hub tests: ``olah`` serving local git repos.

``olah`` (a self-hosted Hugging Face mirror, in the ``test`` extra) started with
``[accessibility] offline = true`` and ``[basic] mirrors-path`` serves every git
repository found at ``<mirrors>/datasets/<org>/<name>`` as the Hub dataset repo
``<org>/<name>``: ``HEAD``/``GET /datasets/<repo>/resolve/<revision>/<path>``
with the ``ETag`` and ``X-Repo-Commit`` headers huggingface_hub relies on, and
the ``/api/datasets/...`` revision, tree and paths-info routes ``HfFileSystem``
(and so plain ``datasets.load_dataset``) uses. Branches, tags and commits are the
git repository's own, so a test makes a new commit with git and the server sees
it at the next request.

The clients under test run in a subprocess (:meth:`HubServer.python`,
:meth:`HubServer.cli`): ``huggingface_hub`` and ``datasets`` read
``HF_ENDPOINT``, ``HF_HOME`` and ``HF_HUB_OFFLINE`` once, at import, and the
test session imported them long ago with the isolated offline settings of
``conftest.py``. A subprocess gets exactly what a user's shell gives, so nothing
inside the libraries is patched, and each pytest-xdist worker may run its own
server without sharing state.

Every request the server answers is read back from its access log
(:meth:`HubServer.requests`), so a test can say which files were fetched.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent

_ACCESS = re.compile(r'"(GET|HEAD|POST) (\S+) HTTP/[0-9.]+" (\d{3})')
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "agenthorizon tests",
    "GIT_AUTHOR_EMAIL": "tests@agenthorizon.invalid",
    "GIT_COMMITTER_NAME": "agenthorizon tests",
    "GIT_COMMITTER_EMAIL": "tests@agenthorizon.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}
# What the child's `result` is printed after, so that library output before it is ignored.
_RESULT_MARK = "@@agenthorizon-hub-result@@"


class HubUnavailable(RuntimeError):
    """The server could not be started; the message says what to install or what failed."""


@dataclass(frozen=True)
class Request:
    """One request the server answered, from its access log."""

    method: str
    path: str
    status: int


@dataclass
class HubServer:
    """An ``olah`` process serving the git repos under ``mirrors`` at ``endpoint``."""

    endpoint: str
    mirrors: Path
    log: Path
    process: subprocess.Popen

    # --- repos -------------------------------------------------------------------------------

    def repo_dir(self, repo_id: str) -> Path:
        return self.mirrors / "datasets" / repo_id

    def add_repo(self, repo_id: str, files: Path) -> str:
        """Commit a copy of the folder ``files`` as Hub dataset repo ``repo_id``; its commit."""
        target = self.repo_dir(repo_id)
        if target.exists():
            raise ValueError(f"repo {repo_id} exists already at {target}")
        shutil.copytree(files, target)
        self.git(repo_id, "init", "--quiet", "--initial-branch=main")
        return self.commit(repo_id, f"add {files.name}")

    def commit(self, repo_id: str, message: str) -> str:
        """Commit every change in the repo's working tree; the new commit."""
        self.git(repo_id, "add", "--all")
        self.git(repo_id, "commit", "--quiet", "--allow-empty", "-m", message)
        return self.git(repo_id, "rev-parse", "HEAD")

    def git(self, repo_id: str, *args: str) -> str:
        completed = subprocess.run(
            ["git", *args], cwd=self.repo_dir(repo_id), capture_output=True, text=True,
            env={**os.environ, **_GIT_ENV},
        )
        if completed.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} in {repo_id} failed: {completed.stderr.strip()}")
        return completed.stdout.strip()

    # --- what the server saw -----------------------------------------------------------------

    def requests(self, since: int = 0) -> list[Request]:
        """Requests answered so far (from the ``since``-th on), in the order logged.

        uvicorn logs a request when its response starts, so every request of a
        client that has exited is in the log.
        """
        lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        found = [_ACCESS.search(line) for line in lines]
        answered = [Request(m[1], m[2], int(m[3])) for m in found if m]
        return answered[since:]

    def mark(self) -> int:
        """A position in the request log to pass to :meth:`requests` later."""
        return len(self.requests())

    # --- clients -----------------------------------------------------------------------------

    def env(self, hf_home: Path, *, offline: bool = False, **extra: str) -> dict[str, str]:
        """The environment of a user whose Hub is this server and whose HF cache is ``hf_home``."""
        env = {key: value for key, value in os.environ.items() if not key.startswith(("HF_", "HUGGINGFACE_"))}
        flag = "1" if offline else "0"
        env.update(
            HF_ENDPOINT=self.endpoint,
            HF_HOME=str(hf_home),
            HF_HUB_OFFLINE=flag,
            HF_DATASETS_OFFLINE=flag,
            HF_HUB_DISABLE_TELEMETRY="1",
            HF_HUB_DISABLE_PROGRESS_BARS="1",
            HF_HUB_DISABLE_XET="1",
            HF_HUB_DISABLE_UPDATE_CHECK="1",
            TQDM_DISABLE="1",
            PYTHONPATH=os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        )
        env.update(extra)
        return env

    def python(self, code: str, hf_home: Path, *, offline: bool = False, timeout: float = 300, **extra: str) -> dict:
        """Run ``code`` in a fresh Python pointed at this server; what it left in ``result``.

        ``code`` assigns a JSON-serialisable ``result``. An exception it raises
        comes back as ``{"error": type name, "message": text}`` and every
        warning as ``{"warnings": [text, ...]}`` next to ``result``, so a test
        can check what a user would read.
        """
        program = "\n".join([
            "import json, sys, warnings",
            "warnings.simplefilter('always')",
            "with warnings.catch_warnings(record=True) as _caught:",
            "    warnings.simplefilter('always')",
            "    result, _failure = None, None",
            "    try:",
            textwrap.indent(textwrap.dedent(code).strip(), " " * 8),
            "    except Exception as _exc:",
            "        _failure = {'error': type(_exc).__name__, 'message': str(_exc)}",
            "shown = [str(w.message) for w in _caught if not issubclass(w.category, DeprecationWarning)]",
            f"print({_RESULT_MARK!r})",
            "print(json.dumps({'result': result, 'warnings': shown, **(_failure or {})}))",
        ])
        completed = subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, timeout=timeout,
            env=self.env(hf_home, offline=offline, **extra), cwd=hf_home.parent,
        )
        if completed.returncode != 0 or _RESULT_MARK not in completed.stdout:
            raise AssertionError(f"hub client exited {completed.returncode}:\n{completed.stderr[-4000:]}")
        return json.loads(completed.stdout.split(_RESULT_MARK, 1)[1])

    def cli(self, args: list[str], hf_home: Path, *, offline: bool = False, cwd: Path | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """``agenthorizon ARGS`` as a user would run it against this server."""
        return subprocess.run(
            [sys.executable, "-m", "agenthorizon", *args], capture_output=True, text=True, timeout=timeout,
            env=self.env(hf_home, offline=offline), cwd=cwd or hf_home.parent,
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _olah_cli() -> str:
    path = Path(sys.executable).with_name("olah-cli")
    if path.is_file():
        return str(path)
    found = shutil.which("olah-cli")
    if found is None:
        raise HubUnavailable(
            "olah-cli not found: the Hub tests need the olah server; install the test extra: pip install -e '.[test]'"
        )
    return found


def start_hub(base: Path, *, timeout: float = 60) -> HubServer:
    """Start ``olah`` on a free loopback port serving ``base/mirrors``; return once it answers."""
    import httpx

    if shutil.which("git") is None:
        raise HubUnavailable("git not found: the Hub tests serve git repositories; install git (apt-get install -y git)")
    mirrors, work, logs = base / "mirrors", base / "olah-repos", base / "olah-logs"
    for folder in (mirrors / "datasets", work, logs):
        folder.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    config = base / "olah.toml"
    # metadata-cache-ttl = 0: a branch is resolved at every request, so a new commit is seen at once.
    config.write_text(
        textwrap.dedent(f"""\
            [basic]
            host = "127.0.0.1"
            port = {port}
            repos-path = "{work.as_posix()}"
            mirrors-path = ["{mirrors.as_posix()}"]
            metadata-cache-ttl = 0

            [accessibility]
            offline = true
            """),
        encoding="utf-8",
    )
    log = base / "olah.log"
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            [_olah_cli(), "-c", str(config), "--log-path", str(logs)],
            stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=base,
        )
    server = HubServer(endpoint=f"http://127.0.0.1:{port}", mirrors=mirrors, log=log, process=process)
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise HubUnavailable(f"olah exited with {process.returncode} on start:\n{log.read_text()[-3000:]}")
        try:
            # Any HTTP answer means it is serving; an unknown repo is a 404.
            httpx.get(f"{server.endpoint}/api/datasets/no-such/repo", timeout=2)
            return server
        except httpx.TransportError:
            if time.monotonic() > deadline:
                server.stop()
                raise HubUnavailable(f"olah did not answer on {server.endpoint} within {timeout:.0f} s") from None
            time.sleep(0.1)
