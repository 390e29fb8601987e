"""Run folders read for :func:`agenthorizon.scoring.agreement.agreement`: repeated runs of one judge, or several judges."""

from __future__ import annotations

import os
from typing import Any, Sequence

from agenthorizon.report.references import LABEL_ROW_FIELDS
from agenthorizon.report.runs import load_runs
from agenthorizon.report.tables import Table
from agenthorizon.scoring.agreement import Agreement, agreement
from agenthorizon.scoring.metrics import ScoreReport, score

__all__ = ["agreement_table", "run_agreement"]


def run_agreement(
    run_dirs: Sequence[str | os.PathLike[str]], data_root: str | os.PathLike[str], *, config: str | None = None,
    bootstrap: int = 0, seed: int = 0,
) -> tuple[Agreement, ScoreReport, str]:
    """The agreement of the runs' verdicts on their shared items, and the score of their majority vote.

    The runs must share one selection (config, dev-set options), as for the
    report; each run is one rater, named by its label (its folder where two
    runs of one judge share a label). The majority-vote virtual run is scored
    strictly (a tie is no verdict: wrong). Returns the agreement, the
    majority's :class:`~agenthorizon.ScoreReport` and the config.
    """
    if len(run_dirs) < 2:
        raise ValueError(f"agreement needs at least two run folders, got {len(run_dirs)}")
    runs = load_runs(run_dirs, data_root, config=config, images=None,
                     fields=LABEL_ROW_FIELDS)
    predictions = {run.label: run.predictions() for run in runs.runs}
    result = agreement(predictions, runs.rows)
    return result, score(result.majority, runs.rows, bootstrap=bootstrap, seed=seed), runs.config


def agreement_table(result: Agreement, majority: ScoreReport, config: str) -> Table:
    """Cohen's kappa of every pair, with the many-rater coefficients and the majority's score as notes."""
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
        f"Majority vote (a tie is no verdict, counted wrong): balanced accuracy {percent(majority.balanced_accuracy)}, "
        f"positive {percent(majority.positive_accuracy)}, negative {percent(majority.negative_accuracy)}",
    ]
    return Table(title=f"Agreement on {config}", header=["pair", "Cohen's kappa"], rows=body, notes=notes)
