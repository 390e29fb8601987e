"""Presentation perturbations: the same item shown another way.

- ``shuffle-screenshots``: screenshots permuted within windows of
  :data:`SHUFFLE_WINDOW`, seeded by the trajectory id;
- ``instruction-last``: the goal after the steps;
- ``first-half`` / ``last-half``: the first ``ceil(n/2)`` or last
  ``floor(n/2)`` steps (ids unchanged); not both;
- ``paraphrase``: action lines reworded (:func:`paraphrase_action`).

Pure rules, applied by :func:`agenthorizon.judging.inputs.build_judge_input`.
A perturbation is part of the judge key.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agenthorizon.judging.ablation import checked_names

__all__ = [
    "PERTURBATIONS", "SHUFFLE_WINDOW", "describe_perturbation", "instruction_last_markdown", "kept_steps",
    "paraphrase_action", "paraphrase_markdown", "parse_perturbation", "perturbation_of", "shuffled_order",
]

SHUFFLE_SCREENSHOTS = "shuffle-screenshots"
INSTRUCTION_LAST = "instruction-last"
FIRST_HALF = "first-half"
LAST_HALF = "last-half"
PARAPHRASE = "paraphrase"
PERTURBATIONS = (SHUFFLE_SCREENSHOTS, INSTRUCTION_LAST, FIRST_HALF, LAST_HALF, PARAPHRASE)
"""The perturbation names, in their canonical order."""
SHUFFLE_WINDOW = 4
"""How many consecutive screenshots one shuffle window holds."""
INSTRUCTION_ELSEWHERE = "(The instruction is given after the recording, under its own heading.)"
"""What a prompt's ``{{INSTRUCTION}}`` reads under ``instruction-last``."""


def parse_perturbation(value: str | Iterable[str] | None, where: str = "perturb") -> tuple[str, ...]:
    """The perturbation ``value`` names (comma-separated or names), in canonical order; ValueError naming ``where`` otherwise.

    >>> parse_perturbation("paraphrase, first-half")
    ('first-half', 'paraphrase')
    >>> parse_perturbation(None), parse_perturbation([])
    ((), ())
    >>> parse_perturbation("reverse")
    Traceback (most recent call last):
    ...
    ValueError: perturb: unknown perturbation 'reverse'; expected a comma-separated list of shuffle-screenshots, instruction-last, first-half, last-half, paraphrase
    """
    names = checked_names(value, PERTURBATIONS, where, "perturbation")
    if FIRST_HALF in names and LAST_HALF in names:
        raise ValueError(f"{where}: {FIRST_HALF} and {LAST_HALF} together leave no step; choose one")
    return tuple(name for name in PERTURBATIONS if name in names)


def describe_perturbation(perturbation: Iterable[str]) -> str:
    """The perturbation in words, for labels; ``""`` for none.

    >>> describe_perturbation(("first-half", "paraphrase")), describe_perturbation(())
    ('perturbed: first-half, paraphrase', '')
    """
    names = list(perturbation)
    return f"perturbed: {', '.join(names)}" if names else ""


def perturbation_of(judge: Mapping[str, Any]) -> tuple[str, ...]:
    """The perturbation a run record's ``judge`` object records (``()``: none).

    >>> perturbation_of({"spec": "lexical", "perturbation": ["paraphrase"]}), perturbation_of({"spec": "lexical"})
    (('paraphrase',), ())
    """
    return parse_perturbation(judge.get("perturbation") or (), "run.json: field 'judge.perturbation'")


def kept_steps(n_steps: int, perturbation: Sequence[str]) -> range:
    """The step positions a perturbation keeps: all, the first ``ceil(n/2)`` or the last ``floor(n/2)``.

    >>> list(kept_steps(5, ("first-half",))), list(kept_steps(5, ("last-half",))), len(kept_steps(5, ()))
    ([0, 1, 2], [3, 4], 5)
    """
    half = (n_steps + 1) // 2
    if FIRST_HALF in perturbation:
        return range(0, half)
    if LAST_HALF in perturbation:
        return range(half, n_steps)
    return range(n_steps)


def shuffled_order(present: Sequence[int], trajectory_id: str, window: int = SHUFFLE_WINDOW) -> dict[int, int]:
    """Where each screenshot comes from under ``shuffle-screenshots``: ``{position: source position}``.

    ``present`` (positions with a screenshot, in order) is cut into windows
    of ``window``; each window of two or more is permuted (never left as it
    is), seeded by the trajectory id: the same item always gets the same order.

    >>> order = shuffled_order([0, 1, 2, 3, 4], "t1")
    >>> sorted(order) == sorted(order.values()) == [0, 1, 2, 3, 4], order[4]
    (True, 4)
    >>> all(order[p] in (0, 1, 2, 3) for p in (0, 1, 2, 3)), order == shuffled_order([0, 1, 2, 3, 4], "t1")
    (True, True)
    """
    seed = int.from_bytes(hashlib.sha256(trajectory_id.encode("utf-8")).digest()[:8], "big")
    import random  # here: reading a run record needs this module's names, not its shuffles

    rng = random.Random(seed)
    order = {}
    for start in range(0, len(present), window):
        block = list(present[start:start + window])
        shuffled = block[:]
        while len(block) > 1 and shuffled == block:
            rng.shuffle(shuffled)
        order.update(zip(block, shuffled))
    return order


# The fixed rewording of each action line printed by release.render.action_string, tried in order.
_REWORDINGS = (
    (re.compile(r"(left|right)-click (\(.*?\)) x(\d+)"), r"click the \1 mouse button \3 times at \2"),
    (re.compile(r"(left|right)-click (\(.*\))"), r"click the \1 mouse button at \2"),
    (re.compile(r'type (".*")', re.S), r"enter the text \1"),
    (re.compile(r"press (.*)", re.S), r"press the key(s) \1"),
    (re.compile(r"hotkey (.*)", re.S), r"press the key combination \1"),
    (re.compile(r"scroll (\S+) (\S+) at (\(.*\))"), r"at \3, scroll \1 by \2"),
    (re.compile(r"drag (\(.*?\)) -> (\(.*\))"), r"drag from \1 to \2"),
    (re.compile(r"keydown (.*)", re.S), r"hold down the key \1"),
    (re.compile(r"keyup (.*)", re.S), r"release the key \1"),
)


def paraphrase_action(text: str) -> str:
    """One action line reworded by the fixed rule of ``paraphrase``; a line no rule matches is left as it is.

    >>> paraphrase_action("left-click (5, 6)"), paraphrase_action("right-click (1, 2) x2")
    ('click the left mouse button at (5, 6)', 'click the right mouse button 2 times at (1, 2)')
    >>> paraphrase_action('type "2024-05-01"'), paraphrase_action("scroll down 300px at (5, 6)")
    ('enter the text "2024-05-01"', 'at (5, 6), scroll down by 300px')
    >>> paraphrase_action("hotkey ctrl+s"), paraphrase_action("wait")
    ('press the key combination ctrl+s', 'wait')
    """
    for pattern, replacement in _REWORDINGS:
        if pattern.fullmatch(text):
            return pattern.sub(replacement, text, count=1)
    return text


_ACTION_LINE = re.compile(r"^\*\*Action:\*\* `(.*)`$", re.M)


def paraphrase_markdown(markdown: str) -> str:
    """The Markdown with every ``**Action:**`` line reworded by :func:`paraphrase_action`.

    >>> paraphrase_markdown("### Step 0\\n\\n**Action:** `hotkey ctrl+s`\\n")
    '### Step 0\\n\\n**Action:** `press the key combination ctrl+s`\\n'
    """
    return _ACTION_LINE.sub(lambda match: f"**Action:** `{paraphrase_action(match.group(1))}`", markdown)


def instruction_last_markdown(markdown: str) -> str:
    """The release-layout Markdown with its ``## Goal`` section moved after the last step.

    >>> md = "# Trajectory Report\\n\\n## Goal\\n\\nSave it.\\n\\n## Steps\\n\\nTotal steps: **1**\\n\\n---\\n\\n### Step 0\\n"
    >>> print(instruction_last_markdown(md), end="")
    # Trajectory Report
    <BLANKLINE>
    ## Steps
    <BLANKLINE>
    Total steps: **1**
    <BLANKLINE>
    ---
    <BLANKLINE>
    ### Step 0
    <BLANKLINE>
    ---
    <BLANKLINE>
    ## Goal
    <BLANKLINE>
    Save it.
    """
    head, goal_mark, rest = markdown.partition("## Goal\n\n")
    goal, steps_mark, steps = rest.partition("## Steps\n\n")
    if not goal_mark or not steps_mark:
        raise ValueError("instruction-last: the Markdown has no '## Goal' section before '## Steps'")
    return f"{head}## Steps\n\n{steps.rstrip()}\n\n---\n\n## Goal\n\n{goal.strip()}\n"
