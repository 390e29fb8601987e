"""Which K steps' screenshots a judge gets (the authors' approach B): heuristics, or a selecting model.

:func:`choose_by_heuristic` applies a named rule; a model is asked with
:func:`selector_messages` and its answer read with :func:`parse_selection`. No I/O.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Sequence

from agenthorizon.data.step_selection import evenly_spaced
from agenthorizon.judging.judges.direct_messages import step_text
from agenthorizon.schema import LAYOUT_INTERLEAVED

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = [
    "EDIT_ACTIONS",
    "HEURISTICS",
    "RULE_MODEL",
    "SELECTOR_PROMPT",
    "choose_by_heuristic",
    "parse_selection",
    "selector_messages",
    "steps_with_screenshots",
]

RULE_LAST = "last"
RULE_EVEN = "even"
RULE_EDITS = "edits"
HEURISTICS = (RULE_LAST, RULE_EVEN, RULE_EDITS)
RULE_MODEL = "model"
"""The rule of a selecting model (``model:MODEL`` on the command line)."""
EDIT_ACTIONS = frozenset({"type", "press", "hotkey", "drag"})
"""Action types that change content, which ``edits`` prefers."""

SELECTOR_PROMPT = """\
A reviewer must decide whether a recorded desktop session accomplished the goal below, but can look at \
only {K} of its {N} screenshots. Each step below is one action; a step marked "[screenshot]" has a \
screenshot. Choose the {K} screenshots that best show whether the goal was reached: the final state, the \
results of edits, saved or sent items, confirmations and error messages.

Answer with a JSON object only: {{"steps": [up to {K} step numbers, in increasing order]}}, using only \
step numbers marked "[screenshot]".

{STEPS}"""
"""The selector's request, in this project's words: ``{K}``, ``{N}`` and ``{STEPS}`` are filled in."""


def steps_with_screenshots(judge_input: JudgeInput) -> list[int]:
    """The step ids of ``judge_input`` that have a screenshot, in step order."""
    step_ids = judge_input.step_columns.step_ids
    return [step_ids[index] for index in judge_input.screenshots.present]


def choose_by_heuristic(judge_input: JudgeInput, rule: str, k: int) -> list[int]:
    """The ``k`` step ids ``rule`` (one of :data:`HEURISTICS`) keeps, in step order.

    Over the steps with a screenshot (all of them when ``k`` or fewer):
    ``last``, the ``k`` last; ``even``, ``k`` evenly spaced keeping the first
    and the last; ``edits``, the last step, then steps whose action changes
    content (:data:`EDIT_ACTIONS`), latest first, topped up with evenly spaced
    others (with no edit, as under the actions ablation: the last step and
    ``k - 1`` evenly spaced others).

    >>> from agenthorizon.judging.inputs import build_judge_input
    >>> actions = ["click", "type", "click", "click", "hotkey", "click"]
    >>> row = {"trajectory_id": "t", "instruction": "x", "markdown": "", "steps": [
    ...     {"step_id": i, "action_type": a, "parameters": "{}", "timestamp_us": None, "screenshot": f"/s/{i}.png"}
    ...     for i, a in enumerate(actions)]}
    >>> item = build_judge_input(row)
    >>> choose_by_heuristic(item, "last", 2), choose_by_heuristic(item, "even", 3), choose_by_heuristic(item, "edits", 3)
    ([4, 5], [0, 3, 5], [1, 4, 5])
    """
    if rule not in HEURISTICS:
        raise ValueError(f"step selection rule {rule!r} is not one of {', '.join(HEURISTICS)} (or {RULE_MODEL}:MODEL)")
    available = steps_with_screenshots(judge_input)
    if len(available) <= k:
        return available
    if rule == RULE_LAST:
        return available[-k:]
    if rule == RULE_EVEN:
        return evenly_spaced(available, k)
    kinds = dict(zip(judge_input.step_columns.step_ids, judge_input.step_columns.action_types))
    chosen = [available[-1]]
    chosen += [step for step in reversed(available[:-1]) if kinds.get(step) in EDIT_ACTIONS][: k - 1]
    rest = [step for step in available if step not in chosen]
    if len(chosen) < k:  # filled with evenly spaced others
        chosen += evenly_spaced(rest, k - len(chosen))
    return sorted(chosen)


def selector_messages(judge_input: JudgeInput, k: int) -> list[dict[str, Any]]:
    """The selecting model's request: the goal and every step's action, marked where a screenshot exists.

    Text only; nothing of the item but its blind input's instruction and steps.
    """
    available = set(steps_with_screenshots(judge_input))
    lines = [f"Goal: {judge_input.instruction.strip()}", ""]
    for step in judge_input.steps:
        mark = " [screenshot]" if step["step_id"] in available else ""
        lines.append(step_text(step, LAYOUT_INTERLEAVED) + mark)
    text = SELECTOR_PROMPT.format(K=k, N=len(available), STEPS="\n".join(lines))
    return [{"role": "user", "content": text}]


_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n?(.*?)\n?```\s*$", re.DOTALL)


def parse_selection(answer: str, available: Sequence[int], k: int) -> list[int]:
    """The step ids a selector's ``answer`` names, in step order; a ``ValueError`` saying what is wrong.

    The answer must be a JSON object (code fences allowed around it) whose
    ``steps`` is a list of 1 to ``k`` distinct integers, each in ``available``.

    >>> parse_selection('```json\\n{"steps": [7, 2]}\\n```', [2, 5, 7], 2)
    [2, 7]
    >>> parse_selection('{"steps": [3]}', [2, 5, 7], 2)
    Traceback (most recent call last):
    ...
    ValueError: the selector named step(s) [3], which have no screenshot; expected some of [2, 5, 7]
    """
    fenced = _FENCE.match(answer)
    text = (fenced.group(1) if fenced else answer).strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise ValueError(f'the selector\'s answer is not a JSON object {{"steps": [...]}}: {answer[:200]!r}') from None
    steps = value.get("steps") if isinstance(value, dict) else None
    if not isinstance(steps, list) or not steps or not all(type(step) is int for step in steps):
        raise ValueError(f'the selector\'s answer has no "steps" list of step numbers: {answer[:200]!r}')
    if len(set(steps)) != len(steps):
        raise ValueError(f"the selector named a step twice: {steps}")
    if len(steps) > k:
        raise ValueError(f"the selector named {len(steps)} steps; expected at most {k}")
    unknown = sorted(set(steps) - set(available))
    if unknown:
        raise ValueError(f"the selector named step(s) {unknown}, which have no screenshot; expected some of {sorted(available)}")
    return sorted(steps)
