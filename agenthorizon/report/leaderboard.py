"""The leaderboard: judge runs ranked in one table shaped like the paper's Table 2.

:func:`leaderboard` is what ``agenthorizon leaderboard`` prints, as a
library function. Its rules:

- **One row per judge key** (:attr:`RunRecord.judge_key`: the judge spec,
  model, prompt, sampling and image settings), never per judge class, so two
  models, or one model at two temperatures, are two rows
  (:func:`group_runs`).
- A key's runs on AH and on AH-S, or one run on ``all``, form one row;
  **shards of one run** in separate folders are merged; **two runs of one
  key on one config** are an error naming both folders.
- **One selection**: every run must share the dev-set choice
  (``exclude_dev``, dev groups, dev manifest); runs on AH-D are refused (it
  overlaps both columns) (:func:`shared_selection`).
- Each row gets balanced, positive and negative accuracy on AH and AH-S
  (``None`` where the judge was not run) and, over all its scored items,
  mistake-type recall, the paired scores and the cost and runtime
  aggregates; rows are ranked by AH balanced accuracy.
- **Partial rows**: a judge whose runs have results for only some of its
  items (an interrupted run, ``--limit``, an Inspect log made with
  ``-T limit``, a missing shard) is scored strictly as every row is, but
  marked (:attr:`LeaderboardRow.partial`) in every format and left out of
  the ranks and the rank correlation, listed after the ranked rows, unless
  ``include_partial``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from agenthorizon.judging.runs.folder import read_results, read_run_record
from agenthorizon.judging.runs.records import RunRecord, distinct_labels
from agenthorizon.release.item_selection import Selection
from agenthorizon.report.notes import predictions_from_results, result_notes, telemetry_from_results
from agenthorizon.report.coverage import check_coverage, coverage
from agenthorizon.report.partial import partial_run
from agenthorizon.report.references import label_manifest, load_run_references, manifest_notes
from agenthorizon.report.tables import LeaderboardRow
from agenthorizon.schema import CONFIG_AH, CONFIG_AH_S, CONFIG_ALL
from agenthorizon.scoring.metrics import score

__all__ = ["LEADERBOARD_CONFIGS", "JudgeRuns", "Leaderboard", "group_runs", "leaderboard", "shared_selection"]

LEADERBOARD_CONFIGS = (CONFIG_AH, CONFIG_AH_S)
"""The columns of the leaderboard, as in the paper's Table 2."""

# A run on "all" covers both columns; other configs (AH-D) overlap them.
_COVERS = {CONFIG_AH: (CONFIG_AH,), CONFIG_AH_S: (CONFIG_AH_S,), CONFIG_ALL: LEADERBOARD_CONFIGS}

RECALL_NOTE = "Mistake-type recall is over all of a judge's scored items (AH and AH-S where run)."


@dataclass
class JudgeRuns:
    """The runs of one judge key: its row label and, per leaderboard config it covers, the run folders and records."""

    key: str
    label: str
    folders: dict[str, list[tuple[Path, RunRecord]]] = field(default_factory=dict)

    def records(self) -> list[tuple[Path, RunRecord]]:
        """Every (folder, record) once: AH's first, then AH-S's, each in the order given."""
        unique = {}
        for config in LEADERBOARD_CONFIGS:
            for folder, record in self.folders.get(config, []):
                unique.setdefault(str(folder), (folder, record))
        return list(unique.values())


class Leaderboard(list[LeaderboardRow]):
    """The rows of a leaderboard (:class:`~agenthorizon.report.tables.LeaderboardRow`), best first, and their provenance.

    A ``list`` of rows, with attributes more: ``manifests``, the label
    manifest of each config of :data:`LEADERBOARD_CONFIGS`
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


def _read_run(run_dir: Path) -> RunRecord:
    record = read_run_record(run_dir)  # merges shards; they must agree on judge and selection
    if record is None:
        raise FileNotFoundError(f"{run_dir}: no run.json or run-shard-*.json; expected a run directory")
    if record.config not in _COVERS:
        raise ValueError(
            f"{run_dir}: run on config {record.config!r}; leaderboard and partition take runs on "
            f"{', '.join(_COVERS)} (AH-D overlaps both columns)"
        )
    return record


def _shards_of_one_run(a: RunRecord, b: RunRecord) -> bool:
    """Two records of different shards (same count) of one run, in separate folders."""
    return (
        a.shard is not None
        and b.shard is not None
        and a.shard.count == b.shard.count
        and a.shard.index != b.shard.index
    )


def group_runs(run_dirs: Iterable[str | os.PathLike[str]]) -> list[JudgeRuns]:
    """Runs grouped by judge key, in the order first given, each labelled so that no two share a label.

    Raises
    ------
    FileNotFoundError
        A folder has no run record.
    ValueError
        A run is on a config the leaderboard does not rank (AH-D), or two
        runs of one key (not shards of one run) cover the same config.
    """
    entries: dict[str, JudgeRuns] = {}
    for raw in run_dirs:
        run_dir = Path(raw)
        record = _read_run(run_dir)
        entry = entries.setdefault(record.judge_key, JudgeRuns(record.judge_key, record.label))
        for config in _COVERS[record.config]:
            for other, other_record in entry.folders.get(config, []):
                if not _shards_of_one_run(record, other_record):
                    raise ValueError(
                        f"two runs of judge {record.label} (key {record.judge_key}) on {config}: {other} and "
                        f"{run_dir}; expected one run per judge and config (merge shards into one folder, "
                        "or leave one run out)"
                    )
            entry.folders.setdefault(config, []).append((run_dir, record))
    # One model under two harnesses, or at two temperatures, must not share a label.
    first_records = [entry.records()[0][1] for entry in entries.values()]
    for entry, label in zip(entries.values(), distinct_labels(first_records)):
        entry.label = label
    return list(entries.values())


def shared_selection(entries: Sequence[JudgeRuns]) -> dict[str, Any]:
    """The dev-set options every run shares (``dev_groups``, ``dev_manifest`` and its sha256, ``exclude_dev``).

    Raises ``ValueError`` listing one folder per choice when the runs were
    made on different selections.
    """
    names = ("dev_groups", "dev_manifest", "dev_manifest_sha256", "exclude_dev")
    seen: dict[tuple[Any, ...], Path] = {}
    for entry in entries:
        for folder, record in entry.records():
            selection = record.selection
            seen.setdefault(tuple(getattr(selection, name) for name in names), folder)
    if len(seen) > 1:
        listing = "; ".join(
            f"{folder}: dev_groups={key[0]}, dev_manifest={key[1]}, exclude_dev={key[3]}" for key, folder in seen.items()
        )
        raise ValueError(f"the runs were made on different item selections ({listing}); rank runs of one selection")
    if not seen:
        return {}
    return dict(zip(names, next(iter(seen))))


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
        on AH, AH-S or all, grouped by the rules of this module.
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
    entries = group_runs(run_dirs)
    options = shared_selection(entries)
    recorded: dict[str, dict[str, Selection | None]] = {config: {} for config in _COVERS}
    for entry in entries:
        for folder, record in entry.records():
            recorded[record.config][str(folder)] = record.selection
    references = {
        config: load_run_references(data_root, Selection(config, **options), recorded[config])
        for config in LEADERBOARD_CONFIGS
    }
    # A run on all recorded the manifest of both label files' items.
    whole = label_manifest(CONFIG_ALL, [row for config in LEADERBOARD_CONFIGS for row in references[config].rows])

    rows = []
    notes: list[str] = []
    scored: dict[str, dict[str, Any]] = {}
    for entry in entries:
        covered = [config for config in LEADERBOARD_CONFIGS if config in entry.folders]
        folders = [folder for folder, _ in entry.records()]
        result_set = read_results(folders)
        union = [row for config in covered for row in references[config].rows]
        wanted = {row["trajectory_id"] for row in union}
        # Runs of another release would rank as zeros: refused, with the counts (as `score` does).
        release_ids = references[covered[0]].release_ids
        check_coverage(coverage(result_set.ids(), wanted, release_ids, config="/".join(covered)), ", ".join(map(str, folders)))
        predictions, unexpected = predictions_from_results(result_set, wanted)
        reports: dict[str, Any] = {}
        for config in LEADERBOARD_CONFIGS:
            if config not in covered:
                reports[config] = None
                continue
            ids = references[config].ids()
            subset = {key: value for key, value in predictions.items() if key in ids}
            reports[config] = score(subset, references[config].rows, bootstrap=bootstrap, seed=seed)
        scored[entry.key] = predictions
        # Runner results carry telemetry: the cost and runtime aggregates of the row (over all its items).
        recall = score(predictions, union, telemetry=telemetry_from_results(result_set, wanted))
        partial = None
        if len(predictions) < len(wanted):
            unfinished = partial_run(len(predictions), len(wanted), {str(folder): record for folder, record in entry.records()})
            partial = unfinished.headline()
            rank_word = "ranked with the others (--include-partial)" if include_partial else (
                "left out of the ranks and the rank correlation (--include-partial ranks it)")
            notes.append(f"{entry.label}: {partial}, the others count as wrong; {rank_word}. "
                         + " ".join(f"Why: {reason}." for reason in unfinished.reasons)
                         + f" To complete it: {unfinished.resume}.")
        rows.append(LeaderboardRow(judge=entry.label, reports=reports, recall=recall, judge_key=entry.key,
                                   runs=[str(folder) for folder in folders], partial=partial))
        for note in result_notes(result_set, unexpected, len(wanted) - len(predictions)):
            notes.append(f"{entry.label}: {note}")
    for config in LEADERBOARD_CONFIGS:
        notes += references[config].notes
    notes += manifest_notes(recorded[CONFIG_ALL], whole, data_root)
    notes.append(RECALL_NOTE)
    rows = _ranked(rows, include_partial)
    return Leaderboard(
        rows, [references[config].manifest for config in LEADERBOARD_CONFIGS], notes,
        {config: references[config].rows for config in LEADERBOARD_CONFIGS}, scored, options,
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
