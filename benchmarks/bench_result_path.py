"""Event-loop CPU of one result's path through the runner, without a judge, a dataset or a disk.

For each of ``--n`` items: the result made from a judge's output (verdict
parsed, telemetry checked), encoded as the compact JSON the writer sends to
the commit process, then counted the way the run counts a durable result
(the progress bar, the run's results); at the end the record's counts,
merging and totals. This is the part of ``benchmarks/bench_runner.py``'s
event-loop time that the run's records decide, measured with ``thread_time``
(best of ``--repeat``), steadier than a whole run on a shared machine.

It runs against the agenthorizon it imports, the current one or an older
checkout (``PYTHONPATH=/path/to/old/checkout``), so two versions compare
when the two commands alternate:

    .venv/bin/python benchmarks/bench_result_path.py
    PYTHONPATH=/tmp/base .venv/bin/python benchmarks/bench_result_path.py
"""

from __future__ import annotations

import argparse
import json
import time

import agenthorizon
from agenthorizon.judging.judges.base import JudgeOutput
from agenthorizon.judging.runs import durable, loop
try:
    from agenthorizon.judging.runs.results import result_record
except ImportError:  # a checkout from before results.py: the loop held it, or there were no typed records
    result_record = getattr(loop, "result_record", None)
from agenthorizon.judging.runs.progress import Progress

VERDICT = json.dumps({"success": True, "reasoning": "stub", "confidence": "high", "mistake_type": None})


def typed_path(ids: list[str], output: JudgeOutput) -> None:
    """Records as objects (result_record, RunResults): this release."""
    from agenthorizon.judging.runs.summary import RunResults

    bar, results = Progress(len(ids), 0, False, "bench"), RunResults(ids, {})
    for tid in ids:
        result = result_record(tid, "stub", output, None, "k" * 16, attempts=1)
        durable.encode_compact(result.to_dict())
        results.written(result)
        bar.update(result)
    results.counts(0), results.merging(), results.totals(1.0)


def dict_path(ids: list[str], output: JudgeOutput) -> None:
    """Results as dicts (result_payload, a dict of records): releases before typed records."""
    from agenthorizon.judging.runs.summary import count_statuses, merging

    bar, records = Progress(len(ids), 0, False, "bench"), dict.fromkeys(ids)
    for tid in ids:
        payload = loop.result_payload(tid, "stub", output, None, "k" * 16)
        durable.encode_compact(payload)
        records[payload["trajectory_id"]] = payload
        bar.update(payload)
    count_statuses(records, ids), merging(records, ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    ids = [f"{i:08d}-0000-4000-8000-000000000000" for i in range(args.n)]
    output = JudgeOutput(text=VERDICT, input_tokens=1000, output_tokens=50, latency_s=0.05)
    path = typed_path if result_record is not None else dict_path
    path(ids, output)  # warm up
    best = float("inf")
    for _ in range(args.repeat):
        started = time.thread_time()
        path(ids, output)
        best = min(best, time.thread_time() - started)
    print(f"agenthorizon at {agenthorizon.__file__}: {path.__doc__.split(':')[0]}: "
          f"{1e6 * best / args.n:.1f} us per result (best of {args.repeat})")


if __name__ == "__main__":
    main()
