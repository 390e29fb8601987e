"""One item's result record from what its judge returned (:func:`result_record`).

Apart from the event loop because the Inspect log reader uses it too and must
not import the loop, the writer and their signal handling.
"""

from __future__ import annotations

from typing import Any

from agenthorizon.judging.runs.provenance import now
from agenthorizon.judging.runs.records import ResultRecord, Telemetry
from agenthorizon.judging.secrets import scrub
from agenthorizon.schema import STATUS_ERROR, STATUS_OK
from agenthorizon.scoring.verdicts import parse_verdict

__all__ = ["result_record"]


def result_record(
    trajectory_id: str, judge_name: str, output: Any, error: str | None, judge_key: str | None = None,
    attempts: int | None = None,
) -> ResultRecord:
    """The result of one item: the parsed answer of ``output``, or, with ``error``, an ``error`` result saying so.

    ``output`` is the judge's :class:`~agenthorizon.judging.judges.base.JudgeOutput`
    (ignored with an error, whose telemetry holds only ``attempts``);
    ``attempts``, when given, replaces the output's own count. Anything else
    a judge returns, or telemetry of the wrong type, is an error result saying
    what was expected. The error text is scrubbed of secrets.
    """
    if error is None and not isinstance(getattr(output, "text", None), str):
        error = (
            f"the judge returned {type(output).__name__}"
            + (f" with text of type {type(output.text).__name__}" if hasattr(output, "text") else "")
            + "; expected a JudgeOutput whose text is a str"
        )
    if error is None:
        try:
            telemetry = Telemetry.from_output(output)
        except (ValueError, TypeError) as problem:
            error = f"trajectory {trajectory_id}: the judge's telemetry could not be recorded ({problem})"
        else:
            if attempts is not None:  # the runner's count: every call of every layer (_judge_item)
                telemetry = telemetry.replace(attempts=attempts)
    if error is not None:
        return ResultRecord(
            trajectory_id=trajectory_id, judge=judge_name, judge_key=judge_key, parse_status=STATUS_ERROR,
            error=scrub(error), telemetry=Telemetry(attempts=attempts), finished_at=now(),
        )
    verdict = parse_verdict(output.text)
    return ResultRecord(
        trajectory_id=trajectory_id,
        judge=judge_name,
        judge_key=judge_key,
        parse_status=verdict.status,
        verdict=verdict.to_dict() if verdict.status == STATUS_OK else None,
        raw_output=output.text,
        parse_detail=verdict.detail,
        telemetry=telemetry,
        finished_at=now(),
    )
