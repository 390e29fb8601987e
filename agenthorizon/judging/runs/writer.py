"""The runner's result writer: group commits, in a process of their own, acknowledged once durable.

:class:`ResultWriter` takes each :class:`~agenthorizon.judging.runs.records.ResultRecord`
as a worker finishes it and writes ``<out_dir>/<trajectory_id>.json``: the
one place a result becomes JSON. What it guarantees:

- **A result is acknowledged only once durable.** ``on_written`` (the run
  counts it, shows it, keeps it in its results) is called only after its
  commit returned: file written, fsynced, renamed, folder fsynced
  (:func:`~agenthorizon.judging.runs.durable.commit_texts`).
- **Group commits.** Results queue while a commit is on the disk; the next
  commit takes every result queued by then, so the faster results come, the
  more each commit carries and the fewer syncs each result costs.
- **An answer JSON cannot hold** becomes an error result naming the item
  (``unwritable``), never a failed run.
- **Bounded.** At most ``2 x concurrency`` results are pending, which bounds
  memory and what a crash can lose; a worker waits only for a free slot.
- **The run's own I/O failures** (a full disk, a read-only folder) are kept in
  ``failure``; the loop then stops taking items, and results still queued
  are not written.

Where the commits run: in a child process (:func:`durable.serve
<agenthorizon.judging.runs.durable.serve>`) talking over pipes with the event
loop, without any thread. A thread doing the commits would release and retake
Python's global lock at every file creation, fsync and rename, and each time
take it from the event loop: at 50 ms per item and 64 slots that made runs
1.7x the ideal schedule instead of 1.2x (``benchmarks/bench_runner.py``).
When no child process can be started (no ``sys.executable``, a zipped
install, an event loop without subprocess support), the commits run in a
thread instead.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import functools
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

from agenthorizon.judging.runs import durable
from agenthorizon.judging.runs.folder import result_path
from agenthorizon.judging.runs.records import ResultRecord

__all__ = ["ResultWriter", "commit_command"]


def commit_command() -> list[str]:
    """The command of the commit process: this Python, isolated, running ``durable.py`` from its path."""
    return [sys.executable, "-I", durable.__file__]


class _ProcessCommits(asyncio.SubprocessProtocol):
    """Commits made by a child process over its standard input and output.

    Built on the loop's low-level subprocess protocol, so a commit in flight
    is a plain future: when a stopping run cancels its tasks (Ctrl-C), the
    commits already sent still complete, and are still acknowledged.
    """

    def __init__(self) -> None:
        self.transport: asyncio.SubprocessTransport | None = None
        self.replies = bytearray()
        self.waiting: collections.deque[asyncio.Future] = collections.deque()
        self.ended: asyncio.Future | None = None
        self.open_pipes = 0

    async def start(self) -> None:
        if not sys.executable or not os.path.isfile(durable.__file__):  # e.g. an embedded or zipped install
            raise OSError("no Python executable and durable.py file to start the commit process with")
        loop = asyncio.get_running_loop()
        self.ended = loop.create_future()
        self.transport, _ = await loop.subprocess_exec(
            lambda: self,
            *commit_command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,
            # Its own session: a Ctrl-C at the terminal goes to the runner, which
            # then waits for the commits in flight instead of losing them.
            start_new_session=True,
        )

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.open_pipes = 1  # standard output; standard input is closed by close()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.replies += data
        while b"\n" in self.replies and self.waiting:
            line, _, rest = bytes(self.replies).partition(b"\n")
            self.replies = bytearray(rest)
            self.waiting.popleft().set_result(durable.decode_reply(line + b"\n"))

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            while self.waiting:  # the process ended before replying: those commits may not be durable
                self.waiting.popleft().set_result(durable.decode_reply(b""))
            self.open_pipes = 0
            self._maybe_ended()

    def process_exited(self) -> None:
        self._maybe_ended()

    def _maybe_ended(self) -> None:
        assert self.transport is not None and self.ended is not None
        if self.open_pipes == 0 and self.transport.get_returncode() is not None and not self.ended.done():
            self.ended.set_result(None)

    def commit(self, items: list[tuple[Path, str]]) -> asyncio.Future:
        """A future of ``(committed, error)`` for ``items`` (path, compact JSON)."""
        assert self.transport is not None
        future = asyncio.get_running_loop().create_future()
        stdin = self.transport.get_pipe_transport(0)
        if self.open_pipes == 0 or stdin is None or stdin.is_closing():
            future.set_result(durable.decode_reply(b""))
            return future
        self.waiting.append(future)
        stdin.write(durable.encode_batch(items))
        return future

    async def close(self) -> None:
        assert self.transport is not None and self.ended is not None
        stdin = self.transport.get_pipe_transport(0)
        if stdin is not None:
            stdin.close()  # the end of the input: the process commits nothing more and ends
        await self.ended
        self.transport.close()


class _ThreadCommits:
    """Commits made by a thread of this process (the fallback)."""

    def __init__(self) -> None:
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="commit")
        self.fsync_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=durable.FSYNC_THREADS, thread_name_prefix="fsync"
        )

    def commit(self, items: list[tuple[Path, str]]) -> asyncio.Future:
        """A future of ``(committed, error)`` for ``items`` (path, compact JSON)."""
        return asyncio.get_running_loop().run_in_executor(self.pool, self._commit, items)

    def _commit(self, items: list[tuple[Path, str]]) -> tuple[int, OSError | None]:
        files = [(path, durable.file_text(compact)) for path, compact in items]
        return durable.commit_texts(files, fsync_pool=self.fsync_pool)

    async def close(self) -> None:
        self.pool.shutdown(wait=True)
        self.fsync_pool.shutdown(wait=True)


class ResultWriter:
    """Writes result files in group commits while the workers go on judging (module docstring).

    ``unwritable(result, error)`` gives the error result that replaces an
    answer JSON cannot encode.
    """

    def __init__(
        self,
        out_dir: Path,
        concurrency: int,
        on_written: Callable[[ResultRecord], None],
        unwritable: Callable[[ResultRecord, BaseException], ResultRecord],
    ) -> None:
        self.out_dir = out_dir
        self.slots = asyncio.Semaphore(2 * concurrency)
        self.queued: list[ResultRecord] = []
        self.commit: asyncio.Future | None = None
        self.failure: OSError | None = None
        self.on_written = on_written
        self.unwritable = unwritable
        self.commits: _ProcessCommits | _ThreadCommits | None = None

    async def start(self) -> None:
        """Start the commit process (or, when none can be started, the commit thread)."""
        self.commits = _ProcessCommits()
        try:
            await self.commits.start()
        except (OSError, NotImplementedError, RuntimeError):
            self.commits = _ThreadCommits()

    async def submit(self, result: ResultRecord) -> None:
        """Queue ``result`` for ``<out_dir>/<trajectory_id>.json``; waits only for a free slot."""
        await self.slots.acquire()
        if self.failure is not None:  # the run is stopping: nothing more is written
            self.slots.release()
            return
        self.queued.append(result)
        if self.commit is None:
            self._start_commit()

    def _start_commit(self) -> None:
        assert self.commits is not None, "start() first"
        batch, self.queued = self.queued, []
        encoded = [self._encoded(result) for result in batch]
        items = [(result_path(self.out_dir, result.trajectory_id), text) for result, text in encoded]
        self.commit = self.commits.commit(items)
        self.commit.add_done_callback(functools.partial(self._committed, [result for result, _ in encoded]))

    def _encoded(self, result: ResultRecord) -> tuple[ResultRecord, str]:
        """The result and its compact JSON (the commit indents it); an unwritable answer becomes an error result."""
        try:
            return result, durable.encode_compact(result.to_dict())
        except (TypeError, ValueError, RecursionError) as error:
            # Raised while encoding, before the disk is touched: the answer's fault, not the run's.
            result = self.unwritable(result, error)
            return result, durable.encode_compact(result.to_dict())

    def _committed(self, results: list[ResultRecord], future: asyncio.Future) -> None:
        self.commit = None
        for _ in results:
            self.slots.release()
        if future.cancelled():
            error: BaseException | None = OSError("the result writes were cancelled")
        elif future.exception() is not None:
            error = future.exception()  # not an item's answer (those become error results): the run's failure
        else:
            committed, error = future.result()
            for result in results[:committed]:
                self.on_written(result)
        if error is None:
            if self.queued and self.failure is None:
                self._start_commit()
            return
        if self.failure is None:
            self.failure = error if isinstance(error, OSError) else OSError(str(error))
        for _ in self.queued:
            self.slots.release()
        self.queued.clear()

    async def drain(self) -> None:
        """Wait until every queued result is committed (or the writes failed), then stop the commits."""
        while self.commit is not None:
            await asyncio.wait([self.commit])  # _committed, registered first, may start the next commit
        if self.commits is not None:
            await self.commits.close()
