"""The chat messages of a direct judge: the user message in one of two layouts, and an optional system prompt.

Layouts (:data:`agenthorizon.schema.DIRECT_LAYOUTS`), all built from the blind
:class:`~agenthorizon.judging.inputs.JudgeInput` alone:

- ``markdown`` (default): the prompt template with the item's whole Markdown
  as ``{{MARKDOWN}}``, then every image after its caption;
- ``interleaved`` (the order of the authors' direct harness): the template's
  text before ``{{MARKDOWN}}``, the goal, each step's line (:func:`step_text`)
  followed by its screenshot (a mosaic after its last step), then the text
  after ``{{MARKDOWN}}``;
- ``paper``: the same order in the authors' words (SPEC section 5).

A :class:`SystemPrompt` file's text goes as the ``system`` message; the run
records its path and sha256, not the text (it may be another project's).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.judges.prompts import per_step_image_note, render_prompt
from agenthorizon.judging.perturbation import INSTRUCTION_LAST, PARAPHRASE, paraphrase_action
from agenthorizon.release.render import action_string, timestamp_ms
from agenthorizon.schema import ABLATE_ACTIONS, DIRECT_LAYOUTS, IMAGE_MODE_MOSAIC, LAYOUT_MARKDOWN, LAYOUT_PAPER

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = ["SystemPrompt", "chat_messages", "check_layout", "protocol_record", "step_text", "text_chars"]

# Stands in for {{MARKDOWN}} while the template is filled, to split it there (no
# item text holds a NUL character).
_STEPS_MARK = "\x00agenthorizon-steps\x00"


def check_layout(layout: str, timestamps: bool = False) -> str:
    """``layout`` when it is one of :data:`~agenthorizon.schema.DIRECT_LAYOUTS`, else a ``ValueError`` naming them.

    ``timestamps`` is refused with ``markdown``, whose release Markdown
    carries every step's time already.
    """
    if layout not in DIRECT_LAYOUTS:
        raise ValueError(f"openai judge: layout must be one of {', '.join(DIRECT_LAYOUTS)}, got {layout!r}")
    if timestamps and layout == LAYOUT_MARKDOWN:
        raise ValueError(
            "openai judge: timestamps are for the interleaved and paper layouts; the markdown layout "
            "sends the release Markdown, which has every step's time already"
        )
    return layout


def step_text(step: Any, layout: str, *, timestamps: bool = False, paraphrase: bool = False) -> str:
    """The text of one step in the ``interleaved`` or ``paper`` layout.

    Without an action (ablated) the text has none; a step without ``timestamp_us`` has no time.

    >>> step = {"step_id": 3, "action": {"type": "click", "parameters": {"x": 5, "y": 6}}, "timestamp_us": 1234500}
    >>> step_text(step, "interleaved", timestamps=True)
    'Step 3 at 1234 ms: left-click (5, 6)'
    >>> print(step_text(step, "paper", timestamps=True))
    ### Step 3
    <BLANKLINE>
    **Action:** `left-click (5, 6)`
    <BLANKLINE>
    **Timestamp:** 1234 ms
    """
    time = step.get("timestamp_us") if timestamps else None
    action = action_string(step["action"]) if "action" in step else None  # absent: the actions ablation
    if action is not None and paraphrase:  # the paraphrase perturbation's fixed rewording
        action = paraphrase_action(action)
    if layout == LAYOUT_PAPER:
        lines = [f"### Step {step['step_id']}"]
        if action is not None:
            lines.append(f"**Action:** `{action}`")
        if time is not None:
            lines.append(f"**Timestamp:** {timestamp_ms(time)} ms")
        return "\n\n".join(lines)
    head = f"Step {step['step_id']}" + ("" if time is None else f" at {timestamp_ms(time)} ms")
    return head if action is None else f"{head}: {action}"


def _goal_text(judge_input: JudgeInput, layout: str) -> str:
    instruction = judge_input.instruction.strip()
    steps = len(judge_input.steps)
    if layout == LAYOUT_PAPER:
        return f"## Goal\n\n{instruction}\n\n## Steps\n\nTotal steps: **{steps}**"
    return f"## Goal\n\n{instruction}\n\n## Steps ({steps})"


def text_chars(messages: list[dict[str, Any]]) -> int:
    """Characters of every text of a request: each message's text, each text part of its content.

    >>> text_chars([{"role": "system", "content": "abc"},
    ...             {"role": "user", "content": [{"type": "text", "text": "de"}, {"type": "image_url"}]}])
    5
    """
    total = 0
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            total += len(content)
        else:
            total += sum(len(part["text"]) for part in content if part.get("type") == "text")
    return total


@dataclass(frozen=True)
class SystemPrompt:
    """A system prompt read from a file: its ``path`` (as given), ``text`` and ``sha256`` (of the UTF-8 bytes)."""

    path: str
    text: str
    sha256: str

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> SystemPrompt:
        """Read ``path`` as UTF-8 text; a ``ValueError`` names the file and what was expected.

        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as file:
        ...     _ = file.write("You review recordings.")
        >>> prompt = SystemPrompt.read(file.name)
        >>> prompt.text, prompt.sha256 == hashlib.sha256(b"You review recordings.").hexdigest()
        ('You review recordings.', True)
        """
        where = Path(path)
        if not where.is_file():
            raise ValueError(f"system prompt {str(path)!r}: expected a UTF-8 text file, but there is no such file")
        data = where.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"system prompt {where}: not UTF-8 text ({error.reason} at byte {error.start})") from None
        if not text.strip():
            raise ValueError(f"system prompt {where}: the file is empty; expected the system message's text")
        return cls(str(path), text, hashlib.sha256(data).hexdigest())

    def record(self) -> dict[str, str]:
        """What a run records of it: path and sha256."""
        return {"path": self.path, "sha256": self.sha256}


def protocol_record(system: SystemPrompt | None, preset: dict[str, Any] | None) -> dict[str, Any]:
    """The spec fields of a direct judge's system prompt and preset, each only when set.

    >>> protocol_record(None, {"name": "paper-direct"})
    {'preset': {'name': 'paper-direct'}}
    """
    record: dict[str, Any] = {}
    if system is not None:
        record["system_prompt"] = system.record()
    if preset is not None:
        record["preset"] = preset
    return record


def chat_messages(
    template: str, judge_input: JudgeInput, images: list[Any], *, mode: str, layout: str,
    system: SystemPrompt | None = None, timestamps: bool = False, image_note: str | None = None,
) -> list[dict[str, Any]]:
    """The messages of one request: the system prompt if any, then the user message in ``layout``.

    ``images`` are :class:`agenthorizon.data.images.PreparedImage`, ``mode``
    their mode (``per-step``, ``mosaic`` or ``none``); ``timestamps`` adds each
    step's time (interleaved layouts); ``image_note`` replaces the sentence
    that says where the images are (``codex-direct`` attaches them apart).
    """
    if layout != LAYOUT_MARKDOWN:
        content: Any = _interleaved(template, judge_input, images, mode, layout, timestamps, image_note)
    elif not images and mode not in ("per-step", IMAGE_MODE_MOSAIC):
        content = render_prompt(template, judge_input)
    else:
        content = _markdown(template, judge_input, images, mode, image_note)
    messages = [{"role": "user", "content": content}]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system.text})
    return messages


def _image_note(images: list[Any], mode: str, interleaved: bool, actions: bool = True) -> str:
    from agenthorizon.data.images import reading_order_sentence

    if not images:
        return ""
    if mode == IMAGE_MODE_MOSAIC:
        return reading_order_sentence()
    if interleaved:
        # With the actions ablated a step's line has no action: the note must not promise one.
        return f"{len(images)} screenshots are attached, each right after the {'action ' if actions else ''}line of its step."
    return per_step_image_note([image.steps[0] for image in images])


def _markdown(template: str, judge_input: JudgeInput, images: list[Any], mode: str,
              note: str | None = None) -> list[dict[str, Any]]:
    note = _image_note(images, mode, False) if note is None else note
    content: list[dict[str, Any]] = [{"type": "text", "text": render_prompt(template, judge_input, image_note=note)}]
    for image in images:
        content.append({"type": "text", "text": image.caption()})
        content.append(image.content_part())
    return content


def _interleaved(
    template: str, judge_input: JudgeInput, images: list[Any], mode: str, layout: str, timestamps: bool,
    note: str | None = None,
) -> list[dict[str, Any]]:
    actions = ABLATE_ACTIONS not in judge_input.ablation
    note = _image_note(images, mode, True, actions) if note is None else note
    filled = render_prompt(template, judge_input, image_note=note, markdown=_STEPS_MARK)
    before, marked, after = filled.partition(_STEPS_MARK)
    if not marked:  # no {{MARKDOWN}}: the steps follow the whole text
        before, after = filled, ""
    parts: list[dict[str, Any]] = []
    if before.strip():
        parts.append({"type": "text", "text": before.rstrip()})
    goal, _, steps_head = _goal_text(judge_input, layout).partition("\n\n")  # "## Goal", then the instruction and steps heading
    instruction, _, steps_head = steps_head.rpartition("\n\n## Steps")
    goal_last = INSTRUCTION_LAST in judge_input.perturbation
    if goal_last:  # the instruction-last perturbation: the steps heading here, the goal after every step
        parts.append({"type": "text", "text": "## Steps" + steps_head})
    else:
        parts.append({"type": "text", "text": _goal_text(judge_input, layout)})
    # Each image after the text of the last step it shows (a step's own, or its mosaic's last).
    after_step = {image.steps[-1]: image for image in images}
    paraphrase = PARAPHRASE in judge_input.perturbation
    for step in judge_input.steps:
        parts.append({"type": "text", "text": step_text(step, layout, timestamps=timestamps, paraphrase=paraphrase)})
        image = after_step.get(step["step_id"])
        if image is not None:
            if mode == IMAGE_MODE_MOSAIC:
                parts.append({"type": "text", "text": image.caption()})
            parts.append(image.content_part())
    if goal_last:
        parts.append({"type": "text", "text": f"{goal}\n\n{instruction}"})
    if after.strip():
        parts.append({"type": "text", "text": after.strip()})
    return parts
