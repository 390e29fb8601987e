"""Where each cell of a sweep stands, read from its run folder (the truth) and the scheduler's view.

States:

- ``pending``: the shard has no run record yet;
- ``running``: its record says running and its lock's holder is alive, or the
  scheduler says the task runs;
- ``done``: the record says finished and every item of the shard has an answer;
- ``partial``: some items have answers, not all; re-running the cell resumes it;
- ``failed``: the run ended without any answer, or the scheduler says its task
  failed (:data:`~agenthorizon.sweeps.slurm.FAILED_STATES`) before the shard was done.
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from typing import Iterable

from agenthorizon.judging.runs.folder import read_result, record_name
from agenthorizon.judging.runs.records import FINISHED, RUNNING, RunRecord, needs_judging
from agenthorizon.judging.runs.shards import shard_ids
from agenthorizon.sweeps.grid import Cell
from agenthorizon.sweeps.release_items import ConfigItems
from agenthorizon.sweeps.slurm import FAILED_STATES

__all__ = ["CELL_STATES", "CellStatus", "cell_status", "describe_status", "unfinished"]

PENDING, RUNNING_STATE, DONE, PARTIAL, FAILED = "pending", "running", "done", "partial", "failed"
CELL_STATES = (PENDING, RUNNING_STATE, DONE, PARTIAL, FAILED)


@dataclass(frozen=True)
class CellStatus:
    """A cell's state (one of :data:`CELL_STATES`), its answered and total items, and the scheduler's word."""

    cell: Cell
    state: str
    answered: int
    n_items: int
    scheduler: str = ""


def _lock_alive(path: os.PathLike[str]) -> bool:
    """True when the lock file's holder is a live process of this host (or of another host: cannot tell, so alive)."""
    try:
        holder = json.loads(open(path, encoding="utf-8").read())
    except (OSError, ValueError):
        return False
    if not isinstance(holder, dict):
        return False
    if holder.get("host") not in (None, socket.gethostname()):
        return True
    try:
        os.kill(int(holder.get("pid", -1)), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError, TypeError, OverflowError):
        return True
    return True


def cell_status(cell: Cell, items: ConfigItems, scheduler: str = "") -> CellStatus:
    """The state of ``cell`` from its run folder; ``scheduler`` is the scheduler's state of its task, if known."""
    record_path = cell.folder / record_name(cell.shard)
    ids = shard_ids(items.ids, cell.shard)
    if not record_path.is_file():
        state = RUNNING_STATE if scheduler == "RUNNING" else FAILED if scheduler in FAILED_STATES else PENDING
        return CellStatus(cell, state, 0, len(ids), scheduler)
    try:
        record = RunRecord.from_dict(json.loads(record_path.read_text(encoding="utf-8")), str(record_path))
    except (OSError, ValueError):
        record = None
    answered = sum(not needs_judging(read_result(cell.folder, tid), tid, cell.judge_key) for tid in ids)
    lock = record_path.with_suffix(".lock")
    if scheduler == "RUNNING" or record is not None and record.status == RUNNING and _lock_alive(lock):
        state = RUNNING_STATE
    elif answered == len(ids) and record is not None and record.status == FINISHED:
        state = DONE
    elif scheduler in FAILED_STATES:
        state = FAILED
    elif answered:
        state = PARTIAL
    else:
        state = FAILED
    return CellStatus(cell, state, answered, len(ids), scheduler)


def unfinished(statuses: Iterable[CellStatus]) -> list[Cell]:
    """The cells that are not done and not running: what ``--only-unfinished`` resubmits."""
    return [status.cell for status in statuses if status.state not in (DONE, RUNNING_STATE)]


def describe_status(statuses: Iterable[CellStatus], changed: Iterable[str] = (), notes: Iterable[str] = ()) -> str:
    """The text ``sweep status`` prints: one line per cell, counts per state, cells whose plan changed."""
    statuses = list(statuses)
    lines = [f"{'cell':>5}  {'state':<8}  {'items':>11}  {'scheduler':<10}  name"]
    counts: dict[str, int] = {state: 0 for state in CELL_STATES}
    for status in statuses:
        counts[status.state] += 1
        lines.append(f"{status.cell.index:>5}  {status.state:<8}  {status.answered:>5}/{status.n_items:<5}  "
                     f"{status.scheduler or '-':<10}  {status.cell.name}")
    lines.append(", ".join(f"{counts[state]} {state}" for state in CELL_STATES) + f" (of {len(statuses)} cells)")
    changed = list(changed)
    if changed:
        lines.append("the sweep file changed after submission; the plan of these cells no longer matches what was "
                     f"submitted: {', '.join(changed)}")
    lines += list(notes)
    return "\n".join(lines) + "\n"
