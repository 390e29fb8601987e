"""A run directory joined with the references it is scored against.

The HTML report and the plots both start from the same question: given a run
directory (result files plus ``run.json``) and a release root, which items,
which labels, which predictions? :func:`load_runs` answers it once, the same
way for both, and refuses to mix runs of different configs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from agenthorizon.judging.runs.records import ResultSet, RunRecord, distinct_labels, read_results, read_run_record
from agenthorizon.release.splits import Selection, resolve_selection

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
    """Runs of one selection, the dataset rows they are scored against and those rows' label manifest sha256."""

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
) -> RunSet:
    """Read run directories and the dataset rows of their selection.

    The selection (config, ``exclude_dev``, dev groups) comes from the runs'
    ``run.json`` (``config`` only fills in when no record names one, and
    must agree otherwise; so must ``selection_options``: ``exclude_dev``,
    ``dev_groups``, ``dev_manifest``), so the items are the ones the runs
    were made on.
    A run whose recorded label manifest differs from the one loaded here gets
    a warning, because its numbers would not be comparable to the published
    ones.
    """
    from agenthorizon.data.load import load_dataset
    from agenthorizon.release.labels import manifest_sha256
    from agenthorizon.schema import LABEL_FIELDS

    if not run_dirs:
        raise ValueError("no run directory given; expected one or more")
    runs = []
    for raw in run_dirs:
        path = Path(raw)
        record = read_run_record(path)
        runs.append(JudgedRun(path=path, record=record, label=run_label(record, path), results=read_results([path])))
    # Runs of one model (two harnesses, two temperatures) get distinguishable
    # labels; two runs of the very same judge are told apart by their folders.
    recorded = [run for run in runs if run.record is not None]
    for run, label in zip(recorded, distinct_labels([run.record for run in recorded])):
        run.label = label
    labels = [run.label for run in runs]
    for run in runs:
        if labels.count(run.label) > 1:
            run.label = f"{run.label} ({run.path.name})"
    recorded = {str(run.path): None if run.record is None else run.record.selection for run in runs}
    selection = resolve_selection(recorded, {**(selection_options or {}), "config": config}, default_config=None)
    dataset = load_dataset(data_root, selection.config, split="test", images=images, **selection.load_options())
    rows = [dict(row) for row in dataset]
    warnings = []
    manifest = manifest_sha256([{name: row[name] for name in LABEL_FIELDS} for row in rows])
    known = {row["trajectory_id"] for row in rows}
    for run in runs:
        recorded = None if run.record is None or run.record.selection is None else run.record.selection.label_manifest_sha256
        if recorded and recorded != manifest:
            warnings.append(
                f"{run.label}: run.json records label manifest {recorded[:12]}…, "
                f"but {selection.config} in {data_root} has {manifest[:12]}…"
            )
        extra = sorted(run.results.ids() - known)
        if extra:
            raise ValueError(
                f"{run.path}: {len(extra)} result(s) for items not in config {selection.config} of {data_root} "
                f"(e.g. {extra[0]}); expected results of that config only"
            )
    return RunSet(
        config=selection.config, runs=runs, rows=rows, data_root=Path(data_root), manifest_sha256=manifest,
        warnings=warnings, selection=selection,
    )
