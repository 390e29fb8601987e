"""The leaderboard: :func:`leaderboard` ranks judge runs in one table shaped like the paper's Table 2."""

from __future__ import annotations

import os
from typing import Any, Iterable, Sequence

from agenthorizon.report.scored_runs import LEADERBOARD_CONFIGS, ScoredRuns, score_runs
from agenthorizon.report.tables import LeaderboardRow
from agenthorizon.schema import CONFIG_AH

__all__ = ["Leaderboard", "leaderboard", "leaderboard_from_scores"]

RECALL_NOTE = "Mistake-type recall is over all of a judge's scored items (AH and AH-S where run)."


class Leaderboard(list[LeaderboardRow]):
    """The rows (:class:`~agenthorizon.report.tables.LeaderboardRow`), best first, as a ``list`` with provenance attributes.

    ``manifests``: the label manifest of each of
    :data:`~agenthorizon.report.scored_runs.LEADERBOARD_CONFIGS`; ``notes``:
    provenance lines; ``references`` (config -> rows) and ``predictions`` (judge
    key -> id -> prediction) for :func:`agenthorizon.report.ranking.rank_correlation`;
    ``selection``: the runs' shared dev-set options.
    """

    def __init__(
        self, rows: Iterable[LeaderboardRow], manifests: list[dict[str, Any]], notes: list[str],
        references: dict[str, list[dict[str, Any]]] | None = None, predictions: dict[str, dict[str, Any]] | None = None,
        selection: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(rows)
        self.manifests = manifests
        self.notes = notes
        self.references = references or {}
        self.predictions = predictions or {}
        self.selection = selection or {}


def leaderboard(
    run_dirs: Sequence[str | os.PathLike[str]],
    data_root: str | os.PathLike[str],
    *,
    bootstrap: int = 0,
    seed: int = 0,
    include_partial: bool = False,
) -> Leaderboard:
    """Judge runs (folders on AH, AH-S or all) in one table shaped like the paper's Table 2, best first.

    One row per judge key (grouped by :func:`agenthorizon.score_runs`), ranked
    by AH balanced accuracy, then label; partial rows are marked and listed
    unranked after the others unless ``include_partial``. Rates are in [0, 1],
    strict (no valid verdict counts as wrong). ``bootstrap`` resamples (0:
    none) give intervals. Raises as :func:`agenthorizon.score_runs` does.

    >>> import tempfile, agenthorizon
    >>> work = tempfile.mkdtemp()
    >>> root = agenthorizon.generate_sample(work + "/release", preset="tiny").root
    >>> ah = agenthorizon.load_dataset(root, "AH", split="test", images=None)
    >>> for spec in ("lexical", "constant:true"):
    ...     _ = agenthorizon.run_judge(spec, ah, f"{work}/{spec}", config="AH", data_root=root, progress=False)
    >>> board = agenthorizon.leaderboard([f"{work}/lexical", f"{work}/constant:true"], root)
    >>> [(row.judge, row.reports["AH"].balanced_accuracy, row.reports["AH-S"]) for row in board]
    [('lexical', ..., None), ('constant:true', 0.5, None)]
    >>> [manifest["config"] for manifest in board.manifests]
    ['AH', 'AH-S']
    """
    return leaderboard_from_scores(
        score_runs(run_dirs, data_root, bootstrap=bootstrap, seed=seed), include_partial=include_partial
    )


def leaderboard_from_scores(scored: ScoredRuns, *, include_partial: bool = False) -> Leaderboard:
    """The :class:`Leaderboard` of judges already scored by :func:`agenthorizon.score_runs` (see :func:`leaderboard`)."""
    rows = []
    notes: list[str] = []
    for judge in scored.judges:
        partial = None
        if judge.partial is not None:
            partial = judge.partial.headline()
            rank_word = "ranked with the others (--include-partial)" if include_partial else (
                "left out of the ranks and the rank correlation (--include-partial ranks it)")
            notes.append(f"{judge.label}: {partial}, the others count as wrong; {rank_word}. "
                         + " ".join(f"Why: {reason}." for reason in judge.partial.reasons)
                         + f" To complete it: {judge.partial.resume}.")
        rows.append(LeaderboardRow(judge=judge.label, reports=judge.reports, recall=judge.overall, judge_key=judge.key,
                                   runs=[str(folder) for folder in judge.folders()], partial=partial))
        notes += [f"{judge.label}: {note}" for note in judge.notes()]
    notes += scored.notes
    notes.append(RECALL_NOTE)
    return Leaderboard(
        _ranked(rows, include_partial), scored.manifests(), notes,
        {config: scored.references[config].rows for config in LEADERBOARD_CONFIGS},
        {judge.key: judge.predictions for judge in scored.judges}, scored.selection,
    )


def _ranked(rows: list[LeaderboardRow], include_partial: bool) -> list[LeaderboardRow]:
    """The rows best first, each ranked 1, 2, ...; partial rows unranked after them unless ``include_partial``."""
    ranked = sorted((row for row in rows if include_partial or row.partial is None), key=_rank)
    for place, row in enumerate(ranked, 1):
        row.rank = place
    return ranked + sorted((row for row in rows if row.rank is None), key=_rank)


def _rank(row: LeaderboardRow) -> tuple[Any, ...]:
    report = row.reports.get(CONFIG_AH)
    value = report.balanced_accuracy if report is not None else None
    return (value is None, -(value or 0.0), row.judge)
