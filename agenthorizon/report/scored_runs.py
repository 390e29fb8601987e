"""``score_runs``: score judge run folders against a release, one judge per judge key.

What ``leaderboard``, ``partition`` and ``sweep collect`` call. The label files
are read once, on ``all``; AH and AH-S are its rows by difficulty.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from agenthorizon.judging.runs.folder import ResultSet, read_results, read_run_record
from agenthorizon.judging.runs.records import RunRecord, distinct_labels
from agenthorizon.release.item_selection import Selection
from agenthorizon.report.coverage import check_coverage, coverage
from agenthorizon.report.notes import predictions_from_results, result_notes, telemetry_from_results
from agenthorizon.report.partial import PartialRun, partial_run
from agenthorizon.report.references import RunReferences, label_manifest, load_run_references, manifest_notes
from agenthorizon.schema import CONFIG_AH, CONFIG_AH_S, CONFIG_ALL
from agenthorizon.scoring.metrics import ScoreReport, score_outcomes
from agenthorizon.scoring.outcomes import ItemOutcomes, item_outcomes
from agenthorizon.scoring.telemetry import aligned_telemetry

__all__ = [
    "LEADERBOARD_CONFIGS", "JudgeRuns", "JudgeScores", "ScoredRuns", "group_runs", "score_runs", "shared_selection",
]

LEADERBOARD_CONFIGS = (CONFIG_AH, CONFIG_AH_S)
"""The configs a judge is scored on, as in the paper's Table 2."""

# A run on "all" covers both configs; other configs (AH-D) overlap them.
_COVERS = {CONFIG_AH: (CONFIG_AH,), CONFIG_AH_S: (CONFIG_AH_S,), CONFIG_ALL: LEADERBOARD_CONFIGS}
_DIFFICULTY = {CONFIG_AH: "hard", CONFIG_AH_S: "easy"}


@dataclass
class JudgeRuns:
    """The runs of one judge key: its label and, per leaderboard config it covers, the run folders and records."""

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

    def configs(self) -> tuple[str, ...]:
        """The leaderboard configs its runs cover, in :data:`LEADERBOARD_CONFIGS` order."""
        return tuple(config for config in LEADERBOARD_CONFIGS if config in self.folders)


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
    return a.shard is not None and b.shard is not None and a.shard.count == b.shard.count and a.shard.index != b.shard.index


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

    Raises ``ValueError``, one folder per choice, when the runs differ.
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


@dataclass
class JudgeScores:
    """One judge key's runs, scored.

    ``config``: ``AH``, ``AH-S``, or ``all`` when it covers both; ``outcomes``:
    per item of ``config``, in release order; ``reports``: per
    :data:`LEADERBOARD_CONFIGS` config its :class:`~agenthorizon.ScoreReport`
    (intervals when bootstrapped), ``None`` where not run; ``overall``: over all
    its items, with the cost and runtime aggregates, no intervals; ``partial``:
    set when some items have no result; ``unexpected``: ids of results for
    items outside its configs (not scored).
    """

    runs: JudgeRuns
    config: str
    results: ResultSet
    predictions: dict[str, Any]
    outcomes: ItemOutcomes
    reports: dict[str, ScoreReport | None]
    overall: ScoreReport
    partial: PartialRun | None
    unexpected: list[str]
    n_items: int

    @property
    def key(self) -> str:
        return self.runs.key

    @property
    def label(self) -> str:
        return self.runs.label

    def folders(self) -> list[Path]:
        """Its run folders, each once."""
        return [folder for folder, _ in self.runs.records()]

    def notes(self) -> list[str]:
        """:func:`~agenthorizon.report.notes.result_notes` of its results."""
        return result_notes(self.results, self.unexpected, self.n_items - len(self.predictions))


@dataclass
class ScoredRuns:
    """Every judge of some run folders, scored, and what they were scored against.

    ``references`` maps AH, AH-S and all to their
    :class:`~agenthorizon.report.references.RunReferences`; ``notes`` name the
    runs whose recorded label manifest differs from the release's.
    """

    judges: list[JudgeScores]
    references: dict[str, RunReferences]
    selection: dict[str, Any]
    notes: list[str]

    def manifests(self) -> list[dict[str, Any]]:
        """The label manifest of each config of :data:`LEADERBOARD_CONFIGS` (``{"config", "n_items", "sha256"}``)."""
        return [self.references[config].manifest for config in LEADERBOARD_CONFIGS]


def _config_references(whole: RunReferences, config: str, recorded: dict[str, Selection | None],
                       data_root: Any) -> RunReferences:
    """AH's or AH-S's references: the rows of ``whole`` (all) of that difficulty."""
    rows = [row for row in whole.rows if row["difficulty"] == _DIFFICULTY[config]]
    manifest = label_manifest(config, rows)
    selection = Selection(config, **{name: getattr(whole.selection, name) for name in
                                     ("dev_groups", "dev_manifest", "dev_manifest_sha256", "exclude_dev")})
    return RunReferences(selection, rows, manifest, manifest_notes(recorded, manifest, data_root), whole.release_ids)


def _references(entries: Sequence[JudgeRuns], options: dict[str, Any],
                data_root: Any) -> tuple[dict[str, RunReferences], list[str]]:
    recorded: dict[str, dict[str, Selection | None]] = {config: {} for config in _COVERS}
    for entry in entries:
        for folder, record in entry.records():
            recorded[record.config][str(folder)] = record.selection
    whole = load_run_references(data_root, Selection(CONFIG_ALL, **options), recorded[CONFIG_ALL])
    references = {config: _config_references(whole, config, recorded[config], data_root)
                  for config in LEADERBOARD_CONFIGS}
    references[CONFIG_ALL] = whole
    notes = [note for config in LEADERBOARD_CONFIGS for note in references[config].notes] + whole.notes
    return references, notes


def _score_judge(entry: JudgeRuns, references: dict[str, RunReferences], bootstrap: int, seed: int) -> JudgeScores:
    covered = entry.configs()
    config = covered[0] if len(covered) == 1 else CONFIG_ALL
    folders = [folder for folder, _ in entry.records()]
    result_set = read_results(folders)
    rows = references[config].rows
    wanted = {row["trajectory_id"] for row in rows}
    # Runs of another release would rank as zeros: refused, with the counts (as `score` does).
    check_coverage(coverage(result_set.ids(), wanted, references[config].release_ids, config="/".join(covered)),
                   ", ".join(map(str, folders)))
    predictions, unexpected = predictions_from_results(result_set, wanted)
    outcomes = item_outcomes(predictions, rows)  # each prediction validated once
    # Runner results carry telemetry: the cost and runtime aggregates over all its items.
    telemetry = aligned_telemetry(telemetry_from_results(result_set, wanted), predictions, rows)
    overall = score_outcomes(outcomes, telemetry=telemetry)
    reports: dict[str, ScoreReport | None] = {}
    for name in LEADERBOARD_CONFIGS:
        if name not in covered:
            reports[name] = None
            continue
        part = outcomes if name == config else outcomes.subset([row["difficulty"] == _DIFFICULTY[name] for row in rows])
        reports[name] = score_outcomes(part, bootstrap=bootstrap, seed=seed)
    partial = None
    if len(predictions) < len(wanted):
        partial = partial_run(len(predictions), len(wanted), {str(folder): record for folder, record in entry.records()})
    return JudgeScores(entry, config, result_set, predictions, outcomes, reports, overall, partial, unexpected,
                       len(wanted))


def score_runs(
    run_dirs: Sequence[str | os.PathLike[str]],
    data: str | os.PathLike[str],
    *,
    bootstrap: int = 0,
    seed: int = 0,
) -> ScoredRuns:
    """Score judge run folders against the release at ``data``, one judge per judge key.

    Parameters
    ----------
    run_dirs : sequence of path
        Run folders (each holds ``run.json`` or ``run-shard-*.json``) of runs
        on AH, AH-S or all; an Inspect ``.eval`` log is read as a run.
    data : path or str
        The release root the runs are scored against (or a Hub repo id).
    bootstrap : int, default=0
        Pair-clustered bootstrap resamples for the intervals of each
        config's report (0: none).
    seed : int, default=0
        Bootstrap seed.

    Returns
    -------
    ScoredRuns
        One :class:`JudgeScores` per judge key (not per judge class), in the
        order first given; a key's runs on AH and AH-S, or one run on ``all``,
        are one judge, and shards of one run are merged. Every rate is in
        [0, 1], strict: an item without a valid verdict counts as wrong and
        stays in its denominator; a judge with results for only some items
        carries a :class:`~agenthorizon.report.partial.PartialRun`.

    Raises
    ------
    FileNotFoundError
        A folder without a run record, or a missing release.
    ValueError
        Two runs of one key on one config (not shards of one run), a run on
        AH-D, runs on different dev-set selections, or results of another
        release or of no item of the config. The message names the folders.

    Examples
    --------
    >>> import tempfile, agenthorizon
    >>> work = tempfile.mkdtemp()
    >>> root = agenthorizon.generate_sample(work + "/release", preset="tiny").root
    >>> ah = agenthorizon.load_dataset(root, "AH", split="test", images=None)
    >>> _ = agenthorizon.run_judge("constant:true", ah, work + "/run", config="AH", data_root=root, progress=False)
    >>> scored = agenthorizon.score_runs([work + "/run"], root)
    >>> judge = scored.judges[0]
    >>> judge.label, judge.reports["AH"].balanced_accuracy, judge.reports["AH-S"], judge.partial
    ('constant:true', 0.5, None, None)
    """
    entries = group_runs(run_dirs)
    options = shared_selection(entries)
    references, notes = _references(entries, options, data)
    judges = [_score_judge(entry, references, bootstrap, seed) for entry in entries]
    return ScoredRuns(judges, references, options, notes)
