"""Benchmark: flip rates and evidence summaries over 66 runs of 1,373 items, 2,000 pair-clustered resamples.

Synthetic release-shaped items (425 pair groups of 2-4 items): 66 runs of
verdicts scored as ``flip_rate`` against one base run, and 66 runs' evidence
(each item viewing a random subset of its screenshots) as
``evidence_summary``. Each is timed against a numpy floor written for the
same quantity in the same run: the same resample stream drawn in one
``Generator.integers`` call, one ``bincount`` per resample block and one
integer product with the per-cluster sums, plus the percentiles -- no
per-item Python. Reported as ratios (the issue asks for at most 3x).

Run:
    .venv/bin/python benchmarks/bench_robustness.py
"""

from __future__ import annotations

import time

import numpy as np

from agenthorizon.scoring.evidence import ItemEvidence, evidence_summary
from agenthorizon.scoring.flips import flip_rate
from agenthorizon.scoring.outcomes import item_outcomes

N_RUNS, RESAMPLES, N_GROUPS = 66, 2000, 425


def release_shaped(rng):
    labels, groups = [], []
    for group in range(N_GROUPS):
        for label in ["negative", "negative"] + ["positive"] * int(rng.integers(1, 3)):
            labels.append(label)
            groups.append(f"g{group}")
    extra = 1373 - len(labels)
    labels, groups = labels[:1373] if extra < 0 else labels, groups[:1373] if extra < 0 else groups
    return [{"trajectory_id": f"{i:08d}-0000-4000-8000-000000000000", "label": label, "mistake_type": "",
             "pair_group_id": group} for i, (label, group) in enumerate(zip(labels, groups))]


def floor_ratio_intervals(codes, columns, n_clusters):
    """The least numpy work for the intervals of ratios of Boolean columns: one draw, one bincount, one product."""
    draws = np.random.default_rng(0).integers(0, n_clusters, size=(RESAMPLES, n_clusters), dtype=np.int32)
    counts = np.bincount((draws + np.arange(RESAMPLES)[:, None] * n_clusters).ravel(),
                         minlength=RESAMPLES * n_clusters).reshape(RESAMPLES, n_clusters)
    sums = np.stack([np.bincount(codes[c], minlength=n_clusters) for c in columns], axis=1)
    totals = counts @ sums
    return np.percentile(totals[:, 1:] / np.maximum(totals[:, :1], 1), [2.5, 97.5], axis=0)


def main():
    rng = np.random.default_rng(0)
    refs = release_shaped(rng)
    n = len(refs)
    codes = np.unique([r["pair_group_id"] for r in refs], return_inverse=True)[1]
    base = item_outcomes([bool(x) for x in rng.random(n) < 0.6], refs)
    runs = [item_outcomes([None if x < 0.03 else bool(x < 0.6) for x in rng.random(n)], refs) for _ in range(N_RUNS)]

    start = time.perf_counter()
    for run in runs:
        flip_rate(base, run, bootstrap=RESAMPLES, seed=0)
    ours = time.perf_counter() - start
    start = time.perf_counter()
    for run in runs:
        flipped = (base.valid != run.valid) | (base.predicted_success != run.predicted_success)
        floor_ratio_intervals(codes, [np.ones(n, bool), flipped, base.correct, run.correct], N_GROUPS)
    floor = time.perf_counter() - start
    print(f"flip_rate: {N_RUNS} runs x {n} items, {RESAMPLES} resamples: {ours:.2f} s; numpy floor {floor:.2f} s; "
          f"ratio {ours / floor:.2f}x")

    steps = rng.integers(10, 300, n)
    evidence_runs = []
    for _ in range(N_RUNS):
        evidence_runs.append([ItemEvidence({int(s): 1 for s in rng.choice(k, size=int(rng.integers(0, k // 3 + 1)),
                                                                            replace=False)}) for k in steps])
    correct = [run.correct for run in runs]
    groups = [r["pair_group_id"] for r in refs]
    start = time.perf_counter()
    for evidence, right in zip(evidence_runs, correct):
        evidence_summary(evidence, steps, right, groups, bootstrap=RESAMPLES, seed=0)
    ours = time.perf_counter() - start
    start = time.perf_counter()
    for evidence, right in zip(evidence_runs, correct):
        viewed = [np.fromiter(e.screenshots, dtype=np.int64) for e in evidence]  # the records' steps, read once
        fraction = np.array([len(v) for v in viewed]) / steps
        edges = np.digitize(fraction, [0, 0.25, 0.5, 0.75], right=True)
        bins = [edges == b for b in range(5)]
        floor_ratio_intervals(codes, [np.ones(n, bool), *(b & right for b in bins)], N_GROUPS)
        for b in bins:
            floor_ratio_intervals(codes, [b, b & right], N_GROUPS)
    floor = time.perf_counter() - start
    print(f"evidence_summary: {N_RUNS} runs x {n} items, {RESAMPLES} resamples: {ours:.2f} s; numpy floor "
          f"{floor:.2f} s; ratio {ours / floor:.2f}x")


if __name__ == "__main__":
    main()
