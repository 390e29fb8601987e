"""Precision, recall and F1 of the success class, strictly (an invalid prediction is never "success").

A judge used to filter training data keeps the trajectories it calls
successful; precision says how many of those really are. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agenthorizon.scoring.bootstrap import cluster_codes
from agenthorizon.scoring.outcomes import ItemOutcomes, ratio

__all__ = ["SUCCESS_CLASS_METRICS", "success_class_scores"]

SUCCESS_CLASS_METRICS = ("success_precision", "success_recall", "success_f1")


def success_class_scores(outcomes: ItemOutcomes) -> tuple[dict[str, Any], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Precision, recall and F1 of the success class, and their per-cluster counts for the intervals.

    With TP the positives predicted success, FP the negatives predicted
    success and P the number of positives (an invalid prediction on a
    positive is a false negative, on a negative neither FP nor TN):

    - ``success_precision`` = TP / (TP + FP): share of the items the judge
      accepts that are positives; ``None`` when it accepts none;
    - ``success_recall`` = TP / P: positive accuracy, repeated here so the
      three sit together; ``None`` without positives;
    - ``success_f1`` = 2 TP / (2 TP + FP + (P - TP)), the harmonic mean of the
      two; ``None`` when there is no positive and no acceptance.

    Each lies in [0, 1], higher is better. The second value maps each name to
    (numerator, denominator) per cluster, for
    :func:`~agenthorizon.scoring.bootstrap.bootstrap_accuracies`.

    Examples
    --------
    >>> from agenthorizon.scoring.outcomes import item_outcomes
    >>> values, _ = success_class_scores(item_outcomes([True, None, True, False], ["positive", "positive",
    ...                                                                              "negative", "negative"]))
    >>> values
    {'success_precision': 0.5, 'success_recall': 0.5, 'success_f1': 0.5}
    """
    accepted = outcomes.valid & outcomes.predicted_success
    tp_items = (outcomes.positive & accepted).astype(np.int64)
    fp_items = (~outcomes.positive & accepted).astype(np.int64)
    positive_items = outcomes.positive.astype(np.int64)
    # coded as the bootstrap codes them (order of first appearance), so the counts line up with its clusters
    clusters = cluster_codes(np.asarray(outcomes.clusters).tolist())
    groups = int(clusters.max()) + 1 if clusters.size else 0

    def per_cluster(values: np.ndarray) -> np.ndarray:
        return np.bincount(clusters, weights=values, minlength=groups).astype(np.int64)

    tp, fp, positives = per_cluster(tp_items), per_cluster(fp_items), per_cluster(positive_items)
    counts = {
        "success_precision": (tp, tp + fp),
        "success_recall": (tp, positives),
        "success_f1": (2 * tp, tp + fp + positives),  # 2TP + FP + FN with FN = P - TP
    }
    values = {name: ratio(int(numerator.sum()), int(denominator.sum())) for name, (numerator, denominator) in counts.items()}
    return values, counts
