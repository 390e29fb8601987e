"""One disk budget per agent: the sandbox's in-memory folders and the item's own folders on one file system.

One ``tmpfs`` of ``disk_bytes`` is the sandbox's ``/tmp`` and holds ``/var/tmp``,
``/run`` (:func:`disk_argv`) and the item's folders (:func:`seed_argv`), so no
agent can fill the host's disk. What it writes is memory, bounded by the budget
and gone with the sandbox; :func:`read_usage` reads how full it was at the end.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Sequence

__all__ = ["DEFAULT_DISK_BYTES", "PRIVATE_TMPFS", "disk_argv", "read_usage", "seed_argv", "under"]

PRIVATE_TMPFS = ("/tmp", "/var/tmp", "/run")
"""The private in-memory folders, which share one disk budget (:func:`disk_argv`)."""
DEFAULT_DISK_BYTES = 2**30
"""What an agent may write inside the sandbox, all its in-memory folders together: 1 GiB."""


def under(path: str, folders: Iterable[str]) -> bool:
    """Whether ``path`` is one of ``folders`` or lies in one."""
    return any(path == folder or path.startswith(folder + "/") for folder in folders)


def disk_argv(disk_bytes: int, outer: Sequence[Path]) -> tuple[list[str], list[str]]:
    """The first and second bubblewrap's options that put ``/tmp``, ``/var/tmp`` and ``/run`` on one budget.

    ``/var/tmp`` and ``/run`` are folders of ``/tmp``, bound in place by the
    second bubblewrap (the first can bind host paths only), unless a host path
    is mounted under them (``outer``): then they are read-only mount points.

    >>> first, second = disk_argv(2**20, [])
    >>> first[:6], second
    (['--size', '1048576', '--perms', '1777', '--tmpfs', '/tmp'], ['--bind', '/tmp/.var-tmp', '/var/tmp', '--bind', '/tmp/.run', '/run'])
    """
    first = ["--size", str(disk_bytes), "--perms", "1777", "--tmpfs", "/tmp"]
    second: list[str] = []
    for folder in PRIVATE_TMPFS[1:]:
        first += ["--perms", "0755", "--dir", folder]
        if not any(under(str(target), [folder]) for target in outer):
            shared = f"/tmp/.{folder.strip('/').replace('/', '-')}"
            first += ["--perms", "1777", "--dir", shared]
            second += ["--bind", shared, folder]
    return first, second


def seed_argv(private: Sequence[Path], skip: Sequence[Path], disk_bytes: int) -> list[str]:
    """Options that rebuild the item's ``private`` folders on the disk budget, their host files bound in read-only.

    Folders are made with mode ``1777`` (the agent's user may write them whoever
    builds the sandbox); the harness's files in them cost the budget nothing and
    cannot be changed. Paths under ``skip`` are mounted afterwards. Folders
    outside ``/tmp`` get a file system of ``disk_bytes`` of their own, at their parent.
    """
    argv: list[str] = []
    for root in sorted({str(path.parent) for path in private if not under(str(path), ["/tmp"])}):
        argv += ["--size", str(disk_bytes), "--perms", "0755", "--tmpfs", root]
    skipped = [str(path) for path in skip]
    for folder in private:
        argv += ["--perms", "1777", "--dir", str(folder)]
        for parent, dirs, files in os.walk(folder):
            dirs[:] = [d for d in sorted(dirs) if not under(os.path.join(parent, d), skipped)]
            argv += [word for d in dirs for word in ("--perms", "1777", "--dir", os.path.join(parent, d))]
            for name in sorted(files):
                path = os.path.join(parent, name)
                if not under(path, skipped) and os.path.isfile(path) and not os.path.islink(path):
                    argv += ["--ro-bind", path, path]
    return argv


def read_usage(path: Path) -> dict[str, tuple[int, int]]:
    r"""What the sandbox's shell wrote in ``usage`` (:func:`~agenthorizon.judging.judges.sandbox.bwrap_argv`): ``{mount: (used_bytes, size_bytes)}``.

    Empty when there is no reading (the agent was killed, or no such file).

    >>> import tempfile
    >>> report = Path(tempfile.mkdtemp()) / "usage"
    >>> _ = report.write_text("/tmp 256 0 4096")
    >>> read_usage(report)
    {'/tmp': (1048576, 1048576)}
    """
    try:
        with open(path, "rb") as handle:
            text = handle.read(1 << 16).decode("utf-8", "replace")
    except OSError:
        return {}
    found = {}
    for line in text.splitlines():
        words = line.rsplit(" ", 3)
        if len(words) == 4 and all(word.isdigit() for word in words[1:]):
            blocks, free, size = (int(word) for word in words[1:])
            found[words[0]] = ((blocks - free) * size, blocks * size)
    return found
