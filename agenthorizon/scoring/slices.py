"""Slices: the same metrics per value of a row field (operating system, length, type, ...).

:data:`SLICES` maps a slice name to the row field it reads and the function
giving a row's value; :func:`agenthorizon.score` with ``slices=[...]`` reports
every metric per value. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from agenthorizon.schema import POSITIVE, STEP_BUCKETS, canonical_mistake_type, step_bucket

__all__ = ["SLICES", "check_slices", "slice_order", "slice_values"]

# Values for rows with none of their own, in parentheses so they never collide with a real value.
POSITIVE_SLICE_VALUE = "(positive)"
UNTYPED_SLICE_VALUE = "(untyped)"
UNKNOWN_SLICE_VALUE = "(unknown)"


def _by_label(value_of: Callable[[Any], str]) -> Callable[[Mapping], str]:
    def slice_value(row: Mapping) -> str:
        return POSITIVE_SLICE_VALUE if row["label"] == POSITIVE else value_of(row)

    return slice_value


def _or_unknown(field_name: str) -> Callable[[Mapping], str]:
    def slice_value(row: Mapping) -> str:
        value = row[field_name]
        return UNKNOWN_SLICE_VALUE if value is None or value == "" else str(value)

    return slice_value


def _count_applications(row: Mapping) -> str:
    applications = row["applications"]
    return UNKNOWN_SLICE_VALUE if applications is None else str(len(applications))


def _step_bucket(row: Mapping) -> str:
    num_steps = row["num_steps"]
    return UNKNOWN_SLICE_VALUE if num_steps is None else step_bucket(int(num_steps))


SLICES: dict[str, tuple[str, Callable[[Mapping], str]]] = {
    "os": ("os", _or_unknown("os")),
    "difficulty": ("difficulty", _or_unknown("difficulty")),
    "mistake_type": (
        "mistake_type",
        _by_label(lambda row: canonical_mistake_type(row["mistake_type"]) or UNTYPED_SLICE_VALUE),
    ),
    "direction": ("instruction_source", _by_label(_or_unknown("instruction_source"))),
    # The same grouping under the label files' own field name.
    "instruction_source": ("instruction_source", _by_label(_or_unknown("instruction_source"))),
    "step_bucket": ("num_steps", _step_bucket),
    "num_applications": ("applications", _count_applications),
}
"""Slice name -> (row field it reads, function giving a row's slice value).

``direction`` (also ``instruction_source``) is the negative's ``parent`` or
``child`` instruction; ``step_bucket`` uses :data:`schema.STEP_BUCKETS`;
positives fall in the ``(positive)`` value of ``mistake_type`` and
``direction``; a missing value is ``(unknown)``.
"""


def check_slices(names: Iterable[str]) -> list[str]:
    """``names`` as a list when every one is a slice of :data:`SLICES`; ``ValueError`` listing the unknown ones.

    >>> check_slices(["os", "direction"])
    ['os', 'direction']
    """
    names = list(names)
    unknown = [name for name in names if name not in SLICES]
    if unknown:
        raise ValueError(f"unknown slice(s) {', '.join(map(str, unknown))}; expected names from {', '.join(SLICES)}")
    return names


def slice_order(value: str) -> tuple:
    # Numbers sort numerically, step buckets in their order, placeholders last.
    if value.startswith("("):
        return (2, value)
    if value.isdigit():
        return (0, int(value), value)
    for rank, (_low, _high, name) in enumerate(STEP_BUCKETS):
        if value == name:
            return (0, rank, value)
    return (1, value)


def slice_values(rows: list[Any], name: str) -> list[str]:
    field_name, value_of = SLICES[name]
    values = []
    for position, row in enumerate(rows):
        if not isinstance(row, Mapping) or field_name not in row:
            raise ValueError(
                f"slice {name!r} needs the field {field_name!r}, which references[{position}] does not have; "
                "pass dataset rows (agenthorizon.load_dataset) to slice by it"
            )
        values.append(value_of(row))
    return values


