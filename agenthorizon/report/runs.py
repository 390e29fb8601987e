"""A run directory joined with the references it is scored against.

The HTML report and the plots both start from the same question: given a run
directory (result files plus ``run.json``) and a release root, which items,
which labels, which predictions? :func:`load_runs` answers it once, the same
way for both, and refuses to mix runs of different configs.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from agenthorizon.judging.runs.records import RUN_RECORD_NAME, ResultSet, read_results
from agenthorizon.schema import CONFIG_NAMES, DEV_GROUPS

__all__ = ["JudgedRun", "RunSet", "load_runs", "read_run_record", "run_label"]


def read_run_record(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The run record of a run directory: ``run.json``, else its shard records.

    Shard records (``run-shard-I-of-N.json``) are merged key by key, first
    shard first; their ``config`` and ``judge`` must agree. A directory without any record
    gives ``{}`` (results alone are still scoreable).
    """
    directory = Path(path)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: run directory not found; expected a folder of <trajectory_id>.json results")
    main = directory / RUN_RECORD_NAME
    records = [main] if main.is_file() else sorted(directory.glob("run-shard-*-of-*.json"))
    merged: dict[str, Any] = {}
    for record_path in records:
        try:
            record = json.loads(record_path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"{record_path}: not valid JSON ({error}); expected a run record object") from None
        if not isinstance(record, dict):
            raise ValueError(f"{record_path}: expected a run record JSON object")
        for key in ("config", "judge"):
            # Shards of one run share these; a mismatch means two runs in one folder.
            if key in merged and key in record and record[key] != merged[key]:
                raise ValueError(
                    f"{record_path}: {key} {record[key]!r} differs from the other shards' {merged[key]!r}"
                )
        for key, value in record.items():
            merged.setdefault(key, value)
    return merged


def run_label(record: dict[str, Any], path: Path) -> str:
    """A short human name for a run: model, else judge name, else the folder name."""
    judge = record.get("judge") if isinstance(record.get("judge"), dict) else {}
    for candidate in (record.get("model"), judge.get("spec"), judge.get("name")):
        if isinstance(candidate, str) and candidate:
            return candidate
    return path.name


@dataclass
class JudgedRun:
    """One run: its directory, record, short label and predictions by trajectory id."""

    path: Path
    record: dict[str, Any]
    label: str
    results: ResultSet

    def predictions(self) -> dict[str, Any]:
        """Trajectory id -> prediction, as :meth:`ResultSet.predictions` gives it."""
        return self.results.predictions()


@dataclass
class RunSet:
    """Runs of one config, the dataset rows they are scored against and those rows' label manifest sha256."""

    config: str
    runs: list[JudgedRun]
    rows: list[dict[str, Any]]
    data_root: Path
    manifest_sha256: str
    warnings: list[str] = field(default_factory=list)


def _config_of(runs: Sequence[JudgedRun], config: str | None) -> str:
    found = {str(run.path): run.record.get("config") for run in runs if run.record.get("config")}
    values = set(found.values())
    if len(values) > 1:
        listing = ", ".join(f"{path}: {value}" for path, value in found.items())
        raise ValueError(f"runs were made on different configs ({listing}); compare runs of one config")
    recorded = values.pop() if values else None
    if config is not None and recorded is not None and config != recorded:
        raise ValueError(f"--config {config} contradicts the runs' recorded config {recorded!r} (run.json)")
    chosen = config or recorded
    if chosen is None:
        raise ValueError("the runs have no run.json naming their config; pass --config")
    if chosen not in CONFIG_NAMES:
        raise ValueError(f"unknown config {chosen!r}; expected one of {list(CONFIG_NAMES)}")
    return chosen


def load_runs(
    run_dirs: Sequence[str | os.PathLike[str]],
    data_root: str | os.PathLike[str],
    *,
    config: str | None = None,
    images: str | None = "paths",
) -> RunSet:
    """Read run directories and the dataset rows of their config.

    The config comes from the runs' ``run.json`` (``--config`` only fills in
    when no record names one, and must agree otherwise). AH-D parameters
    recorded under ``data`` (``dev_groups``, ``exclude_dev``) are honoured, so
    the items are the ones the run was made on. A run whose recorded label
    manifest differs from the one loaded here gets a warning, because its
    numbers would not be comparable to the published ones.
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
    # Two runs of the same model get distinguishable labels.
    labels = [run.label for run in runs]
    for run in runs:
        if labels.count(run.label) > 1:
            run.label = f"{run.label} ({run.path.name})"
    chosen = _config_of(runs, config)
    data = runs[0].record.get("data") if isinstance(runs[0].record.get("data"), dict) else {}
    dataset = load_dataset(
        data_root,
        chosen,
        split="test",
        images=images,
        dev_groups=int(data.get("dev_groups", DEV_GROUPS)),
        exclude_dev=bool(data.get("exclude_dev", False)),
    )
    rows = [dict(row) for row in dataset]
    warnings = []
    manifest = manifest_sha256([{name: row[name] for name in LABEL_FIELDS} for row in rows])
    known = {row["trajectory_id"] for row in rows}
    for run in runs:
        run_data = run.record.get("data") if isinstance(run.record.get("data"), dict) else {}
        recorded = run_data.get("manifest_sha256")
        if recorded and recorded != manifest:
            warnings.append(
                f"{run.label}: run.json records label manifest {recorded[:12]}…, "
                f"but {chosen} in {data_root} has {manifest[:12]}…"
            )
        extra = sorted(run.results.ids() - known)
        if extra:
            raise ValueError(
                f"{run.path}: {len(extra)} result(s) for items not in config {chosen} of {data_root} "
                f"(e.g. {extra[0]}); expected results of that config only"
            )
    return RunSet(
        config=chosen, runs=runs, rows=rows, data_root=Path(data_root), manifest_sha256=manifest, warnings=warnings
    )
