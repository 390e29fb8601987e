"""A release's problems grouped by kind: each kind once, with its count and the first few places.

:func:`group_problems` keeps ``agenthorizon verify`` readable when one fault
repeats on every step (``--all`` lists every problem). Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Protocol

__all__ = ["ProblemGroup", "group_problems", "problem_kind"]

_STEP = re.compile(r"^step \d+: ")
_NUMBERS = re.compile(r"\d+")
# Absolute or parent-relative paths differ per item; a kind names none of them.
_PATHS = re.compile(r"(?<![\w.])(?:/|\.\./)[^\s,;:'\"]+")


class _Problem(Protocol):
    where: str
    path: str
    message: str


def problem_kind(message: str) -> str:
    """What is wrong, without where: the step, details in parentheses, numbers and what follows ``;``.

    >>> problem_kind("step 12: image file not found (sandbox/x/step_13.png); expected a PNG")
    'image file not found'
    >>> problem_kind("3 screenshot(s) (first: step 0, a.png) are not in the folder of the row's steps_id x")
    "N screenshot(s) are not in the folder of the row's steps_id x"
    >>> problem_kind("step 2: is a link to /etc/hosts, outside the release")
    'is a link to PATH, outside the release'
    """
    text = _STEP.sub("", message)
    text = re.sub(r" \([^()]*\)", "", text).split(";")[0].strip()
    return _NUMBERS.sub("N", _PATHS.sub("PATH", text))


@dataclass(frozen=True)
class ProblemGroup:
    """One kind of problem: its description, how many there are, and the first few (``where: path: message``)."""

    kind: str
    count: int
    first: tuple[str, ...]

    def lines(self) -> list[str]:
        """The kind with its count, then the first places, indented."""
        more = f" (first {len(self.first)} shown)" if self.count > len(self.first) else ""
        return [f"{self.count} x {self.kind}{more}:", *(f"  {place}" for place in self.first)]


def group_problems(problems: Iterable[_Problem], shown: int = 3) -> list[ProblemGroup]:
    """Problems grouped by :func:`problem_kind`, in order of first appearance, ``shown`` places each.

    >>> from types import SimpleNamespace as P
    >>> groups = group_problems([P(where="f:1", path="a", message="step 0: image file not found"),
    ...                          P(where="f:2", path="b", message="step 3: image file not found")], shown=1)
    >>> groups[0].lines()
    ['2 x image file not found (first 1 shown):', '  f:1: a: step 0: image file not found']
    """
    groups: dict[str, list] = {}
    counts: dict[str, int] = {}
    for problem in problems:
        kind = problem_kind(problem.message)
        places = groups.setdefault(kind, [])
        counts[kind] = counts.get(kind, 0) + 1
        if len(places) < shown:
            places.append(f"{problem.where}: {problem.path}: {problem.message}")
    return [ProblemGroup(kind, counts[kind], tuple(places)) for kind, places in groups.items()]
