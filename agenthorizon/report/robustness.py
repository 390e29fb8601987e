"""Run folders read for :func:`agenthorizon.scoring.partition_robustness.partition_robustness`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from agenthorizon.report.references import LABEL_ROW_FIELDS
from agenthorizon.report.runs import load_runs
from agenthorizon.report.tables import Table
from agenthorizon.schema import POSITIVE
from agenthorizon.scoring.outcomes import item_outcomes
from agenthorizon.scoring.partition_robustness import SubsetRanking, partition_robustness

__all__ = ["Robustness", "robustness_table", "run_robustness"]


@dataclass
class Robustness:
    """The re-partitions of a pool of runs and the ranked judges' rank correlation on each (see :func:`run_robustness`)."""

    config: str
    n_items: int
    pool: list[str]
    judges: list[str]
    per_threshold: list[SubsetRanking]
    leave_one_out: list[SubsetRanking]
    threshold: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"config": self.config, "n_items": self.n_items, "pool": self.pool, "judges": self.judges,
                "threshold": self.threshold, "per_threshold": [row.to_dict() for row in self.per_threshold],
                "leave_one_out": [row.to_dict() for row in self.leave_one_out]}


def run_robustness(
    pool_dirs: Sequence[str | os.PathLike[str]], data_root: str | os.PathLike[str], *,
    rank_dirs: Sequence[str | os.PathLike[str]] = (), threshold: int | None = None, config: str | None = None,
) -> Robustness:
    """Re-partition the runs' items by ``pool_dirs`` (each folder one rater) and rank ``rank_dirs`` on each hard subset.

    Every folder must share one selection. ``rank_dirs`` default to the pool.
    An item a rater has no valid verdict for counts as not correct for it.
    """
    pool_dirs, rank_dirs = [str(d) for d in pool_dirs], [str(d) for d in rank_dirs] or [str(d) for d in pool_dirs]
    every = list(dict.fromkeys([*pool_dirs, *rank_dirs]))
    runs = load_runs(every, data_root, config=config, images=None, fields=LABEL_ROW_FIELDS)
    by_path = {str(run.path): run for run in runs.runs}
    correct = {path: item_outcomes(run.predictions(), runs.rows).correct for path, run in by_path.items()}
    positive = np.array([row["label"] == POSITIVE for row in runs.rows])
    pool = {by_path[path].label: correct[path] for path in pool_dirs}
    judges = {by_path[path].label: correct[path] for path in rank_dirs}
    per_threshold, leave_one_out = partition_robustness(pool, judges, positive, threshold=threshold)
    return Robustness(runs.config, len(runs.rows), list(pool), list(judges), per_threshold, leave_one_out, threshold)


def robustness_table(found: Robustness) -> Table:
    """One row per re-partition: its rule, the hard and easy counts and Spearman's rho of the judges."""
    def rho(value: float | None) -> str:
        return "undefined" if value is None else f"{value:.3f}"

    rows = [[row.rule, row.n_raters, row.n_hard, row.n_easy, f"vs {row.reference}", rho(row.rho)]
            for row in (*found.per_threshold, *found.leave_one_out)]
    notes = [
        f"{len(found.pool)} pool runs, {found.n_items} items of {found.config}; hard = at most K pool runs correct "
        "(no valid verdict counts as not correct)",
        f"rho: Spearman's rank correlation of the {len(found.judges)} ranked judges' balanced accuracy on the hard "
        "subset with theirs on every item (vs all) or on the whole pool's hard subset at K (vs pool)",
    ]
    if found.leave_one_out:
        notes.append(f"leave-one-out rows: one pool run left out, hard = at most floor(K (m-1)/m) correct, K = "
                     f"{found.threshold}")
    return Table(title=f"Partition robustness on {found.config}",
                 header=["re-partition", "raters", "hard", "easy", "reference", "rho"], rows=rows, notes=notes)
