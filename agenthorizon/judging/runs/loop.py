"""The runner's event loop: workers judging items, one writer, and the reasons a run stops (:func:`judge_items`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import errno
import functools
import random
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from agenthorizon.judging.judges.base import BaseJudge, TransientJudgeError, TransportError
from agenthorizon.judging.retry import RetryPolicy
from agenthorizon.judging.runs.limits import Breaker, CostBudget
from agenthorizon.judging.runs.progress import Progress
from agenthorizon.judging.runs.reask import REASK_INVALID, answer_of, wants_reask, with_answers
from agenthorizon.judging.runs.records import Interruption, ResultRecord
from agenthorizon.judging.runs.results import result_record
from agenthorizon.judging.runs.rows import RowReader
from agenthorizon.judging.runs.summary import RunResults
from agenthorizon.judging.runs.writer import ResultWriter

__all__ = ["DEFAULT_BREAKER", "RunAborted", "RunIOError", "RunInterrupted", "RunSignals", "judge_items", "result_record"]

DEFAULT_BREAKER = 5
"""Consecutive transport failures (no answer from the judge's server) that stop a run."""
# asyncio.timeout (3.11+) bounds an await in place; wait_for wraps a coroutine in a task.
_timeout_scope = getattr(asyncio, "timeout", None)


class RunAborted(RuntimeError):
    """The runner stopped the run: the judge keeps failing to reach its server."""


class RunIOError(OSError):
    """The run directory cannot be written (full disk, permissions): the run stops."""

    def __str__(self) -> str:
        return str(self.strerror)


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped the run; ``signal_name`` says which."""

    def __init__(self, signal_name: str) -> None:
        super().__init__(signal_name)
        self.signal_name = signal_name

    def __str__(self) -> str:
        return f"interrupted by {self.signal_name}"


def _unwritable(result: ResultRecord, error: BaseException) -> ResultRecord:
    """An error result for an item whose answer could not be encoded as JSON."""
    return result_record(
        result.trajectory_id,
        str(result.judge),
        None,
        f"trajectory {result.trajectory_id}: the judge's answer could not be written as JSON "
        f"({type(error).__name__}: {str(error)[:300]})",
        result.judge_key,
        attempts=result.telemetry.attempts,
    )


@dataclass
class _Run:
    """What the workers of one run share."""

    judge: BaseJudge
    ids: list[str]
    rows: RowReader
    writer: ResultWriter
    policy: RetryPolicy | None
    timeout: float | None
    use_thread: bool
    judge_pool: concurrent.futures.Executor
    breaker: Breaker
    budget: CostBudget
    judge_key: str | None = None
    ablation: tuple[str, ...] = ()
    perturbation: tuple[str, ...] = ()
    reask: int = 0
    reask_when: str = REASK_INVALID
    in_flight: int = 0
    stop: str | None = None
    abort: str | None = None
    rng: random.Random = field(default_factory=random.Random)
    item_ended: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def stopping(self) -> bool:
        return self.stop is not None or self.abort is not None or self.writer.failure is not None

    def wake(self) -> None:
        """Wake the workers waiting for an item to end (the cost budget holds them back)."""
        self.item_ended.set()
        self.item_ended = asyncio.Event()


def _calls(outcome: Any) -> int:
    """The calls one runner attempt made: what the judge counted (its own retries), at least the one call."""
    counted = getattr(outcome, "attempts", None)
    return counted if isinstance(counted, int) and not isinstance(counted, bool) and counted >= 1 else 1


async def _judge_item(run: _Run, judge_input: Any) -> tuple[Any, str | None, int, str | None]:
    """Judge one item with the runner's retries: (output, error text, calls, transport failure).

    ``calls`` counts every call of every layer: each runner attempt and the
    judge's own retries within it.
    """
    loop = asyncio.get_running_loop()
    attempts = 1 if run.policy is None else run.policy.attempts
    failure, transport, calls = "", None, 0
    for attempt in range(1, attempts + 1):
        try:
            if run.use_thread:
                call = loop.run_in_executor(run.judge_pool, run.judge.judge, judge_input)
            else:
                call = run.judge.ajudge(judge_input)
            if _timeout_scope is None:  # Python 3.10
                output = await asyncio.wait_for(call, run.timeout)
            else:  # no extra task per call, unlike wait_for on a coroutine
                async with _timeout_scope(run.timeout):
                    output = await call
            return output, None, calls + _calls(output), None
        except asyncio.TimeoutError:
            failure, transport = f"timed out after {run.timeout:g} s (--timeout; attempt {attempt})", None
            calls += 1
        except TransientJudgeError as error:
            failure = f"{type(error).__name__}: {error}"
            transport = failure if isinstance(error, TransportError) else None
            calls += _calls(error)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a judge bug or a permanent failure: record it, go on
            return None, f"{type(error).__name__}: {error}", calls + _calls(error), None
        if attempt < attempts:
            await asyncio.sleep(run.policy.delay(attempt, rng=run.rng))
    return None, failure, calls, transport


async def _judge_position(run: _Run, position: int, row: Any) -> tuple[ResultRecord, str | None]:
    """The result of one dataset position and its transport failure, if any; never raises for the item.

    ``row`` is the position's row, or the exception reading it raised (:class:`RowReader`).
    """
    from agenthorizon.judging.inputs import build_judge_input

    trajectory_id = run.ids[position]
    transport = None
    try:
        if isinstance(row, Exception):
            raise row
        judge_input = build_judge_input(row, ablate=run.ablation, perturb=run.perturbation)
    except (ValueError, FileNotFoundError) as error:
        output, error_text, attempts = None, f"{type(error).__name__}: {error}", 0
    else:
        output, error_text, attempts, transport = await _judge_item(run, judge_input)
    result = _recorded(run, trajectory_id, output, error_text, attempts)
    # Re-asking (reask.py): a fresh call while the answer meets the re-ask rule; an item in flight
    # completes its re-asks even when the cost cap has stopped new items from starting.
    earlier, earlier_attempts = [], 0
    while run.reask > len(earlier) and wants_reask(result, run.reask_when):
        earlier.append(answer_of(result))
        earlier_attempts += result.telemetry.attempts or 0
        output, error_text, attempts, transport = await _judge_item(run, judge_input)
        result = _recorded(run, trajectory_id, output, error_text, attempts)
    return with_answers(result, earlier, earlier_attempts), transport


def _recorded(run: _Run, trajectory_id: str, output: Any, error_text: str | None, attempts: int) -> ResultRecord:
    """The result of one call's outcome (:func:`result_record`); an answer that breaks the parser is the item's error."""
    try:
        return result_record(trajectory_id, run.judge.name, output, error_text, run.judge_key, attempts=attempts)
    except Exception as error:  # the answer broke the parser: the item's problem
        return result_record(
            trajectory_id, run.judge.name, None,
            f"trajectory {trajectory_id}: the judge's answer could not be recorded ({type(error).__name__}: {error})",
            run.judge_key, attempts=attempts,
        )


async def _worker(run: _Run) -> None:
    """Take items off the queue until it is empty or the run stops."""
    while not run.stopping and len(run.rows):
        stop = run.budget.stop_reason(run.in_flight)
        if stop is not None:
            run.stop = stop
            run.wake()
            return
        if not run.budget.may_start(run.in_flight):
            await run.item_ended.wait()  # --max-cost: the items in flight decide whether another fits
            continue
        item = run.rows.next()
        if item is None:
            return
        position, row = item
        run.in_flight += 1
        try:
            result, transport = await _judge_position(run, position, row)
        except BaseException:  # cancelled (or a bug): no worker may keep waiting for this item
            run.wake()
            raise
        finally:
            run.in_flight -= 1
        try:
            if run.abort is not None:
                return  # the run was stopped while this item was judged: keep the file as it was
            run.budget.add(result)  # now, not when written: the next item's check must see it
            await run.writer.submit(result)
            tripped = run.breaker.record(run.ids[position], transport)
            if tripped is not None:
                run.abort = tripped
                return
        finally:
            run.wake()


class RunSignals:
    """SIGINT and SIGTERM turned into a clean stop for the duration of a run (main thread only; elsewhere a no-op).

    The first signal calls the ``on_first`` callback (the loop cancels every
    item in flight) and is kept in ``received``; any later signal is absorbed
    until the ``with`` block ends, so that the cleanup and the run record's
    rewrite always complete. The previous handlers are restored on exit.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.received: str | None = None
        self._callback: Callable[[], None] | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> RunSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: Any) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def on_first(self, callback: Callable[[], None] | None) -> None:
        """Call ``callback`` on the first signal (at once if one already came); ``None`` unregisters."""
        self._callback = callback
        if callback is not None and self.received is not None:
            callback()

    def _handle(self, signum: int, frame: Any) -> None:
        if self.received is not None:
            return  # a second Ctrl-C while the run stops cleanly: absorbed
        self.received = signal.Signals(signum).name
        if self._callback is not None:
            self._callback()


async def judge_items(
    judge: BaseJudge,
    dataset: Any,
    positions: list[int],
    ids: list[str],
    out_dir: Path,
    *,
    concurrency: int,
    timeout: float | None,
    retry: RetryPolicy,
    progress: Progress,
    results: RunResults,
    judge_key: str | None = None,
    ablation: tuple[str, ...] = (),
    perturbation: tuple[str, ...] = (),
    breaker: int | None = DEFAULT_BREAKER,
    max_cost: float | None = None,
    signals: RunSignals | None = None,
    reask: int = 0,
    reask_when: str = REASK_INVALID,
) -> Interruption | None:
    """Judge ``positions`` of ``dataset`` into ``out_dir``; the ``max_cost`` :class:`Interruption`, or ``None``.

    Whatever a judge returns or raises becomes that item's result (an
    ``error`` result naming the reason), never a stopped run. ``results``
    takes each new result once durable. ``retry`` is used only for judges
    without their own ``retry``. ``signals`` is entered by the caller, so
    that it also covers writing the run record afterwards.

    Raises
    ------
    RunIOError
        The run directory cannot be written (a full disk included).
    PreflightError
        The judge failed its preflight, before the first item.
    RunAborted
        ``breaker`` consecutive items failed to reach the judge's server.
    RunInterrupted
        Ctrl-C or SIGTERM: the items in flight were cancelled; results written stay.
    """
    if positions:
        await judge.apreflight()  # the server answers, the key and model are known: or one clear error now
    run = _Run(
        judge=judge,
        ids=ids,
        rows=RowReader(dataset, positions),
        writer=ResultWriter(out_dir, concurrency, functools.partial(_written, results, progress), _unwritable),
        policy=None if judge.retry is not None else retry,
        timeout=timeout,
        use_thread=not judge.is_async,
        judge_pool=concurrent.futures.ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="judge"),
        breaker=Breaker(breaker),
        budget=CostBudget.from_records(max_cost, results, answers_per_item=1 + reask),
        judge_key=judge_key,
        ablation=ablation,
        perturbation=perturbation,
        reask=reask,
        reask_when=reask_when,
    )
    signals = signals or RunSignals()
    await run.writer.start()
    loop = asyncio.get_running_loop()
    workers = asyncio.gather(*(_worker(run) for _ in range(min(concurrency, max(1, len(positions))))))
    # The handler runs between two bytecodes of the main thread: hand the
    # cancellation to the loop rather than cancelling from inside it.
    signals.on_first(lambda: loop.call_soon_threadsafe(workers.cancel))
    try:
        try:
            await workers
        except asyncio.CancelledError:
            if signals.received is None:
                raise
        finally:
            signals.on_first(None)
            await _close(run)
    finally:
        run.judge_pool.shutdown(wait=False, cancel_futures=True)
    if signals.received is not None:
        raise RunInterrupted(signals.received)
    if run.writer.failure is not None:
        raise _io_error(run.writer.failure, out_dir, results.judged)
    if run.abort is not None:
        raise RunAborted(run.abort)
    return None if run.stop is None else Interruption("max_cost", run.stop)


def _written(results: RunResults, progress: Progress, result: ResultRecord) -> None:
    """The writer made ``result`` durable: the run holds it and the bar counts it."""
    results.written(result)
    progress.update(result)


async def _close(run: _Run) -> None:
    """Wait for pending writes and release the judge's connections."""
    await run.writer.drain()
    await run.judge.aclose()


def _io_error(failure: OSError, out_dir: Path, judged: int) -> RunIOError:
    reason = failure.strerror or str(failure)
    if failure.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        reason = "no space left on the device"
    return RunIOError(
        failure.errno,
        f"cannot write results in {out_dir}: {reason}; the run stopped after writing {judged} result(s) "
        "(all intact; run.json says why); free space and re-run the same command to resume",
    )
