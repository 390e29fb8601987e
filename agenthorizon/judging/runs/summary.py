"""What a run did: its results as the run goes (:class:`RunResults`), the record's counts, merging and totals, and :class:`RunSummary`.

The record's counts, merging, totals and the score all come from
:class:`RunResults`, so no result file is read twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from agenthorizon.judging.ablation import describe_ablation
from agenthorizon.judging.perturbation import describe_perturbation
from agenthorizon.judging.runs.records import (
    STOPPED,
    Merging,
    Reasking,
    ResultRecord,
    RunCounts,
    RunRecord,
    RunTotals,
)
from agenthorizon.schema import STATUS_ERROR, STATUS_OK

if TYPE_CHECKING:
    from agenthorizon.scoring.metrics import ScoreReport

__all__ = ["RunResults", "RunSummary", "count_statuses", "merging"]


def count_statuses(results: Iterable[ResultRecord | None]) -> RunCounts:
    """Counts by parse status of these results (``None``: missing, unreadable or untrusted); ``skipped`` is 0.

    >>> ok, no_json = ResultRecord("a", "ok"), ResultRecord("b", "no_json")
    >>> count_statuses([ok, no_json, None])
    RunCounts(ok=1, unparseable=1, error=0, missing=1, skipped=0)
    """
    ok = unparseable = error = missing = 0
    for result in results:
        if result is None:
            missing += 1
        elif result.parse_status == STATUS_OK:
            ok += 1
        elif result.parse_status == STATUS_ERROR:
            error += 1
        else:
            unparseable += 1
    return RunCounts(ok=ok, unparseable=unparseable, error=error, missing=missing)


def merging(results: Iterable[ResultRecord | None]) -> Merging:
    """``run.json``'s ``merging``: items whose screenshots went as 2x2 mosaics, by reason.

    >>> from agenthorizon.judging.runs.records import Telemetry
    >>> merged = lambda reason: ResultRecord("t", "ok", telemetry=Telemetry(merged=True, merge_reason=reason))
    >>> merging([merged("count"), ResultRecord("t", "ok", telemetry=Telemetry(merged=False)), merged("server_limit"), merged(None), None])
    Merging(merged_items=3, by_reason={'count': 1, 'server_limit': 1})
    """
    merged = 0
    by_reason: dict[str, int] = {}
    for result in results:
        if result is None or result.telemetry.merged is not True:
            continue
        merged += 1
        reason = result.telemetry.merge_reason
        if reason is not None:
            by_reason[reason] = by_reason.get(reason, 0) + 1
    return Merging(merged_items=merged, by_reason=dict(sorted(by_reason.items())))


class RunResults:
    """Every selected item's trusted result as the run knows it (``None``: none yet).

    Built from the results read when the run starts; :meth:`written` takes
    each new result once durable.
    """

    def __init__(self, selected_ids: Sequence[str], loaded: Mapping[str, ResultRecord | None]) -> None:
        self.selected_ids = list(selected_ids)
        self.results: dict[str, ResultRecord | None] = {tid: loaded.get(tid) for tid in self.selected_ids}
        self.judged = 0
        self.errors: dict[str, str] = {}
        # Why the items judged again on resume had failed before (their old results' errors).
        self.earlier_errors: dict[str, str] = {
            tid: str(result.error) for tid, result in self.results.items()
            if result is not None and result.parse_status == STATUS_ERROR
        }

    def written(self, result: ResultRecord) -> None:
        """Take a result the writer made durable."""
        self.judged += 1
        self.results[result.trajectory_id] = result
        if result.parse_status == STATUS_ERROR:
            self.errors[result.trajectory_id] = str(result.error)

    def __iter__(self):
        """The selected items' results, in selection order (``None`` for a missing one)."""
        return iter(self.results.values())

    def counts(self, skipped: int) -> RunCounts:
        """The record's counts, ``skipped`` being the items kept from before this invocation."""
        counts = count_statuses(self)
        return RunCounts(counts.ok, counts.unparseable, counts.error, counts.missing, skipped)

    def merging(self) -> Merging:
        return merging(self)

    def reasking(self) -> Reasking:
        """The record's re-ask counts over the results held."""
        return Reasking.of((result.telemetry.answers, result.parse_status) for result in self if result is not None)

    def totals(self, wall_time_s: float | None) -> RunTotals:
        """The record's totals over the results held (missing items contribute nothing)."""
        return RunTotals.of((result.telemetry for result in self if result is not None), wall_time_s)

    def predictions(self) -> dict[str, dict]:
        """Every result held as scoring takes it (:meth:`ResultRecord.prediction`); missing items are absent."""
        return {tid: result.prediction() for tid, result in self.results.items() if result is not None}


@dataclass
class RunSummary:
    """What :func:`~agenthorizon.judging.runs.runner.run_judge` did; its ``str`` is the line ``agenthorizon judge`` prints.

    ``counts`` covers every selected item, ``skipped`` those already finished
    before this invocation. ``score`` is the strict
    :class:`~agenthorizon.scoring.metrics.ScoreReport` of the selected items
    (``None`` for a blind dataset without ``data_root``).
    """

    out_dir: Path
    record_path: Path
    record: RunRecord
    counts: RunCounts
    n_selected: int
    judged: int
    score: ScoreReport | None = None
    wall_time_s: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)
    earlier_errors: dict[str, str] = field(default_factory=dict)
    """Items that had failed before this invocation and were judged again, with why they had failed."""

    @property
    def stopped(self) -> str | None:
        """Why the runner stopped the run early (status ``stopped``), from the record; ``None`` when it did not."""
        if self.record.status != STOPPED or self.record.interruption is None:
            return None
        return self.record.interruption.reason

    def _ablation(self) -> str:
        said = [describe_ablation(self.record.ablation), describe_perturbation(self.record.judge.get("perturbation") or ())]
        return f" ({'; '.join(part for part in said if part)})" if any(said) else ""

    def __str__(self) -> str:
        c = self.counts
        text = (
            f"{self.record.spec}{self._ablation()} on {self.record.config}: "
            f"{self.n_selected} items, {c.ok} ok, {c.unparseable} unparseable, {c.error} error "
            f"({c.skipped} already done, {self.judged} judged now) in {self.wall_time_s:.1f} s -> {self.out_dir}"
        )
        reasking = self.record.reasking
        if reasking is not None and reasking.items:
            text += (f"\nre-asked {reasking.items} item(s) after an answer without a valid verdict: "
                     f"{reasking.reasks} more answer(s), {reasking.recovered} item(s) ended with a valid one")
        if self.earlier_errors:
            (first, why), = list(self.earlier_errors.items())[:1]
            text += (f"\njudged again: {len(self.earlier_errors)} item(s) that had failed before "
                     f"(e.g. {first}: {why[:200]})")
        if self.stopped is not None:
            text += f"\nstopped early: {self.stopped}"
        if self.score is not None and self.score.balanced_accuracy is not None:
            text += f"\nbalanced accuracy {100 * self.score.balanced_accuracy:.1f}%"
        return text
