"""Screenshot summaries (the authors' approach C): a vision model describes each screenshot, a text judge decides.

Main class: :class:`ScreenshotSummaryJudge`. The summariser's request holds
:data:`SUMMARY_PROMPT` and one screenshot, nothing of the instruction, the steps
or another item. A summary is cached per screenshot sha256 and summariser key
(kind ``summaries``); each item's screenshots are listed under ``summary-items``
for :func:`agenthorizon.judging.summaries_dataset.load_summaries`.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.judges.base import JudgeError, JudgeOutput
from agenthorizon.judging.judges.call_cache import CallCache, cache_key
from agenthorizon.judging.judges.helped import CallTotals, HelpedJudge, with_helper_calls
from agenthorizon.judging.judges.prompts import render_prompt
from agenthorizon.release.render import to_markdown
from agenthorizon.schema import ABLATE_ACTIONS, IMAGE_MODE_PER_STEP, LAYOUT_MARKDOWN

if TYPE_CHECKING:
    import os

    from agenthorizon.judging.inputs import JudgeInput
    from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge

__all__ = ["SUMMARY_LABEL", "SUMMARY_PROMPT", "ScreenshotSummaryJudge", "summarised_markdown"]

SUMMARY_PROMPT = (
    "This is one screenshot of a recorded session on a desktop computer. In at most 80 words, describe what "
    "it shows: the application and window in front, the document, page or folder open and the content that "
    "matters (names, values, file names, dates, selected options), and any dialog, notification or error. "
    "Describe only what is visible; do not guess what the person intends or does next."
)
"""The summariser's request text, in this project's words (sent with one screenshot)."""
SUMMARY_LABEL = "**Screenshot (described by a vision model):**"
IMAGE_NOTE = (
    "The screenshots are not attached: each screenshot line of the trajectory is replaced by a short "
    "description of that screenshot, written by a vision model that saw only the screenshot."
)


def summarised_markdown(judge_input: JudgeInput, summaries: dict[int, str]) -> str:
    """The item's trajectory Markdown with each screenshot line replaced by its step's summary.

    ``summaries`` maps step ids to texts (white space collapsed to single
    spaces in the Markdown); every step with a screenshot must have one.

    >>> from agenthorizon.judging.inputs import build_judge_input
    >>> row = {"trajectory_id": "t", "instruction": "Save it", "markdown": "", "steps": [
    ...     {"step_id": 0, "action_type": "hotkey", "parameters": '{"keys": ["ctrl", "s"]}',
    ...      "timestamp_us": None, "screenshot": "/s/step_1.png"}]}
    >>> text = summarised_markdown(build_judge_input(row), {0: "A text editor;\\n the file is unsaved."})
    >>> "### Step 0\\n\\n**Screenshot (described by a vision model):** A text editor; the file is unsaved.\\n\\n**Action:**" in text
    True
    >>> "![Step" in text
    False
    """
    trajectory = judge_input.trajectory_json()
    lines = {
        f"![Step {step['step_id']} screenshot]({step['screenshot']})": step["step_id"]
        for step in trajectory["steps"] if step.get("screenshot")
    }
    missing = sorted(set(lines.values()) - set(summaries))
    if missing:
        raise ValueError(f"trajectory {judge_input.trajectory_id}: no summary for the screenshot(s) of step(s) {missing}")
    rendered = to_markdown(trajectory, actions=ABLATE_ACTIONS not in judge_input.ablation)
    out, replaced = [], 0
    for line in rendered.split("\n"):
        step = lines.get(line)
        if step is not None:
            line, replaced = f"{SUMMARY_LABEL} {' '.join(summaries[step].split())}", replaced + 1
        out.append(line)
    if replaced != len(lines):  # the renderer's image lines are what the lookup expects
        raise AssertionError(f"trajectory {judge_input.trajectory_id}: {replaced} screenshot lines for {len(lines)} screenshots")
    return "\n".join(out)


class ScreenshotSummaryJudge(HelpedJudge):
    """A text-only direct judge that reads a vision model's summary of each screenshot.

    The final judge gets one text message, its prompt with :func:`summarised_markdown`;
    no image is sent. Each result records the summaries made and read from the
    cache (``summaries_made``, ``summaries_cached``); its tokens and cost include
    every summariser call of the item.

    Parameters
    ----------
    final : OpenAICompatibleJudge
        The judge that decides; it is sent text only, in the ``markdown``
        layout (its prompt, system prompt, sampling, re-asking and prices apply).
    summariser : OpenAICompatibleJudge
        The vision model; its image settings (size, JPEG quality) prepare each screenshot.
    cache_dir : path, optional
        Root of the call cache (default :func:`~agenthorizon.judging.judges.call_cache.default_model_cache`).
    concurrency : int
        Summaries asked at once for one item.
    """

    def __init__(
        self, final: OpenAICompatibleJudge, summariser: OpenAICompatibleJudge, *,
        cache_dir: str | os.PathLike[str] | None = None, concurrency: int = 4,
    ) -> None:
        if final.layout != LAYOUT_MARKDOWN:
            raise ValueError(
                f"screenshot summaries: the final judge gets the trajectory Markdown with each screenshot described; "
                f"layout {final.layout!r} is not used there: leave --layout at markdown"
            )
        if concurrency < 1:
            raise ValueError(f"screenshot summaries: concurrency must be >= 1, got {concurrency}")
        super().__init__(final, summariser)
        self.summariser = summariser
        self.cache = CallCache(cache_dir, "summaries")
        self.items = CallCache(cache_dir, "summary-items")
        self.concurrency = concurrency

    def summariser_identity(self) -> dict[str, Any]:
        """What decides a summary besides the screenshot: model, prompt sha256, sampling, image settings."""
        return {
            "model": self.summariser.model, "prompt_sha256": hashlib.sha256(SUMMARY_PROMPT.encode("utf-8")).hexdigest(),
            "sampling": self.summariser.sampling.record(), "images": self.summariser.image_options.record(),
        }

    @property
    def summariser_key(self) -> str:
        """The summariser's key: :func:`~agenthorizon.judging.judges.call_cache.cache_key` of its identity."""
        return cache_key(self.summariser_identity())

    def spec(self) -> dict[str, Any]:
        """The final judge's spec; ``images`` is the summaries (text only), so the judge key counts the summariser."""
        spec = self.final.spec()
        identity = self.summariser_identity()
        spec["images"] = {"mode": "summaries", "summariser": identity}
        spec["screenshot_summaries"] = {
            **identity, "key": self.summariser_key, "base_url": self.summariser.spec()["base_url"],
            "cache": str(self.cache.folder),
        }
        return spec

    # --- judging ---------------------------------------------------------------------------

    async def ajudge(self, judge_input: JudgeInput) -> JudgeOutput:
        import time

        started = time.perf_counter()
        calls = CallTotals()
        summaries, cached = await self._summaries(judge_input, calls)
        markdown = await asyncio.to_thread(summarised_markdown, judge_input, summaries)
        text = render_prompt(self.final._template(), judge_input, image_note=IMAGE_NOTE if summaries else "",
                             markdown=markdown)
        messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
        if self.final.system_prompt is not None:
            messages.insert(0, {"role": "system", "content": self.final.system_prompt.text})
        try:
            output = await self.final.acomplete(messages)
        except JudgeError as failed:
            raise failed.counted((failed.attempts or 1) + calls.attempts)
        output.extra.update(images_mode_used="summaries", n_images=0, n_summaries=len(summaries),
                            summaries_made=calls.calls, summaries_cached=cached, summariser_key=self.summariser_key)
        return with_helper_calls(output, calls, "summariser", time.perf_counter() - started)

    async def _summaries(self, judge_input: JudgeInput, calls: CallTotals) -> tuple[dict[int, str], int]:
        """Each screenshot's summary by step id, and how many came from the cache (counted by step)."""
        screenshots = judge_input.screenshots
        step_ids = judge_input.step_columns.step_ids
        present = screenshots.present
        if not present:
            return {}, 0
        digests = await asyncio.to_thread(
            lambda: {index: hashlib.sha256(screenshots.read_bytes(index)).hexdigest() for index in present})
        summariser = self.summariser_key
        keys = {index: cache_key({"screenshot_sha256": digests[index], "summariser": summariser}) for index in present}
        texts: dict[str, str] = {}
        for key in set(keys.values()):
            entry = await asyncio.to_thread(self.cache.get, key)
            if entry is not None:
                texts[key] = entry["summary"]
        cached = sum(keys[index] in texts for index in present)
        first_of: dict[str, int] = {}  # one request per distinct screenshot
        for index in present:
            if keys[index] not in texts:
                first_of.setdefault(keys[index], index)
        if first_of:
            await self._summarise(judge_input, first_of, digests, texts, calls)
        await asyncio.to_thread(self.items.put, cache_key({"trajectory_id": judge_input.trajectory_id, "summariser": summariser}), {
            "trajectory_id": judge_input.trajectory_id, "summariser_key": summariser,
            "steps": [[step_ids[index], digests[index]] for index in present],
        })
        return {step_ids[index]: texts[keys[index]] for index in present}, cached

    async def _summarise(
        self, judge_input: JudgeInput, first_of: dict[str, int], digests: dict[int, str], texts: dict[str, str],
        calls: CallTotals,
    ) -> None:
        step_ids = judge_input.step_columns.step_ids
        settings = self.summariser.image_settings(IMAGE_MODE_PER_STEP)
        extra = {} if self.summariser.image_options.cache_dir is None else {"cache_dir": self.summariser.image_options.cache_dir}
        prepared = await asyncio.to_thread(
            judge_input.screenshots.only(first_of.values()).prepare, settings=settings, step_ids=step_ids, **extra)
        by_step = {image.steps[0]: image for image in prepared}
        gate = asyncio.Semaphore(self.concurrency)

        async def one(key: str, index: int) -> None:
            image = by_step[step_ids[index]]
            messages = [{"role": "user", "content": [{"type": "text", "text": SUMMARY_PROMPT}, image.content_part()]}]
            async with gate:
                try:
                    output = await self.summariser.acomplete(messages)
                except JudgeError as failed:
                    raise failed.counted((failed.attempts or 1) + calls.attempts)
            calls.add(output)
            if not output.text.strip():
                raise JudgeError(f"trajectory {judge_input.trajectory_id}: the summariser returned no text for the "
                                 f"screenshot of step {step_ids[index]}").counted(calls.attempts)
            texts[key] = output.text.strip()
            await asyncio.to_thread(self.cache.put, key, {
                "screenshot_sha256": digests[index], "summariser_key": self.summariser_key,
                "summariser": self.summariser_identity(), "summary": texts[key],
                "input_tokens": output.input_tokens, "output_tokens": output.output_tokens, "cost_usd": output.cost_usd,
            })

        await asyncio.gather(*(one(key, index) for key, index in first_of.items()))
