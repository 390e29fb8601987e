"""Beyond balanced accuracy: paired scores, rank agreement and a re-partition of your own.

Runs baseline judges on the whole release, then shows what the paired design
measures (does a judge read the instruction?), whether the judges rank the
same on AH and on AH-S, and how a pool of these runs would split the items
into hard and easy. Runs offline on a generated sample corpus, or on a
release you point to.

    python examples/paired_scores_and_partition.py
    AGENTHORIZON_DATA=/path/to/release python examples/paired_scores_and_partition.py
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import agenthorizon
from agenthorizon.report.partition import partition_runs, write_partition
from agenthorizon.report.ranking import rank_correlation

with tempfile.TemporaryDirectory() as tmp:
    root = os.environ.get("AGENTHORIZON_DATA")
    if root is None:
        root = agenthorizon.generate_sample(Path(tmp) / "release", preset="small", seed=0).root
    dataset = agenthorizon.load_dataset(root, "all", split="test", images=None)
    runs = []
    for spec in ("lexical", "constant:true", "random:1", "random:2"):
        out = Path(tmp) / "runs" / spec.replace(":", "-")
        agenthorizon.run_judge(spec, dataset, out, config="all", data_root=root, progress=False)
        runs.append(out)

    # Paired scores: a judge that accepts everything has balanced accuracy 0.5
    # and instruction sensitivity 0; a coin scores about 0.25.
    board = agenthorizon.leaderboard(runs, root, bootstrap=200, seed=0)
    for row in board:
        report = row.recall  # over all the judge's items
        print(f"{row.judge:14s} balanced AH {row.reports['AH'].balanced_accuracy:.3f}  "
              f"instruction sensitivity {report.instruction_sensitivity:.3f} ({report.n_instruction_pairs} pairs)  "
              f"pair-group accuracy {report.pair_group_accuracy:.3f}  "
              f"rejects Bad Side Effect {report.rejection_rate_by_type['Bad Side Effect']['rate']:.3f}")

    agreement = rank_correlation(board, ("AH", "AH-S"), data_root=root, bootstrap=200, seed=0)
    print(f"\nRanking AH vs AH-S: Spearman rho {agreement['spearman_rho']:.3f} "
          f"{agreement['intervals']['spearman_rho']}, Kendall tau-b {agreement['kendall_tau']:.3f}")

    # Hard = at most 1 of the 4 runs got the item right.
    partition = partition_runs(runs, root, threshold=1)
    written = write_partition(partition, root, Path(tmp) / "my-split")
    print(f"\nRe-partition: {written['hard']} hard, {written['easy']} easy; "
          f"agreement with the shipped AH / AH-S {partition.agreement['agreement']:.3f}")
    hard = agenthorizon.load_dataset(Path(tmp) / "my-split", "AH", split="test", images=None)
    print(f"load_dataset(my-split, 'AH'): {hard.num_rows} items")
