"""How reports look, defined once so a run or mistake type looks the same in every view: run colours,
short mistake-type names, amounts as text.
"""

from __future__ import annotations

from typing import Final

from agenthorizon.schema import BAD_SIDE_EFFECT, CRITICAL_MISTAKE, MISUNDERSTANDING

__all__ = ["PALETTE", "QUANTITY_LABELS", "SHORT_MISTAKE_TYPES", "amount_text", "mistake_type_key", "quantity_text", "run_color"]

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


QUANTITY_LABELS = {
    "cost_usd": "Cost (USD)", "input_tokens": "Input tokens", "output_tokens": "Output tokens",
    "wall_time_s": "Wall time", "turns": "Turns", "tool_calls": "Tool calls",
}
"""The human name of each telemetry quantity of the cost and runtime aggregates (``scoring.telemetry``)."""


def quantity_text(name: str, value: float | None) -> str:
    """A telemetry amount rounded for reading, with its unit: dollars to the cent (mills below a dollar),
    time in ms, s or min, counts whole (one decimal for a small mean); ``unknown`` when not known.

    >>> quantity_text("wall_time_s", 0.0009139), quantity_text("wall_time_s", 12.345), quantity_text("cost_usd", 0.0037512)
    ('0.91 ms', '12.3 s', '$0.0038')
    >>> quantity_text("input_tokens", 213000.4), quantity_text("turns", 2.25), quantity_text("cost_usd", 0.0)
    ('213,000', '2.2', '$0')
    """
    if value is None:
        return "unknown"
    if name == "cost_usd":
        if value == 0:
            return "$0"
        return f"${value:,.2f}" if abs(value) >= 1 else f"${value:.4f}" if abs(value) >= 0.0001 else "<$0.0001"
    if name == "wall_time_s":
        if abs(value) < 1:
            return f"{value * 1000:.2g} ms" if abs(value) < 0.01 else f"{value * 1000:.0f} ms"
        return f"{value / 60:.1f} min" if abs(value) >= 600 else f"{value:.1f} s"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2g}" if abs(value) < 10 else f"{value:.1f}"
