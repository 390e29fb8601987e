"""Slurm: one sbatch array script per judge, submitted with ``sbatch --parsable``; ``squeue`` and ``sacct`` for status.

Each script is an array (``--array``, with ``%K`` when the sweep sets ``throttle``);
task ``SLURM_ARRAY_TASK_ID`` runs ``agenthorizon sweep run FILE --judge J``, the
judge's cell at that position.
Resources come from the judge's ``resources`` (GPUs as ``--gres=gpu:N``).
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from typing import Mapping, Sequence

from agenthorizon.sweeps.grid import Cell, Grid

__all__ = [
    "FAILED_STATES", "SlurmError", "array_spec", "ended_states", "parse_sacct", "parse_scontrol", "queue_states",
    "sbatch_script", "submit_script",
]

INSTALL_HINT = ("install Slurm's client commands (Debian/Ubuntu: apt-get install slurm-client, or slurm-wlm for a "
                "whole single-node cluster) or run this on a cluster login node; without a scheduler, run each cell "
                "with `agenthorizon sweep run FILE --cell K`")


FAILED_STATES = frozenset(
    {"FAILED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "BOOT_FAIL", "DEADLINE", "PREEMPTED"}
)
"""Slurm job states of a task that ended without finishing its work (``CANCELLED`` is a user's stop, not a failure)."""


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


def _task_key(job: str, task: str) -> tuple[str, int] | None:
    """``(job id, array index)``, or ``None`` for a record that is not one task (a pending range ``[4-7]``, a step)."""
    return (job, int(task)) if job.isdigit() and task.isdigit() else None


def parse_sacct(text: str) -> dict[tuple[str, int], str]:
    """``(job id, array index) -> state`` from ``sacct --noheader --parsable2 --format=JobID,State``'s output.

    A state is its first word (``CANCELLED by 0`` is ``CANCELLED``); job steps
    (``12_3.batch``) and pending ranges (``12_[4-7]``) are left out.

    >>> parse_sacct("12_0|COMPLETED\\n12_1|FAILED\\n12_1.batch|FAILED\\n12_2|CANCELLED by 0\\n12_[3-4]|PENDING\\n")
    {('12', 0): 'COMPLETED', ('12', 1): 'FAILED', ('12', 2): 'CANCELLED'}
    """
    states = {}
    for line in text.splitlines():
        fields = line.split("|")
        if len(fields) < 2 or "_" not in fields[0] or not fields[1].split():
            continue
        key = _task_key(*fields[0].split("_", 1))
        if key is not None:
            states[key] = fields[1].split()[0]
    return states


def parse_scontrol(text: str) -> dict[tuple[str, int], str]:
    """``(job id, array index) -> state`` from ``scontrol --oneliner show job``'s output (one job a line).

    >>> parse_scontrol("JobId=14 ArrayJobId=12 ArrayTaskId=1 JobName=x JobState=FAILED Reason=NonZeroExitCode\\n"
    ...                "JobId=12 ArrayJobId=12 ArrayTaskId=3-4 JobState=PENDING\\n")
    {('12', 1): 'FAILED'}
    """
    states = {}
    for line in text.splitlines():
        fields = dict(word.split("=", 1) for word in line.split() if "=" in word)
        key = _task_key(fields.get("ArrayJobId", ""), fields.get("ArrayTaskId", ""))
        if key is not None and fields.get("JobState"):
            states[key] = fields["JobState"]
    return states


def ended_states(job_ids: Sequence[str]) -> tuple[dict[tuple[str, int], str], str | None]:
    """``(job id, array index) -> state`` of the jobs' tasks as Slurm last recorded them, and a note or ``None``.

    From ``sacct``; where accounting storage is off (or ``sacct`` is missing),
    from ``scontrol show job``, which knows a task for ``MinJobAge`` after it
    ended. Without either, the states are empty and the note says why.
    """
    if not job_ids:
        return {}, None
    sacct = shutil.which("sacct")
    why = "sacct not found"
    if sacct is not None:
        completed = subprocess.run([sacct, "--noheader", "--parsable2", "--allocations", "--format=JobID,State",
                                    "--jobs", ",".join(job_ids)], capture_output=True, text=True, timeout=60)
        if completed.returncode == 0:
            return parse_sacct(completed.stdout), None
        why = f"sacct: {completed.stderr.strip()[-200:] or f'exit {completed.returncode}'}"
    scontrol = shutil.which("scontrol")
    if scontrol is None:
        return {}, f"{why}, and scontrol not found: ended tasks' states are from the run folders alone"
    states: dict[tuple[str, int], str] = {}
    for job_id in job_ids:
        # An unknown job (ended more than MinJobAge ago) makes scontrol fail: nothing to add for it.
        completed = subprocess.run([scontrol, "--oneliner", "show", "job", job_id], capture_output=True, text=True,
                                   timeout=60)
        if completed.returncode == 0:
            states.update(parse_scontrol(completed.stdout))
    return states, f"{why}; ended tasks' states are from scontrol (tasks that ended within Slurm's MinJobAge)"


def agenthorizon_command() -> list[str]:
    """How the nodes call this installation: its Python running ``-m agenthorizon``."""
    return [sys.executable, "-m", "agenthorizon"]
