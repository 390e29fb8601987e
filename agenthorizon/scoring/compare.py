"""Paired comparison of two judges on the same items (:func:`compare`).

Correctness and balanced accuracy come from :class:`~agenthorizon.scoring.outcomes.ItemOutcomes`,
so a comparison never disagrees with the scores it compares.
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

    ``only_a_correct`` / ``only_b_correct`` are McNemar's discordant counts.
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
    """Compare two judges' predictions ``a`` and ``b`` on the same ``references`` (as :func:`agenthorizon.score` takes them).

    ``difference`` (balanced accuracy A - B) is in [-1, 1], positive when A is
    better, with a pair-clustered paired bootstrap interval (whole pair groups
    drawn, both judges rescored on the same draw; ``bootstrap=0``: none).
    ``p_value`` is the exact McNemar test on per-item correctness, in (0, 1].

    >>> refs = ["positive", "negative"] * 20
    >>> a = [True, False] * 20
    >>> b = [True, True] * 20
    >>> result = compare(a, b, refs, bootstrap=1000)
    >>> result.difference, result.only_a_correct, result.only_b_correct
    (0.5, 20, 0)
    >>> result.p_value < 1e-5
    True

    References
    ----------
    .. [1] Q. McNemar, "Note on the sampling error of the difference between
       correlated proportions or percentages", Psychometrika 12(2), 1947.
    .. [2] C. A. Field and A. H. Welsh, "Bootstrapping clustered data",
       JRSS B 69(3), 2007.
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
