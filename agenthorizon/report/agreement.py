"""Run folders read for :func:`agenthorizon.scoring.agreement.agreement`: repeated runs of one judge, or several judges."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Sequence

from agenthorizon.report.references import LABEL_ROW_FIELDS
from agenthorizon.report.runs import load_runs
from agenthorizon.report.tables import Table
from agenthorizon.report.virtual_runs import VirtualRun, majority_run
from agenthorizon.scoring.agreement import Agreement, agreement
from agenthorizon.scoring.metrics import ScoreReport, score

__all__ = ["RunAgreement", "agreement_table", "run_agreement"]


@dataclass
class RunAgreement:
    """What ``agenthorizon agreement`` computes from run folders; see :func:`run_agreement`."""

    agreement: Agreement
    majority: ScoreReport
    """The score of the majority-vote virtual run."""
    virtual_run: VirtualRun
    config: str
    trajectory_ids: list[str]

    def items(self) -> list[dict[str, Any]]:
        """One entry per item: the runs' category counts and their pairwise disagreement (0: all agree)."""
        counts, disagreement = self.agreement.item_counts, self.agreement.item_disagreement
        return [
            {"trajectory_id": tid, "success": int(counts[i, 0]), "failure": int(counts[i, 1]),
             "invalid": int(counts[i, 2]), "disagreement": float(disagreement[i])}
            for i, tid in enumerate(self.trajectory_ids)
        ]

    def to_dict(self) -> dict[str, Any]:
        return {"config": self.config, **self.agreement.to_dict(), "majority_vote": self.majority.to_dict(),
                "majority_judge_key": self.virtual_run.record.judge_key, "items": self.items()}


def run_agreement(
    run_dirs: Sequence[str | os.PathLike[str]], data_root: str | os.PathLike[str], *, config: str | None = None,
    bootstrap: int = 0, seed: int = 0, name: str | None = None,
) -> RunAgreement:
    """The agreement of the runs' verdicts on their shared items, and their majority vote as a virtual run, scored.

    The runs must share one selection; each run is one rater, named by its
    label. The majority vote (:func:`agenthorizon.report.virtual_runs.majority_run`,
    named ``name``) is scored strictly (a tie is no verdict: wrong).
    """
    if len(run_dirs) < 2:
        raise ValueError(f"agreement needs at least two run folders, got {len(run_dirs)}")
    runs = load_runs(run_dirs, data_root, config=config, images=None,
                     fields=LABEL_ROW_FIELDS)
    predictions = {run.label: run.predictions() for run in runs.runs}
    result = agreement(predictions, runs.rows)
    virtual = majority_run(runs, name=name)
    majority = score(virtual.predictions(), runs.rows, bootstrap=bootstrap, seed=seed)
    return RunAgreement(result, majority, virtual, runs.config, [row["trajectory_id"] for row in runs.rows])


def agreement_table(found: RunAgreement) -> Table:
    """Cohen's kappa of every pair, with the many-rater coefficients and the majority's score as notes."""
    result, majority, config = found.agreement, found.majority, found.config
    def number(value: float | None) -> str:
        return "undefined" if value is None else f"{value:.3f}"

    def percent(value: float | None) -> str:
        return "undefined" if value is None else f"{100 * value:.1f}%"

    body: list[list[Any]] = [[f"{a} | {b}", number(kappa)] for (a, b), kappa in result.cohen_kappa.items()]
    notes = [
        f"{len(result.judges)} runs, {result.n} items of {config}; verdict categories success, failure, invalid",
        f"Fleiss' kappa {number(result.fleiss_kappa)}; Krippendorff's alpha (invalid as missing) "
        f"{number(result.krippendorff_alpha)}; flip rate (items where the runs do not all agree) "
        f"{100 * result.flip_rate:.1f}%",
        f"{int((found.agreement.item_disagreement > 0).sum())} items on which the runs disagree "
        "(--format json lists every item's counts and disagreement)",
        f"Majority vote (judge key {found.virtual_run.record.judge_key}; a tie is no verdict, counted wrong): balanced accuracy {percent(majority.balanced_accuracy)}, "
        f"positive {percent(majority.positive_accuracy)}, negative {percent(majority.negative_accuracy)}",
    ]
    return Table(title=f"Agreement on {config}", header=["pair", "Cohen's kappa"], rows=body, notes=notes)
