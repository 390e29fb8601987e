"""Durable, atomic files (:func:`write_durable`): written to a temporary file, fsynced, renamed, the folder fsynced.

A reader sees the old file or the complete new one, never a torn one. A crash
can leave temporary files (``.<name>.<random>.tmp``); readers ignore them and
the runner removes its own when it resumes (:func:`remove_temp_files`).
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

__all__ = ["TEMP_SUFFIX", "encode_json", "is_temp_of", "remove_temp_files", "sync_directory", "write_durable"]

TEMP_SUFFIX = ".tmp"


def encode_json(payload: Mapping[str, Any], *, spare: int = 0) -> str:
    """``payload`` as the ASCII JSON text of a run folder's file, registered secrets scrubbed.

    ASCII (``ensure_ascii``) because a model's answer may hold a lone
    surrogate, which UTF-8 cannot encode but a ``\\udXXX`` escape can.
    ``spare`` trailing spaces (still valid JSON) leave room to rewrite the
    file in place. Raises ``TypeError``/``ValueError``/``RecursionError`` for a
    payload JSON cannot hold -- before any file is touched.

    >>> encode_json({"raw_output": "half \\ud83d"})
    '{\\n "raw_output": "half \\\\ud83d"\\n}\\n'
    """
    from agenthorizon.judging.secrets import scrub_data

    return json.dumps(scrub_data(payload), ensure_ascii=True, indent=1) + "\n" + " " * spare


def is_temp_of(name: str, target: str) -> bool:
    """True when file ``name`` is a temporary file of :func:`write_durable` for the file named ``target``.

    >>> is_temp_of(".a.json.k3j_x9.tmp", "a.json"), is_temp_of("a.json", "a.json")
    (True, False)
    """
    return name.startswith(f".{target}.") and name.endswith(TEMP_SUFFIX)


def write_durable(path: Path, text: str) -> None:
    """Write ASCII ``text`` to ``path`` atomically and durably; raises ``OSError``.

    When writing or renaming fails, the temporary file is removed and
    ``path`` is as it was. When only the folder's fsync fails, the new file
    (complete: fsynced before its rename) stays in place, but the error is
    raised: the rename may not survive a crash, so the file must not count.
    """
    import tempfile

    path = Path(path)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        try:
            view = memoryview(text.encode("ascii"))
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        _remove([temp])
        raise
    # Removing the file now would also remove a run record rewritten here; a resume reads it like any other.
    sync_directory(path.parent)


def sync_directory(directory: str | os.PathLike[str]) -> None:
    """fsync a directory, which makes the renames and creations in it durable (POSIX; a no-op elsewhere)."""
    if not hasattr(os, "O_DIRECTORY"):
        return  # Windows: directories cannot be opened, NTFS journals renames itself
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno != errno.EINVAL:  # a filesystem that cannot sync directories
            raise
    finally:
        os.close(fd)


def _remove(names: Iterable[str]) -> None:
    for name in names:
        try:
            os.unlink(name)
        except FileNotFoundError:
            pass


def remove_temp_files(directory: Path, targets: Iterable[str]) -> int:
    """Remove temporary files left in ``directory`` by a crashed write of the files named ``targets``.

    Only the temporary files of those names are touched, so that runners
    sharing a folder (the shards of one run) never remove each other's
    files in flight. Returns how many were removed.
    """
    wanted = set(targets)
    removed = 0
    try:
        names = [entry.name for entry in os.scandir(directory) if entry.name.startswith(".")]
    except FileNotFoundError:
        return 0
    for name in names:
        target = name[1:].rsplit(".", 2)[0] if name.endswith(TEMP_SUFFIX) else None
        if target in wanted and is_temp_of(name, target):
            _remove([str(directory / name)])
            removed += 1
    return removed
