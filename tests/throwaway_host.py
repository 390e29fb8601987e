"""Running a test's command where the host's files and hostname cannot be changed.

A test that lets an agent attack the machine (the ``--sandbox none`` control, run as root, must show
that writing ``/etc`` or the hostname works unconfined) runs its command through
:func:`throwaway_argv`: ``unshare`` gives the command a mount and a UTS namespace of its own, and this
file, run as the namespace's first program, makes its root an overlay whose writes go to a tmpfs
that vanishes with the namespace. Only the folders the test names (its own temporary folders) are
the host's, read-write; the hostname is the namespace's. ``/proc``, ``/sys`` and ``/dev`` are the
host's kernel interfaces, bound as they are (programs need them): the hostname written through
``/proc/sys/kernel/hostname`` is the UTS namespace's, other kernel settings are not namespaced.

Run as a script: ``python throwaway_host.py SCRATCH KEEP... -- ARGV...`` (inside ``unshare``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

# Bound as they are: the kernel's interfaces, which an overlay cannot hold.
KERNEL_MOUNTS = ("/proc", "/sys", "/dev")
# The tmpfs holding every write made to the host's folders inside the namespace.
SCRATCH_SIZE = "512m"


def throwaway_argv(argv: Sequence[str], scratch: Path, keep: Sequence[Path]) -> list[str]:
    """``argv`` wrapped to run in a throwaway mount and UTS namespace (root only).

    Parameters
    ----------
    argv : the command.
    scratch : an empty folder of the test's, where the namespace mounts its tmpfs (the host sees it empty).
    keep : folders that stay the host's, read-write (the test's own), so the test sees what was written.

    Examples
    --------
    >>> throwaway_argv(["hostname"], Path("/t/ns"), [Path("/t/run")])[:6]
    ['unshare', '--mount', '--uts', '--propagation', 'private', '--fork']
    """
    return ["unshare", "--mount", "--uts", "--propagation", "private", "--fork", "--kill-child",
            sys.executable, os.path.abspath(__file__), str(scratch), *map(str, keep), "--", *argv]


def _unescape(field: str) -> str:
    """A mount point as /proc/self/mountinfo writes it (space, tab, newline, backslash octal-escaped)."""
    return field.encode().decode("unicode_escape")


def top_level_mounts(mountinfo: str) -> list[str]:
    """The mount points whose parent is the root mount, in mount order (their own submounts excluded).

    >>> top_level_mounts("1 0 8:1 / / rw - ext4 a rw\\n2 1 0:5 / /proc rw - proc b rw\\n3 2 0:6 / /proc/x rw - c d rw\\n")
    ['/proc']
    """
    rows = [line.split() for line in mountinfo.splitlines() if line.strip()]
    root = [row[0] for row in rows if _unescape(row[4]) == "/"][-1]  # the last mount on / is the visible one
    return [_unescape(row[4]) for row in rows if row[1] == root and _unescape(row[4]) != "/"]


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"throwaway_host: mount {' '.join(args)} failed: {done.stderr.strip()}")


def _overlay(lower: str, scratch: Path, target: Path) -> None:
    """Mount ``lower`` at ``target`` with its writes kept in ``scratch`` (a tmpfs)."""
    name = lower.strip("/").replace("/", "_") or "root"
    upper, work = scratch / "upper" / name, scratch / "work" / name
    upper.mkdir(parents=True)
    work.mkdir(parents=True)
    _mount("-t", "overlay", "overlay", "-o", f"lowerdir={lower},upperdir={upper},workdir={work}", str(target))


def main(args: list[str]) -> None:
    split = args.index("--")
    scratch, keep, argv = Path(args[0]), [Path(p) for p in args[1:split]], args[split + 1:]
    cwd = os.getcwd()
    mounts = top_level_mounts(Path("/proc/self/mountinfo").read_text())
    _mount("-t", "tmpfs", "-o", f"size={SCRATCH_SIZE},mode=700", "throwaway", str(scratch))
    root = scratch / "root"
    root.mkdir()
    _overlay("/", scratch, root)
    for point in mounts:
        target = root / point.lstrip("/")
        if point in KERNEL_MOUNTS:
            _mount("--rbind", point, str(target))
        elif not scratch.is_relative_to(point):
            _overlay(point, scratch, target)
    for path in keep:
        target = root / str(path).lstrip("/")
        target.mkdir(parents=True, exist_ok=True)  # absent where a skipped mount held it; made in the overlay
        _mount("--rbind", str(path), str(target))
    # pivot_root, not chroot: the host's root is then unmounted, not merely out of sight.
    old = root / ".host"
    old.mkdir()
    os.chdir(root)
    subprocess.run(["pivot_root", ".", ".host"], check=True)
    os.chroot(".")
    subprocess.run(["umount", "-l", "/.host"], check=True)
    os.rmdir("/.host")
    os.chdir(cwd)
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main(sys.argv[1:])
