"""Information ablations: the parts of a judge input a run withholds (paper Table 9).

An ablation is a tuple of :data:`agenthorizon.schema.ABLATION_PARTS` in that
order, without repeats (``()``: the complete input); what each part removes is
decided only by :func:`agenthorizon.judging.inputs.build_judge_input`. It is
part of the judge key, so ablated and complete runs never share a row or a folder.
"""

from __future__ import annotations

from collections.abc import Iterable

from agenthorizon.schema import ABLATION_PARTS

__all__ = ["ABLATION_PARTS", "describe_ablation", "parse_ablation"]


def parse_ablation(value: str | Iterable[str] | None, where: str = "ablate") -> tuple[str, ...]:
    """The ablation ``value`` names (``"instruction,actions"``, ``["screenshots"]``; ``None`` / ``""``: none), in canonical order, repeats once.

    ValueError names ``where``, the unknown part and the accepted ones.

    >>> parse_ablation("screenshots, instruction")
    ('instruction', 'screenshots')
    >>> parse_ablation(None), parse_ablation(["actions", "actions"])
    ((), ('actions',))
    >>> parse_ablation("labels")
    Traceback (most recent call last):
    ...
    ValueError: ablate: unknown part 'labels'; expected a comma-separated list of instruction, actions, screenshots
    """
    names = checked_names(value, ABLATION_PARTS, where, "part")
    return tuple(part for part in ABLATION_PARTS if part in names)


def checked_names(value: str | Iterable[str] | None, known: tuple[str, ...], where: str, what: str) -> list[str]:
    """The names ``value`` gives (comma-separated or an iterable), each one of ``known`` (``--ablate``, ``--perturb``).

    The ``ValueError`` names ``where``, the unknown ``what`` and the accepted names.

    >>> checked_names("a, b", ("a", "b"), "x", "part"), checked_names(None, ("a",), "x", "part")
    (['a', 'b'], [])
    """
    if value is None:
        return []
    if isinstance(value, str):
        names = [name.strip() for name in value.split(",") if name.strip()]
    elif isinstance(value, Iterable):
        names = list(value)
    else:
        raise ValueError(f"{where}: expected {what} names (a comma-separated string or a list), got {type(value).__name__}")
    for name in names:
        if name not in known:
            raise ValueError(f"{where}: unknown {what} {name!r}; expected a comma-separated list of {', '.join(known)}")
    return names


def describe_ablation(ablation: Iterable[str]) -> str:
    """The ablation in words, for labels and report headers; ``""`` when nothing is withheld.

    >>> describe_ablation(("instruction", "actions"))
    'without instruction and actions'
    >>> describe_ablation(("instruction", "actions", "screenshots"))
    'without instruction, actions and screenshots'
    >>> describe_ablation(())
    ''
    """
    parts = list(ablation)
    if not parts:
        return ""
    if len(parts) == 1:
        return f"without {parts[0]}"
    return f"without {', '.join(parts[:-1])} and {parts[-1]}"
