"""Do two item sets rank the judges alike? Spearman's rho and Kendall's tau-b, with a bootstrap interval.

:func:`rank_agreement` is the entry point. Ties are handled as scipy handles
them (average ranks, tau-b).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from agenthorizon.scoring.bootstrap import percentile_interval, resampled_sums

__all__ = ["average_ranks", "kendall_tau_b", "rank_agreement", "spearman_rho"]


def average_ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks 1..n of ``values``, tied values sharing the mean of their ranks.

    >>> average_ranks([0.5, 0.9, 0.5, 0.1]).tolist()
    [2.5, 4.0, 2.5, 1.0]
    """
    values = np.asarray(values, dtype=float)
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    return (np.cumsum(counts) - (counts - 1) / 2)[inverse.reshape(-1)]


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation: Pearson's correlation of the average ranks.

    Range [-1, 1]: 1 when both orders agree, -1 when one reverses the
    other. ``None`` when fewer than two values are given or either side is
    constant (its ranks have no spread).

    >>> spearman_rho([0.6, 0.7, 0.8], [0.55, 0.9, 0.95])
    1.0
    >>> spearman_rho([0.6, 0.7, 0.8], [0.9, 0.8, 0.7])
    -1.0
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size != y.size:
        raise ValueError(f"rank correlation needs paired values, got {x.size} and {y.size}")
    if x.size < 2:
        return None
    rx, ry = average_ranks(x) - (x.size + 1) / 2, average_ranks(y) - (y.size + 1) / 2
    denominator = np.sqrt((rx * rx).sum() * (ry * ry).sum())
    return None if denominator == 0 else float(np.clip((rx * ry).sum() / denominator, -1.0, 1.0))


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b: (concordant - discordant pairs) / sqrt((n0 - ties in x) * (n0 - ties in y)).

    n0 = n(n-1)/2 pairs of judges; a pair tied in x (or y) counts as
    neither concordant nor discordant and leaves that side's term. Range
    [-1, 1]; ``None`` when fewer than two values are given or either side
    is constant.

    >>> kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4])
    0.6666666666666666
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size != y.size:
        raise ValueError(f"rank correlation needs paired values, got {x.size} and {y.size}")
    if x.size < 2:
        return None
    upper = np.triu_indices(x.size, k=1)
    dx = np.sign(x[:, None] - x[None, :])[upper]
    dy = np.sign(y[:, None] - y[None, :])[upper]
    n0 = dx.size
    denominator = np.sqrt(float(n0 - (dx == 0).sum()) * float(n0 - (dy == 0).sum()))
    return None if denominator == 0 else float((dx * dy).sum() / denominator)


def _balanced(sums: np.ndarray, offset: int) -> np.ndarray:
    # Columns from offset: positives, negatives, correct positives, correct negatives.
    with np.errstate(invalid="ignore", divide="ignore"):
        positive = np.where(sums[:, offset] > 0, sums[:, offset + 2] / np.maximum(sums[:, offset], 1), np.nan)
        negative = np.where(sums[:, offset + 1] > 0, sums[:, offset + 3] / np.maximum(sums[:, offset + 1], 1), np.nan)
    return 0.5 * (positive + negative)


def rank_agreement(
    positive: np.ndarray,
    corrects: Sequence[np.ndarray],
    clusters: np.ndarray,
    in_a: np.ndarray,
    in_b: np.ndarray,
    *,
    n_resamples: int = 0,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, Any]:
    """Rank agreement of judges between item sets A and B (boolean masks ``in_a``, ``in_b``; they may overlap).

    ``corrects`` holds per judge per item whether the prediction is valid and
    right; ``clusters`` the pair groups, each resample drawing them whole
    over A and B. Returns ``balanced_a`` /
    ``balanced_b`` per judge, ``spearman_rho`` and ``kendall_tau`` (in [-1, 1] or
    ``None``) and ``intervals`` (``(low, high)`` or ``None``; resamples where a
    coefficient is undefined are left out).

    >>> positive = np.array([True, False] * 4)
    >>> in_a = np.arange(8) < 4
    >>> corrects = [np.ones(8, bool), np.array([1, 0, 1, 1, 1, 0, 1, 1], bool), np.zeros(8, bool)]
    >>> result = rank_agreement(positive, corrects, np.arange(8) // 2, in_a, ~in_a)
    >>> result["balanced_a"], result["spearman_rho"], result["kendall_tau"]
    ([1.0, 0.75, 0.0], 1.0, 1.0)
    """
    positive = np.asarray(positive, dtype=bool)
    columns: list[np.ndarray] = []
    for mask in (np.asarray(in_a, dtype=bool), np.asarray(in_b, dtype=bool)):
        for correct in corrects:
            correct = np.asarray(correct, dtype=bool)
            columns += [mask & positive, mask & ~positive, mask & positive & correct, mask & ~positive & correct]
    n_judges = len(corrects)
    whole = np.array([[int(column.sum()) for column in columns]])

    def coefficients(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a = np.stack([_balanced(sums, 4 * j) for j in range(n_judges)], axis=1)
        b = np.stack([_balanced(sums, 4 * (n_judges + j)) for j in range(n_judges)], axis=1)
        return a, b

    a, b = coefficients(whole)
    balanced_a = [None if np.isnan(v) else float(v) for v in a[0]]
    balanced_b = [None if np.isnan(v) else float(v) for v in b[0]]
    defined = not any(v is None for v in balanced_a + balanced_b)
    result: dict[str, Any] = {
        "n_judges": n_judges,
        "balanced_a": balanced_a,
        "balanced_b": balanced_b,
        "spearman_rho": spearman_rho(a[0], b[0]) if defined else None,
        "kendall_tau": kendall_tau_b(a[0], b[0]) if defined else None,
        "intervals": None,
    }
    if n_resamples and n_judges:
        a, b = coefficients(resampled_sums(clusters, columns, n_resamples, seed))
        rhos, taus = np.full(n_resamples, np.nan), np.full(n_resamples, np.nan)
        for r in range(n_resamples):
            if not (np.isnan(a[r]).any() or np.isnan(b[r]).any()):
                rho, tau = spearman_rho(a[r], b[r]), kendall_tau_b(a[r], b[r])
                rhos[r] = np.nan if rho is None else rho
                taus[r] = np.nan if tau is None else tau
        result["intervals"] = {
            "spearman_rho": percentile_interval(rhos, level),
            "kendall_tau": percentile_interval(taus, level),
        }
    return result
