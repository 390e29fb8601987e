"""Runner overhead against an ideal schedule, with a stub judge of fixed latency.

A judge that always takes ``latency`` seconds, run over ``n`` items with
``concurrency`` slots, cannot finish faster than the ideal schedule
``ceil(n / concurrency) * latency``. The ratio wall time / ideal time is the
runner's overhead factor (1.00 = none): reading rows, building blind inputs,
parsing verdicts, writing the result files durably (each on a writing
thread: temporary file, fsync, rename, folder fsync), the progress
bookkeeping and the run record.

Also measured in the same run: the same sleeps scheduled by a bare
``asyncio`` semaphore loop doing nothing else; the result files alone,
written as the runner writes them (``write_durable`` from ``WRITE_THREADS``
threads) -- the part of the overhead that is the price of crash safety --
and the bare file creations in the same parent folder (the kernel's cost of
a new inode, which varies a lot from folder to folder on some disks); and,
as a diagnostic, ``run_judge`` with the result writes replaced by a no-op
(what the runner costs apart from them). CPU per item is the user + system
time of the process (all threads), and the event loop thread's own share;
steadier than wall time on a shared machine. Each ``run_judge`` variant runs
``--repeat`` times, interleaved; the best is printed last.

The dataset is what a user passes: ``agenthorizon.load_dataset(root, config,
split="test")`` with its default lazy screenshots (``--root``: a release root,
e.g. the ``full`` sample preset), so reading rows and building inputs cost what
they cost on real data; the stub never opens a screenshot (nor reads
``JudgeInput.steps``, which are assembled on first access; their cost is
printed separately). The ideal leaves out the per-item work no runner can
skip -- reading each row and building its blind input, one after another on
the event loop -- so the script also prints that serial floor: when it
exceeds the ideal (short latencies, a loaded machine) no runner reaches 1.00x.

    .venv/bin/agenthorizon sample /tmp/ah-full --preset full --image-size 160x100
    .venv/bin/python benchmarks/bench_runner.py --root /tmp/ah-full                 # all: 1,373 items, 50 ms, concurrency 64
    .venv/bin/python benchmarks/bench_runner.py --root /tmp/ah-full --latency 0.5
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import tempfile
import time

from agenthorizon.judging.judges import BaseJudge, JudgeOutput
from agenthorizon.judging.runs.runner import run_judge

VERDICT = json.dumps({"success": True, "reasoning": "stub", "confidence": "high", "mistake_type": None})


class AsyncStub(BaseJudge):
    name = "stub-async"

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def writes(self):
        return contextlib.nullcontext()

    async def ajudge(self, judge_input):
        await asyncio.sleep(self.latency)
        return JudgeOutput(text=VERDICT, input_tokens=1000, output_tokens=50, latency_s=self.latency)


class NoWriteStub(AsyncStub):
    """The async stub with result files not written: a diagnostic of the overhead left without them."""

    name = "no-writes"

    @contextlib.contextmanager
    def writes(self):
        from agenthorizon.judging.runs import writer

        real = writer.write_durable
        writer.write_durable = lambda path, text: None  # every file encoded, none written
        try:
            yield
        finally:
            writer.write_durable = real


class ThreadStub(BaseJudge):
    name = "stub-thread"

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def writes(self):
        return contextlib.nullcontext()

    def judge(self, judge_input):
        time.sleep(self.latency)
        return JudgeOutput(text=VERDICT, input_tokens=1000, output_tokens=50, latency_s=self.latency)


def load_rows(root: str, config: str, n: int | None, cache_dir: str | None):
    """The dataset ``run_judge`` gets from a user: the default ``load_dataset`` (lazy screenshots)."""
    import datasets

    from agenthorizon.data.load import load_dataset

    datasets.disable_progress_bars()
    dataset = load_dataset(root, config, split="test", cache_dir=cache_dir)
    if n is not None and n < len(dataset):
        dataset = dataset.select(range(n))
    return dataset


def writes_alone(n: int, threads: int, parent: str | None) -> tuple[float, float]:
    """Wall and CPU seconds to write n result-sized files as the runner does: ``write_durable`` from ``threads`` threads."""
    from pathlib import Path

    import concurrent.futures

    from agenthorizon.judging.runs.durable import encode_json, write_durable

    payload = {"trajectory_id": "x", "parse_status": "ok", "verdict": json.loads(VERDICT), "raw_output": VERDICT,
               "error": None, "telemetry": {"input_tokens": 1000, "output_tokens": 50, "latency_s": 0.05}}
    with tempfile.TemporaryDirectory(dir=parent) as out, concurrent.futures.ThreadPoolExecutor(threads) as pool:
        started, cpu = time.perf_counter(), _cpu()
        list(pool.map(lambda i: write_durable(Path(out) / f"{i}.json", encode_json(payload)), range(n)))
        return time.perf_counter() - started, _cpu() - cpu


def creates_alone(n: int, parent: str | None) -> float:
    """CPU seconds (mostly the kernel's) to create n empty files in a new folder under ``parent``."""
    with tempfile.TemporaryDirectory(dir=parent) as out:
        cpu = _cpu()
        for i in range(n):
            os.close(os.open(os.path.join(out, str(i)), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        return _cpu() - cpu


def _cpu() -> float:
    """CPU seconds of this process (all threads, user + system): less noisy than wall time on a shared machine."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def read_cost(dataset) -> float:
    """Seconds per item (best of 3) to read every row as the runner does (``RowReader``, slices of a few rows)."""
    from agenthorizon.judging.runs.rows import RowReader

    best = math.inf
    for _ in range(3):
        reader = RowReader(dataset, range(len(dataset)))
        started = time.perf_counter()
        while reader.next() is not None:
            pass  # each row dropped at once, as the runner drops it after its item
        best = min(best, (time.perf_counter() - started) / len(dataset))
    return best


def build_cost(dataset) -> tuple[float, float]:
    """Seconds per item (best of 5) to build a JudgeInput from a loaded row, and then to read its steps."""
    from agenthorizon.judging.inputs import build_judge_input

    import gc

    rows = [dataset[index] for index in range(len(dataset))]
    # The runner holds one row at a time; holding all 1,373 here would make every
    # full garbage collection walk their ~2 million objects, so they are frozen.
    gc.collect()
    gc.freeze()
    best_build = best_steps = math.inf
    for _ in range(5):
        started = time.perf_counter()
        inputs = [build_judge_input(row) for row in rows]
        built = time.perf_counter()
        for judge_input in inputs:
            judge_input.steps
        best_build = min(best_build, (built - started) / len(rows))
        best_steps = min(best_steps, (time.perf_counter() - built) / len(rows))
        del inputs
    gc.unfreeze()
    return best_build, best_steps


async def bare_schedule(n: int, latency: float, concurrency: int) -> float:
    semaphore = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with semaphore:
            await asyncio.sleep(latency)

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", required=True, help="release root, e.g. made by `agenthorizon sample DIR --preset full`")
    parser.add_argument("--config", default="all")
    parser.add_argument("--cache-dir", default=None, help="datasets cache (default: datasets' own)")
    parser.add_argument("--n", type=int, default=None, help="first N items of the config (default: all)")
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each run_judge variant (interleaved)")
    parser.add_argument("--out-parent", default=None, help="where the run folders go (default: the system's temp folder)")
    args = parser.parse_args()

    rows = load_rows(args.root, args.config, args.n, args.cache_dir)
    args.n = len(rows)
    ideal = math.ceil(args.n / args.concurrency) * args.latency
    # A first run in a process imports the scoring stack (numpy, ...) once;
    # warm it up so the timed runs measure the per-run and per-item overhead.
    with tempfile.TemporaryDirectory(dir=args.out_parent) as out:
        run_judge(AsyncStub(0.0), rows.select(range(8)), out, config=args.config, progress=False)
    bare = asyncio.run(bare_schedule(args.n, args.latency, args.concurrency))
    steps = sum(rows["num_steps"])
    print(f"{args.config} of {args.root}: {args.n} items ({steps} steps), {args.latency * 1000:.0f} ms latency, "
          f"concurrency {args.concurrency}; load average {os.getloadavg()[0]:.1f}")
    print(f"ideal schedule ceil(n/c)*latency: {ideal:.2f} s")
    print(f"bare asyncio semaphore loop:      {bare:.2f} s  ({bare / ideal:.2f}x ideal)")
    build, steps = build_cost(rows)
    read = read_cost(rows)
    print(f"build_judge_input: {1000 * build:.3f} ms per item; its steps, assembled on first access: "
          f"{1000 * steps:.3f} ms more (CPU the event loop can spare per item: "
          f"{1000 * args.latency / args.concurrency:.3f} ms)")
    # Reading each row and building its blind input happen on the one event loop
    # thread, item after item, whatever the latency: a floor the ideal ignores.
    floor = args.n * (read + build)
    print(f"reading the rows as the runner does: {1000 * read:.3f} ms per item; reading + building every input "
          f"on one thread: {floor:.2f} s ({floor / ideal:.2f}x ideal; the run cannot beat max(ideal, this))")
    from agenthorizon.judging.runs.writer import WRITE_THREADS

    threads = min(args.concurrency, WRITE_THREADS)
    writes, writes_cpu = writes_alone(args.n, threads, args.out_parent)
    creates = creates_alone(args.n, args.out_parent)
    os.sync()
    print(f"{args.n} result files alone, from {threads} threads: {writes:.2f} s  ({writes / ideal:.2f}x ideal; "
          f"CPU {1000 * writes_cpu / args.n:.2f} ms per file, of which creating an empty file: "
          f"{1000 * creates / args.n:.2f} ms)")
    best: dict[str, float] = {}
    for repeat in range(args.repeat):
        for judge in (AsyncStub(args.latency), ThreadStub(args.latency), NoWriteStub(args.latency)):
            with tempfile.TemporaryDirectory(dir=args.out_parent) as out, judge.writes():
                started, cpu, loop_cpu = time.perf_counter(), _cpu(), time.thread_time()
                summary = run_judge(judge, rows, out, config=args.config, concurrency=args.concurrency, progress=False)
                wall, cpu, loop_cpu = time.perf_counter() - started, _cpu() - cpu, time.thread_time() - loop_cpu
                assert summary.counts.ok == args.n, summary.counts
                resume = ""
                if not isinstance(judge, NoWriteStub) and repeat == 0:  # without files there is nothing to resume from
                    # A resumed run over a finished directory judges nothing.
                    started = time.perf_counter()
                    again = run_judge(judge, rows, out, config=args.config, concurrency=args.concurrency, progress=False)
                    resume = f"; resume of the finished run: {time.perf_counter() - started:.2f} s"
                    assert again.judged == 0
            # Deleting a run folder leaves journal work (and discards) that would
            # slow the next run's writes: let the disk settle first, untimed.
            os.sync()
            best[judge.name] = min(best.get(judge.name, math.inf), wall)
            print(f"run_judge, {judge.name:13s}:      {wall:.2f} s  ({wall / ideal:.2f}x ideal, "
                  f"{wall / bare:.2f}x bare asyncio; CPU {1000 * cpu / args.n:.2f} ms per item, "
                  f"event loop thread {1000 * loop_cpu / args.n:.2f}; load {os.getloadavg()[0]:.1f}){resume}")
    print("best of", args.repeat, ": " + ", ".join(f"{name} {wall / ideal:.2f}x" for name, wall in best.items()))


if __name__ == "__main__":
    main()
