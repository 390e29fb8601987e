"""What judges with a helper model before the final direct judge share (step selection, screenshot summaries).

:class:`HelpedJudge` forwards the runner's hooks to both models;
:func:`with_helper_calls` adds the helper's :class:`CallTotals` for an item to
the final answer. A count unknown for any call is unknown for the item
(``None``, never 0).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.judges.base import BaseJudge, JudgeOutput

if TYPE_CHECKING:
    import os

    from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge

__all__ = ["CallTotals", "HelpedJudge", "with_helper_calls"]


def _plus(total: float | None, value: float | None) -> float | None:
    return None if total is None or value is None else total + value


@dataclass
class CallTotals:
    """The helper calls of one item: how many, their attempts, tokens and cost (``None``: unknown for some call).

    Answers served from a cache are not calls and are not added.

    >>> totals = CallTotals()
    >>> totals.add(JudgeOutput("a", input_tokens=10, output_tokens=2, cost_usd=None))
    >>> totals.add(JudgeOutput("b", input_tokens=5, output_tokens=1, cost_usd=None))
    >>> totals.calls, totals.input_tokens, totals.output_tokens, totals.cost_usd
    (2, 15, 3, None)
    """

    calls: int = 0
    attempts: int = 0
    input_tokens: int | None = 0
    output_tokens: int | None = 0
    cost_usd: float | None = 0.0

    def add(self, output: JudgeOutput) -> None:
        """Count one helper answer."""
        self.calls += 1
        self.attempts += output.attempts
        self.input_tokens = _plus(self.input_tokens, output.input_tokens)  # type: ignore[assignment]
        self.output_tokens = _plus(self.output_tokens, output.output_tokens)  # type: ignore[assignment]
        self.cost_usd = _plus(self.cost_usd, output.cost_usd)

    def telemetry(self, prefix: str) -> dict[str, Any]:
        """The helper's own counts, as telemetry keys ``<prefix>_calls``, ``<prefix>_input_tokens``..."""
        return {f"{prefix}_calls": self.calls, f"{prefix}_attempts": self.attempts,
                f"{prefix}_input_tokens": self.input_tokens, f"{prefix}_output_tokens": self.output_tokens,
                f"{prefix}_cost_usd": self.cost_usd}


def with_helper_calls(final: JudgeOutput, helper: CallTotals, prefix: str, latency_s: float) -> JudgeOutput:
    """``final`` with the helper's calls added: tokens, cost and attempts of every call of the item.

    ``latency_s`` is the item's wall clock, helper calls included. The
    helper's own counts stay visible under ``prefix`` in the telemetry.

    >>> out = with_helper_calls(JudgeOutput("{}", input_tokens=100, output_tokens=9, cost_usd=0.5, attempts=1),
    ...                         CallTotals(2, 2, 30, 4, 0.25), "selector", 1.0)
    >>> out.input_tokens, out.output_tokens, out.cost_usd, out.attempts, out.extra["selector_calls"]
    (130, 13, 0.75, 3, 2)
    """
    extra = {**final.extra, **helper.telemetry(prefix)}
    return JudgeOutput(
        text=final.text, input_tokens=_plus(final.input_tokens, helper.input_tokens),  # type: ignore[arg-type]
        output_tokens=_plus(final.output_tokens, helper.output_tokens),  # type: ignore[arg-type]
        latency_s=latency_s, cost_usd=_plus(final.cost_usd, helper.cost_usd), attempts=final.attempts + helper.attempts,
        extra=extra,
    )


class HelpedJudge(BaseJudge):
    """A final direct judge and a helper model (``helper``, ``None`` for a heuristic): the runner's hooks of both."""

    def __init__(self, final: OpenAICompatibleJudge, helper: OpenAICompatibleJudge | None) -> None:
        self.final = final
        self.helper = helper
        self.name = final.name
        self.retry = final.retry  # each request retries inside: the runner makes one attempt
        self.ablation = final.ablation
        self.preset = final.preset
        self.run_defaults = final.run_defaults

    async def ajudge(self, judge_input: Any) -> JudgeOutput:
        raise NotImplementedError  # each kind of helped judge says how its calls go

    @property
    def reports_cost(self) -> bool:  # type: ignore[override]
        """Whether every call of an item carries a cost: prices for the final model and the helper."""
        return self.final.reports_cost and (self.helper is None or self.helper.reports_cost)

    @property
    def needs_release(self) -> bool:
        return self.final.needs_release

    def bind_release(self, root: str | os.PathLike[str]) -> None:
        self.final.bind_release(root)

    async def apreflight(self) -> None:
        await self.final.apreflight()
        if self.helper is not None:
            await self.helper.apreflight()

    async def aclose(self) -> None:
        await asyncio.gather(self.final.aclose(), *([] if self.helper is None else [self.helper.aclose()]))
