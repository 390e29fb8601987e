"""The options that put a helper model before a direct judge: step selection or screenshot summaries.

``select_steps=K`` (with ``step_selector``) gives a
:class:`~agenthorizon.judging.judges.direct_selection.StepSelectionJudge`,
``summarise_with=MODEL`` a :class:`~agenthorizon.judging.judges.direct_summaries.ScreenshotSummaryJudge`.
The helper uses the final judge's server (unless ``helper_base_url``), key
variable, timeout and retries; its prices are its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agenthorizon.judging.judges.base import BaseJudge
    from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge

__all__ = ["HELPER_OPTIONS", "with_helper"]

HELPER_OPTIONS = frozenset({
    "select_steps", "step_selector", "summarise_with", "helper_base_url", "helper_price_input_per_1m",
    "helper_price_output_per_1m", "model_cache_dir",
})
"""Options of the ``openai`` kind that :func:`with_helper` takes (command line: ``--select-steps``...)."""
_SELECTOR_MAX_TOKENS = 256
_SUMMARY_MAX_TOKENS = 300
_SUMMARY_IMAGE_SIZE = (1024, 664)  # one screenshot per request: twice the direct judge's default each way


def with_helper(judge: OpenAICompatibleJudge, options: dict[str, Any]) -> BaseJudge:
    """``judge`` with the helper ``options`` (:data:`HELPER_OPTIONS`) say; ``judge`` itself without any.

    Raises ``ValueError`` for both helpers at once, ``step_selector`` without
    ``select_steps``, or helper options without either helper.
    """
    given = {name: options.pop(name) for name in list(options) if name in HELPER_OPTIONS}
    steps, selector, summariser = given.get("select_steps"), given.get("step_selector"), given.get("summarise_with")
    if steps is None and selector is None and summariser is None:
        unused = sorted(given)
        if unused:
            raise ValueError(f"{', '.join(unused)}: options of step selection (--select-steps) or screenshot "
                             "summaries (--summarise-with), and neither is asked for")
        return judge
    if summariser is not None and (steps is not None or selector is not None):
        raise ValueError("choose step selection (--select-steps) or screenshot summaries (--summarise-with), not both")
    cache = given.get("model_cache_dir")
    if summariser is not None:
        from agenthorizon.judging.judges.direct_summaries import ScreenshotSummaryJudge

        return ScreenshotSummaryJudge(
            judge, _helper(judge, summariser, given, _SUMMARY_MAX_TOKENS, image_size=_SUMMARY_IMAGE_SIZE,
                           image_quality=judge.image_options.quality, cache_dir=judge.image_options.cache_dir),
            cache_dir=cache,
        )
    from agenthorizon.judging.judges.direct_selection import StepSelectionJudge, parse_selector

    if steps is None:
        raise ValueError("--step-selector chooses how K steps are picked: give K with --select-steps K")
    rule, model = parse_selector(selector or "even")
    helper = None if model is None else _helper(judge, model, given, _SELECTOR_MAX_TOKENS)
    return StepSelectionJudge(judge, steps, rule, selector=helper, cache_dir=cache)


def _helper(judge: OpenAICompatibleJudge, model: str, given: dict[str, Any], max_tokens: int, **images: Any) -> OpenAICompatibleJudge:
    from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge

    return OpenAICompatibleJudge.from_options(
        model, base_url=given.get("helper_base_url") or judge.base_url, api_key_env=judge.api_key_env,
        temperature=0.0, max_tokens=max_tokens, retries=judge.retry.retries, backoff_base=judge.retry.backoff_base,
        backoff_max=judge.retry.backoff_max, timeout=judge.timeout, images="per-step",
        price_input_per_1m=given.get("helper_price_input_per_1m"),
        price_output_per_1m=given.get("helper_price_output_per_1m"), **images,
    )
