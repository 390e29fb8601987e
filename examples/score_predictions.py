"""Score judge predictions strictly: ScoreReport, slices, bootstrap, compare, evaluate.

Runs offline on a generated sample corpus (the real release works the same
way: pass its root instead).

    .venv/bin/python examples/score_predictions.py
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import agenthorizon
from agenthorizon.report import render_comparison, render_report
from agenthorizon.scoring.metric_list import METRICS

with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp) / "release"
    agenthorizon.generate_sample(root, preset="tiny", seed=0)

    # References: dataset rows (images=None: scoring needs no screenshots).
    rows = agenthorizon.load_dataset(root, "AH", split="test", images=None)

    # Two toy judges; real predictions come from `agenthorizon.run_judge`.
    rng = random.Random(0)
    careful = {}
    for row in rows.select_columns(["trajectory_id", "label", "mistake_type"]):
        right = rng.random() < 0.8
        says_success = (row["label"] == "positive") == right
        careful[row["trajectory_id"]] = {"success": says_success, "mistake_type": row["mistake_type"] or None}
    # A sloppy judge: accepts everything, and some of its outputs are broken.
    sloppy = {tid: ("true" if i % 4 == 0 else True) for i, tid in enumerate(careful)}

    report = agenthorizon.score(careful, rows, bootstrap=2000, seed=0, slices=["os", "step_bucket"])
    print(render_report(report, "markdown", title="careful judge on AH (sample corpus)"))
    print("sloppy balanced accuracy:", agenthorizon.score(sloppy, rows).balanced_accuracy)
    # The declared rate metrics (scoring/metric_list.METRICS), each under its JSON name.
    print("declared rates:", {spec.name: report.rates[spec.name] for spec in METRICS})
    print("sloppy invalid reasons:", {k: v for k, v in agenthorizon.score(sloppy, rows).invalid_by_reason.items() if v})

    comparison = agenthorizon.compare(careful, sloppy, rows, bootstrap=2000, seed=0)
    print(render_comparison(comparison, "table", names=("careful", "sloppy")))

    # The same numbers through the Hugging Face `evaluate` module.
    metric = agenthorizon.load_metric()
    result = metric.compute(predictions=careful, references=list(rows.select_columns(["trajectory_id", "label", "mistake_type"])))
    assert result["balanced_accuracy"] == report.balanced_accuracy
    print("evaluate:", {k: result[k] for k in ("balanced_accuracy", "invalid_rate", "n")})
