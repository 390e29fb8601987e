"""Reports of scores.

:mod:`agenthorizon.report.tables` renders a ScoreReport, a Comparison or a
leaderboard as terminal text, JSON, Markdown, CSV or LaTeX (re-exported here);
:mod:`agenthorizon.report.html` writes the self-contained HTML run report and
:mod:`agenthorizon.report.plots` the figures (matplotlib, an optional extra),
both imported by path so that tables never pull in their dependencies.
"""

from __future__ import annotations

from agenthorizon.report.tables import (
    FORMATS,
    LeaderboardRow,
    Table,
    render_comparison,
    render_leaderboard,
    render_report,
    render_table,
)

__all__ = [
    "FORMATS",
    "LeaderboardRow",
    "Table",
    "render_comparison",
    "render_leaderboard",
    "render_report",
    "render_table",
]
