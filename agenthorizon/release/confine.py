"""Confinement: a file read from a release must really lie inside it, and be a regular file.

A file that really lies outside the release's real roots (a Hub snapshot's
``blobs/`` counts as inside) is refused, and so is a FIFO, socket or device,
without blocking. Every release reader goes through here (docs/security.md).
"""

from __future__ import annotations

import errno
import os
import stat
from itertools import repeat
from operator import itemgetter
from typing import Any, Sequence

__all__ = [
    "NotRegularFileError",
    "confined",
    "escaping_screenshots",
    "link_out_message",
    "open_confined",
    "open_regular",
    "release_real_roots",
]


def release_real_roots(root: str) -> tuple[str, ...]:
    """The real folders a file of the release at ``root`` may lead to.

    The root's real path and, for a Hub snapshot (``<repo cache>/snapshots/<commit>``),
    the repo cache's ``blobs/`` folder when it is a folder, not a link.
    Remembered per root while the root is the same folder (device and inode).

    >>> release_real_roots("/nonexistent/release")
    ('/nonexistent/release',)
    """
    try:
        info = os.stat(root)
        identity: tuple[int, int] | None = (info.st_dev, info.st_ino)
    except OSError:
        identity = None
    known = _ROOTS.get(root)
    if known is not None and identity is not None and known[0] == identity:
        return known[1]
    real = os.path.realpath(root)
    roots = [real]
    parent = os.path.dirname(root)
    if os.path.basename(parent) == "snapshots":
        blobs = os.path.join(os.path.dirname(parent), "blobs")
        if os.path.isdir(blobs) and not os.path.islink(blobs):
            roots.append(os.path.realpath(blobs))
    if identity is not None:
        _ROOTS[root] = (identity, tuple(roots))
    return tuple(roots)


_ROOTS: dict[str, tuple[tuple[int, int], tuple[str, ...]]] = {}
# Where the kernel says an open file lives (Linux): one readlink, where
# os.path.realpath stats every component of the path.
_FD_LINK = "/proc/self/fd/{}"
_HAVE_FD_LINKS = os.path.isdir("/proc/self/fd")


def _inside(real: str, roots: Sequence[str]) -> bool:
    return any(real == top or real.startswith(top + os.sep) for top in roots)


def confined(root: str | os.PathLike[str], path: str | os.PathLike[str], what: str) -> str:
    """``path`` as a string, after checking that its real path stays in the release at ``root``.

    Raises ``ValueError`` naming the file, where it really leads and what was
    expected when a symbolic link (of the file or of a folder on its way)
    leads out of the release. A file that does not exist passes: its reader
    says it is missing. Readers that open the file use :func:`open_confined`,
    which checks the file actually opened.
    """
    path = os.fspath(path)
    real = os.path.realpath(path)
    if not _inside(real, release_real_roots(os.fspath(root))):
        raise ValueError(link_out_message(path, what, real, root))
    return path


class NotRegularFileError(ValueError):
    """A file to read is a FIFO, a socket or a device, not a regular file; ``kind`` says which."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)
# Opening must never wait (a FIFO without writer) nor make the file our terminal.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def _check_regular(mode: int, path: str, what: str) -> None:
    """Raise unless ``mode`` (of the file ``path``) is a regular file's: ``IsADirectoryError`` or :class:`NotRegularFileError`."""
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, f"{what} is a directory", path)
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    link = ""
    if os.path.islink(path):
        link = f" (behind a link to {os.path.realpath(path)})"
    raise NotRegularFileError(
        f"{path}: {what} is {kind}{link}, not a regular file; expected a regular file (reading it could block forever)",
        kind,
    )


def open_regular(path: str | os.PathLike[str], what: str, mode: str = "rb", **kwargs: Any) -> Any:
    """``open(path, mode)`` for reading, refused at once unless ``path`` is a regular file (links followed).

    Checked with ``stat`` (a device is never opened), opened ``O_NONBLOCK`` and
    checked again with ``fstat``. ``what`` names the file; the error is
    :class:`NotRegularFileError` (a ValueError) naming what it is and the link
    that led there; missing files raise as ``open`` does.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> fifo = os.path.join(folder, "labels.jsonl")
    >>> os.mkfifo(fifo)
    >>> open_regular(fifo, "label file")
    Traceback (most recent call last):
    ...
    agenthorizon.release.confine.NotRegularFileError: /.../labels.jsonl: label file is a FIFO (named pipe), not a regular file; expected a regular file (reading it could block forever)
    """
    if mode not in ("r", "rb"):
        raise ValueError(f"open_regular reads files: mode must be 'r' or 'rb', got {mode!r}")
    path = os.fspath(path)
    _check_regular(os.stat(path).st_mode, path, what)
    fd = os.open(path, _READ_FLAGS)
    try:
        _check_regular(os.fstat(fd).st_mode, path, what)
        if _READ_FLAGS & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)  # a regular file: reads behave as they always do
        handle = open(fd, mode, **kwargs)
    except BaseException:
        os.close(fd)
        raise
    # Named by its path, as open(path) names it (Pillow's Image.filename, error messages).
    (handle.buffer.raw if "b" not in mode else handle.raw).name = path
    return handle


def open_confined(root: str | os.PathLike[str], path: str | os.PathLike[str], what: str, mode: str = "rb", **kwargs: Any) -> Any:
    """:func:`open_regular` of ``path``, refused (file closed, ``ValueError``) when the opened file lies outside the release.

    The check is on the file that was opened (on Linux, where the kernel
    says it is), so no link can be swapped in between check and read. Other
    errors are those of :func:`open_regular`.
    """
    path = os.fspath(path)
    handle = open_regular(path, what, mode, **kwargs)
    try:
        real = os.readlink(_FD_LINK.format(handle.fileno())) if _HAVE_FD_LINKS else os.path.realpath(path)
    except OSError:
        real = os.path.realpath(path)
    if not _inside(real, release_real_roots(os.fspath(root))):
        handle.close()
        raise ValueError(link_out_message(path, what, real, root))
    return handle


def link_out_message(path: str, what: str, real: str, root: str | os.PathLike[str]) -> str:
    """The one message for a release file that is a link out of the release.

    >>> link_out_message("/r/a.json", "trajectory json", "/home/u/.ssh/id_rsa", "/r")
    '/r/a.json: trajectory json is a link that leads out of the release (to /home/u/.ssh/id_rsa); expected a file inside the release root /r'
    """
    return (
        f"{path}: {what} is a link that leads out of the release (to {real}); "
        f"expected a file inside the release root {os.fspath(root)}"
    )


def escaping_screenshots(
    root: str | os.PathLike[str],
    paths: Sequence[str | None],
    listings: dict[str, tuple[str, set[str]]] | None = None,
) -> list[tuple[int, str, str]]:
    """Every screenshot of ``paths`` that is a link out of the release: ``(index, path, real path)``.

    Each folder is opened and listed once (``listings`` keeps listings across
    calls of one build) and only link entries are followed; missing files are
    not reported here.
    """
    roots = release_real_roots(os.fspath(root))
    if _all_folders_clean(paths, roots, listings):
        return []
    by_folder: dict[str, list[int]] = {}
    for index, path in enumerate(paths):
        if path is not None:
            by_folder.setdefault(os.path.dirname(path), []).append(index)
    escapes: list[tuple[int, str, str]] = []
    real_parents: dict[str, str] = {}
    for folder, indices in by_folder.items():
        listing = None if listings is None else listings.get(folder)
        if listing is None:
            try:
                listing = _list_folder(folder)
            except OSError:  # no such folder: every file of it is missing
                continue
            if listings is not None:
                listings[folder] = listing
        real_folder, link_names = listing
        if not link_names and _inside(real_folder, roots):
            continue  # the common case: a real folder of the release, no link in it
        for index in indices:
            path = paths[index]
            name = os.path.basename(path)
            if name in link_names:
                real = _link_target(path, real_folder, real_parents)
            else:
                real = os.path.join(real_folder, name)
            if not _inside(real, roots):
                escapes.append((index, path, real))
    return escapes


def _all_folders_clean(
    paths: Sequence[str | None], roots: Sequence[str], listings: dict[str, tuple[str, set[str]]] | None
) -> bool:
    """Whether every folder of ``paths`` is a real folder of the release without links (string splits, not ``dirname`` per path)."""
    if os.sep != "/" or os.altsep:
        return False
    present = [path for path in paths if path is not None] if None in paths else paths
    folders = set(map(itemgetter(0), map(str.rpartition, present, repeat("/"))))
    for folder in folders:
        if not folder or folder.endswith("/"):
            return False  # "/x" or "a//b": dirname differs from the plain split
        listing = None if listings is None else listings.get(folder)
        if listing is None:
            try:
                listing = _list_folder(folder)
            except OSError:
                continue  # missing files are reported when read, not here
            if listings is not None:
                listings[folder] = listing
        real_folder, link_names = listing
        if link_names or not _inside(real_folder, roots):
            return False
    return True


def _list_folder(folder: str) -> tuple[str, set[str]]:
    """The real path of ``folder`` and the names of its entries that are symbolic links."""
    if not _HAVE_FD_LINKS:
        with os.scandir(folder) as listing:
            return os.path.realpath(folder), {entry.name for entry in listing if entry.is_symlink()}
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        real = os.readlink(_FD_LINK.format(fd))
        with os.scandir(fd) as listing:
            # filter calls is_symlink from C
            return real, {entry.name for entry in filter(os.DirEntry.is_symlink, listing)}
    finally:
        os.close(fd)


def _link_target(path: str, real_folder: str, real_parents: dict[str, str]) -> str:
    """Where the link at ``path`` (in the real folder ``real_folder``) really leads; a plain ``../``-climbing target (a Hub blob link) is joined without a full resolve."""
    target = os.readlink(path)
    parts = target.split("/")
    climb = 0
    while climb < len(parts) and parts[climb] == "..":
        climb += 1
    if os.sep != "/" or ".." in parts[climb:]:
        return os.path.realpath(path)
    candidate = os.path.normpath(os.path.join(real_folder, target))
    parent = os.path.dirname(candidate)
    real_parent = real_parents.get(parent)
    if real_parent is None:
        real_parent = real_parents[parent] = os.path.realpath(parent)
    real = os.path.join(real_parent, os.path.basename(candidate))
    return os.path.realpath(path) if os.path.islink(real) else real
