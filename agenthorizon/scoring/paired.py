"""Scores of the paired design: instruction sensitivity, pair-group accuracy, rejection by type.

A negative shows the recording (``steps_id``) of a sibling positive, under
another instruction: these scores show whether a judge reads the instruction.
Each returns :class:`ClusterCounts` per pair group; an invalid prediction is
never a hit and never leaves a denominator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agenthorizon.schema import MISTAKE_TYPES
from agenthorizon.scoring.bootstrap import cluster_codes
from agenthorizon.scoring.outcomes import ItemOutcomes

__all__ = [
    "ClusterCounts",
    "instruction_pairs",
    "instruction_sensitivity",
    "pair_group_accuracy",
    "paired_scores",
    "rejection_by_type",
]


@dataclass(frozen=True)
class ClusterCounts:
    """A ratio of counts kept per bootstrap cluster: ``hits`` (numerator) and ``totals`` (denominator), int arrays."""

    hits: np.ndarray
    totals: np.ndarray

    @property
    def n_hits(self) -> int:
        """The numerator: hits over every cluster."""
        return int(self.hits.sum())

    @property
    def n_total(self) -> int:
        """The denominator: units (pairs, groups, negatives) over every cluster."""
        return int(self.totals.sum())

    @property
    def rate(self) -> float | None:
        """``n_hits / n_total`` in [0, 1]; ``None`` when there is nothing to count."""
        return self.n_hits / self.n_total if self.n_total else None


def _codes(outcomes: ItemOutcomes) -> tuple[np.ndarray, int]:
    # Re-coded as the accuracy bootstrap codes them: a subset (a slice) keeps the original codes, with gaps.
    codes = cluster_codes(np.asarray(outcomes.clusters).tolist())
    return codes, int(codes.max()) + 1 if codes.size else 0


def instruction_pairs(outcomes: ItemOutcomes) -> tuple[np.ndarray, np.ndarray]:
    """Every (positive, negative) pair of items showing the same recording.

    Returns index arrays ``(p, n)``, one entry per pair of a positive P and
    a negative N with ``N.steps_id == P.steps_id``, ordered by negative;
    items without a ``steps_id`` are in no pair.

    >>> from agenthorizon.scoring.outcomes import item_outcomes
    >>> rows = [{"label": "positive", "mistake_type": "", "steps_id": "a"},
    ...         {"label": "negative", "mistake_type": "", "steps_id": "a"},
    ...         {"label": "negative", "mistake_type": "", "steps_id": "b"}]
    >>> p, n = instruction_pairs(item_outcomes([True, False, False], rows))
    >>> p.tolist(), n.tolist()
    ([0], [1])
    """
    positives: dict[str, list[int]] = {}
    for index, (steps_id, positive) in enumerate(zip(outcomes.steps_ids, outcomes.positive)):
        if positive and steps_id is not None:
            positives.setdefault(steps_id, []).append(index)
    p_index: list[int] = []
    n_index: list[int] = []
    for index, (steps_id, positive) in enumerate(zip(outcomes.steps_ids, outcomes.positive)):
        if not positive and steps_id is not None:
            for p in positives.get(steps_id, ()):
                p_index.append(p)
                n_index.append(index)
    return np.asarray(p_index, dtype=np.int64), np.asarray(n_index, dtype=np.int64)


def instruction_sensitivity(outcomes: ItemOutcomes) -> ClusterCounts:
    """Share of same-recording pairs the judge tells apart by their instructions.

    Over every pair (P, N) of :func:`instruction_pairs`: the fraction where
    the judge predicts success for P *and* failure for N. An invalid
    prediction for either item makes the pair a miss. In [0, 1]: 1 is
    perfect, a judge that ignores the instruction scores 0, a fair coin 0.25
    in expectation; ``rate`` is ``None`` without pairs. A pair belongs to its
    positive's cluster.

    >>> from agenthorizon.scoring.outcomes import item_outcomes
    >>> rows = [{"label": "positive", "mistake_type": "", "steps_id": "a"},
    ...         {"label": "negative", "mistake_type": "", "steps_id": "a"},
    ...         {"label": "positive", "mistake_type": "", "steps_id": "b"},
    ...         {"label": "negative", "mistake_type": "", "steps_id": "b"}]
    >>> instruction_sensitivity(item_outcomes([True, False, True, True], rows)).rate
    0.5
    >>> instruction_sensitivity(item_outcomes([True, None, True, False], rows)).rate
    0.5
    """
    codes, n_clusters = _codes(outcomes)
    p, n = instruction_pairs(outcomes)
    says_success = outcomes.valid & outcomes.predicted_success
    says_failure = outcomes.valid & ~outcomes.predicted_success
    hit = says_success[p] & says_failure[n]
    cluster = codes[p]
    return ClusterCounts(
        np.bincount(cluster[hit], minlength=n_clusters), np.bincount(cluster, minlength=n_clusters)
    )


def pair_group_accuracy(outcomes: ItemOutcomes) -> ClusterCounts:
    """Share of pair groups (``pair_group_id``) in which every scored item is judged correctly.

    An invalid prediction is wrong. In [0, 1], higher is better; ``rate`` is
    ``None`` when the references carry no ``pair_group_id``.

    >>> from agenthorizon.scoring.outcomes import item_outcomes
    >>> rows = [{"label": "positive", "mistake_type": "", "pair_group_id": "g1"},
    ...         {"label": "negative", "mistake_type": "", "pair_group_id": "g1"},
    ...         {"label": "positive", "mistake_type": "", "pair_group_id": "g2"},
    ...         {"label": "negative", "mistake_type": "", "pair_group_id": "g2"}]
    >>> counts = pair_group_accuracy(item_outcomes([True, False, True, "yes"], rows))
    >>> counts.n_hits, counts.n_total, counts.rate
    (1, 2, 0.5)
    """
    codes, n_clusters = _codes(outcomes)
    if not outcomes.grouped:
        empty = np.zeros(n_clusters, dtype=np.int64)
        return ClusterCounts(empty, empty)
    wrong = np.bincount(codes[~outcomes.correct], minlength=n_clusters)
    present = np.bincount(codes, minlength=n_clusters) > 0
    return ClusterCounts((present & (wrong == 0)).astype(np.int64), present.astype(np.int64))


def rejection_by_type(outcomes: ItemOutcomes, mistake_type: str) -> ClusterCounts:
    """Share of the negatives of one mistake type that the judge rejects at all.

    Over the negatives of reference type ``mistake_type``: the fraction
    predicted failure, whatever type the judge names (so it is at least
    mistake-type recall). In [0, 1], higher is better; ``rate`` is ``None``
    when no negative has the type.

    >>> from agenthorizon.scoring.outcomes import item_outcomes
    >>> rows = [{"label": "negative", "mistake_type": "Bad Side Effect"}] * 2
    >>> verdicts = [{"success": False, "mistake_type": "Critical Mistake"}, None]
    >>> rejection_by_type(item_outcomes(verdicts, rows), "Bad Side Effect").rate
    0.5
    """
    codes, n_clusters = _codes(outcomes)
    of_type = ~outcomes.positive & (np.asarray(outcomes.reference_type, dtype=object) == mistake_type)
    rejected = of_type & outcomes.valid & ~outcomes.predicted_success
    return ClusterCounts(
        np.bincount(codes[rejected], minlength=n_clusters), np.bincount(codes[of_type], minlength=n_clusters)
    )


def paired_scores(outcomes: ItemOutcomes) -> tuple[dict[str, Any], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """The paired scores of a report, and their per-cluster counts for the intervals.

    Values: the :class:`~agenthorizon.scoring.metrics.ScoreReport` fields
    ``rejection_rate_by_type`` (type -> ``{"rejected", "total", "rate"}``),
    ``instruction_sensitivity``, ``n_instruction_pairs``, ``pair_group_accuracy``
    and ``n_pair_groups``. Totals: interval name (``instruction_sensitivity``,
    ``pair_group_accuracy``, ``rejection_rate_by_type/<type>``) -> per-cluster
    (numerator, denominator).

    >>> from agenthorizon.scoring.outcomes import item_outcomes
    >>> values, totals = paired_scores(item_outcomes([True, False], ["positive", "negative"]))
    >>> values["instruction_sensitivity"], values["pair_group_accuracy"], sorted(totals)[:2]
    (None, None, ['instruction_sensitivity', 'pair_group_accuracy'])
    """
    sensitivity = instruction_sensitivity(outcomes)
    groups = pair_group_accuracy(outcomes)
    rejection = {name: rejection_by_type(outcomes, name) for name in MISTAKE_TYPES}
    values = {
        "rejection_rate_by_type": {
            name: {"rejected": counts.n_hits, "total": counts.n_total, "rate": counts.rate}
            for name, counts in rejection.items()
        },
        "instruction_sensitivity": sensitivity.rate,
        "n_instruction_pairs": sensitivity.n_total,
        "pair_group_accuracy": groups.rate,
        "n_pair_groups": groups.n_total,
    }
    totals = {
        "instruction_sensitivity": (sensitivity.hits, sensitivity.totals),
        "pair_group_accuracy": (groups.hits, groups.totals),
        **{f"rejection_rate_by_type/{name}": (counts.hits, counts.totals) for name, counts in rejection.items()},
    }
    return values, totals
