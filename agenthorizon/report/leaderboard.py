"""The leaderboard: judge runs ranked in one table shaped like the paper's Table 2.

:func:`leaderboard` is what ``agenthorizon leaderboard`` prints, as a
library function: :func:`agenthorizon.score_runs` (one row per judge key,
shards merged, one selection, the release check, partial judges marked),
then the ranks. Each row gets balanced, positive and negative accuracy on
AH and AH-S (``None`` where the judge was not run) and, over all its scored
items, mistake-type recall, the paired scores and the cost and runtime
aggregates; rows are ranked by AH balanced accuracy. A partial row (an
interrupted run, ``--limit``, an Inspect log made with ``-T limit``, a
missing shard) is marked (:attr:`LeaderboardRow.partial`) in every format
and left out of the ranks and the rank correlation, listed after the ranked
rows, unless ``include_partial``.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Sequence

from agenthorizon.report.scored_runs import LEADERBOARD_CONFIGS, ScoredRuns, score_runs
from agenthorizon.report.tables import LeaderboardRow
from agenthorizon.schema import CONFIG_AH

__all__ = ["Leaderboard", "leaderboard", "leaderboard_from_scores"]

RECALL_NOTE = "Mistake-type recall is over all of a judge's scored items (AH and AH-S where run)."


class Leaderboard(list[LeaderboardRow]):
    """The rows of a leaderboard (:class:`~agenthorizon.report.tables.LeaderboardRow`), best first, and their provenance.

    A ``list`` of rows, with attributes more: ``manifests``, the label
    manifest of each config of :data:`~agenthorizon.report.scored_runs.LEADERBOARD_CONFIGS`
    (``{"config", "n_items", "sha256"}``), ``notes``, provenance lines
    (result files missing, unreadable, untrusted or unexpected per judge; runs
    whose recorded label manifest differs from the release's), and what the
    rows were scored from: ``references`` (config -> label rows) and
    ``predictions`` (judge key -> trajectory id -> prediction), which
    :func:`agenthorizon.report.ranking.rank_correlation` re-reads, and
    ``selection``, the runs' shared dev-set options.
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
    """Judge runs in one table shaped like the paper's Table 2, best first.

    Parameters
    ----------
    run_dirs : sequence of path
        Run folders (each holds ``run.json`` or ``run-shard-*.json``) of runs
        on AH, AH-S or all, grouped by the rules of :func:`agenthorizon.score_runs`.
    data_root : path
        The release root the runs are scored against (holds the label files).
    bootstrap : int, default=0
        Pair-clustered bootstrap resamples for the intervals of each config's
        rates (0: none).
    seed : int, default=0
        Bootstrap seed.
    include_partial : bool, default=False
        Rank partial rows (still marked) with the others; by default they
        get no rank (``rank`` ``None``) and are listed after the ranked rows.

    Returns
    -------
    Leaderboard
        One :class:`~agenthorizon.report.tables.LeaderboardRow` per judge
        key: ``reports`` maps AH and AH-S to a
        :class:`~agenthorizon.ScoreReport` (``None`` where not run),
        ``recall`` is the report over all its scored items, ``runs`` its
        folders, ``partial`` its mark when its runs lack results for some of
        its items, ``rank`` its place (1 the best). Ranked by AH balanced
        accuracy (higher first; rows without AH last), then label; partial
        rows unranked after them unless ``include_partial``. ``manifests`` and ``notes`` state what it was
        scored against. Every rate is in [0, 1], strict: an item without a
        valid verdict counts as wrong and stays in its denominator.

    Raises
    ------
    FileNotFoundError
        A folder without a run record, or a missing release.
    ValueError
        Runs that break the rules above (the message names the folders).

    See Also
    --------
    agenthorizon.score : the scoring of each cell.
    agenthorizon.report.render_leaderboard : the table as text, CSV, LaTeX or JSON.

    Examples
    --------
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
