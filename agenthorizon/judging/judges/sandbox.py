"""Confinement for command agents: bubblewrap argv (:func:`bwrap_argv`), the agent's user, the program's files, killing.

Under bubblewrap an agent runs as an unprivileged user with no capability, in
private PID, user and (unless ``--agent-network host``) network namespaces, on
read-only system folders, its program, its item's folders and one in-memory
disk budget. With ``sandbox="none"`` it is a plain child in its own process
group, which :func:`kill_agent` still kills. Details: docs/security.md.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import stat
import subprocess
import warnings
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from agenthorizon.judging.judges.agent_disk import DEFAULT_DISK_BYTES, PRIVATE_TMPFS, disk_argv, seed_argv, under

__all__ = [
    "SANDBOX_AUTO",
    "SANDBOX_BWRAP",
    "SANDBOX_MODES",
    "SANDBOX_NONE",
    "SYSTEM_DIRS",
    "MARKER_VARIABLE",
    "AGENT_GID",
    "AGENT_UID",
    "agent_user",
    "bwrap_argv",
    "check_sandbox",
    "exposure",
    "check_writable",
    "hand_over",
    "kill_agent",
    "program_paths",
    "remove_item_folder",
    "resolve_sandbox",
]

SANDBOX_AUTO, SANDBOX_BWRAP, SANDBOX_NONE = "auto", "bwrap", "none"
SANDBOX_MODES = (SANDBOX_AUTO, SANDBOX_BWRAP, SANDBOX_NONE)
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
"""Mounted read-only in the sandbox (symbolic links such as ``/bin -> usr/bin`` are recreated as links)."""
MARKER_VARIABLE = "AGENTHORIZON_AGENT"
"""Environment variable set to a per-item token: how an unsandboxed agent's escaped descendants are found."""
AGENT_UID = AGENT_GID = 65534
"""The host user and group an agent runs as when the harness is root: ``nobody`` / ``nogroup``."""
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


def _install_dir(path: Path) -> Path | None:
    """The installation a program file belongs to, or ``None`` when it is a lone file.

    An installation is a prefix (never ``/`` or the home folder) holding the
    program in ``bin/`` or ``sbin/`` with a ``lib/`` or ``pyvenv.cfg`` beside
    it. Any other program is exposed as that file only: its folder may hold
    anything (a release, other items' folders).

    >>> import tempfile
    >>> prefix = Path(tempfile.mkdtemp())
    >>> (prefix / "bin").mkdir(); (prefix / "lib").mkdir()
    >>> _install_dir(prefix / "bin" / "tool") == prefix, _install_dir(prefix / "agent.py")
    (True, None)
    """
    parent = path.parent
    prefix = parent.parent
    if parent.name not in ("bin", "sbin") or prefix == Path(prefix.anchor) or prefix == Path.home():
        return None
    if (prefix / "lib").is_dir() or (prefix / "pyvenv.cfg").is_file():
        return prefix
    return None


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

    The program (on ``PATH``) and its ``#!`` interpreter give their file, real
    path and installation (:func:`_install_dir`), never a plain folder; absolute
    paths of existing files among the arguments are exposed as those files.
    """
    found: list[Path] = []

    def add_program(name: str, depth: int = 0) -> None:
        located = shutil.which(name, path=env.get("PATH"))
        if located is None:
            return
        path = Path(located).absolute()
        for candidate in (path, path.resolve()):
            found.append(candidate)
            installation = _install_dir(candidate)
            if installation is not None:
                found.append(installation)
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


def agent_user() -> tuple[int, int] | None:
    """The (uid, gid) the agent runs as on the host: :data:`AGENT_UID` when the harness is root, else ``None``
    (the harness's own unprivileged user)."""
    return (AGENT_UID, AGENT_GID) if os.geteuid() == 0 else None


def _mount_parents(targets: Iterable[Path], roots: Sequence[str]) -> list[str]:
    """Folders bubblewrap would create on its way to ``targets``, outside every ``roots`` mount, parents first.

    bubblewrap would give them the host folder's mode (``/root``: ``0700``),
    which the agent could not cross; they are made ``0755`` beforehand and
    hold nothing but the mount points.
    """
    made: list[str] = []
    for target in targets:
        for parent in reversed(target.parents):
            text = str(parent)
            if text == "/" or any(text == root or text.startswith(root + "/") for root in roots):
                continue
            if text not in made:
                made.append(text)
    return made


def bwrap_argv(
    workdir: Path,
    *,
    read_only: Iterable[Path] = (),
    read_write: Iterable[Path] = (),
    read_only_over: Iterable[Path] = (),
    private: Iterable[Path] = (),
    disk_bytes: int = DEFAULT_DISK_BYTES,
    usage: Path | None = None,
    nested_userns: bool = False,
    limits: Sequence[str] = (),
    unshare_net: bool = False,
) -> list[str]:
    """The ``bwrap ...`` prefix that runs a command confined to ``workdir``.

    ``read_write``: host folders mounted writable; ``workdir`` and ``private``:
    rebuilt on the ``disk_bytes`` budget; ``read_only_over``: mounted read-only
    last, on top; ``limits``: a ``prlimit ... --`` prefix; ``usage``: a host file
    the sandbox's shell fills with the budget's use once the agent ended
    (:func:`~agenthorizon.judging.judges.agent_disk.read_usage`);
    ``unshare_net``: loopback-only network; ``nested_userns``: allow user
    namespaces (Codex's own sandbox). A first bubblewrap builds the file system
    as the harness's user; a second, as :func:`agent_user`, enters a user
    namespace and drops every capability before the command starts.
    """
    read_only, read_write, read_only_over = list(read_only), list(read_write), list(read_only_over)
    private = [workdir, *private]
    argv = [
        "bwrap",
        "--die-with-parent",  # the harness dies (even SIGKILL): the namespace dies
        "--new-session",  # no TIOCSTI into the harness's terminal
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        *(["--unshare-net"] if unshare_net else []),  # loopback only: no other item, no host service
    ]
    systems = []
    for directory in SYSTEM_DIRS:
        if os.path.islink(directory):
            argv += ["--symlink", os.readlink(directory), directory]
        elif os.path.isdir(directory):
            argv += ["--ro-bind", directory, directory]
            systems.append(directory)
    argv += ["--proc", "/proc", "--dev", "/dev"]
    outer = [*read_only, *read_write, *private, *read_only_over]
    disk, inner = disk_argv(disk_bytes, outer)
    # Folders on the way to a mount, made 0755: outside /tmp before it is mounted, in it afterwards.
    parents = [parent for parent in _mount_parents(outer, [*systems, "/proc", "/dev"])
               if parent not in PRIVATE_TMPFS and not under(parent, [str(path) for path in private])]
    argv += [word for parent in parents if not under(parent, ["/tmp"]) for word in ("--perms", "0755", "--dir", parent)]
    argv += disk
    argv += [word for parent in parents if under(parent, ["/tmp"]) for word in ("--perms", "0755", "--dir", parent)]
    argv += seed_argv(private, read_only_over, disk_bytes)
    for path in read_only:
        argv += ["--ro-bind-try", str(path), str(path)]
    for path in read_write:
        argv += ["--bind-try", str(path), str(path)]
    for path in read_only_over:
        argv += ["--ro-bind", str(path), str(path)]
    argv += ["--chdir", str(workdir)]
    if usage is not None:
        # Run as the harness's user in the sandbox, after the agent: `stat -f` of each budget's file system.
        mounts = " ".join(shlex.quote(argv[at + 1]) for at, word in enumerate(argv) if word == "--tmpfs")
        script = f'"$@"; s=$?; stat -f -c "%n %b %f %S" {mounts} >{shlex.quote(str(usage))} 2>/dev/null; exit $s'
        argv[argv.index("--chdir"):argv.index("--chdir")] = ["--bind", str(usage), str(usage)]
        argv += ["sh", "-c", script, "sh"]
    user = agent_user()
    if user is not None:
        # Root starts the inner bubblewrap as the agent's user, with no capability left to pass on.
        argv += ["setpriv", f"--reuid={user[0]}", f"--regid={user[1]}", "--clear-groups", "--inh-caps=-all",
                 "--bounding-set=-all", "--"]
    argv += ["bwrap", "--die-with-parent", "--unshare-user", "--cap-drop", "ALL"]
    if user is not None:
        argv += ["--uid", str(user[0]), "--gid", str(user[1])]
    if not nested_userns:
        argv += ["--disable-userns"]
    # --dev-bind: a plain --bind would make every mount nodev, /dev/null and the terminals of /dev/pts included.
    argv += ["--dev-bind", "/", "/", *inner, "--chdir", str(workdir), "--", *limits]
    return argv


_MOUNT_OPTIONS = {"--ro-bind": "read_only", "--ro-bind-try": "read_only", "--bind": "read_write",
                  "--bind-try": "read_write", "--tmpfs": "private", "--dir": "private"}


def exposure(argv: Sequence[str]) -> dict[str, Any]:
    """What a sandboxed command line exposes of the host, read from the argv itself.

    ``read_only`` / ``read_write`` host paths in mount order (a later read-only
    mount over a writable one is in both), ``private`` folders (in-memory),
    ``disk_bytes`` (``None``: no bound), ``user``, ``nested_user_namespaces`` and
    ``network_namespace``.

    >>> shown = exposure(["bwrap", "--ro-bind", "/usr", "/usr", "--bind", "/w/out", "/w/out", "--size", "1024",
    ...                   "--tmpfs", "/tmp", "--perms", "1777", "--dir", "/w/work", "--chdir", "/w/work", "setpriv",
    ...                   "--reuid=65534", "--", "bwrap", "--disable-userns", "--bind", "/tmp/.run", "/run", "--", "agent"])
    >>> shown["read_only"], shown["read_write"], shown["private"], shown["disk_bytes"]
    (['/usr'], ['/w/out'], ['/tmp', '/run', '/w/work'], 1024)
    >>> shown["user"], shown["nested_user_namespaces"]
    ('nobody (uid 65534)', False)
    """
    shown: dict[str, Any] = {"read_only": [], "read_write": [], "private": [], "disk_bytes": None}
    rebuilt: list[str] = []
    index, perms = 1, None
    while index < len(argv) and argv[index].startswith("--"):
        option = argv[index]
        kind = _MOUNT_OPTIONS.get(option)
        if kind in ("read_only", "read_write"):
            shown[kind].append(argv[index + 1])
            index += 3
        elif kind == "private":
            path = argv[index + 1]
            if option == "--tmpfs":
                shown[kind].append(path)
            elif perms == "1777" and not path.startswith("/tmp/.") and not under(path, rebuilt):
                rebuilt.append(path)  # an item folder rebuilt on the budget, not one of the folders in it
            index += 2
        elif option in _TWO_ARGUMENTS:
            index += 3
        elif option in _NO_ARGUMENT:
            index += 1
        else:
            if option == "--size" and shown["disk_bytes"] is None:
                shown["disk_bytes"] = int(argv[index + 1])
            index += 2
        perms = argv[index - 1] if option == "--perms" else None
    def options(program: str) -> list[str]:
        """The options of the first ``program`` after the first bubblewrap's, up to its ``--``."""
        rest = list(argv[index:])
        if program not in rest:
            return []
        start = rest.index(program)
        return rest[start:rest.index("--", start) if "--" in rest[start:] else len(rest)]

    uids = [word.split("=", 1)[1] for word in options("setpriv") if word.startswith("--reuid=")]
    shown["user"] = f"nobody (uid {uids[0]})" if uids == [str(AGENT_UID)] else "the harness's own user"
    inner = options("bwrap")
    shown["nested_user_namespaces"] = "--disable-userns" not in inner
    shown["private"] += [inner[at + 2] for at, word in enumerate(inner) if word == "--bind"] + rebuilt
    shown["network_namespace"] = "--unshare-net" in argv[:index]
    return shown


_TWO_ARGUMENTS = {"--symlink", "--dev-bind", "--dev-bind-try"}
_NO_ARGUMENT = {"--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try", "--unshare-user", "--disable-userns", "--unshare-net"}

# What bubblewrap or setpriv print when this machine refuses user namespaces to unprivileged users.
_USERNS_REFUSED = ("No permissions to create new namespace", "Creating new namespace failed",
                   "setting up uid map", "Operation not permitted", "No space left on device")
USERNS_FIX = (
    "allow unprivileged user namespaces: sysctl -w user.max_user_namespaces=15000 (and on Debian < 11 "
    "kernel.unprivileged_userns_clone=1; on Ubuntu >= 23.10 kernel.apparmor_restrict_unprivileged_userns=0 or "
    "AppArmor's bwrap-userns-restrict profile); in Docker, run with --security-opt seccomp=unconfined "
    "--security-opt apparmor=unconfined"
)


def check_sandbox(probe_dir: Path, *, nested_userns: bool = False, unshare_net: bool = False) -> None:
    """Raise ``RuntimeError`` with the fix when bubblewrap cannot create a sandbox on this machine.

    The probe runs the agents' very argv and checks from inside that it holds
    no capability: a bubblewrap that starts but confines less is refused too.
    """
    if shutil.which("setpriv") is None and agent_user() is not None:
        raise RuntimeError("setpriv (util-linux) is needed to run agents as an unprivileged user; install util-linux")
    probe = [*bwrap_argv(probe_dir, nested_userns=nested_userns, unshare_net=unshare_net), "grep", "^CapEff:",
             "/proc/self/status"]
    try:
        completed = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        raise RuntimeError(f"bubblewrap cannot run ({error}); {INSTALL_HINT}") from None
    if completed.returncode != 0:
        detail = (completed.stderr.strip().splitlines() or ["no message"])[-1]
        if any(sign in detail for sign in _USERNS_REFUSED):
            raise RuntimeError(
                f"bubblewrap cannot create the agent's user namespace here ({detail}): this machine refuses "
                f"user namespaces; {USERNS_FIX}; or pass --sandbox none to run agents unconfined"
            )
        network = (" (with a network namespace of its own: where the machine refuses one, --agent-network host "
                   "runs agents on the host's network)") if unshare_net else ""
        raise RuntimeError(
            f"bubblewrap cannot create a sandbox here{network} ({detail}); {USERNS_FIX}; "
            "or pass --sandbox none to run agents unconfined"
        )
    words = completed.stdout.split()
    try:
        effective = int(words[-1], 16)
    except (IndexError, ValueError):
        effective = -1
    if effective != 0:
        raise RuntimeError(
            f"the sandbox would leave agents capabilities ({completed.stdout.strip() or 'no CapEff line'}); "
            "refusing to run agents in it"
        )


def check_writable(folders: Iterable[Path]) -> None:
    """Raise ``RuntimeError`` when the agent's user (:func:`agent_user`) could not write one of ``folders``.

    Only a root harness can fail it (its agent runs as ``nobody``).
    """
    user = agent_user()
    if user is None:
        return
    for folder in folders:
        try:
            info = folder.stat()
        except OSError:
            continue
        # A folder needs write and search (0o3 per class), a config file write alone.
        owner = 0o300 if stat.S_ISDIR(info.st_mode) else 0o200
        if not ((info.st_uid == user[0] and info.st_mode & owner == owner)
                or (info.st_gid == user[1] and info.st_mode & owner >> 3 == owner >> 3)
                or info.st_mode & owner >> 6 == owner >> 6):
            # Only chown is advised: a login folder writable by every local user lets any of them plant
            # settings that the harness's CLI then runs.
            raise RuntimeError(
                f"{folder} is passed into the sandbox read-write, but the agent runs as uid {user[0]} (the harness "
                f"runs as root) and cannot write to it; chown -R {user[0]}:{user[1]} it"
            )


def hand_over(base: Path) -> None:
    """Give the agent's user (:func:`agent_user`) the item's folder ``base`` and everything in it.

    Only when the harness is root (the agent then runs as ``nobody``). Symbolic
    links are changed, never followed.
    """
    user = agent_user()
    if user is None:
        return
    os.lchown(base, *user)
    for folder, dirs, files in os.walk(base):
        for name in (*dirs, *files):
            os.lchown(os.path.join(folder, name), *user)


def remove_item_folder(base: Path) -> None:
    """Remove the item's folder ``base`` and whatever the agent left in it, without following a link.

    ``rm -rf`` first: ``shutil.rmtree`` (the fallback) raises ``RecursionError``
    on a tree a few thousand folders deep. Errors are ignored: a folder that
    cannot be removed is left, never fatal.
    """
    rm = shutil.which("rm")
    if rm is not None:
        try:
            subprocess.run([rm, "-rf", "--one-file-system", "--", str(base)], check=False,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            pass
        else:
            if not os.path.lexists(base):
                return
    try:
        shutil.rmtree(base, ignore_errors=True)
    except RecursionError:
        pass


def kill_agent(pid: int, marker: str | None) -> None:
    """SIGKILL an agent: its process group (a bwrap sandbox: the whole namespace) and every process marked ``marker``.

    Idempotent and non-blocking: safe in a signal handler or a ``finally``.
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
