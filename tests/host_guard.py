"""The session's check that the test suite leaves the machine as it found it.

tests/conftest.py takes a :func:`snapshot` of the host before the first test and after the last
(in the xdist controller, or the one process of ``-n 0``) and fails the run with
:func:`differences` when anything changed: the hostname; the entries at the top of ``/``, ``/etc``,
``/usr`` and ``/root``; the agentic CLIs' config in the real home; ``agenthorizon-*`` entries in
the system temporary folder; and (:func:`running_descendants`) processes of the session still
running. What the suite installs on purpose is declared by name and allowed
(:func:`declared_entries`, :func:`owned_by_packages`). Every input is a :class:`Host`, so the
guard's own test looks at a stand-in machine.
"""

from __future__ import annotations

import os
import pwd
import subprocess
import tempfile
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

# The folders whose top-level entries are watched (paths on the host; under Host.root).
WATCHED_FOLDERS = ("/", "/etc", "/usr", "/root")
# The agentic CLIs' config in the real home, which tests must never write (tests give CLIs a HOME of their own).
CLI_CONFIG = (".codex", ".claude", ".gemini", ".config/opencode", ".npmrc")
TEMP_PREFIX = "agenthorizon-"
# The folder each test session makes for itself (tests/conftest.py) and removes when it exits,
# after this guard's last look; sessions of other checkouts may come and go meanwhile.
SESSION_TEMP_PREFIX = "agenthorizon-tests-"
# A config folder bigger than this is fingerprinted by its first entries only (bounded work).
MAX_FINGERPRINT_ENTRIES = 20_000


def real_home() -> Path:
    """The user's home from the password database (tests point ``HOME`` elsewhere)."""
    return Path(pwd.getpwuid(os.getuid()).pw_dir)


@dataclass(frozen=True)
class Host:
    """Where the guard looks. The defaults are this machine; a test passes stand-in paths.

    ``temp`` is the system temporary folder as it was before tests/conftest.py pointed ``TMPDIR``
    at the session's own folder.
    """

    root: Path = Path("/")
    home: Path = field(default_factory=real_home)
    temp: Path = field(default_factory=lambda: Path(tempfile.gettempdir()))
    hostname_file: Path = Path("/proc/sys/kernel/hostname")

    def path(self, host_path: str) -> Path:
        """``host_path`` (absolute, as on the host) under :attr:`root`."""
        return self.root / host_path.lstrip("/")


# Names a folder holding a stand-in machine (root/, home/, hostname) for a whole session to watch
# instead of this one: the guard's own test runs sessions that change a machine on purpose.
STAND_IN_VARIABLE = "AGENTHORIZON_HOST_GUARD_STAND_IN"


def host_from_environment(environ: dict[str, str] | None = None) -> Host:
    """This machine, or the stand-in machine ``$AGENTHORIZON_HOST_GUARD_STAND_IN`` names."""
    folder = (os.environ if environ is None else environ).get(STAND_IN_VARIABLE)
    if not folder:
        return Host()
    return Host(root=Path(folder) / "root", home=Path(folder) / "home", hostname_file=Path(folder) / "hostname")


def _entries(folder: Path) -> tuple[str, ...]:
    try:
        return tuple(sorted(os.listdir(folder)))
    except FileNotFoundError:
        return ("<absent>",)
    except PermissionError:
        return ("<unreadable>",)


def fingerprint(path: Path) -> str:
    """What a change to ``path`` changes: absent, or each entry's relative path, type, size and mtime.

    Links are not followed. A folder is walked to at most ``MAX_FINGERPRINT_ENTRIES`` entries.

    >>> fingerprint(Path("/no/such/path"))
    'absent'
    """
    try:
        top = path.lstat()
    except FileNotFoundError:
        return "absent"
    lines = [f". {top.st_mode:o} {top.st_size} {top.st_mtime_ns}"]
    if path.is_dir() and not path.is_symlink():
        for count, (folder, folders, files) in enumerate(os.walk(path)):
            folders.sort()
            for name in sorted(folders + files):
                entry = Path(folder) / name
                try:
                    info = entry.lstat()
                except OSError:
                    continue  # removed while walking: the next fingerprint differs anyway
                lines.append(f"{entry.relative_to(path)} {info.st_mode:o} {info.st_size} {info.st_mtime_ns}")
            if len(lines) > MAX_FINGERPRINT_ENTRIES:
                lines.append(f"... cut after {count + 1} folders")
                break
    return "\n".join(lines)


def snapshot(host: Host) -> dict[str, object]:
    """The host's state as the guard compares it: ``{what: value}``.

    Keys: ``hostname``; ``entries of FOLDER`` (sorted names) for each watched folder;
    ``~/NAME`` (a :func:`fingerprint`) for each CLI config; ``agenthorizon-* in TEMP`` (sorted names).
    """
    state: dict[str, object] = {"hostname": host.hostname_file.read_text().strip()}
    for folder in WATCHED_FOLDERS:
        state[f"entries of {folder}"] = _entries(host.path(folder))
    for name in CLI_CONFIG:
        state[f"~/{name}"] = fingerprint(host.home / name)
    state[f"{TEMP_PREFIX}* in {host.temp}"] = tuple(
        name for name in _entries(host.temp) if name.startswith(TEMP_PREFIX) and not name.startswith(SESSION_TEMP_PREFIX)
    )
    return state


def _changed_lines(before: str, after: str) -> str:
    old, new = set(before.splitlines()), set(after.splitlines())
    changed = sorted({line.split(" ")[0] for line in old ^ new})
    return ", ".join(changed[:10]) + (f" and {len(changed) - 10} more" if len(changed) > 10 else "")


def differences(before: dict[str, object], after: dict[str, object], allowed: Collection[str] = ()) -> list[str]:
    """One line per thing that changed between two :func:`snapshot`\\ s, naming it; ``[]`` when none did.

    ``allowed`` holds host paths (``/etc/chromium``) that may appear: what the suite installs on purpose.

    >>> differences({"hostname": "vm", "entries of /etc": ("a",)}, {"hostname": "x", "entries of /etc": ("a", "b")})
    ["hostname changed from 'vm' to 'x'", '/etc: added b']
    """
    problems = []
    for what in before:
        old, new = before[what], after.get(what)
        if old == new:
            continue
        if what.startswith("entries of "):
            folder = what.removeprefix("entries of ")
            added = [name for name in new if name not in old and os.path.join(folder, name) not in allowed]
            removed = [name for name in old if name not in new]
            if added:
                problems.append(f"{folder}: added {', '.join(added)}")
            if removed:
                problems.append(f"{folder}: removed {', '.join(removed)}")
        elif what.startswith("~/"):
            if "absent" in (old, new):
                problems.append(f"{what} (the real home's CLI config): {'created' if old == 'absent' else 'deleted'}")
            else:
                problems.append(f"{what} (the real home's CLI config): changed: {_changed_lines(old, new)}")
        elif what == "hostname":
            problems.append(f"hostname changed from {old!r} to {new!r}")
        else:  # the temporary folder's agenthorizon-* entries
            added = [name for name in new if name not in old]
            if added:
                problems.append(f"{what.removeprefix(TEMP_PREFIX + '* in ')}: left behind {', '.join(added)}")
    return problems


def declared_entries(paths: Iterable[Path]) -> set[str]:
    """The top-level entries of the watched folders that making ``paths`` may add.

    >>> sorted(declared_entries([Path("/root/.cache/agenthorizon-tests")]))
    ['/root/.cache']
    """
    entries = set()
    for path in paths:
        ancestors = [folder for folder in WATCHED_FOLDERS if path != Path(folder) and path.is_relative_to(folder)]
        if ancestors:
            folder = max(ancestors, key=len)  # the deepest watched folder holding it
            entries.add(os.path.join(folder, path.relative_to(folder).parts[0]))
    return entries


Run = Callable[..., subprocess.CompletedProcess]


def package_closure(packages: Iterable[str], run: Run = subprocess.run) -> set[str]:
    """``packages`` and every installed package they depend on, recursively (what ``apt-get install`` pulls in)."""
    names = list(packages)
    done = run(["apt-cache", "depends", "--recurse", "--installed", "--no-recommends", "--no-suggests",
                "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", *names],
               capture_output=True, text=True, timeout=120)
    found = {line.strip() for line in done.stdout.splitlines() if line and not line[0].isspace()}
    return set(names) | {name.split(":")[0] for name in found if not name.startswith("<")}


def owned_by_packages(paths: Iterable[str], packages: Collection[str], run: Run = subprocess.run) -> set[str]:
    """Those of ``paths`` that dpkg says belong to one of ``packages``."""
    owned = set()
    for path in paths:
        done = run(["dpkg-query", "--search", path], capture_output=True, text=True, timeout=60)
        for line in done.stdout.splitlines():
            owners, _, listed = line.partition(": ")
            if listed.strip() == path and {o.strip().split(":")[0] for o in owners.split(",")} & set(packages):
                owned.add(path)
    return owned


def added_entries(before: dict[str, object], after: dict[str, object]) -> list[str]:
    """Host paths of the entries added to the watched folders."""
    return [
        os.path.join(what.removeprefix("entries of "), name)
        for what, old in before.items() if what.startswith("entries of ")
        for name in after.get(what, ()) if name not in old
    ]


def running_descendants(pid: int, proc: Path = Path("/proc")) -> list[str]:
    """``"PID COMMAND"`` of each process descended from ``pid`` that is still running (not a zombie)."""
    parents: dict[int, list[int]] = {}
    states: dict[int, str] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat[stat.rindex(")") + 2:].split()
        states[int(entry.name)] = fields[0]
        parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], list(parents.get(pid, []))
    while todo:
        child = todo.pop()
        todo.extend(parents.get(child, []))
        if states.get(child) == "Z":
            continue
        try:
            command = (proc / str(child) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        found.append(f"{child} {command[:200]}")
    return sorted(found)


def final_problems(host: Host, before: dict[str, object], pid: int, packages: Collection[str],
                   declared_paths: Iterable[Path], grace_s: float = 10.0) -> list[str]:
    """What the session changed on ``host`` since ``before``, one line each; ``[]`` when nothing did.

    Processes descended from ``pid`` get ``grace_s`` seconds to end (xdist workers exit as the
    session ends). Entries added by the Debian ``packages`` the suite installs (and what they pull
    in) and the top-level entries of ``declared_paths`` are allowed.
    """
    import time

    deadline = time.monotonic() + grace_s
    while (left := running_descendants(pid)) and time.monotonic() < deadline:
        time.sleep(0.2)
    after = snapshot(host)
    allowed = declared_entries(declared_paths)
    added = [path for path in added_entries(before, after) if path not in allowed]
    if added and host.root == Path("/"):  # dpkg knows the real machine only
        allowed |= owned_by_packages(added, package_closure(packages))
    return differences(before, after, allowed) + [f"still running: {process}" for process in left]
