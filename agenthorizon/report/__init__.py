"""Reports of scores: tables (re-exported here), the HTML report and the figures.

``report.html`` and ``report.plots`` are imported by path, so tables never pull in their dependencies.
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
