"""One disk budget per agent: the sandbox's in-memory folders and the item's own folders on one file system.

The working directory and ``TMPDIR`` used to be host folders bound in
read-write: an agent could fill the host's disk. In the sandbox
(:func:`~agenthorizon.judging.judges.sandbox.bwrap_argv`) one in-memory file
system (a ``tmpfs`` of ``disk_bytes``, bubblewrap's ``--size``) is ``/tmp``,
holds ``/var/tmp`` and ``/run`` (:func:`disk_argv`) and the item's own
folders, rebuilt on it with the harness's files bound in read-only
(:func:`seed_argv`). What the agent writes there is memory, bounded by the
budget, and gone with the sandbox. The sandbox's own shell reads how full it
is once the agent has ended (:func:`read_usage`): the fact that names a
full budget.
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
    """The first and second bubblewrap's options that put the agent's private in-memory folders on one budget.

    One in-memory file system of ``disk_bytes`` (a ``tmpfs``) is ``/tmp``;
    ``/var/tmp`` and ``/run`` are folders of it, bound in place by the second
    bubblewrap (the first can bind host paths only), unless a host path is
    mounted under them (``outer``): then they are read-only mount points.

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

    The folders (working directory, ``TMPDIR``, a preset's home, and the
    folders in them) are made on the budget's file system with mode ``1777``,
    so the agent's user may write them whoever builds the sandbox; the files
    the harness put there are bound in read-only: they cost the budget
    nothing and the agent cannot change them. Paths under ``skip`` are left to
    be mounted afterwards. Folders outside ``/tmp`` (a work root elsewhere)
    get a file system of ``disk_bytes`` of their own, at their parent.
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
