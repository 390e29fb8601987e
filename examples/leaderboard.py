"""Judge AH and AH-S with baseline judges, then rank them with agenthorizon.leaderboard.

The paper's Table 2 layout from Python: one row per judge (its judge key),
balanced / positive / negative accuracy on AH and AH-S, mistake-type recall.
Runs offline on a generated sample corpus, or on a release you point to.

    python examples/leaderboard.py                  # generates a small sample corpus in a temp dir
    AGENTHORIZON_DATA=/path/to/release python examples/leaderboard.py
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import agenthorizon
from agenthorizon.report import render_leaderboard

with tempfile.TemporaryDirectory() as tmp:
    root = os.environ.get("AGENTHORIZON_DATA")
    if root is None:
        root = agenthorizon.generate_sample(Path(tmp) / "release", preset="small", seed=0).root
    runs = Path(tmp) / "runs"

    # Real runs of three baseline judges: a keyword matcher on both configs,
    # one that accepts everything (on "all": one run covers both columns),
    # and one that rejects everything, on AH only.
    plan = [("lexical", "AH"), ("lexical", "AH-S"), ("constant:true", "all"), ("constant:false", "AH")]
    for spec, config in plan:
        dataset = agenthorizon.load_dataset(root, config, split="test", images=None)
        agenthorizon.run_judge(spec, dataset, runs / f"{spec}-{config}", config=config, data_root=root, progress=False)

    board = agenthorizon.leaderboard(sorted(runs.iterdir()), root, bootstrap=200, seed=0)
    for row in board:
        cells = {config: report and round(report.balanced_accuracy, 3) for config, report in row.reports.items()}
        print(f"{row.judge:16s} balanced accuracy {cells}  runs: {[Path(run).name for run in row.runs]}")
    print()
    print(render_leaderboard(board, ("AH", "AH-S"), "markdown", manifests=board.manifests, notes=board.notes))

    # The same numbers in one call, judge by judge: the leaderboard is a thin caller of score_runs.
    scored = agenthorizon.score_runs(sorted(runs.iterdir()), root, bootstrap=200, seed=0)
    by_key = {judge.key: judge for judge in scored.judges}
    for row in board:
        judge = by_key[row.judge_key]
        assert {config: report and report.to_dict() for config, report in judge.reports.items()} == {
            config: report and report.to_dict() for config, report in row.reports.items()}
        assert judge.overall.to_dict() == row.recall.to_dict()
    print(f"score_runs: the same numbers for {len(scored.judges)} judges")

    # Every pair of judges on AH, adjusted for the number of pairs (Holm), with the
    # judges tied with the best and a compact letter display.
    from agenthorizon.report.significance import leaderboard_significance, significance_table
    from agenthorizon.report.tables import render_table

    tested, left_out = leaderboard_significance(board, bootstrap=200, seed=0)
    print(render_table(significance_table(tested, left_out=left_out), "markdown"))
    print("tied with the best:", ", ".join(tested.tied_with_best))
