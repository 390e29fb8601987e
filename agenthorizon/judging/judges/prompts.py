"""This project's default judge prompts and how they are filled in (:func:`render_prompt`).

:data:`DIRECT_PROMPT` (everything in one message) and :data:`COMMAND_PROMPT`
(agentic judges that read the files themselves) share one :data:`RUBRIC`,
whose mistake types follow the benchmark's taxonomy (SPEC section 1) in this
project's words. Placeholders are :data:`PLACEHOLDERS`; ``{{IMAGE_NOTE}}`` is a
sentence about the attached images, empty when none is sent.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

from agenthorizon.judging.perturbation import INSTRUCTION_ELSEWHERE, INSTRUCTION_LAST
from agenthorizon.schema import BAD_SIDE_EFFECT, CONFIDENCE_VALUES, CRITICAL_MISTAKE, MISTAKE_TYPES, MISUNDERSTANDING

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = [
    "RUBRIC",
    "DIRECT_PROMPT",
    "COMMAND_PROMPT",
    "PLACEHOLDERS",
    "prompt_sha256",
    "render_prompt",
    "per_step_image_note",
    "verdict_json_schema",
]

PLACEHOLDERS = ("{{TRAJECTORY_ID}}", "{{INSTRUCTION}}", "{{MARKDOWN}}", "{{IMAGE_NOTE}}")

RUBRIC = f"""You are reviewing a recording of a computer-use session. Someone was given an
instruction and operated a desktop computer (mouse, keyboard) to carry it out.
You see the instruction, every recorded action and the screenshots taken along
the way. Decide whether the recording accomplishes THIS instruction, exactly as
written.

Be careful: a recording can be tidy, purposeful and successful at *some* task
and still be the wrong one. Compare each concrete detail of the instruction
(names, numbers, dates, file names and formats, recipients, targets, options)
with what was actually typed, clicked and shown on screen. A detail that
differs, is missing, or an extra action the instruction did not ask for is
evidence of failure. Judge the outcome visible at the end of the recording,
not the effort.

When the instruction was not accomplished, name the kind of mistake:
- "{CRITICAL_MISTAKE}": the core of the request (the main action, the entity
  or the subject it is about) was not achieved, or was done to the wrong
  thing; the user would have to start over.
- "{BAD_SIDE_EFFECT}": the goal is mostly reached, but the session also did
  something unwanted with a cost, a risk or an effect visible to others (sent,
  deleted, published or changed something extra) that must be undone.
- "{MISUNDERSTANDING}": the result is coherent but misses a parameter
  or a constraint of the instruction (a format, a value, an option, a
  location), and a small local edit would fix it.

Answer with one JSON object and nothing after it:
{{"success": true or false,
 "reasoning": "the decisive evidence, citing step numbers",
 "confidence": "low" | "medium" | "high",
 "mistake_type": null when success is true, otherwise one of the three names above}}
"success" must be the JSON literal true or false."""

DIRECT_PROMPT = (
    RUBRIC
    + """

## Instruction

{{INSTRUCTION}}

## Recording

The recording of trajectory {{TRAJECTORY_ID}} follows as Markdown, one block per
step (step numbers start at 0).{{IMAGE_NOTE}}

{{MARKDOWN}}
"""
)

COMMAND_PROMPT = (
    RUBRIC
    + """

## Where the recording is

You are in a working directory that holds one recording, trajectory
{{TRAJECTORY_ID}}:
- data/markdowns/{{TRAJECTORY_ID}}.md: the instruction and every step as Markdown;
- data/jsons/{{TRAJECTORY_ID}}.json: the same recording as JSON;
- data/media/images/{{TRAJECTORY_ID}}/step_N.png: the screenshot of step N-1
  (file numbers start at 1, step numbers at 0).
Read the instruction and the steps, open the screenshots you need (at least the
last ones, which show the final state), then answer with the JSON object.
"""
)



def verdict_json_schema() -> dict:
    """The verdict the prompts ask for, as a JSON Schema (a fresh copy on each call).

    ``success`` is a Boolean, ``reasoning`` a string, ``confidence`` one of
    ``schema.CONFIDENCE_VALUES`` and ``mistake_type`` one of
    ``schema.MISTAKE_TYPES`` or ``null``. All are required and no other is
    allowed (OpenAI's strict structured outputs accept only such schemas);
    the verdict parser needs only ``success``. Properties are in the prompt's order.

    >>> schema = verdict_json_schema()
    >>> schema["properties"]["success"], schema["properties"]["confidence"]["enum"]
    ({'type': 'boolean'}, ['low', 'medium', 'high'])
    """
    return {
        "type": "object",
        "properties": {
            "success": {"type": "boolean"},
            "reasoning": {"type": "string"},
            "confidence": {"type": "string", "enum": list(CONFIDENCE_VALUES)},
            "mistake_type": {"anyOf": [{"type": "string", "enum": list(MISTAKE_TYPES)}, {"type": "null"}]},
        },
        "required": ["success", "reasoning", "confidence", "mistake_type"],
        "additionalProperties": False,
    }


_PLACEHOLDER = re.compile(r"\{\{([A-Z_]+)\}\}")


def prompt_sha256(template: str) -> str:
    """Hex sha256 of a template's UTF-8 bytes: the prompt revision run records keep beside its text.

    >>> len(prompt_sha256(DIRECT_PROMPT))
    64
    """
    return hashlib.sha256(template.encode("utf-8")).hexdigest()


def per_step_image_note(step_ids: list[int]) -> str:
    """The sentence that introduces per-step screenshots in the direct prompt."""
    if not step_ids:
        return ""
    return (
        f" {len(step_ids)} screenshots are attached after this text, each preceded by a line "
        "naming its step."
    )


def render_prompt(template: str, judge_input: JudgeInput, *, image_note: str = "", markdown: str | None = None) -> str:
    """Fill a template's ``{{...}}`` placeholders for one judge input.

    Unknown placeholders raise ``ValueError`` (a misspelt one would reach the
    model verbatim). One pass, so a placeholder-like string inside the Markdown
    is left alone. ``markdown`` replaces the item's Markdown for ``{{MARKDOWN}}``.
    """
    values = {
        "TRAJECTORY_ID": judge_input.trajectory_id,
        # Under the instruction-last perturbation the goal comes after the recording, not here.
        "INSTRUCTION": INSTRUCTION_ELSEWHERE if INSTRUCTION_LAST in judge_input.perturbation else judge_input.instruction,
        "MARKDOWN": judge_input.markdown if markdown is None else markdown,
        "IMAGE_NOTE": (" " + image_note.strip()) if image_note.strip() else "",
    }
    unknown = sorted({m.group(1) for m in _PLACEHOLDER.finditer(template)} - set(values))
    if unknown:
        raise ValueError(
            f"prompt template has unknown placeholder(s) {', '.join('{{' + u + '}}' for u in unknown)}; "
            f"expected some of {', '.join(PLACEHOLDERS)}"
        )
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
