"""Re-asking after an answer without a valid verdict (``reask=N``): up to ``N`` more fresh calls per item.

The scored verdict is the last answer's; the result keeps every answer
(:func:`with_answers`). A failed call (status ``error``) is never re-asked:
the judge's own retries have had their turn. No I/O here.
"""

from __future__ import annotations

from typing import Any, Sequence

from agenthorizon.judging.runs.records import Answer, ResultRecord, Telemetry
from agenthorizon.schema import STATUS_ERROR, STATUS_OK
from agenthorizon.scoring.verdicts import loads_with_success_key

__all__ = ["REASK_INVALID", "REASK_NO_SUCCESS_KEY", "REASK_RULES", "answer_of", "check_reask_rule", "wants_reask",
           "with_answers"]

REASK_INVALID = "invalid"
REASK_NO_SUCCESS_KEY = "no-success-key"
REASK_RULES = (REASK_INVALID, REASK_NO_SUCCESS_KEY)
"""When to ask again: no valid verdict (this project's), or no JSON answer holding ``success`` (the authors')."""


def check_reask_rule(rule: object) -> str:
    """``rule`` when it is one of :data:`REASK_RULES`, else a ``ValueError`` naming them."""
    if rule not in REASK_RULES:
        raise ValueError(f"reask_when must be one of {', '.join(REASK_RULES)}, got {rule!r}")
    return rule  # type: ignore[return-value]


def wants_reask(result: ResultRecord, rule: str = REASK_INVALID) -> bool:
    """Whether ``result`` calls for another answer under ``rule`` (never after a failed call).

    - ``invalid`` (the default): the answer holds no valid verdict
      (:func:`~agenthorizon.scoring.verdicts.parse_verdict`);
    - ``no-success-key`` (the benchmark authors' rule): the whole answer, code
      fences stripped, does not load as a JSON object holding ``success``,
      whatever its value. So ``{"success": "yes"}`` is not asked again (and is
      scored invalid), and a valid verdict after prose is.

    >>> prose = ResultRecord("t", "ok", verdict={"success": True}, raw_output='I checked. {"success": true}')
    >>> wants_reask(prose, "invalid"), wants_reask(prose, "no-success-key")
    (False, True)
    >>> string = ResultRecord("t", "non_boolean", raw_output='{"success": "yes"}')
    >>> wants_reask(string, "invalid"), wants_reask(string, "no-success-key")
    (True, False)
    """
    if result.parse_status == STATUS_ERROR:
        return False
    if rule == REASK_NO_SUCCESS_KEY:
        return not loads_with_success_key(result.raw_output or "")
    return result.parse_status != STATUS_OK


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

    ``earlier`` are the answers that made the runner ask again,
    ``earlier_attempts`` the calls they took. Tokens and cost are summed over
    every answer (``None`` when one answer does not know its value),
    ``answers`` counts them and ``attempts`` every call made.

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
        return last if last.parse_status == STATUS_ERROR else last.replace(telemetry=telemetry.replace(answers=1))
    answered = last.parse_status != STATUS_ERROR
    answers = (*earlier, answer_of(last)) if answered else tuple(earlier)

    def total(name: str) -> Any:
        return _sum([getattr(answer, name) for answer in answers])

    attempts = None if telemetry.attempts is None else telemetry.attempts + earlier_attempts
    combined: Telemetry = telemetry.replace(
        input_tokens=total("input_tokens"), output_tokens=total("output_tokens"), cost_usd=total("cost_usd"),
        latency_s=total("latency_s") if answered else telemetry.latency_s, answers=len(answers), attempts=attempts,
    )
    return last.replace(telemetry=combined, answers=answers)
