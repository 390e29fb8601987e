"""Step selection (the authors' approach B): the direct judge sees only K steps' screenshots.

:class:`StepSelectionJudge` chooses K steps per item, by a heuristic or by a
selecting model that reads the instruction and step texts (no image); the
final judge gets every step's text and those K screenshots only. A model's
choice is cached per item, selector model, K and request (kind ``selections``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.inputs import only_screenshots_of
from agenthorizon.judging.judges.base import JudgeError, JudgeOutput
from agenthorizon.judging.judges.call_cache import CallCache, cache_key
from agenthorizon.judging.judges.helped import CallTotals, HelpedJudge, with_helper_calls
from agenthorizon.judging.judges.step_choice import (
    HEURISTICS,
    RULE_MODEL,
    SELECTOR_PROMPT,
    choose_by_heuristic,
    parse_selection,
    selector_messages,
    steps_with_screenshots,
)

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput
    from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge

__all__ = ["StepSelectionJudge", "parse_selector"]


def parse_selector(text: str) -> tuple[str, str | None]:
    """``--step-selector``'s value: a heuristic's name, or ``model:MODEL`` (rule, model).

    >>> parse_selector("edits"), parse_selector("model:qwen3:8b")
    (('edits', None), ('model', 'qwen3:8b'))
    """
    rule, _, model = text.partition(":")
    if rule == RULE_MODEL and model.strip():
        return RULE_MODEL, model.strip()
    if rule in HEURISTICS and not model:
        return rule, None
    raise ValueError(f"step selector {text!r}: expected one of {', '.join(HEURISTICS)} or {RULE_MODEL}:MODEL")


class StepSelectionJudge(HelpedJudge):
    """A direct judge shown the screenshots of K chosen steps only.

    An item with K or fewer screenshots sends them all and asks no model. Each
    result records ``selected_steps``, ``selection_rule``, ``selector_answer``
    and ``selection_cached``; its tokens and cost include the selector's calls.

    Parameters
    ----------
    final : OpenAICompatibleJudge
        The judge that decides, given the narrowed item.
    steps : int
        K, the most screenshots sent per item (>= 1).
    rule : str
        A heuristic of :data:`~agenthorizon.judging.judges.step_choice.HEURISTICS`,
        or ``"model"`` with ``selector``.
    selector : OpenAICompatibleJudge, optional
        The selecting model (its server, key, sampling and prices), for ``rule="model"``.
    cache_dir : path, optional
        Root of the call cache (default :func:`~agenthorizon.judging.judges.call_cache.default_model_cache`).
    """

    def __init__(
        self, final: OpenAICompatibleJudge, steps: int, rule: str = "even", *,
        selector: OpenAICompatibleJudge | None = None, cache_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
            raise ValueError(f"step selection: K (--select-steps) must be a positive integer, got {steps!r}")
        if rule == RULE_MODEL and selector is None:
            raise ValueError("step selection by a model needs the model: --step-selector model:MODEL")
        if rule != RULE_MODEL and rule not in HEURISTICS:
            raise ValueError(f"step selection rule {rule!r} is not one of {', '.join(HEURISTICS)} or {RULE_MODEL}:MODEL")
        if rule != RULE_MODEL and selector is not None:
            raise ValueError(f"step selection rule {rule!r} is a heuristic: it takes no selector model")
        super().__init__(final, selector)
        self.steps, self.rule = steps, rule
        self.cache = CallCache(cache_dir, "selections") if selector is not None else None

    # --- description ------------------------------------------------------------------

    def _identity(self) -> dict[str, Any]:
        identity: dict[str, Any] = {"k": self.steps, "rule": self.rule}
        if self.helper is not None:
            identity["selector"] = {
                "model": self.helper.model, "sampling": self.helper.sampling.record(),
                "prompt_sha256": hashlib.sha256(SELECTOR_PROMPT.encode("utf-8")).hexdigest(),
            }
        return identity

    def spec(self) -> dict[str, Any]:
        """The final judge's spec with the selection: in ``images`` too, so the judge key counts it."""
        spec = self.final.spec()
        identity = self._identity()
        spec["images"] = {**spec["images"], "step_selection": identity}
        spec["step_selection"] = dict(identity)
        if self.helper is not None:
            spec["step_selection"]["selector"] = {**identity["selector"], "base_url": self.helper.spec()["base_url"]}
            spec["step_selection"]["cache"] = str(self.cache.folder)
        return spec

    # --- judging ---------------------------------------------------------------------------

    async def ajudge(self, judge_input: JudgeInput) -> JudgeOutput:
        started = time.perf_counter()
        available = steps_with_screenshots(judge_input)
        calls = CallTotals()
        answer, cached = None, False
        if len(available) <= self.steps or self.helper is None:
            chosen = choose_by_heuristic(judge_input, self.rule if self.helper is None else "last", self.steps)
        else:
            chosen, answer, cached = await self._ask(judge_input, available, calls)
        narrowed = await asyncio.to_thread(only_screenshots_of, judge_input, chosen) if chosen else judge_input
        try:
            output = await self.final.ajudge(narrowed)
        except JudgeError as failed:
            raise failed.counted((failed.attempts or 1) + calls.attempts)
        output.extra.update(selected_steps=chosen, selection_rule=self.rule, selector_answer=answer,
                            selection_cached=cached)
        return with_helper_calls(output, calls, "selector", time.perf_counter() - started)

    async def _ask(self, judge_input: JudgeInput, available: list[int], calls: CallTotals) -> tuple[list[int], str, bool]:
        assert self.helper is not None and self.cache is not None
        messages = selector_messages(judge_input, self.steps)
        request = self.helper.sampling.body(self.helper.model, messages)
        key = cache_key({
            "trajectory_id": judge_input.trajectory_id, "selector": self.helper.model, "k": self.steps,
            "request_sha256": hashlib.sha256(json.dumps(request, sort_keys=True).encode("utf-8")).hexdigest(),
        })
        entry = await asyncio.to_thread(self.cache.get, key)
        if entry is not None:
            return parse_selection(entry["answer"], available, self.steps), entry["answer"], True
        try:
            output = await self.helper.acomplete(messages)
        except JudgeError as failed:
            raise failed.counted(failed.attempts or 1)
        calls.add(output)
        try:
            chosen = parse_selection(output.text, available, self.steps)
        except ValueError as problem:  # not cached: the next run asks again
            raise JudgeError(f"trajectory {judge_input.trajectory_id}: {problem}").counted(calls.attempts) from None
        await asyncio.to_thread(self.cache.put, key, {
            "trajectory_id": judge_input.trajectory_id, "selector": self.helper.model, "k": self.steps,
            "answer": output.text, "steps": chosen, "input_tokens": output.input_tokens,
            "output_tokens": output.output_tokens, "cost_usd": output.cost_usd,
        })
        return chosen, output.text, False
