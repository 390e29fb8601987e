"""Re-partitioning by difficulty: which items a pool of judges finds hard.

The release puts an item in AH (hard) when at most 18 of 24 pooled judgments
are correct, else AH-S. :func:`difficulty_partition` redoes this for a pool of
one's own, :func:`partition_agreement` compares with the shipped split.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

__all__ = ["difficulty_partition", "partition_agreement"]


def difficulty_partition(corrects: Sequence[np.ndarray], threshold: int) -> tuple[np.ndarray, np.ndarray]:
    """Per item, how many runs judged it correctly (in [0, runs]), and whether that is at most ``threshold`` (hard).

    ``corrects`` holds per run per item whether the prediction is valid and
    right; an item without a valid verdict is not correct for that run.

    >>> runs = [np.array([True, True, False]), np.array([True, False, False])]
    >>> n_correct, hard = difficulty_partition(runs, threshold=1)
    >>> n_correct.tolist(), hard.tolist()
    ([2, 1, 0], [False, True, True])
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, np.integer)) or threshold < 0:
        raise ValueError(f"threshold must be an integer >= 0 (at most that many correct runs is hard), got {threshold!r}")
    if not corrects:
        raise ValueError("no runs given; expected the correctness of one or more runs")
    matrix = np.stack([np.asarray(correct, dtype=bool) for correct in corrects])
    n_correct = matrix.sum(axis=0).astype(np.int64)
    return n_correct, n_correct <= threshold


def partition_agreement(hard: np.ndarray, shipped_hard: np.ndarray) -> dict[str, Any]:
    """How a new hard/easy split agrees with the shipped one (AH hard, AH-S easy).

    Returns ``n`` (items), ``agreement`` (share of items on the same side,
    in [0, 1]), ``hard_both``, ``easy_both``, ``hard_to_easy`` (shipped hard,
    new easy) and ``easy_to_hard``, and ``cohen_kappa``: agreement beyond
    what the two sides' sizes give by chance, in [-1, 1] (``None`` when
    both splits put every item on one side).

    >>> partition_agreement(np.array([True, True, False, False]), np.array([True, False, False, False]))["agreement"]
    0.75
    """
    hard = np.asarray(hard, dtype=bool)
    shipped = np.asarray(shipped_hard, dtype=bool)
    if hard.shape != shipped.shape:
        raise ValueError(f"splits of different lengths: {hard.size} and {shipped.size}")
    n = int(hard.size)
    same = int((hard == shipped).sum())
    observed = same / n if n else None
    expected = (hard.mean() * shipped.mean() + (1 - hard.mean()) * (1 - shipped.mean())) if n else None
    kappa = None
    if n and expected is not None and expected < 1:
        kappa = float((observed - expected) / (1 - expected))
    return {
        "n": n,
        "agreement": observed,
        "cohen_kappa": kappa,
        "hard_both": int((hard & shipped).sum()),
        "easy_both": int((~hard & ~shipped).sum()),
        "hard_to_easy": int((shipped & ~hard).sum()),
        "easy_to_hard": int((~shipped & hard).sum()),
    }
