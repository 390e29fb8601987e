"""The sweep's state file: what was submitted, and each cell's plan at the time.

``<out>/sweep-state.json``: per cell index the digest of its plan when last
submitted (:meth:`~agenthorizon.sweeps.grid.Cell.digest`), and the scheduler
jobs. Only ``sweep submit`` writes it; ``sweep status`` names the cells whose
plan changed since.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from agenthorizon.sweeps.grid import Cell, Grid

__all__ = ["STATE_NAME", "Job", "SweepState", "changed_cells", "read_state", "record_submission", "write_state"]

STATE_NAME = "sweep-state.json"
_VERSION = 1


@dataclass(frozen=True)
class Job:
    """One submitted array: its scheduler, id, judge (index in the sweep) and the cells it runs."""

    scheduler: str
    job_id: str
    judge: int
    cells: tuple[int, ...]
    submitted_at: str


@dataclass
class SweepState:
    """The state file's content: cell index -> plan digest, and the jobs in submission order."""

    digests: dict[int, str] = field(default_factory=dict)
    jobs: list[Job] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"version": _VERSION, "digests": {str(k): v for k, v in sorted(self.digests.items())},
                "jobs": [{**vars(job), "cells": list(job.cells)} for job in self.jobs]}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> SweepState:
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            raise ValueError(f"{where}: expected a sweep state file of version {_VERSION}")
        try:
            digests = {int(k): str(v) for k, v in data.get("digests", {}).items()}
            jobs = [Job(str(job["scheduler"]), str(job["job_id"]), int(job["judge"]),
                        tuple(int(c) for c in job["cells"]), str(job["submitted_at"])) for job in data.get("jobs", [])]
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ValueError(f"{where}: malformed sweep state ({error!r}); expected digests and jobs") from None
        return cls(digests, jobs)

    def latest_jobs(self) -> dict[int, Job]:
        """Cell index -> the last job submitted for it."""
        return {cell: job for job in self.jobs for cell in job.cells}


def state_path(grid: Grid) -> Path:
    return grid.sweep.out / STATE_NAME


def read_state(grid: Grid) -> SweepState:
    """The state file of ``grid``'s sweep (empty when nothing was submitted yet)."""
    path = state_path(grid)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return SweepState()
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ValueError(f"{path}: not valid JSON ({error}); expected a sweep state file") from None
    return SweepState.from_dict(data, str(path))


def write_state(grid: Grid, state: SweepState) -> Path:
    """Write the state file atomically; its path."""
    path = state_path(grid)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(state.to_dict(), indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def record_submission(state: SweepState, scheduler: str, job_id: str, judge: int, cells: Sequence[Cell]) -> None:
    """Add a job to ``state`` and take its cells' digests as submitted."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    state.jobs.append(Job(scheduler, job_id, judge, tuple(cell.index for cell in cells), stamp))
    for cell in cells:
        state.digests[cell.index] = cell.digest()


def changed_cells(grid: Grid, state: SweepState) -> list[str]:
    """Names of submitted cells whose plan differs now (and of submitted cells no longer in the sweep)."""
    changed = []
    for index, digest in sorted(state.digests.items()):
        if index >= len(grid.cells):
            changed.append(f"cell {index} (no longer in the sweep)")
        elif grid.cells[index].digest() != digest:
            changed.append(f"cell {index} ({grid.cells[index].name})")
    return changed
