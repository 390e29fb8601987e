"""Per-item outcomes, of which every strict metric is a function: :func:`item_outcomes`, :class:`ItemOutcomes`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agenthorizon.scoring.bootstrap import cluster_codes
from agenthorizon.scoring.predictions import validate_prediction
from agenthorizon.scoring.references import align_predictions, reference_records
from agenthorizon.schema import NEGATIVE, POSITIVE, STATUS_OK, canonical_mistake_type

__all__ = ["OUTCOMES", "ItemOutcomes", "item_outcomes", "outcomes_from_records", "ratio"]

OUTCOMES = ("correct", "false_accept", "false_reject", "invalid")
"""Per-item outcome classes, see :meth:`ItemOutcomes.outcome_classes`."""


def ratio(numerator: int, denominator: int) -> float | None:
    """``numerator / denominator``, ``None`` when the denominator is 0 (a rate of nothing is undefined).

    >>> ratio(1, 4), ratio(0, 0)
    (0.25, None)
    """
    return numerator / denominator if denominator else None


@dataclass(frozen=True)
class ItemOutcomes:
    """Per-item facts, one entry per reference in reference order.

    Attributes
    ----------
    positive : ndarray of bool
        The reference label is positive.
    valid : ndarray of bool
        The prediction is valid (a real Boolean ``success``).
    predicted_success : ndarray of bool
        The valid prediction said success (``False`` where invalid).
    correct : ndarray of bool
        Valid and agreeing with the label; invalid predictions are incorrect.
    status : list of str
        :func:`~agenthorizon.scoring.predictions.validate_prediction` status of each prediction.
    reference_type : list of str
        Canonical reference mistake type, ``""`` for positives and untyped.
    type_correct : ndarray of bool
        A negative predicted as failure whose named type is its reference type.
    unmatched_type : ndarray of bool
        A valid failure prediction naming a type that matches no known type.
    clusters : ndarray of int
        Bootstrap cluster of each item: its ``pair_group_id`` when the
        references carry one, otherwise the item itself.
    steps_ids : list of str or None
        The recording each item shows (``steps_id``), ``None`` when unknown.
    grouped : bool
        The clusters are the references' pair groups (not one per item).
    """

    positive: np.ndarray
    valid: np.ndarray
    predicted_success: np.ndarray
    correct: np.ndarray
    status: list[str]
    reference_type: list[str]
    type_correct: np.ndarray
    unmatched_type: np.ndarray
    clusters: np.ndarray
    steps_ids: list[str | None] = field(default_factory=list)
    grouped: bool = False

    def __len__(self) -> int:
        return len(self.status)

    def outcome_classes(self) -> list[str]:
        """Per item, one of :data:`OUTCOMES`.

        ``invalid`` for an invalid prediction whatever the label;
        ``false_accept`` for a negative predicted success; ``false_reject``
        for a positive predicted failure; otherwise ``correct``.

        >>> item_outcomes([True, True, False, None], ["positive", "negative", "positive", "negative"]).outcome_classes()
        ['correct', 'false_accept', 'false_reject', 'invalid']
        """
        classes = np.where(self.positive, "false_reject", "false_accept").astype(object)
        classes[self.correct] = "correct"
        classes[~self.valid] = "invalid"
        return classes.tolist()

    def accuracies(self) -> tuple[float | None, float | None, float | None]:
        """``(balanced, positive, negative)`` accuracy, each in [0, 1] or ``None``.

        positive accuracy = correct positives / positives; negative accuracy =
        correct negatives / negatives; balanced = their mean. ``None`` when the
        denominator is zero (balanced: when either is).

        >>> item_outcomes([True, False, True, None], ["positive", "positive", "negative", "negative"]).accuracies()
        (0.25, 0.5, 0.0)
        """
        n_positive = int(self.positive.sum())
        n_negative = len(self) - n_positive
        positive = ratio(int((self.correct & self.positive).sum()), n_positive)
        negative = ratio(int((self.correct & ~self.positive).sum()), n_negative)
        balanced = None if positive is None or negative is None else 0.5 * (positive + negative)
        return balanced, positive, negative

    def subset(self, mask: np.ndarray) -> ItemOutcomes:
        """The outcomes of the items where ``mask`` is true."""
        indices = np.flatnonzero(mask)
        return ItemOutcomes(
            positive=self.positive[indices],
            valid=self.valid[indices],
            predicted_success=self.predicted_success[indices],
            correct=self.correct[indices],
            status=[self.status[i] for i in indices],
            reference_type=[self.reference_type[i] for i in indices],
            type_correct=self.type_correct[indices],
            unmatched_type=self.unmatched_type[indices],
            clusters=self.clusters[indices],
            steps_ids=[self.steps_ids[i] for i in indices] if self.steps_ids else [],
            grouped=self.grouped,
        )


def _clusters(records: list[dict[str, Any]]) -> np.ndarray:
    groups = [record["pair_group_id"] for record in records]
    present = [group is not None for group in groups]
    if not any(present):
        return np.arange(len(records))
    if not all(present):
        position = present.index(False)
        raise ValueError(
            f"references[{position}]: has no pair_group_id while other references do; "
            "expected every reference to carry one (bootstrap clusters) or none"
        )
    return cluster_codes(groups)


def item_outcomes(predictions: Any, references: Any) -> ItemOutcomes:
    """Per-item outcomes of ``predictions`` and ``references``, as :func:`agenthorizon.score` takes them.

    >>> outcomes = item_outcomes([True, "1"], ["positive", "negative"])
    >>> outcomes.correct.tolist(), outcomes.status
    ([True, False], ['ok', 'no_json'])
    """
    return outcomes_from_records(predictions, reference_records(references))


def outcomes_from_records(predictions: Any, records: list[dict[str, Any]]) -> ItemOutcomes:
    aligned = align_predictions(predictions, records)
    n = len(records)
    positive = np.fromiter((record["label"] == POSITIVE for record in records), dtype=bool, count=n)
    valid = np.zeros(n, dtype=bool)
    predicted_success = np.zeros(n, dtype=bool)
    type_correct = np.zeros(n, dtype=bool)
    unmatched_type = np.zeros(n, dtype=bool)
    statuses: list[str] = []
    for i, (prediction, record) in enumerate(zip(aligned, records)):
        success, named_type, status = validate_prediction(prediction)
        statuses.append(status)
        if status != STATUS_OK:
            continue
        valid[i] = True
        predicted_success[i] = success
        if success:
            continue
        canonical = canonical_mistake_type(named_type)
        if canonical is None and named_type is not None and named_type.strip():
            unmatched_type[i] = True
        if record["label"] == NEGATIVE and record["mistake_type"] and canonical == record["mistake_type"]:
            type_correct[i] = True
    correct = valid & (predicted_success == positive)
    return ItemOutcomes(
        positive=positive,
        valid=valid,
        predicted_success=predicted_success,
        correct=correct,
        status=statuses,
        reference_type=[record["mistake_type"] for record in records],
        type_correct=type_correct,
        unmatched_type=unmatched_type,
        clusters=_clusters(records),
        steps_ids=[record["steps_id"] for record in records],
        grouped=any(record["pair_group_id"] is not None for record in records),
    )
