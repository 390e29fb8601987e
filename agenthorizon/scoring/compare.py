"""Paired comparison of two judges on the same items.

Built on :class:`agenthorizon.scoring.metrics.ItemOutcomes`: each judge's
per-item correctness comes from the one strict validation, and balanced
accuracy from :meth:`ItemOutcomes.accuracies`, so a comparison can never
disagree with the scores it compares. The uncertainty (pair-clustered paired
bootstrap, exact McNemar test) comes from the numpy-only
:mod:`agenthorizon.scoring.bootstrap`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agenthorizon.scoring.bootstrap import (
    check_bootstrap,
    mcnemar_exact,
    paired_balanced_accuracies,
    percentile_interval,
)
from agenthorizon.scoring.metrics import item_outcomes

__all__ = ["Comparison", "compare"]


@dataclass
class Comparison:
    """A paired comparison of judges A and B on the same items; see :func:`compare`.

    ``difference`` is balanced accuracy A minus B, in [-1, 1] (positive: A is
    better), ``interval`` its pair-clustered bootstrap percentile interval.
    ``only_a_correct`` / ``only_b_correct`` are McNemar's discordant counts
    and ``p_value`` its exact two-sided p-value.
    """

    n: int
    n_clusters: int
    balanced_accuracy_a: float
    balanced_accuracy_b: float
    positive_accuracy_a: float
    positive_accuracy_b: float
    negative_accuracy_a: float
    negative_accuracy_b: float
    difference: float
    interval: tuple[float, float] | None
    level: float
    n_bootstrap: int
    seed: int
    only_a_correct: int
    only_b_correct: int
    both_correct: int
    both_incorrect: int
    p_value: float

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible dict of every number."""
        values = dict(self.__dict__)
        values["interval"] = None if self.interval is None else list(self.interval)
        return values


def compare(a: Any, b: Any, references: Any, *, bootstrap: int = 10000, seed: int = 0, level: float = 0.95) -> Comparison:
    """Compare two judges on the same items, pairing their per-item outcomes.

    The difference in balanced accuracy (A - B) gets a pair-clustered paired
    bootstrap interval: each resample draws whole pair groups and recomputes
    both judges' balanced accuracy on the same draw, so the interval reflects
    the correlation between judges. Per-item correctness (an invalid
    prediction is incorrect) is tested with an exact McNemar test.

    Parameters
    ----------
    a, b : sequence or mapping
        Predictions of judges A and B, in any form :func:`agenthorizon.score`
        accepts.
    references : sequence
        As for :func:`agenthorizon.score`; must hold both labels.
    bootstrap : int, default 10000
        Number of resamples; 0 computes no interval.
    seed : int, default 0
    level : float, default 0.95
        Coverage of the interval.

    Returns
    -------
    Comparison
        ``difference`` (A - B) is in [-1, 1], positive when A is better;
        ``p_value`` is in (0, 1], small when the judges differ.

    References
    ----------
    .. [1] Q. McNemar, "Note on the sampling error of the difference between
       correlated proportions or percentages", Psychometrika 12(2), 1947.
    .. [2] C. A. Field and A. H. Welsh, "Bootstrapping clustered data",
       JRSS B 69(3), 2007.

    Examples
    --------
    >>> refs = ["positive", "negative"] * 20
    >>> a = [True, False] * 20
    >>> b = [True, True] * 20
    >>> result = compare(a, b, refs, bootstrap=1000)
    >>> result.difference, result.only_a_correct, result.only_b_correct
    (0.5, 20, 0)
    >>> result.p_value < 1e-5
    True
    """
    check_bootstrap(bootstrap)
    outcomes_a = item_outcomes(a, references)
    outcomes_b = item_outcomes(b, references)
    positive = outcomes_a.positive
    if positive.all() or not positive.any():
        raise ValueError("compare needs references with both positive and negative items")
    bal_a, pos_a, neg_a = outcomes_a.accuracies()
    bal_b, pos_b, neg_b = outcomes_b.accuracies()
    interval = None
    if bootstrap:
        resampled = paired_balanced_accuracies(
            positive, [outcomes_a.correct, outcomes_b.correct], outcomes_a.clusters, n_resamples=int(bootstrap), seed=seed
        )
        interval = percentile_interval(resampled[:, 0] - resampled[:, 1], level)
    only_a, only_b, p_value = mcnemar_exact(outcomes_a.correct, outcomes_b.correct)
    return Comparison(
        n=len(outcomes_a),
        n_clusters=int(np.unique(outcomes_a.clusters).size),
        balanced_accuracy_a=bal_a,
        balanced_accuracy_b=bal_b,
        positive_accuracy_a=pos_a,
        positive_accuracy_b=pos_b,
        negative_accuracy_a=neg_a,
        negative_accuracy_b=neg_b,
        difference=bal_a - bal_b,
        interval=interval,
        level=level,
        n_bootstrap=int(bootstrap),
        seed=seed,
        only_a_correct=only_a,
        only_b_correct=only_b,
        both_correct=int((outcomes_a.correct & outcomes_b.correct).sum()),
        both_incorrect=int((~outcomes_a.correct & ~outcomes_b.correct).sum()),
        p_value=p_value,
    )
