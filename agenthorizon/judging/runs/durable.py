"""Group commit: many small files made durable together, each atomically.

A run writes one result file per item, and a result counts (progress,
``records``, the run record's counts) only once it is durable: a crash may
lose what was in flight, never a result the run said it had. Making each
file durable on its own (temporary file, fsync, rename) costs one journal
commit per file; :func:`commit_texts` makes a whole batch durable at once:

1. every text is written to a temporary file beside its target
   (``.<name>.<random>.tmp``), without syncing;
2. every temporary file is fsynced, all at once from a few threads (the
   filesystem folds fsyncs that arrive together into a few journal commits);
3. each is renamed over its target, so a reader sees the old file or the
   complete new one, never a torn one;
4. each target directory is fsynced once, which makes the renames durable.

Only then has the batch been committed. A crash before step 4 leaves complete
files (renamed ones) and temporary files; readers ignore the temporary
files (their names are not ``<uuid>.json``) and the runner removes its own
when it resumes (:func:`remove_temp_files`).

The runner commits in a process of its own (:func:`serve`, started by
:mod:`agenthorizon.judging.runs.writer`): file creations, fsyncs and renames
are system calls that release and retake Python's global lock, and a thread
doing hundreds of them a second keeps taking that lock from the event loop.
So this module imports nothing but the standard library, and runs as a
script from its own path (``python -I durable.py``) whatever ``sys.path``
the runner had.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import struct
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

if TYPE_CHECKING:  # the writer's machinery is imported where it runs: readers of run folders never need it
    import concurrent.futures

__all__ = [
    "FSYNC_THREADS",
    "TEMP_SUFFIX",
    "commit_texts",
    "decode_batch",
    "decode_reply",
    "encode_batch",
    "encode_compact",
    "encode_json",
    "encode_reply",
    "file_text",
    "is_temp_of",
    "remove_temp_files",
    "serve",
    "sync_directory",
]

TEMP_SUFFIX = ".tmp"
# Temporary files open at once during a commit (well under the usual limit of 1,024 descriptors).
_OPEN_AT_ONCE = 256


def encode_json(payload: Mapping[str, Any], *, spare: int = 0) -> str:
    """``payload`` as the ASCII JSON text of a run folder's file, registered secrets scrubbed.

    ASCII (``ensure_ascii``) because a model's answer may hold a lone
    surrogate, which UTF-8 cannot encode but a ``\\udXXX`` escape can.
    ``spare`` trailing spaces (still valid JSON) leave room to rewrite the
    file in place. Raises ``TypeError``/``ValueError``/``RecursionError`` for a
    payload JSON cannot hold -- before any file is touched.
    """
    from agenthorizon.judging.secrets import scrub_data

    return json.dumps(scrub_data(payload), ensure_ascii=True, indent=1) + "\n" + " " * spare


def encode_compact(payload: Mapping[str, Any]) -> str:
    """``payload`` as compact ASCII JSON, registered secrets scrubbed: what the runner sends to be committed.

    ``json`` encodes compact text in C but indented text in Python, at about
    0.05 ms per result on the event loop; the commit process indents it
    (:func:`file_text`). Raises what :func:`encode_json` raises, for the same payloads.
    """
    from agenthorizon.judging.secrets import scrub_data

    return json.dumps(scrub_data(payload), ensure_ascii=True)


def file_text(compact: str) -> str:
    """The file text of :func:`encode_compact`'s text: exactly :func:`encode_json` of the same payload.

    >>> payload = {"raw_output": "half \\ud83d", "telemetry": {"latency_s": 0.1, "n": [1, None]}}
    >>> file_text(encode_compact(payload)) == encode_json(payload)
    True
    """
    return json.dumps(json.loads(compact), ensure_ascii=True, indent=1) + "\n"


def is_temp_of(name: str, target: str) -> bool:
    """True when file ``name`` is a temporary file of :func:`commit_texts` for the file named ``target``.

    >>> is_temp_of(".a.json.k3j_x9.tmp", "a.json"), is_temp_of("a.json", "a.json")
    (True, False)
    """
    return name.startswith(f".{target}.") and name.endswith(TEMP_SUFFIX)


def commit_texts(
    items: Sequence[tuple[Path, str]],
    *,
    fsync_pool: concurrent.futures.Executor | None = None,
    still_wanted: Callable[[], bool] | None = None,
) -> tuple[int, OSError | None]:
    """Write each ``(path, text)`` atomically, and make them all durable with one group commit.

    Returns ``(committed, error)``: the first ``committed`` items are on disk
    and durable; ``error`` (``None`` when all are) is the ``OSError`` that
    stopped the rest (a full disk, a read-only folder), and none of the rest
    was written: their temporary files are removed. When the folder's own
    fsync fails, nothing counts as committed, but the renamed files (each
    complete) stay in place. Texts are ASCII. ``still_wanted`` is asked once
    the files are durable, before the first rename: when it says no (the
    runner that sent them is gone), nothing is renamed.

    ``fsync_pool`` (threads) issues the files' fsyncs at once, which the
    filesystem serves with a few journal commits instead of one each: on the
    shared disk of ``benchmarks/bench_runner.py`` (2026-11-30), 64 files took
    16-120 ms fsynced one after another and 11-50 ms issued from 8 threads,
    against 32-43 ms for the folder's own fsync alone at the same moments.
    """
    if not items:
        return 0, None
    temps: list[str] = []
    try:
        # Files are kept open from write to fsync, a bounded number at a time.
        for start in range(0, len(items), _OPEN_AT_ONCE):
            handles = []
            try:
                for path, text in items[start : start + _OPEN_AT_ONCE]:
                    fd, temp = _write_temp(Path(path), text.encode("ascii"))
                    temps.append(temp)
                    handles.append(fd)
                if fsync_pool is None or len(handles) == 1:
                    for fd in handles:
                        os.fsync(fd)
                else:
                    list(fsync_pool.map(os.fsync, handles))
            finally:
                for fd in handles:
                    os.close(fd)
    except OSError as error:
        _remove(temps)
        return 0, error
    if still_wanted is not None and not still_wanted():
        _remove(temps)
        return 0, OSError("the runner that sent these results has ended; nothing was renamed")
    renamed = 0
    stopped: OSError | None = None
    try:
        for temp, (path, _) in zip(temps, items):
            os.replace(temp, path)
            renamed += 1
    except OSError as failure:
        stopped = failure
        _remove(temps[renamed:])
    try:
        for directory in dict.fromkeys(Path(path).parent for path, _ in items[:renamed]):
            sync_directory(directory)
    except OSError as failure:
        # The renames may not survive a crash, so none is acknowledged. The files
        # stay: each is complete (fsynced before its rename) and replaced an
        # older version that is gone either way; removing them would also remove
        # a run record rewritten here. A resume reads them like any other.
        return 0, failure
    return renamed, stopped


def _write_temp(path: Path, data: bytes) -> tuple[int, str]:
    """A new temporary file beside ``path`` holding ``data``: (open descriptor, name)."""
    import tempfile

    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except BaseException:
        os.close(fd)
        _remove([temp])
        raise
    return fd, temp


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
    """Remove temporary files left in ``directory`` by a crashed commit of the files named ``targets``.

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


# --- the commit process ---------------------------------------------------------------------
#
# Requests on standard input: a 4-byte little-endian length, then per file a
# (path length, text length) pair of 4-byte integers, the path (file-system
# encoding) and the ASCII text, compact JSON (encode_compact) that the
# process indents (file_text). Replies on standard output: one JSON line,
# [committed, null] or [committed, [errno, message]].

_LENGTH = struct.Struct("<I")
_PAIR = struct.Struct("<II")
FSYNC_THREADS = 8
"""Threads that issue a commit's fsyncs together (they wait on the disk, not the CPU)."""


def encode_batch(items: Sequence[tuple[Path, str]]) -> bytes:
    """One request: the ``(path, text)`` pairs to commit, framed with its length.

    >>> decode_batch(encode_batch([(Path("/r/a.json"), "{}")])[4:])
    [(PosixPath('/r/a.json'), '{}')]
    """
    parts = []
    for path, text in items:
        name, data = os.fsencode(path), text.encode("ascii")
        parts += (_PAIR.pack(len(name), len(data)), name, data)
    body = b"".join(parts)
    return _LENGTH.pack(len(body)) + body


def decode_batch(body: bytes) -> list[tuple[Path, str]]:
    """The ``(path, text)`` pairs of a request's body (its length already read)."""
    items, offset = [], 0
    while offset < len(body):
        name_length, text_length = _PAIR.unpack_from(body, offset)
        offset += _PAIR.size
        name = os.fsdecode(body[offset : offset + name_length])
        offset += name_length
        items.append((Path(name), body[offset : offset + text_length].decode("ascii")))
        offset += text_length
    return items


def encode_reply(committed: int, error: OSError | None) -> bytes:
    """A reply line: how many of the request's files are durable, and what stopped the rest."""
    failure = None if error is None else [error.errno, error.strerror or str(error)]
    return json.dumps([committed, failure]).encode("ascii") + b"\n"


def decode_reply(line: bytes) -> tuple[int, OSError | None]:
    """``(committed, error)`` of a reply line; an empty line (the process ended) is an error.

    >>> decode_reply(encode_reply(3, None)), decode_reply(encode_reply(0, OSError(28, "No space left on device")))[1].errno
    ((3, None), 28)
    """
    if not line:
        return 0, OSError(errno.EIO, "the result-writing process ended unexpectedly")
    committed, failure = json.loads(line)
    return committed, None if failure is None else OSError(failure[0], failure[1])


def serve(requests: Any = None, replies: Any = None) -> None:
    """Commit each request read from ``requests`` (standard input) and reply on ``replies`` (standard output).

    Ends at the end of the input -- the runner closed it, or died: a request
    cut short is not committed. Ctrl-C is for the runner, which then waits
    for the commits in flight; this process never stops on its own.
    """
    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests = requests or sys.stdin.buffer
    replies = replies or sys.stdout.buffer
    # A runner killed outright (SIGKILL) cannot close the input before a batch
    # in flight is renamed; a new runner resuming the folder may by then have
    # written newer results for those items. The batch is renamed only while
    # the runner that sent it is still this process's parent.
    runner = os.getppid()
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(FSYNC_THREADS) as pool:
        while True:
            header = requests.read(_LENGTH.size)
            if len(header) < _LENGTH.size:
                return
            (length,) = _LENGTH.unpack(header)
            body = requests.read(length)
            if len(body) < length:
                return
            items = [(path, file_text(compact)) for path, compact in decode_batch(body)]
            reply = encode_reply(*commit_texts(items, fsync_pool=pool, still_wanted=lambda: os.getppid() == runner))
            try:
                replies.write(reply)
                replies.flush()
            except BrokenPipeError:  # the runner is gone: nobody to tell
                return


if __name__ == "__main__":
    serve()
