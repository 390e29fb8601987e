"""The declared rate metrics, :data:`METRICS`: each a ratio of per-cluster counts of the outcomes.

An entry gives the metric its report key, bootstrap interval, table row,
``evaluate`` output and Inspect metric. Adding a metric is one counts
function plus one entry here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from agenthorizon.scoring.bootstrap import cluster_codes
from agenthorizon.scoring.outcomes import ItemOutcomes, ratio

__all__ = ["METRICS", "MetricSpec", "metric_counts", "metric_values"]

Counts = tuple[np.ndarray, np.ndarray]
"""(numerator, denominator) per cluster, clusters coded as :func:`~agenthorizon.scoring.bootstrap.cluster_codes`."""


@dataclass(frozen=True)
class MetricSpec:
    """One declared rate metric.

    ``name`` is its key in the report's JSON and intervals; ``label`` its row
    in tables; ``counts`` its per-cluster numerator and denominator (the rate
    is their sums' ratio, ``None`` when the denominator is 0);
    ``denominator`` the count shown beside it in a table, read from the
    :class:`~agenthorizon.scoring.metrics.ScoreReport` (``""``: none);
    ``interval`` gives it a bootstrap interval; ``format`` is ``"percent"``;
    ``inspect`` adds it to the Inspect task's ``declared_rates`` metric.
    """

    name: str
    label: str
    counts: Callable[[ItemOutcomes], Counts]
    denominator: Callable[[Any], Any]
    interval: bool = True
    format: str = "percent"
    inspect: bool = True


def _per_cluster(outcomes: ItemOutcomes, *columns: np.ndarray) -> list[np.ndarray]:
    # coded as the bootstrap codes them, so the counts line up with its clusters
    clusters = cluster_codes(np.asarray(outcomes.clusters).tolist())
    groups = int(clusters.max()) + 1 if clusters.size else 0
    return [np.bincount(clusters, weights=column.astype(np.int64), minlength=groups).astype(np.int64) for column in columns]


def _success_class(outcomes: ItemOutcomes) -> list[np.ndarray]:
    """TP, FP and positives per cluster; an invalid prediction is never "success"."""
    accepted = outcomes.valid & outcomes.predicted_success
    return _per_cluster(outcomes, outcomes.positive & accepted, ~outcomes.positive & accepted, outcomes.positive)


def success_precision_counts(outcomes: ItemOutcomes) -> Counts:
    """TP / (TP + FP): the share of the items the judge accepts that are positives."""
    tp, fp, _ = _success_class(outcomes)
    return tp, tp + fp


def success_recall_counts(outcomes: ItemOutcomes) -> Counts:
    """TP / P: positive accuracy, repeated so precision, recall and F1 sit together."""
    tp, _, positives = _success_class(outcomes)
    return tp, positives


def success_f1_counts(outcomes: ItemOutcomes) -> Counts:
    """2 TP / (2 TP + FP + FN) with FN = P - TP: the harmonic mean of precision and recall."""
    tp, fp, positives = _success_class(outcomes)
    return 2 * tp, tp + fp + positives


def failure_precision_counts(outcomes: ItemOutcomes) -> Counts:
    """TN / (TN + FN): the share of the items the judge rejects that are negatives; an invalid verdict is no rejection."""
    rejected = outcomes.valid & ~outcomes.predicted_success
    tn, rejections = _per_cluster(outcomes, ~outcomes.positive & rejected, rejected)
    return tn, rejections


METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("success_precision", "success precision", success_precision_counts,
               lambda report: report.confusion["tp"] + report.confusion["fp"]),
    MetricSpec("success_recall", "success recall", success_recall_counts, lambda report: report.n_positive),
    MetricSpec("success_f1", "success F1", success_f1_counts, lambda report: ""),
    MetricSpec("failure_precision", "failure precision", failure_precision_counts,
               lambda report: report.confusion["tn"] + report.confusion["fn"]),
)
"""The declared rate metrics, in the order the report's JSON and tables list them."""


def metric_counts(outcomes: ItemOutcomes) -> dict[str, Counts]:
    """Each declared metric's per-cluster (numerator, denominator), for the bootstrap's ``ratios``."""
    return {spec.name: spec.counts(outcomes) for spec in METRICS}


def metric_values(counts: dict[str, Counts]) -> dict[str, float | None]:
    """Each declared metric's rate in [0, 1] from its counts, ``None`` when its denominator is 0.

    >>> from agenthorizon.scoring.outcomes import item_outcomes
    >>> outcomes = item_outcomes([True, None, True, False], ["positive", "positive", "negative", "negative"])
    >>> metric_values(metric_counts(outcomes))
    {'success_precision': 0.5, 'success_recall': 0.5, 'success_f1': 0.5, 'failure_precision': 1.0}
    """
    return {name: ratio(int(numerator.sum()), int(denominator.sum())) for name, (numerator, denominator) in counts.items()}
