"""Pair-clustered bootstrap percentile intervals and the exact McNemar test.

Items of one pair group share recordings, so every interval resamples whole
pair groups with replacement. Each resample is a vector of cluster counts;
per-resample statistics are one matrix product with per-cluster sums.
A leaf: numpy and the standard library only.
"""

from __future__ import annotations

import math
from typing import Any, Iterator, Sequence

import numpy as np

__all__ = [
    "bootstrap_accuracies",
    "check_bootstrap",
    "cluster_codes",
    "mcnemar_exact",
    "paired_balanced_accuracies",
    "percentile_interval",
    "resample_cluster_counts",
    "resampled_sums",
    "resampled_totals",
]

# Resamples per chunk: small enough to stay in the CPU cache. Even, so that every chunk
# but the last consumes whole 64-bit words of the generator: the draws are then the
# same stream as one single draw of all resamples.
_CHUNK = 200


def check_bootstrap(n_resamples: Any) -> int:
    """``n_resamples`` as an int when it is a non-negative integer, else ``ValueError``.

    >>> check_bootstrap(1000)
    1000
    >>> check_bootstrap(-1)
    Traceback (most recent call last):
    ...
    ValueError: bootstrap must be a non-negative integer number of resamples, got -1
    """
    if not isinstance(n_resamples, (int, np.integer)) or isinstance(n_resamples, bool) or n_resamples < 0:
        raise ValueError(f"bootstrap must be a non-negative integer number of resamples, got {n_resamples!r}")
    return int(n_resamples)


def cluster_codes(cluster_ids: Sequence[Any]) -> np.ndarray:
    """Integer codes 0..G-1 for cluster labels, in order of first appearance.

    >>> cluster_codes(["g2", "g1", "g2"]).tolist()
    [0, 1, 0]
    """
    codes: dict[Any, int] = {}
    return np.fromiter((codes.setdefault(cid, len(codes)) for cid in cluster_ids), dtype=np.int64, count=len(cluster_ids))


def resample_cluster_counts(n_clusters: int, n_resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Yield bootstrap resamples as cluster-count matrices, in chunks.

    Each yielded array has shape ``(chunk, n_clusters)``; entry ``[r, g]`` is
    how many times cluster ``g`` was drawn in resample ``r`` (each resample
    draws ``n_clusters`` clusters with replacement). Chunks together hold
    ``n_resamples`` rows, those of one
    ``default_rng(seed).integers(0, n_clusters, (n_resamples, n_clusters), dtype=int32)``
    draw whatever the chunk size.

    >>> counts = np.vstack(list(resample_cluster_counts(5, 3, seed=0)))
    >>> counts.shape, counts.sum(axis=1).tolist()
    ((3, 5), [5, 5, 5])
    """
    if n_clusters < 1:
        raise ValueError("cannot bootstrap zero clusters")
    rng = np.random.default_rng(seed)
    # int64 only when a chunk's flat index needs it; 32-bit draws are faster.
    dtype = np.int32 if _CHUNK * n_clusters < 2**31 else np.int64
    # Offsetting each row's draws by row * n_clusters lets one bincount count every row.
    offsets = (np.arange(_CHUNK, dtype=dtype) * n_clusters)[:, None]
    done = 0
    while done < n_resamples:
        size = min(_CHUNK, n_resamples - done)
        draws = rng.integers(0, n_clusters, size=(size, n_clusters), dtype=dtype)
        draws += offsets[:size]
        yield np.bincount(draws.ravel(), minlength=size * n_clusters).reshape(size, n_clusters)
        done += size


def _cluster_sums(clusters: np.ndarray, columns: Sequence[np.ndarray]) -> np.ndarray:
    """Per-cluster counts of each Boolean column: shape (n_clusters, len(columns)), int64."""
    n_clusters = int(clusters.max()) + 1
    return np.stack(
        [np.bincount(clusters[np.asarray(column, dtype=bool)], minlength=n_clusters) for column in columns],
        axis=1,
    )


def resampled_totals(totals: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """Per-cluster totals summed over each resample of clusters.

    ``totals`` has shape (n_clusters, k), integer (summed exactly) or float
    (amounts such as costs); row r of the result (n_resamples, k) sums each
    column over the clusters of resample r, with multiplicity.

    >>> resampled_totals(np.ones((4, 1), dtype=np.int64), 3, seed=0)[:, 0].tolist()
    [4, 4, 4]
    """
    totals = np.asarray(totals)
    totals = totals.astype(np.float64 if totals.dtype.kind == "f" else np.int64, copy=False)
    # Integer counts times integer totals: exact, and no mixed int/float product to cast.
    result = np.empty((n_resamples, totals.shape[1]), dtype=totals.dtype)
    done = 0
    for counts in resample_cluster_counts(totals.shape[0], n_resamples, seed):
        np.dot(counts.astype(totals.dtype, copy=False), totals, out=result[done : done + len(counts)])
        done += len(counts)
    return result


def resampled_sums(clusters: np.ndarray, columns: Sequence[np.ndarray], n_resamples: int, seed: int) -> np.ndarray:
    """Counts of each Boolean column in each resample: shape (n_resamples, len(columns))."""
    clusters = cluster_codes(np.asarray(clusters).tolist())
    return resampled_totals(_cluster_sums(clusters, columns), n_resamples, seed)


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float] | None:
    """Central percentile interval of bootstrap ``samples`` at coverage ``level``.

    Resamples where the statistic is undefined (NaN, e.g. no positive drawn)
    are left out; ``None`` when none is defined.

    >>> percentile_interval(np.arange(101.0), level=0.9)
    (5.0, 95.0)
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    samples = np.asarray(samples, dtype=float)
    samples = samples[~np.isnan(samples)]
    if samples.size == 0:
        return None
    # Rounded so that level=0.9 asks for the 5th percentile, not 4.999...th.
    tail = round(50 * (1 - level), 12)
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan)


def bootstrap_accuracies(
    positive: np.ndarray,
    correct: np.ndarray,
    clusters: np.ndarray,
    *,
    n_resamples: int,
    seed: int = 0,
    level: float = 0.95,
    ratios: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> dict[str, tuple[float, float] | None]:
    """Pair-clustered percentile intervals of balanced, positive and negative accuracy and of other ratios.

    Parameters
    ----------
    positive : array of bool
        Per item: the reference label is positive.
    correct : array of bool
        Per item: the prediction is valid and right (invalid = incorrect).
    clusters : array
        Per item: its cluster (pair group); whole clusters are resampled.
    n_resamples, seed : int
        Number of resamples; equal seeds give equal intervals.
    level : float
        Coverage of the intervals, in (0, 1).
    ratios : dict of str to (array of int, array of int), optional
        Name -> per-cluster numerator and denominator (clusters coded as
        :func:`cluster_codes` codes ``clusters``), given intervals from the
        same resamples.

    Returns
    -------
    dict
        ``balanced_accuracy``, ``positive_accuracy``, ``negative_accuracy``
        (and each name of ``ratios``) -> ``(low, high)``, or ``None`` when no
        resample defines the statistic.

    Examples
    --------
    >>> positive = np.array([True, False] * 50)
    >>> correct = np.arange(100) % 4 != 0
    >>> intervals = bootstrap_accuracies(positive, correct, np.arange(100) // 2, n_resamples=2000, seed=1)
    >>> low, high = intervals["balanced_accuracy"]
    >>> bool(low < 0.75 < high)
    True
    """
    positive = np.asarray(positive, dtype=bool)
    correct = np.asarray(correct, dtype=bool)
    codes = cluster_codes(np.asarray(clusters).tolist())
    columns = [_cluster_sums(codes, [positive, positive & correct, ~positive, ~positive & correct])]
    names = list(ratios or {})
    for name in names:  # resampled in the same product: one draw of the clusters serves every interval
        columns += [np.asarray(part, dtype=np.int64)[:, None] for part in ratios[name]]
    sums = resampled_totals(np.concatenate(columns, axis=1), n_resamples, seed)
    positive_accuracy = _divide(sums[:, 1], sums[:, 0])
    negative_accuracy = _divide(sums[:, 3], sums[:, 2])
    balanced = 0.5 * (positive_accuracy + negative_accuracy)
    intervals = {
        "balanced_accuracy": percentile_interval(balanced, level),
        "positive_accuracy": percentile_interval(positive_accuracy, level),
        "negative_accuracy": percentile_interval(negative_accuracy, level),
    }
    for i, name in enumerate(names):
        intervals[name] = percentile_interval(_divide(sums[:, 4 + 2 * i], sums[:, 5 + 2 * i]), level)
    return intervals


def mcnemar_exact(a_correct: np.ndarray, b_correct: np.ndarray) -> tuple[int, int, float]:
    """Exact McNemar test on paired per-item correctness.

    ``n_a`` items where only judge A is right, ``n_b`` where only B is.
    Under the null hypothesis (equally accurate judges)
    ``n_a ~ Binomial(n_a + n_b, 1/2)``; the two-sided p-value is
    ``min(1, 2 * P(X <= min(n_a, n_b)))``, computed exactly.

    Returns ``(n_a, n_b, p_value)``; ``p_value`` is in (0, 1], 1 when there are
    no discordant items.

    >>> a = np.array([True] * 9 + [False] * 1)
    >>> b = np.array([False] * 8 + [True] * 2)
    >>> mcnemar_exact(a, b)
    (8, 1, 0.0390625)
    """
    a_correct = np.asarray(a_correct, dtype=bool)
    b_correct = np.asarray(b_correct, dtype=bool)
    if a_correct.shape != b_correct.shape:
        raise ValueError(f"paired correctness needs equal lengths, got {a_correct.size} and {b_correct.size}")
    n_a = int((a_correct & ~b_correct).sum())
    n_b = int((~a_correct & b_correct).sum())
    n = n_a + n_b
    if n == 0:
        return n_a, n_b, 1.0
    tail = sum(math.comb(n, k) for k in range(min(n_a, n_b) + 1))
    # A Fraction, rounded once: 2**-n underflows floats at the full release's item counts.
    from fractions import Fraction  # here: only the sign test needs it, and `score` starts without it

    return n_a, n_b, float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def paired_balanced_accuracies(
    positive: np.ndarray, corrects: Sequence[np.ndarray], clusters: np.ndarray, *, n_resamples: int, seed: int = 0
) -> np.ndarray:
    """Balanced accuracy of several judges on the *same* pair-clustered resamples.

    Paired draws make the spread of a difference between judges reflect their correlation.

    Parameters
    ----------
    positive : array of bool
        Per item: the reference label is positive.
    corrects : sequence of array of bool
        Per judge, per item: its prediction is valid and right.
    clusters : array
        Per item: its cluster (pair group).
    n_resamples, seed : int
        Number of resamples and their seed.

    Returns
    -------
    ndarray of float, shape (n_resamples, len(corrects))
        NaN where a resample holds no positive or no negative.

    Examples
    --------
    A judge right on the positives only (0.5 on every draw) against one
    right everywhere (1.0):

    >>> positive = np.array([True, False] * 10)
    >>> both = paired_balanced_accuracies(positive, [positive, np.ones(20, bool)], np.arange(20), n_resamples=50)
    >>> both.shape, set(both[:, 0].tolist()), set(both[:, 1].tolist())
    ((50, 2), {0.5}, {1.0})
    """
    positive = np.asarray(positive, dtype=bool)
    columns: list[np.ndarray] = [positive, ~positive]
    for correct in corrects:
        correct = np.asarray(correct, dtype=bool)
        columns += [positive & correct, ~positive & correct]
    sums = resampled_sums(clusters, columns, n_resamples, seed)
    return np.stack(
        [
            0.5 * (_divide(sums[:, 2 + 2 * i], sums[:, 0]) + _divide(sums[:, 3 + 2 * i], sums[:, 1]))
            for i in range(len(corrects))
        ],
        axis=1,
    )
