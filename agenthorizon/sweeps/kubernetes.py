"""Kubernetes: one Indexed Job (batch/v1) per sweep; completion ``K`` runs cell ``K``.

Each pod reads ``JOB_COMPLETION_INDEX`` as its cell. The manifest mounts
nothing: the pods need the sweep file, the release and the output root at the
same paths as here, so add your shared volume. Resources are the largest of
the judges' (one Job has one pod template).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from agenthorizon.sweeps.grid import Grid

__all__ = ["DEFAULT_IMAGE", "indexed_job", "memory_mib"]

DEFAULT_IMAGE = "python:3.11-slim"
"""The pod image when the sweep names none (it must have agenthorizon installed: name your own)."""

_NAME = re.compile(r"[^a-z0-9-]+")


_MIB = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}


def memory_mib(text: str) -> int:
    """Slurm's memory (``32G``, ``512M``, ``4000``: megabytes) in mebibytes.

    >>> memory_mib("32G"), memory_mib("4000"), memory_mib("512K")
    (32768, 4000, 1)
    """
    match = re.fullmatch(r"(\d+)([KMGT]?)", text.strip().upper())
    if match is None:
        raise ValueError(f"memory {text!r}: expected Slurm's form, a whole number with K, M, G or T (e.g. 32G)")
    return max(1, int(int(match.group(1)) * _MIB[match.group(2) or "M"]))


def indexed_job(grid: Grid, command: Sequence[str] = ("agenthorizon",), parallelism: int | None = None) -> dict[str, Any]:
    """The Job manifest (a mapping, to dump as JSON or YAML) that runs every cell of ``grid`` once, ``command`` in each pod.

    ``parallelism`` defaults to the sweep's ``throttle``, else every cell.

    >>> from agenthorizon.sweeps.sweep_file import parse_sweep
    >>> from agenthorizon.sweeps.grid import plan_grid
    >>> sweep = parse_sweep('data = "/r"\\nconfigs = ["AH"]\\nshards = 3\\n[[judge]]\\nspec = "lexical"\\n', "/s/x.toml")
    >>> job = indexed_job(plan_grid(sweep, {"AH": 9}, lambda judge, ablation: "k"))
    >>> job["spec"]["completionMode"], job["spec"]["completions"], job["spec"]["template"]["spec"]["restartPolicy"]
    ('Indexed', 3, 'Never')
    """
    sweep = grid.sweep
    cpus = max((judge.resources.cpus or 0 for judge in sweep.judges), default=0)
    gpus = max((judge.resources.gpus or 0 for judge in sweep.judges), default=0)
    mems = [memory_mib(judge.resources.mem) for judge in sweep.judges if judge.resources.mem]
    requests: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    if cpus:
        requests["cpu"] = str(cpus)
    if mems:
        requests["memory"] = f"{max(mems)}Mi"
    if gpus:
        limits["nvidia.com/gpu"] = str(gpus)
    container: dict[str, Any] = {
        "name": "cell",
        "image": sweep.kubernetes.get("image", DEFAULT_IMAGE),
        "command": [*command, "sweep", "run", str(sweep.path.resolve())],
    }
    if requests or limits:
        container["resources"] = {**({"requests": requests} if requests else {}), **({"limits": limits} if limits else {})}
    name = _NAME.sub("-", f"ah-sweep-{sweep.path.stem}".lower()).strip("-")[:52]
    metadata: dict[str, Any] = {"name": name, "labels": {"app.kubernetes.io/name": "agenthorizon-sweep"}}
    if "namespace" in sweep.kubernetes:
        metadata["namespace"] = sweep.kubernetes["namespace"]
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata,
        "spec": {
            "completionMode": "Indexed",
            "completions": len(grid.cells),
            "parallelism": parallelism or sweep.throttle or len(grid.cells),
            "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
        },
    }
