"""Slurm: one sbatch array script per judge, submitted with ``sbatch --parsable``; ``squeue`` for status.

Each judge's cells are consecutive in the grid; its script is an array
``--array=P1,P2,…`` (``0-(n-1)`` for all of them, ``%K`` when the sweep sets
``throttle``) whose task ``SLURM_ARRAY_TASK_ID`` runs ``agenthorizon sweep run
FILE --judge J`` -- the judge's cell at that position. Resources come from the
judge's ``resources`` (cpus, mem, time, partition, GPUs as ``--gres=gpu:N``).
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from typing import Mapping, Sequence

from agenthorizon.sweeps.grid import Cell, Grid

__all__ = ["SlurmError", "array_spec", "queue_states", "sbatch_script", "submit_script"]

INSTALL_HINT = ("install Slurm's client commands (Debian/Ubuntu: apt-get install slurm-client, or slurm-wlm for a "
                "whole single-node cluster) or run this on a cluster login node; without a scheduler, run each cell "
                "with `agenthorizon sweep run FILE --cell K`")


class SlurmError(RuntimeError):
    """A Slurm command is missing or failed; the message says which and what it printed."""


def array_spec(positions: Sequence[int], throttle: int | None = None) -> str:
    """``--array``'s value: ranges of consecutive positions, and ``%K``.

    >>> array_spec([0, 1, 2, 3]), array_spec([1, 4, 5, 6], 2)
    ('0-3', '1,4-6%2')
    """
    parts, run = [], []
    for position in sorted(positions):
        if run and position == run[-1] + 1:
            run.append(position)
            continue
        if run:
            parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [position]
    if run:
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(parts) + (f"%{throttle}" if throttle else "")


def sbatch_script(grid: Grid, judge_index: int, cells: Sequence[Cell], command: Sequence[str]) -> str:
    """The sbatch script of one judge's ``cells``; ``command`` is how to call ``agenthorizon`` on the nodes."""
    sweep = grid.sweep
    judge = sweep.judges[judge_index]
    resources = judge.resources
    logs = sweep.out / judge.name / "slurm"
    lines = ["#!/bin/bash", f"#SBATCH --job-name=ah-{judge.name}"[:80],
             f"#SBATCH --array={array_spec([cell.position for cell in cells], sweep.throttle)}",
             f"#SBATCH --output={logs}/%A_%a.out", "#SBATCH --ntasks=1"]
    if resources.cpus:
        lines.append(f"#SBATCH --cpus-per-task={resources.cpus}")
    if resources.mem:
        lines.append(f"#SBATCH --mem={resources.mem}")
    if resources.time:
        lines.append(f"#SBATCH --time={resources.time}")
    if resources.partition:
        lines.append(f"#SBATCH --partition={resources.partition}")
    if resources.gpus:
        lines.append(f"#SBATCH --gres=gpu:{resources.gpus}")
    run = [*command, "sweep", "run", str(sweep.path.resolve()), "--judge", str(judge_index)]
    lines += ["", f"# cells {cells[0].index}..{cells[-1].index} of {sweep.path.resolve()}: {judge.spec}",
              "# each task runs the judge's cell at position SLURM_ARRAY_TASK_ID (resumes what it finds)",
              f"exec {shlex.join(run)}", ""]
    return "\n".join(lines)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise SlurmError(f"{name} not found on PATH; {INSTALL_HINT}")
    return path


def submit_script(script: str, environ: Mapping[str, str] | None = None) -> str:
    """Submit ``script`` with ``sbatch --parsable`` (on its standard input); the job id.

    Raises
    ------
    SlurmError
        ``sbatch`` is missing (with the install hint) or refused the script (its message).
    """
    completed = subprocess.run([_tool("sbatch"), "--parsable"], input=script, capture_output=True, text=True,
                               env=None if environ is None else dict(environ), timeout=120)
    if completed.returncode != 0:
        raise SlurmError(f"sbatch failed (exit {completed.returncode}): {completed.stderr.strip()[-500:]}")
    return completed.stdout.strip().split(";", 1)[0]


def queue_states(job_ids: Sequence[str]) -> tuple[dict[tuple[str, int], str], str | None]:
    """``(job id, array index) -> state`` of the jobs still queued or running (``squeue -r``), and a note or ``None``.

    Without ``squeue`` (or when it fails) the states are empty and the note says why: the run folders are the truth.
    """
    if not job_ids:
        return {}, None
    squeue = shutil.which("squeue")
    if squeue is None:
        return {}, "squeue not found: states are from the run folders alone"
    completed = subprocess.run([squeue, "-h", "-r", "-j", ",".join(job_ids), "-o", "%F %K %T"],
                               capture_output=True, text=True, timeout=60)
    if completed.returncode != 0:
        # Jobs that left the queue make squeue fail ("Invalid job id"): they are over.
        return {}, None
    states = {}
    for line in completed.stdout.splitlines():
        words = line.split()
        if len(words) == 3 and words[1].isdigit():
            states[(words[0], int(words[1]))] = words[2]
    return states, None


def agenthorizon_command() -> list[str]:
    """How the nodes call this installation: its Python running ``-m agenthorizon``."""
    return [sys.executable, "-m", "agenthorizon"]
