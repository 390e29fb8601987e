"""Strict scoring of judge predictions against AgentHorizon labels: :func:`score` and :class:`ScoreReport`.

docs/scoring.md describes the protocol. :func:`item_outcomes` is re-exported from :mod:`agenthorizon.scoring.outcomes`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from agenthorizon.scoring.bootstrap import bootstrap_accuracies, check_bootstrap
from agenthorizon.scoring.metric_list import METRICS, metric_counts, metric_values
from agenthorizon.scoring.outcomes import OUTCOMES, ItemOutcomes, item_outcomes, outcomes_from_records, ratio
from agenthorizon.scoring.paired import instruction_sensitivity, paired_scores
from agenthorizon.scoring.predictions import warn_shapes
from agenthorizon.scoring.references import reference_record, reference_rows
from agenthorizon.scoring.slices import POSITIVE_SLICE_VALUE, SLICES, check_slices, slice_order, slice_values
from agenthorizon.scoring.telemetry import aligned_telemetry, telemetry_aggregates
from agenthorizon.schema import INVALID_STATUSES, MISTAKE_TYPES, STATUS_OK, UNTYPED

__all__ = ["OUTCOMES", "ItemOutcomes", "ScoreReport", "item_outcomes", "score", "score_outcomes"]

CONFIDENCE_LEVEL = 0.95
"""Coverage of every bootstrap interval reported by :func:`score`."""


@dataclass
class ScoreReport:
    """Strict scores of one set of predictions; see :func:`score`.

    Rates are floats in [0, 1] (higher is better), or ``None`` when their
    denominator is zero (e.g. positive accuracy on a slice with no positives).
    """

    n: int
    n_positive: int
    n_negative: int
    positive_accuracy: float | None
    negative_accuracy: float | None
    balanced_accuracy: float | None
    accuracy: float | None
    confusion: dict[str, int]
    n_invalid: int
    invalid_by_reason: dict[str, int]
    mistake_type_recall: dict[str, dict[str, Any]]
    mistake_type_recall_macro: float | None
    n_untyped_negatives: int
    n_unmatched_mistake_types: int
    rejection_rate_by_type: dict[str, dict[str, Any]] = field(default_factory=dict)
    instruction_sensitivity: float | None = None
    pair_group_accuracy: float | None = None
    n_instruction_pairs: int = 0
    n_pair_groups: int = 0
    rates: dict[str, float | None] = field(default_factory=dict)
    cost: dict[str, dict[str, Any]] | None = None
    runtime: dict[str, dict[str, Any]] | None = None
    intervals: dict[str, tuple[float, float] | None] | None = None
    bootstrap: dict[str, Any] | None = None
    slices: dict[str, dict[str, ScoreReport]] = field(default_factory=dict)

    DETAIL_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {
            "n_positive", "n_negative", "confusion", "n_untyped_negatives", "n_unmatched_mistake_types",
            "n_instruction_pairs", "n_pair_groups", "intervals", "bootstrap", "slices",
        }
    )
    """Fields that are not metrics; :meth:`metric_values` reports every other field."""

    def __getattr__(self, name: str) -> Any:
        """A declared metric (:data:`~agenthorizon.scoring.metric_list.METRICS`) read as an attribute."""
        rates = self.__dict__.get("rates")
        if rates is not None and name in rates:
            return rates[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def invalid_rate(self) -> float:
        """Share of items whose prediction is invalid, in [0, 1] (lower is better)."""
        return self.n_invalid / self.n

    def metric_values(self) -> dict[str, Any]:
        """The metrics, as the ``evaluate`` module's ``compute`` returns them.

        Every field not in :attr:`DETAIL_FIELDS`, each declared rate by name,
        plus ``invalid_rate``; ``mistake_type_recall`` and
        ``rejection_rate_by_type`` map each type to its rate alone.

        >>> sorted(score([True, False], ["positive", "positive"]).metric_values())[:3]
        ['accuracy', 'balanced_accuracy', 'cost']
        """
        values = {item.name: getattr(self, item.name) for item in fields(self) if item.name not in self.DETAIL_FIELDS}
        values.update(values.pop("rates"))
        values["invalid_rate"] = self.invalid_rate
        values["invalid_by_reason"] = dict(self.invalid_by_reason)
        values["mistake_type_recall"] = {name: value["recall"] for name, value in self.mistake_type_recall.items()}
        values["rejection_rate_by_type"] = {name: value["rate"] for name, value in self.rejection_rate_by_type.items()}
        return values

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible dict of every number in the report."""
        intervals = None
        if self.intervals is not None:
            intervals = {
                name: None if bounds is None else [bounds[0], bounds[1]] for name, bounds in self.intervals.items()
            }
        return {
            "n": self.n,
            "n_positive": self.n_positive,
            "n_negative": self.n_negative,
            "balanced_accuracy": self.balanced_accuracy,
            "positive_accuracy": self.positive_accuracy,
            "negative_accuracy": self.negative_accuracy,
            "accuracy": self.accuracy,
            "confusion": dict(self.confusion),
            "n_invalid": self.n_invalid,
            "invalid_rate": self.invalid_rate,
            "invalid_by_reason": dict(self.invalid_by_reason),
            "mistake_type_recall": {name: dict(value) for name, value in self.mistake_type_recall.items()},
            "mistake_type_recall_macro": self.mistake_type_recall_macro,
            "n_untyped_negatives": self.n_untyped_negatives,
            "n_unmatched_mistake_types": self.n_unmatched_mistake_types,
            "rejection_rate_by_type": {name: dict(value) for name, value in self.rejection_rate_by_type.items()},
            "instruction_sensitivity": self.instruction_sensitivity,
            "n_instruction_pairs": self.n_instruction_pairs,
            "pair_group_accuracy": self.pair_group_accuracy,
            "n_pair_groups": self.n_pair_groups,
            **{spec.name: self.rates.get(spec.name) for spec in METRICS},
            "cost": self.cost,
            "runtime": self.runtime,
            "intervals": intervals,
            "bootstrap": None if self.bootstrap is None else dict(self.bootstrap),
            "slices": {
                name: {value: report.to_dict() for value, report in values.items()}
                for name, values in self.slices.items()
            },
        }


def _report(outcomes: ItemOutcomes, n_bootstrap: int, seed: int, telemetry: list[Any] | None = None) -> ScoreReport:
    positive, valid, said_success = outcomes.positive, outcomes.valid, outcomes.predicted_success
    negative = ~positive
    n_positive = int(positive.sum())
    n_negative = int(negative.sum())
    tp = int((positive & valid & said_success).sum())
    fn = int((positive & valid & ~said_success).sum())
    fp = int((negative & valid & said_success).sum())
    tn = int((negative & valid & ~said_success).sum())
    balanced, positive_accuracy, negative_accuracy = outcomes.accuracies()
    reasons = {status: 0 for status in INVALID_STATUSES}
    for status in outcomes.status:
        if status != STATUS_OK:
            reasons[status] += 1
    recall: dict[str, dict[str, Any]] = {}
    reference_types = np.asarray(outcomes.reference_type, dtype=object)
    for mistake_type in MISTAKE_TYPES:
        of_type = negative & (reference_types == mistake_type)
        total = int(of_type.sum())
        hits = int((of_type & outcomes.type_correct).sum())
        recall[mistake_type] = {"correct": hits, "total": total, "recall": ratio(hits, total)}
    defined = [value["recall"] for value in recall.values() if value["recall"] is not None]
    paired, paired_totals = paired_scores(outcomes)
    rate_counts = metric_counts(outcomes)
    intervals = None
    bootstrap_info = None
    if n_bootstrap:
        intervals = bootstrap_accuracies(
            outcomes.positive, outcomes.correct, outcomes.clusters, n_resamples=n_bootstrap, seed=seed,
            level=CONFIDENCE_LEVEL, ratios={**paired_totals, **{spec.name: rate_counts[spec.name] for spec in METRICS if spec.interval}},
        )
        bootstrap_info = {
            "n_resamples": n_bootstrap,
            "seed": seed,
            "level": CONFIDENCE_LEVEL,
            "n_clusters": int(np.unique(outcomes.clusters).size),
        }
    aggregates = None
    if telemetry is not None:
        aggregates = telemetry_aggregates(
            telemetry, clusters=outcomes.clusters, n_resamples=n_bootstrap, seed=seed, level=CONFIDENCE_LEVEL
        )
    return ScoreReport(
        n=len(outcomes),
        n_positive=n_positive,
        n_negative=n_negative,
        positive_accuracy=positive_accuracy,
        negative_accuracy=negative_accuracy,
        balanced_accuracy=balanced,
        accuracy=float(outcomes.correct.mean()),
        confusion={
            "tp": tp,
            "fn": fn,
            "fp": fp,
            "tn": tn,
            "invalid_positive": int((positive & ~valid).sum()),
            "invalid_negative": int((negative & ~valid).sum()),
        },
        n_invalid=int((~valid).sum()),
        invalid_by_reason=reasons,
        mistake_type_recall=recall,
        mistake_type_recall_macro=sum(defined) / len(defined) if defined else None,
        n_untyped_negatives=int((negative & (reference_types == UNTYPED)).sum()),
        n_unmatched_mistake_types=int(outcomes.unmatched_type.sum()),
        **paired,
        rates=metric_values(rate_counts),
        cost=None if aggregates is None else aggregates["cost"],
        runtime=None if aggregates is None else aggregates["runtime"],
        intervals=intervals,
        bootstrap=bootstrap_info,
    )


def score(
    predictions: Any,
    references: Any,
    *,
    bootstrap: int = 0,
    seed: int = 0,
    slices: Sequence[str] | None = None,
    telemetry: Any = None,
) -> ScoreReport:
    """Score judge predictions strictly against AgentHorizon references.

    Definitions (every rate lies in [0, 1], higher is better):

    - positive accuracy = (positives predicted success) / (positives);
    - negative accuracy = (negatives predicted failure) / (negatives);
    - balanced accuracy = 0.5 * (positive accuracy + negative accuracy), the
      primary metric; 0.5 is chance, 1 is perfect;
    - accuracy = (items predicted correctly) / (items);
    - mistake-type recall for type T = (negatives of reference type T
      predicted as failure *and* named T) / (negatives of type T). Untyped
      negatives are left out of these denominators only;
    - rejection rate for type T = (negatives of type T predicted as
      failure, whatever type is named) / (negatives of type T);
    - instruction sensitivity = (pairs of a positive P and a negative N
      with ``N.steps_id == P.steps_id`` where P is predicted success and N
      failure) / (such pairs): 1 perfect, 0 for a judge blind to the
      instruction, 0.25 for a coin; ``None`` without ``steps_id``;
    - pair-group accuracy = (pair groups whose every scored item is
      correct) / (pair groups of the scored items); ``None`` without
      ``pair_group_id``;
    - success precision, recall and F1 = the success class's TP / (TP + FP),
      TP / positives and their harmonic mean, an invalid prediction never
      counting as success; these and failure precision are declared in
      :data:`~agenthorizon.scoring.metric_list.METRICS`;
    - ``cost`` and ``runtime``:
      :func:`~agenthorizon.scoring.telemetry.telemetry_aggregates`.

    An invalid prediction (:func:`~agenthorizon.scoring.predictions.validate_prediction`)
    is incorrect for its item whatever the label and never changes a
    denominator. No prediction makes this function raise; malformed
    references do.

    Parameters
    ----------
    predictions : sequence or mapping
        One prediction per reference, in order, or a mapping
        ``trajectory_id -> prediction`` (an id absent from the mapping is a
        missing prediction). A prediction is a bool, ``None``, a verdict
        dict, the JSON text of one, or a runner result record.
    references : sequence
        Label rows (mappings with ``label`` and ``mistake_type``, plus
        ``trajectory_id`` when ``predictions`` is a mapping; dataset rows and a
        ``datasets.Dataset`` work as they are) or label strings
        ``"positive"`` / ``"negative"``.
    bootstrap : int, default 0
        Number of bootstrap resamples for 95% percentile intervals of the
        accuracies, the paired scores and the declared rates (``intervals``);
        0 computes none. Whole pair groups (``pair_group_id``) are resampled,
        since their items share recordings; without it each item is its own
        cluster.
    seed : int, default 0
        Seed of the bootstrap; the same seed gives the same intervals.
    slices : sequence of str, optional
        Names from :data:`SLICES` (``os``, ``difficulty``, ``mistake_type``,
        ``direction``, ``instruction_source``, ``step_bucket``,
        ``num_applications``); the report's
        ``slices[name][value]`` holds the same metrics for each value. A
        slice whose field the references lack raises ``ValueError``.
    telemetry : sequence or mapping, optional
        Per-item telemetry for the ``cost`` and ``runtime`` aggregates: one
        entry per reference, or a mapping ``trajectory_id -> telemetry``
        (absent ids are unknown) of ``Telemetry`` records, flat mappings or
        ``None``. When not given, it is taken from predictions that are
        result records; without any, ``cost`` and ``runtime`` are ``None``.

    Returns
    -------
    ScoreReport

    See Also
    --------
    agenthorizon.compare : paired comparison of two judges on the same items.
    agenthorizon.load_metric : the same numbers as an ``evaluate`` metric.

    References
    ----------
    .. [1] The AgentHorizon scoring protocol (``docs/scoring.md``): balanced
       accuracy as the primary metric, invalid predictions incorrect.
    .. [2] K. H. Brodersen, C. S. Ong, K. E. Stephan and J. M. Buhmann, "The
       balanced accuracy and its posterior distribution", ICPR 2010.
    .. [3] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*,
       Chapman & Hall, 1993 (percentile intervals); C. A. Field and A. H.
       Welsh, "Bootstrapping clustered data", JRSS B 69(3), 2007.

    Examples
    --------
    >>> references = ["positive", "positive", "negative", "negative"]
    >>> report = score([True, "true", False, None], references)
    >>> report.positive_accuracy, report.negative_accuracy, report.balanced_accuracy
    (0.5, 0.5, 0.5)
    >>> report.n_invalid, report.invalid_by_reason["no_json"], report.invalid_by_reason["missing"]
    (2, 1, 1)

    Mistake types match whatever the case and either spelling of the third type:

    >>> rows = [{"label": "negative", "mistake_type": "Misunderstanding of the Instructions"}]
    >>> verdict = {"success": False, "mistake_type": "misunderstanding of the instruction"}
    >>> score([verdict], rows).mistake_type_recall["Misunderstanding of the Instructions"]
    {'correct': 1, 'total': 1, 'recall': 1.0}
    """
    check_bootstrap(bootstrap)
    slice_names = check_slices(slices or ())
    rows = reference_rows(references, [SLICES[name][0] for name in slice_names])
    records = [reference_record(row, position) for position, row in enumerate(rows)]
    if not isinstance(predictions, (Mapping, str, bytes)) and hasattr(predictions, "__len__"):
        predictions = list(predictions)  # read once: warned about, then aligned
    # A known wrong shape is named with its fix so a pipeline bug is not mistaken for a bad judge.
    warn_shapes(predictions.values() if isinstance(predictions, Mapping) else predictions)
    outcomes = outcomes_from_records(predictions, records)
    items = aligned_telemetry(telemetry, predictions, records)
    report = _report(outcomes, int(bootstrap), seed, items)
    for name in slice_names:
        values = np.asarray(slice_values(rows, name), dtype=object)
        report.slices[name] = {
            value: _report(
                outcomes.subset(values == value), int(bootstrap), seed,
                None if items is None else [items[i] for i in np.flatnonzero(values == value)],
            )
            for value in sorted(set(values.tolist()), key=slice_order)
        }
        if name in NEGATIVE_SLICES:
            _pair_negatives_with_their_positives(report.slices[name], values, outcomes, int(bootstrap), seed)
    return report


def score_outcomes(
    outcomes: ItemOutcomes, *, bootstrap: int = 0, seed: int = 0, telemetry: Sequence[Any] | None = None
) -> ScoreReport:
    """The :class:`ScoreReport` of per-item outcomes already validated, as :func:`score` computes it.

    ``score(predictions, references)`` equals
    ``score_outcomes(item_outcomes(predictions, references))``, so a caller
    can validate once and score subsets (``outcomes.subset(mask)``).
    ``telemetry`` is one entry per item or ``None``.

    >>> outcomes = item_outcomes([True, False, None], ["positive", "negative", "negative"])
    >>> score_outcomes(outcomes).balanced_accuracy, score_outcomes(outcomes.subset([True, True, False])).accuracy
    (0.75, 1.0)
    """
    check_bootstrap(bootstrap)
    if telemetry is not None and len(telemetry) != len(outcomes):
        raise ValueError(f"got telemetry for {len(telemetry)} items and {len(outcomes)} outcomes; expected one per item")
    return _report(outcomes, int(bootstrap), seed, None if telemetry is None else list(telemetry))


NEGATIVE_SLICES = ("mistake_type", "direction", "instruction_source")
"""Slices that group negatives only (every positive falls in ``(positive)``): their instruction
sensitivity counts each negative's pairs with the positives of its recording, wherever those fall."""


def _pair_negatives_with_their_positives(
    reports: dict[str, ScoreReport], values: np.ndarray, outcomes: ItemOutcomes, n_bootstrap: int, seed: int
) -> None:
    """Give each value of a negatives' slice the instruction sensitivity of its negatives' pairs.

    The pairs' positives are never in such a slice, so each value is scored
    on its items plus the positives of its negatives' recordings.
    """
    steps = np.asarray(outcomes.steps_ids, dtype=object) if outcomes.steps_ids else None
    for value, report in reports.items():
        if value == POSITIVE_SLICE_VALUE or steps is None:
            continue
        members = values == value
        recordings = set(steps[members & ~outcomes.positive].tolist()) - {None}
        extended = outcomes.subset(members | (outcomes.positive & np.isin(steps, list(recordings))))
        counts = instruction_sensitivity(extended)
        report.instruction_sensitivity, report.n_instruction_pairs = counts.rate, counts.n_total
        if report.intervals is not None:
            report.intervals["instruction_sensitivity"] = bootstrap_accuracies(
                extended.positive, extended.correct, extended.clusters, n_resamples=n_bootstrap, seed=seed,
                level=CONFIDENCE_LEVEL, ratios={"instruction_sensitivity": (counts.hits, counts.totals)},
            )["instruction_sensitivity"]
