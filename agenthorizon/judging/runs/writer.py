"""The runner's result writer (:class:`ResultWriter`): each result written durably by a thread, acknowledged once durable."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from pathlib import Path
from typing import Callable

from agenthorizon.judging.runs.durable import encode_json, write_durable
from agenthorizon.judging.runs.folder import result_path
from agenthorizon.judging.runs.records import ResultRecord

__all__ = ["WRITE_THREADS", "ResultWriter"]

WRITE_THREADS = 8
"""Threads writing result files at most (they wait on the disk, not the CPU)."""


class ResultWriter:
    """Writes each result to ``<out_dir>/<trajectory_id>.json`` on threads while the workers go on judging.

    - ``on_written(result)`` is called only after
      :func:`~agenthorizon.judging.runs.durable.write_durable` returned (file
      fsynced, renamed, folder fsynced).
    - An answer JSON cannot hold is replaced by ``unwritable(result, error)``,
      an error result, never a failed run.
    - At most ``2 * concurrency`` results are pending; a worker waits only for a free slot.
    - The run's own I/O failure (a full disk) is kept in ``failure``; results
      not yet started are then not written.
    - Cancelling the workers (Ctrl-C) does not cancel the writes:
      :meth:`drain` waits for each and acknowledges it.
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
        self.threads = max(1, min(concurrency, WRITE_THREADS))
        self.pending: set[asyncio.Future] = set()
        self.failure: OSError | None = None
        self.on_written = on_written
        self.unwritable = unwritable
        self.pool: concurrent.futures.ThreadPoolExecutor | None = None

    async def start(self) -> None:
        """Start the writing threads."""
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="result-write")

    async def submit(self, result: ResultRecord) -> None:
        """Queue ``result`` for ``<out_dir>/<trajectory_id>.json``; waits only for a free slot."""
        assert self.pool is not None, "start() first"
        await self.slots.acquire()
        if self.failure is not None:  # the run is stopping: nothing more is written
            self.slots.release()
            return
        # A plain future with a callback, awaited by nobody but drain(): cancelling a
        # worker (Ctrl-C) leaves the write going, and it is still acknowledged.
        future = asyncio.get_running_loop().run_in_executor(self.pool, self._write, result)
        self.pending.add(future)
        future.add_done_callback(self._written)

    def _write(self, result: ResultRecord) -> ResultRecord | None:
        """On a writing thread: the result as written (an unwritable answer replaced), ``None`` if skipped."""
        if self.failure is not None:  # another write failed meanwhile: this one is not started
            return None
        try:
            text = encode_json(result.to_dict())
        except (TypeError, ValueError, RecursionError) as error:
            # Raised while encoding, before the disk is touched: the answer's fault, not the run's.
            result = self.unwritable(result, error)
            text = encode_json(result.to_dict())
        write_durable(result_path(self.out_dir, result.trajectory_id), text)
        return result

    def _written(self, future: asyncio.Future) -> None:
        self.pending.discard(future)
        self.slots.release()
        if future.cancelled():
            error: BaseException | None = OSError("the result write was cancelled")
        else:
            error = future.exception()
        if error is None:
            written = future.result()
            if written is not None:
                self.on_written(written)
        elif self.failure is None:
            self.failure = error if isinstance(error, OSError) else OSError(str(error))

    async def drain(self) -> None:
        """Wait until every pending result is written (or its write failed), then stop the threads."""
        while self.pending:
            await asyncio.wait(set(self.pending))
        if self.pool is not None:
            self.pool.shutdown(wait=True)
