"""``sweep collect``: the grid's leaderboard, once its shards are proven to merge cleanly.

The ranking is :func:`agenthorizon.report.leaderboard.leaderboard`'s.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from agenthorizon.judging.runs.folder import RUN_RECORD_NAME, record_name, record_paths
from agenthorizon.judging.runs.records import FINISHED, RunRecord
from agenthorizon.judging.runs.shards import shard_ids
from agenthorizon.report.leaderboard import Leaderboard, leaderboard
from agenthorizon.sweeps.grid import Cell, Grid
from agenthorizon.sweeps.manifest import SWEEP_FOLDER, ShardManifest, id_set_sha256, manifest_name, read_manifests
from agenthorizon.sweeps.release_items import ConfigItems

__all__ = ["Collected", "SweepCollectError", "check_shards", "collect", "partial_notes", "write_grid_reports"]


class SweepCollectError(ValueError):
    """Shards that cannot be merged; the message names the cells and what is wrong with each."""


@dataclass
class Collected:
    """The grid's leaderboard, its run folders, and the cells that are partial (some items without an answer)."""

    board: Leaderboard
    folders: list[Path]
    partial: list[Cell]


def _folders(grid: Grid) -> dict[Path, list[Cell]]:
    found: dict[Path, list[Cell]] = {}
    for cell in grid.cells:
        found.setdefault(cell.folder, []).append(cell)
    return found


def _record(path: Path) -> RunRecord:
    return RunRecord.from_dict(json.loads(path.read_text(encoding="utf-8")), str(path))


def check_shards(grid: Grid, items: Mapping[str, ConfigItems]) -> list[Cell]:
    """Check every run folder of ``grid`` merges cleanly; returns the partial cells.

    Per folder: every planned shard has its manifest and record; nothing of
    another shard count, no unsharded ``run.json``; one judge key, label
    manifest and package version; each shard's ids as planned (disjoint,
    covering the config). Raises :class:`SweepCollectError`, one line per cell
    or folder at fault.
    """
    problems: list[str] = []
    partial: list[Cell] = []
    for folder, cells in _folders(grid).items():
        if not folder.is_dir():
            problems += [f"cell {cell.index} ({cell.name}): missing shard (no run folder {folder})" for cell in cells]
            continue
        records = {path.name: path for path in record_paths(folder)}
        if RUN_RECORD_NAME in records:
            problems.append(f"{folder}: holds an unsharded run ({RUN_RECORD_NAME}), which overlaps every shard")
        shard_records = {name: _record(path) for name, path in records.items() if name != RUN_RECORD_NAME}
        manifests = read_manifests(folder)
        problems += _foreign_shards(folder, grid.sweep.shards, manifests, shard_records)
        problems += _cell_problems(folder, cells, items, manifests, shard_records, partial)
    if problems:
        raise SweepCollectError("the sweep's shards cannot be merged: " + "; ".join(problems))
    return partial


def _foreign_shards(folder: Path, count: int, manifests: Mapping[str, ShardManifest],
                    records: Mapping[str, RunRecord]) -> list[str]:
    """Manifests and run records of another shard count in a sweep's folder: they overlap its shards."""
    problems = []
    for name, manifest in manifests.items():
        if manifest.shard_count != count:
            problems.append(f"{folder}/{SWEEP_FOLDER}/{name}: shard {manifest.shard_index}/{manifest.shard_count} "
                            f"overlaps the sweep's {count} shards (expected shards x-of-{count} only)")
    for name, record in records.items():
        if record.shard is not None and record.shard.count != count:
            problems.append(f"{folder}/{name}: shard {record.shard.index}/{record.shard.count} overlaps the sweep's "
                            f"{count} shards")
    return problems


def _cell_problems(folder: Path, cells: Sequence[Cell], items: Mapping[str, ConfigItems],
                   manifests: Mapping[str, ShardManifest], records: Mapping[str, RunRecord],
                   partial: list[Cell]) -> list[str]:
    """Each cell's shard: present, of the planned judge key and items; one release and package version in the folder.

    Cells whose shard lacks answers are added to ``partial``.
    """
    problems = []
    seen_release: dict[str, Cell] = {}
    seen_version: dict[str, Cell] = {}
    for cell in cells:
        manifest = manifests.get(manifest_name(cell.shard))
        record = records.get(record_name(cell.shard))
        if manifest is None or record is None:
            lacking = "no manifest" if manifest is None else "no run record"
            problems.append(f"cell {cell.index} ({cell.name}): missing shard ({lacking}); "
                            f"run it: sweep run --cell {cell.index}")
            continue
        if manifest.judge_key != cell.judge_key or record.judge_key != cell.judge_key:
            problems.append(f"cell {cell.index} ({cell.name}): judge key {manifest.judge_key} (manifest) / "
                            f"{record.judge_key} (run record), the sweep plans {cell.judge_key}")
        if manifest.ids_sha256 != id_set_sha256(shard_ids(items[cell.config].ids, cell.shard)):
            problems.append(f"cell {cell.index} ({cell.name}): its items are not the shard's planned items "
                            "(the release or the shard count changed since it ran)")
        seen_release.setdefault(manifest.label_manifest_sha256, cell)
        seen_version.setdefault(manifest.package_version, cell)
        counts = record.counts
        if record.status != FINISHED or counts is None or counts.error or counts.missing:
            partial.append(cell)
    for what, seen in (("release label manifests", seen_release), ("package versions", seen_version)):
        if len(seen) > 1:
            shown = ", ".join(f"cell {cell.index} ({cell.name}): {value[:16]}" for value, cell in seen.items())
            problems.append(f"{folder}: shards made with different {what}: {shown}")
    return problems


def collect(grid: Grid, items: Mapping[str, ConfigItems], *, bootstrap: int = 0, seed: int = 0) -> Collected:
    """Check the shards (:func:`check_shards`) and rank the grid's runs with :func:`~agenthorizon.report.leaderboard.leaderboard` (strict: a partial cell's missing items are wrong)."""
    partial = check_shards(grid, items)
    folders = list(_folders(grid))
    board = leaderboard(folders, grid.sweep.data, bootstrap=bootstrap, seed=seed)
    return Collected(board, folders, partial)


def write_grid_reports(grid: Grid, folder: str | os.PathLike[str], *, bootstrap: int = 0, seed: int = 0) -> list[Path]:
    """One HTML report per config of ``grid`` (``<folder>/<config>.html``, every judge's run folders on it).

    Call after :func:`collect`, which checks the shards.
    """
    from agenthorizon.report.html import ReportOptions, write_report

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for config in grid.sweep.configs:
        folders = list(dict.fromkeys(cell.folder for cell in grid.cells if cell.config == config))
        written.append(write_report(folders, grid.sweep.data, out / f"{config}.html", config=config,
                                    options=ReportOptions(bootstrap=bootstrap, seed=seed)))
    return written


def partial_notes(partial: Sequence[Cell]) -> list[str]:
    """One note naming the partial cells (their missing items count as wrong), or none."""
    if not partial:
        return []
    names = ", ".join(f"cell {cell.index} ({cell.name})" for cell in partial)
    return [f"partial cells (items without an answer count as wrong; re-run them to complete): {names}"]
