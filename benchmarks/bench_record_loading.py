"""Reading a run folder's 1,373 result records: the validation against the JSON parse it follows.

Writes ``--n`` result files shaped as the runner writes them (verdict, a
500-character answer, full telemetry with two judge-specific keys) into a
temporary folder, then, best of ``--repeat`` each (CPU time of this thread), alternating:

- **floor**: read each file and ``json.loads`` it (no validation);
- ``read_results([folder])``: what ``score``, ``report`` and ``leaderboard`` do;
- ``ResultRecord.from_dict`` alone over the parsed objects (the records' share);
- with ``--baseline FILE``: ``from_dict`` of another version of
  ``records.py`` (loaded as a module of its own, beside this agenthorizon),
  e.g. the hand-written one from before msgspec:
  ``git show a15e572:agenthorizon/judging/runs/records.py > /tmp/records_before.py``;
- with ``--pydantic``: the same shape as pydantic models (``model_validate``),
  the alternative the records were measured against.

    .venv/bin/python benchmarks/bench_record_loading.py --pydantic --baseline /tmp/records_before.py
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Callable

import agenthorizon
from agenthorizon.judging.runs.folder import read_results
from agenthorizon.judging.runs.records import ResultRecord


def result(tid: str) -> dict[str, Any]:
    return {
        "format_version": 4, "trajectory_id": tid, "judge": "openai", "judge_key": "0123456789abcdef",
        "parse_status": "ok",
        "verdict": {"success": True, "mistake_type": None, "confidence": "high", "reasoning": "done"},
        "raw_output": "x" * 500, "error": None, "parse_detail": None,
        "telemetry": {"input_tokens": 12000, "output_tokens": 300, "reasoning_tokens": None,
                      "cache_read_input_tokens": None, "cache_write_input_tokens": None, "latency_s": 3.25,
                      "cost_usd": 0.0123, "cost_source": None, "attempts": 1, "answers": 1, "turns": None,
                      "tool_calls": None, "truncated_bytes": 0, "merged": False, "merge_reason": None,
                      "images_mode_used": "per-step", "n_images": 12},
        "finished_at": "2026-12-03T06:00:00+00:00", "answers": [],
    }


def pydantic_reader() -> Callable[[dict[str, Any]], Any]:
    """The result record as pydantic models with the same constraints (frozen, counts >= 0, finite amounts)."""
    from typing import Annotated, Literal, Optional

    from pydantic import BaseModel, ConfigDict, Field

    from agenthorizon.schema import PARSE_STATUSES

    count = Annotated[int, Field(ge=0, strict=True)]
    amount = Annotated[float, Field(ge=0, allow_inf_nan=False)]

    class Telemetry(BaseModel):
        model_config = ConfigDict(frozen=True, extra="allow")
        input_tokens: Optional[count] = None
        output_tokens: Optional[count] = None
        reasoning_tokens: Optional[count] = None
        cache_read_input_tokens: Optional[count] = None
        cache_write_input_tokens: Optional[count] = None
        latency_s: Optional[amount] = None
        cost_usd: Optional[amount] = None
        cost_source: Optional[str] = None
        attempts: Optional[count] = None
        answers: Optional[count] = None
        turns: Optional[count] = None
        tool_calls: Optional[count] = None
        truncated_bytes: Optional[count] = None
        merged: Optional[bool] = None
        merge_reason: Optional[str] = None

    class Answer(BaseModel):
        model_config = ConfigDict(frozen=True)
        raw_output: str
        parse_status: Literal[PARSE_STATUSES]  # type: ignore[valid-type]
        parse_detail: Optional[str] = None
        input_tokens: Optional[count] = None
        output_tokens: Optional[count] = None
        cost_usd: Optional[amount] = None
        latency_s: Optional[amount] = None

    class Result(BaseModel):
        model_config = ConfigDict(frozen=True)
        format_version: int = 4
        trajectory_id: str
        parse_status: Literal[PARSE_STATUSES]  # type: ignore[valid-type]
        verdict: Optional[dict[str, Any]] = None
        judge: Optional[str] = None
        judge_key: Optional[str] = None
        raw_output: Optional[str] = None
        error: Optional[str] = None
        parse_detail: Optional[str] = None
        telemetry: Telemetry = Telemetry()
        finished_at: Optional[str] = None
        answers: tuple[Answer, ...] = ()

    return Result.model_validate


def baseline_records(path: Path) -> Any:
    """``path`` (a records.py) imported as a module of its own; its imports resolve in this agenthorizon."""
    spec = importlib.util.spec_from_file_location("baseline_records", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def best(repeat: int, work: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        started = time.thread_time()  # CPU time: steadier than wall time on a shared machine
        work()
        times.append(time.thread_time() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1373)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--pydantic", action="store_true", help="also time the same record as pydantic models")
    parser.add_argument("--baseline", type=Path, help="a records.py of another version to time beside this one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-records-") as tmp:
        folder = Path(tmp)
        paths = []
        for i in range(args.n):
            tid = str(uuid.UUID(int=i + 1, version=4))
            paths.append(folder / f"{tid}.json")
            paths[-1].write_text(json.dumps(result(tid), separators=(",", ":")))
        parsed = [json.loads(path.read_bytes()) for path in paths]
        validate = pydantic_reader() if args.pydantic else None
        before = baseline_records(args.baseline) if args.baseline else None
        assert len(read_results([folder]).records) == args.n
        timings: dict[str, list[float]] = {}
        for _ in range(3):  # alternate, best of --repeat inside each
            for name, work in (
                ("floor: read + json.loads", lambda: [json.loads(path.read_bytes()) for path in paths]),
                ("read_results", lambda: read_results([folder])),
                ("ResultRecord.from_dict", lambda: [ResultRecord.from_dict(data, "r.json") for data in parsed]),
                *((("baseline from_dict", lambda: [before.ResultRecord.from_dict(data, "r.json") for data in parsed]),)
                  if before else ()),
                *((("pydantic model_validate", lambda: [validate(data) for data in parsed]),) if validate else ()),
            ):
                timings.setdefault(name, []).append(best(args.repeat, work))
    floor = min(timings["floor: read + json.loads"])
    print(f"agenthorizon at {agenthorizon.__file__}; {args.n} result files, best of {args.repeat} x 3")
    for name, values in timings.items():
        print(f"{name:28s} {1e3 * min(values):8.2f} ms  {1e6 * min(values) / args.n:7.1f} us/result  "
              f"ratio to floor {min(values) / floor:5.2f}")
    mine = min(timings["ResultRecord.from_dict"])
    for other in ("baseline from_dict", "pydantic model_validate"):
        if other in timings:
            print(f"ResultRecord.from_dict / {other}: {mine / min(timings[other]):.2f}")


if __name__ == "__main__":
    main()
