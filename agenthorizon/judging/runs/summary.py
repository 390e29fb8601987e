"""What a run did: the counts and mosaic merging of its record, and :class:`RunSummary`.

The counts (``ok``, ``invalid``, ``error``, ``missing``) and ``merging``
fields of ``run.json`` are derived here from the results the runner holds,
and :class:`RunSummary` is what :func:`~agenthorizon.judging.runs.runner.run_judge`
returns (its ``str`` is the line ``agenthorizon judge`` prints).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from agenthorizon.judging.runs.records import RunRecord
from agenthorizon.schema import STATUS_ERROR, STATUS_OK

__all__ = ["RunSummary", "count_statuses", "merging"]


def count_statuses(records: Mapping[str, Mapping[str, Any] | None], selected_ids: Sequence[str]) -> dict[str, int]:
    """Counts by parse status of the results of ``selected_ids`` (``None``: missing or unreadable).

    >>> count_statuses({"a": {"parse_status": "ok"}, "b": {"parse_status": "no_json"}, "c": None}, ["a", "b", "c"])
    {'ok': 1, 'invalid': 1, 'error': 0, 'missing': 1}
    """
    counts = {"ok": 0, "invalid": 0, "error": 0, "missing": 0}
    for trajectory_id in selected_ids:
        record = records.get(trajectory_id)
        status = None if record is None else record.get("parse_status")
        if status is None:
            counts["missing"] += 1
        elif status == STATUS_OK:
            counts["ok"] += 1
        elif status == STATUS_ERROR:
            counts["error"] += 1
        else:
            counts["invalid"] += 1
    return counts


def _merge_of(record: Mapping[str, Any] | None) -> str | bool:
    """Whether a result's screenshots were merged into mosaics: its ``merge_reason``, True, or False."""
    telemetry = (record or {}).get("telemetry")
    if not isinstance(telemetry, Mapping) or telemetry.get("merged") is not True:
        return False
    reason = telemetry.get("merge_reason")
    return reason if isinstance(reason, str) else True


def merging(records: Mapping[str, Mapping[str, Any] | None], selected_ids: Sequence[str]) -> dict[str, Any]:
    """``run.json``'s ``merging``: items whose screenshots went as 2x2 mosaics, by reason.

    >>> merged = lambda reason: {"telemetry": {"merged": True, "merge_reason": reason}}
    >>> records = {"a": merged("count"), "b": {"telemetry": {"merged": False}}, "c": merged("server_limit"), "d": merged(None)}
    >>> merging(records, ["a", "b", "c", "d", "e"])
    {'merged_items': 3, 'by_reason': {'count': 1, 'server_limit': 1}}
    """
    reasons = [_merge_of(records.get(tid)) for tid in selected_ids]
    by_reason: dict[str, int] = {}
    for reason in reasons:
        if isinstance(reason, str):
            by_reason[reason] = by_reason.get(reason, 0) + 1
    return {"merged_items": sum(reason is not False for reason in reasons), "by_reason": dict(sorted(by_reason.items()))}


@dataclass
class RunSummary:
    """What a run did: where, how many, and the score when labels were available.

    ``counts`` covers every selected item after the run (``ok``, ``invalid``,
    ``error``, ``missing``) plus ``skipped``: items already finished before this
    invocation. ``score`` is a :class:`~agenthorizon.scoring.metrics.ScoreReport` of
    the selected items (``None`` for a blind dataset without ``data_root``).
    """

    out_dir: Path
    record_path: Path
    record: RunRecord
    counts: dict[str, int]
    n_selected: int
    judged: int
    score: Any = None
    wall_time_s: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)
    stopped: str | None = None

    def __str__(self) -> str:
        c = self.counts
        text = (
            f"{self.record.spec} on {self.record.config}: "
            f"{self.n_selected} items, {c['ok']} ok, {c['invalid']} invalid, {c['error']} error "
            f"({c['skipped']} already done, {self.judged} judged now) in {self.wall_time_s:.1f} s -> {self.out_dir}"
        )
        if self.stopped is not None:
            text += f"\nstopped early: {self.stopped}"
        if self.score is not None and self.score.balanced_accuracy is not None:
            text += f"\nbalanced accuracy {100 * self.score.balanced_accuracy:.1f}%"
        return text
