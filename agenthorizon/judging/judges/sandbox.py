"""Confinement for command agents: bubblewrap argv, the program's own files, and killing everything.

A command agent is a program with the user's rights. Under bubblewrap
(Debian/Ubuntu package ``bubblewrap``, the sandbox agentic coding CLIs use on
Linux) it runs in:

- a private PID namespace with its own ``/proc``: the harness's command line
  (``--data``, the release path) and every other process are invisible, and
  when the namespace's first process dies the kernel kills everything left in
  it, including grandchildren that started their own session;
- a new root made of the system directories read-only (:data:`SYSTEM_DIRS`),
  a private ``/tmp`` and ``/dev``, the program's own installation read-only,
  the harness's config folders (its login) read-write, and the item's working
  directory read-write; nothing else of the file system exists there (no home,
  no release, no other item);
- the host's network (the agent must reach its model).

With ``sandbox="none"`` the agent runs as a plain child process in its own
process group; :func:`kill_agent` still kills the group and, on Linux, every
process carrying the run's marker variable (a ``setsid`` grandchild keeps its
environment), but nothing stops it from reading files.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import warnings
from pathlib import Path
from typing import Iterable, Mapping, Sequence

__all__ = [
    "SANDBOX_AUTO",
    "SANDBOX_BWRAP",
    "SANDBOX_MODES",
    "SANDBOX_NONE",
    "SYSTEM_DIRS",
    "MARKER_VARIABLE",
    "bwrap_argv",
    "check_sandbox",
    "kill_agent",
    "program_paths",
    "resolve_sandbox",
]

SANDBOX_AUTO, SANDBOX_BWRAP, SANDBOX_NONE = "auto", "bwrap", "none"
SANDBOX_MODES = (SANDBOX_AUTO, SANDBOX_BWRAP, SANDBOX_NONE)
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
"""Mounted read-only in the sandbox (symbolic links such as ``/bin -> usr/bin`` are recreated as links)."""
MARKER_VARIABLE = "AGENTHORIZON_AGENT"
"""Environment variable set to a per-item token: how an unsandboxed agent's escaped descendants are found."""
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"


def resolve_sandbox(mode: str) -> str:
    """``auto`` -> ``bwrap`` when bubblewrap is installed, else ``none`` with a warning; check the others.

    ``none`` (asked for, or the fallback) warns that agents run unconfined.
    """
    if mode not in SANDBOX_MODES:
        raise ValueError(f"command judge: sandbox must be one of {SANDBOX_MODES}, got {mode!r}")
    if mode == SANDBOX_BWRAP and shutil.which("bwrap") is None:
        raise ValueError(f"command judge: --sandbox bwrap needs bubblewrap, which is not installed; {INSTALL_HINT}")
    if mode == SANDBOX_AUTO:
        if shutil.which("bwrap") is not None:
            return SANDBOX_BWRAP
        warnings.warn(
            f"bubblewrap is not installed, so command agents run unconfined (they can read the labels "
            f"and your files); {INSTALL_HINT}, or pass --sandbox none to silence this",
            stacklevel=3,
        )
        return SANDBOX_NONE
    if mode == SANDBOX_NONE:
        warnings.warn(
            "--sandbox none: command agents run unconfined, with your rights: they can read the release's "
            "labels, your files and other processes' command lines",
            stacklevel=3,
        )
    return mode


def _install_dir(path: Path) -> Path:
    """The folder to expose for a program file: the installation prefix above its ``bin`` folder
    (one with a ``lib`` beside it, and not the home folder itself), else the program's own folder."""
    parent = path.parent
    prefix = parent.parent
    if parent.name in ("bin", "sbin") and (prefix / "lib").is_dir() and prefix != Path.home():
        return prefix
    return parent


def _shebang(path: Path) -> str | None:
    """The interpreter named by a script's ``#!`` line (``/usr/bin/env NAME`` gives ``NAME``)."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(256)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env":
        rest = [w for w in words[1:] if not w.startswith("-")]
        return rest[0] if rest else None
    return words[0]


def program_paths(argv: Sequence[str], env: Mapping[str, str]) -> list[Path]:
    """Paths outside :data:`SYSTEM_DIRS` the command needs read-only: its program's installation and file arguments.

    The program (``argv[0]`` looked up on ``PATH``) contributes its installation
    folder (the prefix above ``bin/`` when it has a ``lib/``, else its own folder), that of its real path (symbolic links
    resolved), that of its ``#!`` interpreter, and the Python virtual
    environment it lives in. Arguments that are absolute paths of existing
    *files* (a judge script) are exposed too; directories never are.
    """
    found: list[Path] = []

    def add_program(name: str, depth: int = 0) -> None:
        located = shutil.which(name, path=env.get("PATH"))
        if located is None:
            return
        path = Path(located).absolute()
        for candidate in (path, path.resolve()):
            found.append(candidate)
            found.append(_install_dir(candidate))
            venv = candidate.parent.parent
            if (venv / "pyvenv.cfg").is_file():
                found.append(venv)
        interpreter = _shebang(path.resolve())
        if interpreter is not None and depth < 2:
            add_program(interpreter, depth + 1)

    add_program(argv[0])
    for argument in argv[1:]:
        if os.path.isabs(argument) and os.path.isfile(argument):
            found.append(Path(argument))
            found.append(Path(argument).resolve())
    kept: list[Path] = []
    for path in found:
        if _under_system_dir(path) or path in kept or path == Path("/"):
            continue
        kept.append(path)
    return kept


def _under_system_dir(path: Path) -> bool:
    text = str(path)
    return any(text == d or text.startswith(d + "/") for d in SYSTEM_DIRS)


def bwrap_argv(
    workdir: Path,
    *,
    read_only: Iterable[Path] = (),
    read_write: Iterable[Path] = (),
    read_only_over: Iterable[Path] = (),
) -> list[str]:
    """The ``bwrap ...`` prefix that runs a command confined to ``workdir`` (see the module docstring).

    ``read_only_over`` are mounted read-only last, on top of the writable
    folders that hold them (an agent's private home and the login copies in it).
    """
    argv = [
        "bwrap",
        "--die-with-parent",  # the harness dies (even SIGKILL): the namespace dies
        "--new-session",  # no TIOCSTI into the harness's terminal
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
    ]
    for directory in SYSTEM_DIRS:
        if os.path.islink(directory):
            argv += ["--symlink", os.readlink(directory), directory]
        elif os.path.isdir(directory):
            argv += ["--ro-bind", directory, directory]
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/run"]
    for path in read_only:
        argv += ["--ro-bind-try", str(path), str(path)]
    for path in read_write:
        argv += ["--bind-try", str(path), str(path)]
    argv += ["--bind", str(workdir), str(workdir)]
    for path in read_only_over:
        argv += ["--ro-bind", str(path), str(path)]
    argv += ["--chdir", str(workdir), "--"]
    return argv


def check_sandbox(probe_dir: Path) -> None:
    """Raise ``RuntimeError`` with the fix when bubblewrap cannot create a sandbox on this machine."""
    try:
        completed = subprocess.run(
            [*bwrap_argv(probe_dir), "true"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise RuntimeError(f"bubblewrap cannot run ({error}); {INSTALL_HINT}") from None
    if completed.returncode != 0:
        detail = completed.stderr.strip().splitlines()[-1:] or ["no message"]
        raise RuntimeError(
            f"bubblewrap cannot create a sandbox here ({detail[0]}); allow unprivileged user namespaces "
            "(e.g. sysctl kernel.unprivileged_userns_clone=1, or run the container with them), "
            "or pass --sandbox none to run agents unconfined"
        )


def kill_agent(pid: int, marker: str | None) -> None:
    """SIGKILL an agent: its process group (a bwrap sandbox: the whole namespace) and every process marked ``marker``.

    Idempotent and non-blocking, so a signal handler or a ``finally`` can call it
    as often as needed.
    """
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if marker is not None:
        for other in _marked_processes(marker):
            try:
                os.kill(other, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _marked_processes(marker: str) -> list[int]:
    """Pids whose environment holds ``AGENTHORIZON_AGENT=marker`` (Linux ``/proc``; empty elsewhere)."""
    needle = f"{MARKER_VARIABLE}={marker}".encode()
    pids = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return pids
    for entry in entries:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    pids.append(int(entry))
        except OSError:
            continue
    return pids
