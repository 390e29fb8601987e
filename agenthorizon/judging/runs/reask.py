"""Re-asking after an answer without a valid verdict: the record of every answer an item got.

With ``reask=N`` (``--reask N``) the runner asks a judge again, in a fresh
call, when its answer does not parse to a valid verdict, up to ``N`` more
times; the benchmark authors' harness asks up to three times in all. The
verdict scored is the last answer's. So that nothing is hidden, the result
keeps every answer (:class:`~agenthorizon.judging.runs.records.Answer`: raw
text, parse status, tokens, cost, latency), and its telemetry adds them up:
tokens and cost over every answer (``None`` when one answer does not know
its value), ``answers`` the number of answers, ``attempts`` every call made.

:func:`answer_of` turns one judge output into an :class:`Answer`;
:func:`with_answers` makes the item's final result from its last result
and the answers before it. This module does no I/O.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from agenthorizon.judging.runs.records import Answer, ResultRecord, Telemetry
from agenthorizon.schema import STATUS_ERROR

__all__ = ["answer_of", "with_answers"]


def answer_of(result: ResultRecord) -> Answer:
    """The :class:`Answer` a judged (not failed) result holds.

    >>> answer_of(ResultRecord("t", "no_json", raw_output="I think so", telemetry=Telemetry(input_tokens=5))).input_tokens
    5
    """
    telemetry = result.telemetry
    return Answer(
        raw_output=result.raw_output or "", parse_status=result.parse_status, parse_detail=result.parse_detail,
        input_tokens=telemetry.input_tokens, output_tokens=telemetry.output_tokens, cost_usd=telemetry.cost_usd,
        latency_s=telemetry.latency_s,
    )


def _sum(values: Sequence[Any]) -> Any:
    return None if any(value is None for value in values) else sum(values)


def with_answers(last: ResultRecord, earlier: Sequence[Answer], earlier_attempts: int) -> ResultRecord:
    """The item's result: ``last`` (its last answer, or the failure of the last call) with the answers before it.

    ``earlier`` are the answers without a valid verdict that made the runner
    ask again, ``earlier_attempts`` the calls they took. Without earlier
    answers ``last`` is returned with ``answers`` counted (1 for an answer).

    >>> first = Answer("no verdict", "no_json", input_tokens=100, output_tokens=10, cost_usd=0.5)
    >>> last = ResultRecord("t", "ok", verdict={"success": True}, raw_output='{"success": true}',
    ...                     telemetry=Telemetry(input_tokens=100, output_tokens=5, cost_usd=0.25, attempts=1))
    >>> result = with_answers(last, [first], 1)
    >>> result.telemetry.answers, result.telemetry.input_tokens, result.telemetry.cost_usd, result.telemetry.attempts
    (2, 200, 0.75, 2)
    >>> [answer.parse_status for answer in result.answers]
    ['no_json', 'ok']
    """
    telemetry = last.telemetry
    if not earlier:
        return last if last.parse_status == STATUS_ERROR else dataclasses.replace(last, telemetry=telemetry.replace(answers=1))
    answered = last.parse_status != STATUS_ERROR
    answers = (*earlier, answer_of(last)) if answered else tuple(earlier)

    def total(name: str) -> Any:
        return _sum([getattr(answer, name) for answer in answers])

    attempts = None if telemetry.attempts is None else telemetry.attempts + earlier_attempts
    combined: Telemetry = telemetry.replace(
        input_tokens=total("input_tokens"), output_tokens=total("output_tokens"), cost_usd=total("cost_usd"),
        latency_s=total("latency_s") if answered else telemetry.latency_s, answers=len(answers), attempts=attempts,
    )
    return dataclasses.replace(last, telemetry=combined, answers=answers)
