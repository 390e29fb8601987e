"""How reports look, defined once: run colours and short mistake-type names.

Tables, the HTML report, the figures and ``agenthorizon info`` all name the
three mistake types in a narrow column and colour runs, and a run or type
must look the same in all of them.
"""

from __future__ import annotations

from typing import Final

from agenthorizon.schema import BAD_SIDE_EFFECT, CRITICAL_MISTAKE, MISUNDERSTANDING

__all__ = ["PALETTE", "SHORT_MISTAKE_TYPES", "amount_text", "mistake_type_key", "run_color"]

PALETTE: Final = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
"""Okabe-Ito colours (colour-blind safe), one per run, in run order."""

SHORT_MISTAKE_TYPES: Final = {
    CRITICAL_MISTAKE: "Critical",
    BAD_SIDE_EFFECT: "Side effect",
    MISUNDERSTANDING: "Misunderstanding",
}
"""Column and axis label of each canonical mistake type (schema order)."""


def run_color(index: int) -> str:
    """The colour of the ``index``-th run (0-based), cycling through :data:`PALETTE`.

    >>> run_color(0), run_color(len(PALETTE))
    ('#0072B2', '#0072B2')
    """
    return PALETTE[index % len(PALETTE)]


def mistake_type_key(mistake_type: str) -> str:
    """A mistake type's short name as a lower-case identifier (machine-readable column names).

    >>> [mistake_type_key(name) for name in SHORT_MISTAKE_TYPES]
    ['critical', 'side_effect', 'misunderstanding']
    """
    return SHORT_MISTAKE_TYPES[mistake_type].lower().replace(" ", "_")


def amount_text(value: float | None) -> str:
    """A telemetry amount as every view shows it: ``unknown`` (never 0) when not known, whole above 1000.

    >>> amount_text(None), amount_text(213000.0), amount_text(0.0037512)
    ('unknown', '213000', '0.003751')
    """
    if value is None:
        return "unknown"
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.4g}"
