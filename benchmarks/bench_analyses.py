"""Benchmark: the issue-34 analyses over 66 runs x 1,373 items with 2,000 bootstrap resamples, against numpy floors.

Each analysis is timed beside a numpy floor written here for the same
quantity (the least numpy that gives the same numbers: one-hot matrix
products for every pair's kappa, one vectorised threshold for the majority,
every resample's Newton steps in one array for the length curve, every
subset's balanced accuracies in one product for the robustness), and the
bench asserts each floor gives the library's numbers. Ratios are the claims
(target: each within 3x of its floor); best of 5, all in one run.

Run:
    .venv/bin/python benchmarks/bench_analyses.py
"""

from __future__ import annotations

import time

import numpy as np

from agenthorizon.scoring.agreement import agreement, agreement_of_codes, majority_vote
from agenthorizon.scoring.bootstrap import resample_cluster_counts
from agenthorizon.scoring.length_curve import length_curve
from agenthorizon.scoring.metrics import score
from agenthorizon.scoring.partition_robustness import partition_robustness
from agenthorizon.scoring.ranking import average_ranks

N_RUNS, N_ITEMS, N_GROUPS, RESAMPLES, REPEATS = 66, 1373, 424, 2000, 5


def data(seed: int = 0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(N_GROUPS), np.diff(np.linspace(0, N_ITEMS, N_GROUPS + 1).astype(int)))  # 3-4 a group
    positive = rng.random(N_ITEMS) < 523 / 1373
    steps = rng.integers(8, 358, N_ITEMS)
    skill = rng.uniform(0.55, 0.9, N_RUNS)
    hardness = rng.normal(0, 1, N_ITEMS)
    p = 1 / (1 + np.exp(-(np.log(skill / (1 - skill))[:, None] - hardness[None, :] - 0.002 * (steps - 121))))
    correct = rng.random((N_RUNS, N_ITEMS)) < p
    invalid = rng.random((N_RUNS, N_ITEMS)) < 0.02
    said = np.where(correct, positive, ~positive)
    codes = np.where(invalid, 2, np.where(said, 0, 1))
    rows = [{"label": "positive" if pos else "negative", "mistake_type": "", "pair_group_id": f"g{g}",
             "trajectory_id": f"t{i}", "num_steps": int(s)} for i, (pos, g, s) in enumerate(zip(positive, groups, steps))]
    predictions = [[None if c == 2 else bool(c == 0) for c in run] for run in codes]
    return rows, predictions, codes, positive, groups, steps


def best(fn, repeats=REPEATS):
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def floor_kappas(codes):
    onehot = np.stack([codes == c for c in range(3)], axis=2).astype(float)  # items x runs x 3
    flat = onehot.reshape(codes.shape[0], -1)
    gram = (flat.T @ flat).reshape(codes.shape[1], 3, codes.shape[1], 3)
    observed = np.einsum("icjc->ij", gram) / codes.shape[0]
    shares = onehot.mean(axis=0)
    expected = shares @ shares.T
    return (observed - expected) / (1 - expected)


def floor_majority(codes):
    half = codes.shape[1] / 2
    return np.where((codes == 0).sum(1) > half, 0, np.where((codes == 1).sum(1) > half, 1, 2))


def floor_length_band(steps, correct, groups):
    x = (steps - steps.mean()) / steps.std()
    draws = np.concatenate(list(resample_cluster_counts(N_GROUPS, RESAMPLES, 0)))[:, groups].astype(float)
    beta = np.zeros((RESAMPLES, 2))
    for _ in range(8):  # Newton from 0 converges in well under 8 steps here
        p = 1 / (1 + np.exp(-(beta[:, :1] + beta[:, 1:] * x)))
        r, w = draws * (correct - p), draws * p * (1 - p)
        g = np.stack([r.sum(1), r @ x], 1)
        h00, h01, h11 = w.sum(1), w @ x, w @ (x * x)
        det = h00 * h11 - h01 ** 2
        beta += np.stack([(h11 * g[:, 0] - h01 * g[:, 1]) / det, (h00 * g[:, 1] - h01 * g[:, 0]) / det], 1)
    return beta[:, 1] / steps.std()


def floor_robustness(correct, positive):
    n_correct = correct.sum(0)
    hard = n_correct[None, :] <= np.arange(N_RUNS)[:, None]  # K x items
    pos_hits = (hard & positive) @ correct.T.astype(np.int64)
    neg_hits = (hard & ~positive) @ correct.T.astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        bal = 0.5 * (pos_hits / (hard & positive).sum(1)[:, None] + neg_hits / (hard & ~positive).sum(1)[:, None])
    every = 0.5 * (correct[:, positive].mean(1) + correct[:, ~positive].mean(1))
    rx = average_ranks(every) - (N_RUNS + 1) / 2
    rhos = []
    for row in bal:
        if np.isnan(row).any():
            rhos.append(None)
            continue
        ry = average_ranks(row) - (N_RUNS + 1) / 2
        rhos.append(float((rx * ry).sum() / np.sqrt((rx * rx).sum() * (ry * ry).sum())))
    return rhos


def main() -> None:
    rows, predictions, codes, positive, groups, steps = data()
    matrix = codes.T  # items x runs
    runs = {f"r{i}": predictions[i] for i in range(N_RUNS)}
    correct = (codes != 2) & ((codes == 0) == positive[None, :])
    results = []

    names = list(runs)
    t_lib, found = best(lambda: agreement_of_codes(matrix, names, alpha=False))
    t_floor, kappas = best(lambda: floor_kappas(matrix))
    assert np.allclose([found.cohen_kappa[(f"r{i}", f"r{j}")] for i in range(N_RUNS) for j in range(i + 1, N_RUNS)],
                       kappas[np.triu_indices(N_RUNS, 1)])
    results.append(("agreement (2,145 Cohen's kappas, Fleiss, majority, flips)", t_lib, t_floor))
    t_lib, _ = best(lambda: agreement(runs, rows, alpha=False), 2)
    results.append(("agreement from 66 runs' predictions (validation included) [context]", t_lib, None))

    t_lib, votes = best(lambda: majority_vote(matrix))
    t_floor, floor_votes = best(lambda: floor_majority(matrix))
    assert [2 if v is None else 0 if v["success"] else 1 for v in votes] == floor_votes.tolist()
    results.append(("majority vote of 66 runs", t_lib, t_floor))

    t_lib, curve = best(lambda: length_curve(steps, correct[0], groups, n_resamples=RESAMPLES))
    t_floor, slopes = best(lambda: floor_length_band(steps, correct[0].astype(float), groups))
    low, high = np.percentile(slopes, [2.5, 97.5])
    assert np.allclose(curve.slope_interval, (low, high), rtol=1e-4, atol=1e-8)
    results.append(("length curve, 2,000 refits", t_lib, t_floor))

    pool = {f"r{i}": correct[i] for i in range(N_RUNS)}
    t_lib, (per_k, _) = best(lambda: partition_robustness(pool, pool, positive))
    t_floor, rhos = best(lambda: floor_robustness(correct, positive))
    assert all((a is None and b.rho is None) or (b.rho is not None and abs(a - b.rho) < 1e-9)
               for a, b in zip(rhos, per_k))
    results.append(("partition robustness, 66 thresholds x 66 judges", t_lib, t_floor))

    t_lib, report = best(lambda: score(predictions[0], rows, bootstrap=RESAMPLES), 3)
    results.append(("score of one run, bootstrap 2,000 (11 intervals) [context]", t_lib, None))

    print(f"{'analysis':<66} {'library':>10} {'floor':>10} {'ratio':>6}")
    for name, lib, floor in results:
        ratio = "" if floor is None else f"{lib / floor:.2f}"
        floor_text = "" if floor is None else f"{1000 * floor:.1f} ms"
        print(f"{name:<66} {1000 * lib:>7.1f} ms {floor_text:>10} {ratio:>6}")


if __name__ == "__main__":
    main()
