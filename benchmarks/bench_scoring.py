"""Benchmark: strict scoring with a 10,000-resample pair-clustered bootstrap.

Scores a synthetic release-sized set (1,373 items = 523 positives + 850
negatives in 425 pair groups of 2-4 items, with some invalid predictions)
and reports times as ratios to one plain ``score`` call measured in the same
run, plus the absolute times for context.

The bootstrap's floor, measured in the same run: one plain ``score`` plus the
least numpy work that gives the same intervals -- every resample's cluster
indices in one ``Generator.integers`` call (the same stream ``score`` draws),
one offset add, one ``bincount``, one integer product with the per-cluster
counts (of the accuracies and of the paired scores), and the eight
percentile intervals -- with no chunking and no Python per chunk. ``score(bootstrap=10000)`` must stay within 1.5x of it.

The references are what users pass: with ``--root`` (the documented run),
the ``all`` config of a release root from ``agenthorizon.load_dataset`` (a
``datasets.Dataset`` with release-shaped ids and pair groups; the ``full``
sample preset has the release's 1,373 items), and predictions keyed by
trajectory id, as a run's results are. Without ``--root``, a synthetic set of
label rows of the same shape (no ids, predictions in order).

Run:
    .venv/bin/agenthorizon sample /tmp/ah-full --preset full --image-size 160x100
    .venv/bin/python benchmarks/bench_scoring.py --root /tmp/ah-full
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from agenthorizon.schema import MISTAKE_TYPES
from agenthorizon.scoring.metrics import score
from agenthorizon.scoring.compare import compare

N_POSITIVES, N_NEGATIVES, N_GROUPS = 523, 850, 425
RESAMPLES = 10_000
REPEATS = 5


def synthetic_release(seed: int = 0):
    """Rows shaped like the release: every group has its 2 negatives, plus 0-2 positives."""
    rng = np.random.default_rng(seed)
    rows = []
    positives_left = N_POSITIVES
    for group in range(N_GROUPS):
        n_pos = 2 if group < N_POSITIVES - N_GROUPS else 1 if positives_left > 0 else 0
        n_pos = min(n_pos, positives_left)
        positives_left -= n_pos
        for _ in range(n_pos):
            rows.append({"label": "positive", "mistake_type": "", "pair_group_id": f"g{group}"})
        for _ in range(2):
            rows.append({"label": "negative", "mistake_type": MISTAKE_TYPES[rng.integers(3)], "pair_group_id": f"g{group}"})
    assert positives_left == 0 and len(rows) == N_POSITIVES + N_NEGATIVES
    return rows


def release_rows(root: str):
    """The ``all`` config of the release at ``root``, as ``load_dataset`` gives it (no screenshots read)."""
    from agenthorizon import load_dataset

    return load_dataset(root, "all", split="test")


def predictions_for(rows, seed: int):
    """Per-item predictions, 3% of them invalid: a list in row order, or for a Dataset a mapping id -> prediction."""
    rng = np.random.default_rng(seed)
    keyed = not isinstance(rows, list)
    if keyed:
        rows = rows.select_columns(["trajectory_id", "label", "mistake_type"]).to_list()
    out = []
    for row in rows:
        draw = rng.random()
        if draw < 0.03:
            out.append(None if draw < 0.01 else '{"success": "true"}')
        else:
            right = rng.random() < (0.75 if row["label"] == "positive" else 0.85)
            out.append({"success": right == (row["label"] == "positive"), "mistake_type": row["mistake_type"] or None})
    return dict(zip((row["trajectory_id"] for row in rows), out)) if keyed else out


def numpy_floor(rows, predictions, resamples: int, seed: int = 0) -> dict:
    """The bootstrap's arithmetic done in one shot with numpy (the floor), from the same per-item outcomes."""
    from agenthorizon.scoring.bootstrap import cluster_codes, percentile_interval
    from agenthorizon.scoring.metrics import item_outcomes
    from agenthorizon.scoring.paired import paired_scores

    outcomes = item_outcomes(predictions, rows)
    positive, correct = outcomes.positive, outcomes.correct
    clusters = cluster_codes(np.asarray(outcomes.clusters).tolist())
    n_clusters = int(clusters.max()) + 1
    columns = [positive, positive & correct, ~positive, ~positive & correct]
    sums = np.stack([np.bincount(clusters[c], minlength=n_clusters) for c in columns], axis=1)
    # The paired scores' per-cluster counts (computed by plain score too) join the same product.
    ratios = paired_scores(outcomes)[1]
    sums = np.concatenate([sums, *(np.stack(ratio, axis=1) for ratio in ratios.values())], axis=1)
    draws = np.random.default_rng(seed).integers(0, n_clusters, size=(resamples, n_clusters), dtype=np.int32)
    draws += (np.arange(resamples, dtype=np.int32) * n_clusters)[:, None]
    counts = np.bincount(draws.ravel(), minlength=resamples * n_clusters).reshape(resamples, n_clusters)
    totals = counts @ sums
    with np.errstate(invalid="ignore", divide="ignore"):
        pos = totals[:, 1] / totals[:, 0]
        neg = totals[:, 3] / totals[:, 2]
        others = {name: totals[:, 4 + 2 * i] / totals[:, 5 + 2 * i] for i, name in enumerate(ratios)}
    return {
        "balanced_accuracy": percentile_interval(0.5 * (pos + neg)),
        "positive_accuracy": percentile_interval(pos),
        "negative_accuracy": percentile_interval(neg),
        **{name: percentile_interval(np.where(np.isfinite(value), value, np.nan)) for name, value in others.items()},
    }


def best_of(function, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", help="a release root: score against its `all` config from load_dataset")
    args = parser.parse_args()
    rows = release_rows(args.root) if args.root else synthetic_release()
    a, b = predictions_for(rows, 1), predictions_for(rows, 2)
    score(a, rows)  # warm up imports and caches
    plain, plain_median = best_of(lambda: score(a, rows))
    boot, boot_median = best_of(lambda: score(a, rows, bootstrap=RESAMPLES, seed=0))
    floor_only, floor_median = best_of(lambda: numpy_floor(rows, a, RESAMPLES))
    # the floor gives the very intervals score reports (same draws, same arithmetic)
    report = score(a, rows, bootstrap=RESAMPLES, seed=0)
    assert numpy_floor(rows, a, RESAMPLES) == report.intervals, report.intervals
    floor = plain + floor_only
    paired, paired_median = best_of(lambda: compare(a, b, rows, bootstrap=RESAMPLES, seed=0))
    groups = len(set(rows["pair_group_id"] if args.root else (row["pair_group_id"] for row in rows)))
    source = f"load_dataset({args.root!r}, 'all'), predictions keyed by id" if args.root else "synthetic rows"
    print(f"{source}; items: {len(rows)}  pair groups: {groups}  resamples: {RESAMPLES}  (best of {REPEATS})")
    print(f"plain score                 : {plain * 1e3:8.1f} ms  (median {plain_median * 1e3:.1f})  ratio 1.0")
    print(f"score, bootstrap={RESAMPLES}    : {boot * 1e3:8.1f} ms  (median {boot_median * 1e3:.1f})  ratio {boot / plain:.1f}")
    print(f"numpy floor: plain score + one-shot bootstrap arithmetic: {floor * 1e3:8.1f} ms  "
          f"(bootstrap part {floor_only * 1e3:.1f} ms, median {floor_median * 1e3:.1f}); "
          f"score(bootstrap) / floor: {boot / floor:.2f}")
    print(f"compare, bootstrap={RESAMPLES}  : {paired * 1e3:8.1f} ms  (median {paired_median * 1e3:.1f})  ratio {paired / plain:.1f}")


if __name__ == "__main__":
    main()
