"""Is a difficulty partition robust? Re-partition per threshold and leaving one pool run out, rank the judges on each.

Each pool run is one rater; an item with at most K correct raters is hard
(the authors' "at least 7 of 8 runs correct is easy" is a pool of 8 at K = 6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from agenthorizon.scoring.partition import difficulty_partition
from agenthorizon.scoring.ranking import spearman_rho

__all__ = ["SubsetRanking", "balanced_accuracy", "partition_robustness"]


def balanced_accuracy(correct: np.ndarray, positive: np.ndarray) -> float | None:
    """0.5 × (accuracy on positives + accuracy on negatives), in [0, 1]; ``None`` when a class is absent.

    >>> balanced_accuracy(np.array([True, False, True, True]), np.array([True, True, False, False]))
    0.75
    """
    if not positive.any() or positive.all():
        return None
    return float(0.5 * (correct[positive].mean() + correct[~positive].mean()))


@dataclass(frozen=True)
class SubsetRanking:
    """One re-partition's hard subset and how the ranked judges fare on it.

    ``rho`` is Spearman's rank correlation of the judges' balanced accuracy on
    this subset with their balanced accuracy on ``reference`` (``all``: every
    item; ``pool``: the hard subset of the whole pool at the same rule);
    ``None`` when fewer than two judges have a defined accuracy on both.
    """

    rule: str
    """``K=3`` (at most K correct is hard), or ``without RUN`` (that pool run left out)."""
    threshold: int
    n_raters: int
    n_hard: int
    n_easy: int
    balanced_accuracy: dict[str, float | None]
    reference: str
    rho: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "threshold": self.threshold, "n_raters": self.n_raters, "n_hard": self.n_hard,
                "n_easy": self.n_easy, "balanced_accuracy": dict(self.balanced_accuracy), "reference": self.reference,
                "rho": self.rho}


def _rho(on_subset: dict[str, float | None], reference: dict[str, float | None]) -> float | None:
    names = [name for name in on_subset if on_subset[name] is not None and reference.get(name) is not None]
    return spearman_rho([on_subset[n] for n in names], [reference[n] for n in names]) if len(names) >= 2 else None


def _on_each(judges: dict[str, np.ndarray], positive: np.ndarray, subsets: np.ndarray) -> list[dict[str, float | None]]:
    """Every judge's balanced accuracy on every subset (rows of ``subsets``)."""
    # float64 products go through BLAS and are exact for counts below 2**53
    right = np.stack(list(judges.values()), axis=1).astype(np.float64)  # items x judges
    on_positives, on_negatives = subsets & positive, subsets & ~positive
    n_pos, n_neg = on_positives.sum(axis=1), on_negatives.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = 0.5 * ((on_positives.astype(np.float64) @ right) / n_pos[:, None]
                        + (on_negatives.astype(np.float64) @ right) / n_neg[:, None])
    names = list(judges)
    return [{name: None if not (n_pos[s] and n_neg[s]) else float(values[s, j]) for j, name in enumerate(names)}
            for s in range(subsets.shape[0])]


def _on(judges: dict[str, np.ndarray], positive: np.ndarray, members: np.ndarray) -> dict[str, float | None]:
    return _on_each(judges, positive, members[None, :])[0]


def partition_robustness(
    pool: dict[str, np.ndarray], judges: dict[str, np.ndarray], positive: np.ndarray, *, threshold: int | None = None,
) -> tuple[list[SubsetRanking], list[SubsetRanking]]:
    """Rankings of ``judges`` on the hard subset of every re-partition of ``pool`` (name -> per item valid and right).

    Returns ``(per_threshold, leave_one_out)``: one :class:`SubsetRanking` per K in
    0..m-1, ``rho`` against balanced accuracy on every item; and, with
    ``threshold``, one per left-out rater (hard at most floor(K (m - 1) / m)
    correct), ``rho`` against the whole pool's hard subset at K.

    >>> right = np.array([True, True, False, False])
    >>> pool = {"a": right, "b": np.array([True, False, True, False])}
    >>> per_k, _ = partition_robustness(pool, pool, np.array([True, False, True, False]))
    >>> [(row.rule, row.n_hard) for row in per_k]
    [('K=0', 1), ('K=1', 3)]
    """
    positive = np.asarray(positive, dtype=bool)
    names = list(pool)
    m = len(names)
    if m < 2:
        raise ValueError(f"a re-partition needs at least two pool runs, got {m}")
    correct = [np.asarray(pool[name], dtype=bool) for name in names]
    judges = {name: np.asarray(values, dtype=bool) for name, values in judges.items()}
    everything = _on(judges, positive, np.ones(positive.size, dtype=bool))
    n_correct, _ = difficulty_partition(correct, 0)
    hards = n_correct[None, :] <= np.arange(m)[:, None]  # every K's hard subset, one row each
    per_threshold = [
        SubsetRanking(f"K={k}", k, m, int(hard.sum()), int((~hard).sum()), on_hard, "all", _rho(on_hard, everything))
        for k, (hard, on_hard) in enumerate(zip(hards, _on_each(judges, positive, hards)))
    ]
    leave_one_out = []
    if threshold is not None:
        if not 0 <= threshold < m:
            raise ValueError(f"threshold {threshold} for a pool of {m} runs: expected 0..{m - 1}")
        _, whole = difficulty_partition(correct, threshold)
        reference = _on(judges, positive, whole)
        k = threshold * (m - 1) // m
        hards = (n_correct[None, :] - np.stack(correct)) <= k  # row i: the pool without rater i
        for left_out, (hard, on_hard) in enumerate(zip(hards, _on_each(judges, positive, hards))):
            leave_one_out.append(SubsetRanking(f"without {names[left_out]}", k, m - 1, int(hard.sum()),
                                               int((~hard).sum()), on_hard, "pool", _rho(on_hard, reference)))
    return per_threshold, leave_one_out
