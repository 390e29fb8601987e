"""Run directories joined with the references they are scored against: :func:`load_runs`, for the report and the plots."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from agenthorizon.judging.runs.folder import ResultSet, read_results, read_run_record
from agenthorizon.judging.runs.records import RunRecord, distinct_labels
from agenthorizon.release.item_selection import Selection
from agenthorizon.report.coverage import check_coverage, coverage
from agenthorizon.report.references import load_run_references, run_selection

__all__ = ["JudgedRun", "RunSet", "load_runs", "read_run_record", "run_label"]


def run_label(record: RunRecord | None, path: Path) -> str:
    """A short human name for a run: its record's label (model, else judge spec), else the folder name."""
    return path.name if record is None else record.label


@dataclass
class JudgedRun:
    """One run: its directory, record (``None`` when it has none), short label and results."""

    path: Path
    record: RunRecord | None
    label: str
    results: ResultSet

    def predictions(self) -> dict[str, Any]:
        """Trajectory id -> prediction, as :meth:`ResultSet.predictions` gives it."""
        return self.results.predictions()


@dataclass
class RunSet:
    """Runs of one selection, the dataset rows they are scored against and those rows' label manifest sha256.

    ``warnings``: a note per run whose recorded label manifest differs from the
    release's, or that holds results for items outside the config.
    """

    config: str
    runs: list[JudgedRun]
    rows: list[dict[str, Any]]
    data_root: Path
    manifest_sha256: str
    warnings: list[str] = field(default_factory=list)
    selection: Selection | None = None


def load_runs(
    run_dirs: Sequence[str | os.PathLike[str]],
    data_root: str | os.PathLike[str],
    *,
    config: str | None = None,
    images: str | None = "paths",
    selection_options: dict[str, Any] | None = None,
    fields: Sequence[str] | None = None,
) -> RunSet:
    """Read run directories and the dataset rows of their selection.

    The selection comes from the runs' ``run.json``: ``config`` and
    ``selection_options`` (``exclude_dev``, ``dev_groups``, ``dev_manifest``)
    fill in only what no record names, and must agree otherwise. ``fields``
    are the row fields the caller reads (``None``: every field; see
    :func:`agenthorizon.report.references.load_run_references`).

    Raises
    ------
    agenthorizon.release.item_selection.SelectionConflict
        ``config`` or ``selection_options`` contradict the runs' selection,
        or no config is named anywhere.
    ValueError
        A run holds results of another release or of no item of its config
        (:class:`~agenthorizon.report.coverage.WrongItemsError`, the message
        ``score`` gives), or the runs record different selections. Results
        for the release's other configs are named in ``warnings``, not scored.
    """
    if not run_dirs:
        raise ValueError("no run directory given; expected one or more")
    runs = []
    for raw in run_dirs:
        path = Path(raw)
        record = read_run_record(path)
        runs.append(JudgedRun(path=path, record=record, label=run_label(record, path), results=read_results([path])))
    # Runs of one model get distinct labels; two runs of the very same judge are told apart by their folders.
    with_record = [run for run in runs if run.record is not None]
    for run, label in zip(with_record, distinct_labels([run.record for run in with_record])):
        run.label = label
    labels = [run.label for run in runs]
    for run in runs:
        if labels.count(run.label) > 1:
            run.label = f"{run.label} ({run.path.name})"
    selections = {str(run.path): None if run.record is None else run.record.selection for run in runs}
    selection = run_selection(selections, {**(selection_options or {}), "config": config})
    references = load_run_references(data_root, selection, selections, fields=fields, images=images)
    # As `score` and `leaderboard`: wrong items refused; results for the release's other configs named, not scored.
    known, notes = references.ids(), list(references.notes)
    for run in runs:
        found = check_coverage(coverage(run.results.ids(), known, references.release_ids, config=selection.config),
                               str(run.path))
        if found.outside:
            notes.append(f"{run.path}: {len(found.outside)} result(s) for items of the release outside "
                         f"{selection.config} (e.g. {found.outside[0]}), not scored here")
    return RunSet(
        config=selection.config, runs=runs, rows=references.rows, data_root=Path(data_root),
        manifest_sha256=references.manifest["sha256"], warnings=notes, selection=selection,
    )
