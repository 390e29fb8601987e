"""Run folders read for :func:`agenthorizon.scoring.calibration.calibration`, and its tables."""

from __future__ import annotations

import os
from typing import Any, Sequence

from agenthorizon.report.references import LABEL_ROW_FIELDS
from agenthorizon.report.runs import load_runs
from agenthorizon.report.tables import Rate, Table
from agenthorizon.scoring.calibration import Calibration, calibration

__all__ = ["calibration_tables", "run_calibration"]


def run_calibration(
    run_dirs: Sequence[str | os.PathLike[str]], data_root: str | os.PathLike[str], *, config: str | None = None,
    bins: int = 10, bootstrap: int = 1000, seed: int = 0,
) -> tuple[dict[str, Calibration], str]:
    """Each run's calibration on its items (the runs share one selection), by run label, and the config."""
    runs = load_runs(run_dirs, data_root, config=config, images=None,
                     fields=LABEL_ROW_FIELDS)
    return {run.label: calibration(run.predictions(), runs.rows, bins=bins, bootstrap=bootstrap, seed=seed)
            for run in runs.runs}, runs.config


def calibration_tables(results: dict[str, Calibration], config: str) -> list[Table]:
    """Per run: selective accuracy by level, the reliability table of numeric confidences, and the summary numbers."""
    def number(value: float | None) -> str:
        return "undefined" if value is None else f"{value:.3f}"

    tables = []
    for label, result in results.items():
        notes = [f"{result.n} items of {config}: {result.n_level} state a level, {result.n_numeric} a number, "
                 f"{result.n_without} none (or no valid verdict); an invalid verdict is wrong",
                 f"AUROC of confidence for a right verdict {number(result.auroc)}"]
        rows: list[list[Any]] = []
        header = ["abstain below", "kept", "coverage", "accuracy"]
        for point in result.selective:
            rows.append([point.threshold, point.kept, Rate(point.coverage), Rate(point.accuracy, point.interval)])
        if result.reliability:
            notes.append(f"Expected calibration error {number(result.expected_calibration_error)}; "
                         f"Brier score {number(result.brier_score)}")
            header = ["confidence bin", "items", "mean confidence", "accuracy"]
            rows = [[f"[{b.low:.1f}, {b.high:.1f})", b.n, Rate(b.mean_confidence), Rate(b.accuracy, b.interval)]
                    for b in result.reliability]
        tables.append(Table(title=f"Calibration of {label} on {config}", header=header, rows=rows, notes=notes))
    return tables
