"""Strict scoring of judge predictions against AgentHorizon labels.

The protocol (SPEC section 3) in one paragraph: a prediction is *valid* only
when it carries a real Boolean ``success``. Anything else -- no result, text
that is not one JSON object, an object without ``success``, ``null``, the
string ``"true"``, the number ``1`` -- is *invalid*: it counts as incorrect for
its item whatever the label, and it never removes the item from a
denominator. Every denominator is therefore the number of references.

One prediction is judged valid or not by
:func:`agenthorizon.scoring.predictions.validate_prediction` (raw text through
the runner's verdict parser); this module turns those per-item facts into
metrics. It is pure: no I/O, nothing heavier than numpy. The public entry
points are :func:`score`, :class:`ScoreReport` and :func:`item_outcomes`
(per-item correctness, used by :func:`agenthorizon.scoring.compare.compare`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from agenthorizon.scoring import bootstrap as stats
from agenthorizon.scoring.predictions import validate_prediction, warn_shapes
from agenthorizon.schema import (
    INVALID_STATUSES,
    LABEL_VALUES,
    MISTAKE_TYPES,
    NEGATIVE,
    POSITIVE,
    STATUS_OK,
    STEP_BUCKETS,
    UNTYPED,
    canonical_mistake_type,
    step_bucket,
)

__all__ = [
    "OUTCOMES",
    "SLICES",
    "ItemOutcomes",
    "ScoreReport",
    "align_predictions",
    "check_slices",
    "item_outcomes",
    "reference_record",
    "reference_records",
    "score",
]

OUTCOMES = ("correct", "false_accept", "false_reject", "invalid")
"""Per-item outcome classes, see :meth:`ItemOutcomes.outcome_classes`."""

CONFIDENCE_LEVEL = 0.95
"""Coverage of every bootstrap interval reported by :func:`score`."""

# Slice values for rows that have no value of their own along a slice, spelled
# in parentheses so they can never collide with a real field value.
POSITIVE_SLICE_VALUE = "(positive)"
UNTYPED_SLICE_VALUE = "(untyped)"
UNKNOWN_SLICE_VALUE = "(unknown)"


# --- references ----------------------------------------------------------------------


def reference_record(reference: Any, position: int) -> dict[str, Any]:
    """Validate one reference and return its scoring fields.

    A reference is a label row (a mapping with ``label`` and ``mistake_type``;
    dataset rows work as they are) or a label string ``"positive"`` /
    ``"negative"``. The returned dict has ``label``, ``mistake_type`` (the
    canonical spelling, ``""`` for positives and untyped negatives),
    ``trajectory_id`` and ``pair_group_id`` (``None`` when absent).

    Raises ``ValueError`` naming ``position`` and what was expected.

    >>> reference_record({"label": "negative", "mistake_type": "misunderstanding of the instruction"}, 0)
    {'label': 'negative', 'mistake_type': 'Misunderstanding of the Instructions', 'trajectory_id': None, 'pair_group_id': None}
    """
    where = f"references[{position}]"
    if isinstance(reference, str):
        if reference not in LABEL_VALUES:
            raise ValueError(f"{where}: expected the label string 'positive' or 'negative', got {reference!r}")
        return {"label": reference, "mistake_type": UNTYPED, "trajectory_id": None, "pair_group_id": None}
    if not isinstance(reference, Mapping):
        raise ValueError(
            f"{where}: expected a label row (a mapping with 'label' and 'mistake_type') "
            f"or a label string, got {type(reference).__name__}"
        )
    for key in ("label", "mistake_type"):
        if key not in reference:
            raise ValueError(f"{where}: label row has no {key!r} field; expected 'label' and 'mistake_type'")
    label = reference["label"]
    if label not in LABEL_VALUES:
        raise ValueError(f"{where}: expected label 'positive' or 'negative', got {label!r}")
    raw_type = reference["mistake_type"]
    if raw_type is None or raw_type == UNTYPED:
        mistake_type = UNTYPED
    else:
        mistake_type = canonical_mistake_type(raw_type)
        if mistake_type is None:
            raise ValueError(f"{where}: unknown mistake_type {raw_type!r}; expected one of {list(MISTAKE_TYPES)} or ''")
        if label == POSITIVE:
            raise ValueError(f"{where}: a positive has mistake_type {raw_type!r}; expected '' for positives")
    trajectory_id = reference.get("trajectory_id")
    group = reference.get("pair_group_id")
    return {
        "label": label,
        "mistake_type": mistake_type,
        "trajectory_id": trajectory_id if isinstance(trajectory_id, str) and trajectory_id else None,
        "pair_group_id": group if isinstance(group, str) and group else None,
    }


# --- slices ----------------------------------------------------------------------------


def _by_label(value_of: Callable[[Any], str]) -> Callable[[Mapping], str]:
    def slice_value(row: Mapping) -> str:
        return POSITIVE_SLICE_VALUE if row["label"] == POSITIVE else value_of(row)

    return slice_value


def _or_unknown(field_name: str) -> Callable[[Mapping], str]:
    def slice_value(row: Mapping) -> str:
        value = row[field_name]
        return UNKNOWN_SLICE_VALUE if value is None or value == "" else str(value)

    return slice_value


def _count_applications(row: Mapping) -> str:
    applications = row["applications"]
    return UNKNOWN_SLICE_VALUE if applications is None else str(len(applications))


def _step_bucket(row: Mapping) -> str:
    num_steps = row["num_steps"]
    return UNKNOWN_SLICE_VALUE if num_steps is None else step_bucket(int(num_steps))


SLICES: dict[str, tuple[str, Callable[[Mapping], str]]] = {
    "os": ("os", _or_unknown("os")),
    "difficulty": ("difficulty", _or_unknown("difficulty")),
    "mistake_type": (
        "mistake_type",
        _by_label(lambda row: canonical_mistake_type(row["mistake_type"]) or UNTYPED_SLICE_VALUE),
    ),
    "direction": ("instruction_source", _by_label(_or_unknown("instruction_source"))),
    "step_bucket": ("num_steps", _step_bucket),
    "num_applications": ("applications", _count_applications),
}
"""Slice name -> (row field it reads, function giving a row's slice value).

``direction`` is the negative's direction (its ``instruction_source``:
``parent`` or ``child``); ``step_bucket`` uses :data:`schema.STEP_BUCKETS`;
positives fall in the ``(positive)`` value of ``mistake_type`` and
``direction``; a missing value is ``(unknown)``.
"""


def check_slices(names: Iterable[str]) -> list[str]:
    """``names`` as a list when every one is a slice of :data:`SLICES`; ``ValueError`` listing the unknown ones.

    >>> check_slices(["os", "direction"])
    ['os', 'direction']
    """
    names = list(names)
    unknown = [name for name in names if name not in SLICES]
    if unknown:
        raise ValueError(f"unknown slice(s) {', '.join(map(str, unknown))}; expected names from {', '.join(SLICES)}")
    return names


def _slice_order(value: str) -> tuple:
    # Numbers sort numerically, step buckets in their natural order, the
    # parenthesised placeholders last.
    if value.startswith("("):
        return (2, value)
    if value.isdigit():
        return (0, int(value), value)
    for rank, (_low, _high, name) in enumerate(STEP_BUCKETS):
        if value == name:
            return (0, rank, value)
    return (1, value)


# --- per-item outcomes ----------------------------------------------------------------


@dataclass(frozen=True)
class ItemOutcomes:
    """Per-item facts that every metric here is a function of.

    All arrays have one entry per reference, in reference order.

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
        """``(balanced, positive, negative)`` accuracy: the one place they are computed.

        positive accuracy = correct positives / positives; negative accuracy =
        correct negatives / negatives; balanced = their mean. Each in [0, 1],
        ``None`` when its denominator is zero (balanced: when either is).

        >>> item_outcomes([True, False, True, None], ["positive", "positive", "negative", "negative"]).accuracies()
        (0.25, 0.5, 0.0)
        """
        n_positive = int(self.positive.sum())
        n_negative = len(self) - n_positive
        positive = _ratio(int((self.correct & self.positive).sum()), n_positive)
        negative = _ratio(int((self.correct & ~self.positive).sum()), n_negative)
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
        )


def _needed_columns(references: Any, fields: Iterable[str]) -> Any:
    # A datasets.Dataset decodes every column of a row on iteration
    # (trajectory steps, Markdown); reading only the columns scoring uses keeps
    # scoring a whole release fast. Duck-typed so this module never imports
    # datasets.
    select = getattr(references, "select_columns", None)
    names = getattr(references, "column_names", None)
    if callable(select) and isinstance(names, list):
        keep = [name for name in dict.fromkeys(fields) if name in names]
        return select(keep)
    return references


def _as_reference_list(references: Any, extra_fields: Iterable[str] = ()) -> list[Any]:
    if isinstance(references, (str, bytes)) or isinstance(references, Mapping):
        raise ValueError(
            "references must be a sequence of label rows or label strings, "
            f"got a single {type(references).__name__}"
        )
    base = ("trajectory_id", "label", "mistake_type", "pair_group_id")
    rows = list(_needed_columns(references, (*base, *extra_fields)))
    if not rows:
        raise ValueError("references is empty; expected at least one label row")
    return rows


def reference_records(references: Any) -> list[dict[str, Any]]:
    """Validate a whole sequence of references; see :func:`reference_record`.

    >>> [record["label"] for record in reference_records(["negative", "positive"])]
    ['negative', 'positive']
    """
    return [reference_record(row, position) for position, row in enumerate(_as_reference_list(references))]


def align_predictions(predictions: Any, records: list[dict[str, Any]]) -> list[Any]:
    """One prediction per reference record, in reference order.

    ``predictions`` is a sequence (its length must equal the references') or
    a mapping ``trajectory_id -> prediction``, where an id absent from the
    mapping gives ``None`` (a missing prediction) and an id outside the
    references raises ``ValueError``. A reference id that occurs twice raises
    in either form.
    ``records`` come from :func:`reference_records`.

    >>> records = reference_records([{"trajectory_id": "a", "label": "positive", "mistake_type": ""},
    ...                              {"trajectory_id": "b", "label": "negative", "mistake_type": ""}])
    >>> align_predictions({"b": False}, records)
    [None, False]
    """
    # A repeated item would be scored twice whatever form the predictions take.
    seen: dict[str, int] = {}
    for position, record in enumerate(records):
        trajectory_id = record["trajectory_id"]
        if trajectory_id is not None and trajectory_id in seen:
            raise ValueError(
                f"references[{position}]: duplicate trajectory_id {trajectory_id} "
                f"(first at references[{seen[trajectory_id]}]); expected each item once"
            )
        seen.setdefault(trajectory_id, position)
    if isinstance(predictions, Mapping):
        ids = []
        for position, record in enumerate(records):
            if record["trajectory_id"] is None:
                raise ValueError(
                    f"references[{position}]: predictions is a mapping by trajectory_id, "
                    "so every reference needs a non-empty string 'trajectory_id'"
                )
            ids.append(record["trajectory_id"])
        unknown = [key for key in predictions if key not in seen]
        if unknown:
            shown = ", ".join(map(str, sorted(unknown, key=str)[:3]))
            raise ValueError(
                f"predictions hold {len(unknown)} trajectory id(s) that are not in the references "
                f"(e.g. {shown}); pass predictions for the referenced items only"
            )
        # An id absent from the mapping is a missing prediction (None).
        return [predictions.get(trajectory_id) for trajectory_id in ids]
    if isinstance(predictions, (str, bytes)) or not hasattr(predictions, "__len__"):
        raise ValueError(
            "predictions must be a sequence aligned with the references or a mapping "
            f"trajectory_id -> prediction, got {type(predictions).__name__}"
        )
    predictions = list(predictions)
    if len(predictions) != len(records):
        raise ValueError(
            f"got {len(predictions)} predictions for {len(records)} references; "
            "expected one prediction per reference (use None for a missing one)"
        )
    return predictions


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
    return stats.cluster_codes(groups)


def item_outcomes(predictions: Any, references: Any) -> ItemOutcomes:
    """Validate predictions and references and return per-item outcomes.

    Takes the same ``predictions`` and ``references`` as :func:`score`.

    >>> outcomes = item_outcomes([True, "1"], ["positive", "negative"])
    >>> outcomes.correct.tolist(), outcomes.status
    ([True, False], ['ok', 'not_object'])
    """
    return _outcomes_from_rows(predictions, reference_records(references))


def _outcomes_from_rows(predictions: Any, records: list[dict[str, Any]]) -> ItemOutcomes:
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
    )


# --- the report ------------------------------------------------------------------------


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


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
    intervals: dict[str, tuple[float, float] | None] | None = None
    bootstrap: dict[str, Any] | None = None
    slices: dict[str, dict[str, ScoreReport]] = field(default_factory=dict)

    @property
    def invalid_rate(self) -> float:
        """Share of items whose prediction is invalid, in [0, 1] (lower is better)."""
        return self.n_invalid / self.n

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
            "intervals": intervals,
            "bootstrap": None if self.bootstrap is None else dict(self.bootstrap),
            "slices": {
                name: {value: report.to_dict() for value, report in values.items()}
                for name, values in self.slices.items()
            },
        }


def _report(outcomes: ItemOutcomes, n_bootstrap: int, seed: int) -> ScoreReport:
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
        recall[mistake_type] = {"correct": hits, "total": total, "recall": _ratio(hits, total)}
    defined = [value["recall"] for value in recall.values() if value["recall"] is not None]
    intervals = None
    bootstrap_info = None
    if n_bootstrap:
        intervals = stats.bootstrap_accuracies(
            outcomes.positive, outcomes.correct, outcomes.clusters, n_resamples=n_bootstrap, seed=seed,
            level=CONFIDENCE_LEVEL,
        )
        bootstrap_info = {
            "n_resamples": n_bootstrap,
            "seed": seed,
            "level": CONFIDENCE_LEVEL,
            "n_clusters": int(np.unique(outcomes.clusters).size),
        }
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
        intervals=intervals,
        bootstrap=bootstrap_info,
    )


def _slice_values(rows: list[Any], name: str) -> list[str]:
    field_name, value_of = SLICES[name]
    values = []
    for position, row in enumerate(rows):
        if not isinstance(row, Mapping) or field_name not in row:
            raise ValueError(
                f"slice {name!r} needs the field {field_name!r}, which references[{position}] does not have; "
                "pass dataset rows (agenthorizon.load_dataset) to slice by it"
            )
        values.append(value_of(row))
    return values


def score(
    predictions: Any,
    references: Any,
    *,
    bootstrap: int = 0,
    seed: int = 0,
    slices: Sequence[str] | None = None,
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
      negatives are left out of these denominators only.

    An invalid prediction (see :func:`~agenthorizon.scoring.predictions.validate_prediction`) is incorrect for
    its item whatever the label and never changes a denominator: every
    denominator counts the references. No prediction makes this function
    raise; malformed references do.

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
        Number of bootstrap resamples for 95% percentile intervals of
        balanced, positive and negative accuracy; 0 computes none. Whole
        clusters are resampled: items sharing a ``pair_group_id`` share
        recordings and are not independent. When the references carry no
        ``pair_group_id``, each item is its own cluster.
    seed : int, default 0
        Seed of the bootstrap; the same seed gives the same intervals.
    slices : sequence of str, optional
        Names from :data:`SLICES` (``os``, ``difficulty``, ``mistake_type``,
        ``direction``, ``step_bucket``, ``num_applications``); the report's
        ``slices[name][value]`` holds the same metrics for each value. A
        slice whose field the references lack raises ``ValueError``.

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
    >>> report.n_invalid, report.invalid_by_reason["not_object"], report.invalid_by_reason["missing"]
    (2, 1, 1)

    Mistake types match whatever the case and either spelling of the third type:

    >>> rows = [{"label": "negative", "mistake_type": "Misunderstanding of the Instructions"}]
    >>> verdict = {"success": False, "mistake_type": "misunderstanding of the instruction"}
    >>> score([verdict], rows).mistake_type_recall["Misunderstanding of the Instructions"]
    {'correct': 1, 'total': 1, 'recall': 1.0}
    """
    stats.check_bootstrap(bootstrap)
    slice_names = check_slices(slices or ())
    rows = _as_reference_list(references, [SLICES[name][0] for name in slice_names])
    records = [reference_record(row, position) for position, row in enumerate(rows)]
    if not isinstance(predictions, (Mapping, str, bytes)) and hasattr(predictions, "__len__"):
        predictions = list(predictions)  # read once: warned about, then aligned
    # Scores stay strict; a known wrong shape (0/1, "true", {"prediction": b})
    # is named with its fix so a pipeline bug is not mistaken for a bad judge.
    warn_shapes(predictions.values() if isinstance(predictions, Mapping) else predictions)
    outcomes = _outcomes_from_rows(predictions, records)
    report = _report(outcomes, int(bootstrap), seed)
    for name in slice_names:
        values = np.asarray(_slice_values(rows, name), dtype=object)
        report.slices[name] = {
            value: _report(outcomes.subset(values == value), int(bootstrap), seed)
            for value in sorted(set(values.tolist()), key=_slice_order)
        }
    return report
