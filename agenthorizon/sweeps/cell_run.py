"""``sweep run --cell K``: one cell, as any scheduler calls it -- one judge run (:func:`run_cell`), with its own model server."""

from __future__ import annotations

import json
from typing import Callable, Mapping, Sequence

from agenthorizon import __version__
from agenthorizon.judging.runs.folder import RUN_RECORD_NAME, record_paths
from agenthorizon.judging.runs.records import RunRecord
from agenthorizon.judging.runs.shards import shard_ids
from agenthorizon.sweeps.grid import Cell
from agenthorizon.sweeps.manifest import SWEEP_FOLDER, ShardManifest, id_set_sha256, read_manifests, write_manifest
from agenthorizon.sweeps.release_items import ConfigItems
from agenthorizon.sweeps.server import free_port, model_server
from agenthorizon.sweeps.sweep_file import server_port

__all__ = ["INDEX_VARIABLES", "CellFolderError", "cell_from_environment", "check_cell_folder", "run_cell", "shard_manifest"]

INDEX_VARIABLES = ("SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX")
"""Where a task's index is read from when ``--cell`` is not given: Slurm arrays, Kubernetes Indexed Jobs."""


class CellFolderError(ValueError):
    """The cell's run folder holds another run (another judge key, shard count, or an unsharded run)."""


def cell_from_environment(environ: Mapping[str, str]) -> int:
    """The task index from :data:`INDEX_VARIABLES`, or a ``ValueError`` saying none is set.

    >>> cell_from_environment({"JOB_COMPLETION_INDEX": "3"})
    3
    """
    for name in INDEX_VARIABLES:
        value = environ.get(name)
        if value is not None:
            try:
                return int(value)
            except ValueError:
                raise ValueError(f"{name}={value!r}: expected a whole number (a task index)") from None
    raise ValueError(f"no --cell given and none of {', '.join(INDEX_VARIABLES)} is set; expected --cell K")


def shard_manifest(cell: Cell, items: ConfigItems) -> ShardManifest:
    """The manifest of ``cell``'s shard, from its config's items."""
    ids = shard_ids(items.ids, cell.shard)
    return ShardManifest(judge_key=cell.judge_key, shard_index=cell.shard[0], shard_count=cell.shard[1],
                         ids_sha256=id_set_sha256(ids), n_items=len(ids),
                         label_manifest_sha256=items.label_manifest_sha256, package_version=__version__,
                         config=cell.config, cell=cell.index)


def check_cell_folder(cell: Cell) -> None:
    """Refuse (:class:`CellFolderError`) a run folder holding anything but this cell's run's shards: a ``run.json``, another shard count or judge key."""
    folder = cell.folder
    if not folder.is_dir():
        return
    problems = []
    for path in record_paths(folder):
        if path.name == RUN_RECORD_NAME:
            problems.append(f"{path.name} (an unsharded run)")
            continue
        try:
            record = RunRecord.from_dict(json.loads(path.read_text(encoding="utf-8")), str(path))
        except (OSError, ValueError) as error:
            problems.append(f"{path.name} (unreadable: {error})")
            continue
        if record.shard is None or record.shard.count != cell.shard[1]:
            problems.append(f"{path.name} (shards of another count)")
        elif record.judge_key != cell.judge_key:
            problems.append(f"{path.name} (judge key {record.judge_key})")
    for name, manifest in read_manifests(folder).items():
        if manifest.shard_count != cell.shard[1] or manifest.judge_key != cell.judge_key:
            problems.append(f"{name} (judge key {manifest.judge_key}, {manifest.shard_count} shards)")
    if problems:
        raise CellFolderError(
            f"cell {cell.index} ({cell.name}): {folder} holds another run: {'; '.join(problems)}; expected only "
            f"shards x-of-{cell.shard[1]} of judge key {cell.judge_key} (choose another 'out', or move that run away)"
        )


def run_cell(cell: Cell, items: ConfigItems, judge: Callable[[Sequence[str]], int]) -> int:
    """Run ``cell``: folder check, manifest, model server (if any), then ``judge(argv)`` (the ``agenthorizon judge`` command).

    ``items`` are its config's items (for the manifest). Resume, exit status
    and records are the judge command's (0: every item of the shard has a
    result). Raises :class:`CellFolderError` or ``ServerError`` (its log is in
    the cell folder).
    """
    check_cell_folder(cell)
    cell.folder.mkdir(parents=True, exist_ok=True)
    write_manifest(cell.folder, shard_manifest(cell, items))
    if not cell.judge.server:
        return judge(cell.argv())
    port = free_port() if "{port}" in cell.judge.server else server_port(cell.judge.server, cell.judge.options)
    log = cell.folder / SWEEP_FOLDER / f"server-shard-{cell.shard[0]}-of-{cell.shard[1]}.log"
    with model_server(cell.judge.server, port, log, cell.judge.server_timeout):
        return judge(cell.argv(port))

