"""Reports of scores: tables in several formats (and, later, plots and HTML).

:mod:`agenthorizon.report.tables` renders a ScoreReport, a Comparison or a
leaderboard as terminal text, JSON, Markdown, CSV or LaTeX.
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
