"""AgentHorizon strict judge metric, as an ``evaluate`` module.

Loaded by ``evaluate.load(agenthorizon.METRIC_PATH)`` or
``agenthorizon.load_metric()``. All scoring logic lives in
:mod:`agenthorizon.scoring.metrics`; this file only adapts it to ``evaluate``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import datasets
import evaluate
from evaluate.utils.file_utils import add_start_docstrings

from agenthorizon.schema import CITATION_BIBTEX
from agenthorizon.scoring.metrics import score
from agenthorizon.scoring.references import align_predictions, reference_records
from agenthorizon.scoring.predictions import prediction_record, warn_shapes

_DESCRIPTION = """\
Strict scoring of computer-use judges on AgentHorizon. Balanced accuracy is the
mean of positive accuracy (positives predicted success) and negative accuracy
(negatives predicted failure). A prediction is valid only when it carries a
real Boolean `success`; a missing result, malformed JSON, a missing `success`,
null, "true" or 1 is invalid, counts as incorrect for its item and never
changes a denominator.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one per reference, in order, or a mapping trajectory_id ->
        prediction (ids absent from it are missing predictions). Each is a
        bool, None, a verdict dict {"success": bool, "mistake_type": ...}, a
        judge's raw answer text (parsed as the runner parses it: fenced JSON
        or prose followed by the verdict object is read), or a runner result
        record {"parse_status", "verdict"}. Invalid predictions are counted,
        never raised; a known wrong shape (0/1, "true", {"prediction": b})
        gets a PredictionShapeWarning naming the fix.
    references: label rows (dicts with "label" and "mistake_type", plus
        "trajectory_id" when predictions is a mapping; dataset rows and a
        datasets.Dataset work as they are) or the strings "positive" / "negative".
Returns:
    balanced_accuracy, positive_accuracy, negative_accuracy, accuracy: in [0, 1]
        (None when a class is absent), higher is better;
    invalid_rate: share of invalid predictions, in [0, 1], lower is better;
    n_invalid: number of invalid predictions;
    invalid_by_reason: {reason: count} for every invalid reason (missing,
        no_json, malformed_json, not_object, missing_success, non_boolean,
        error, id_mismatch, judge_mismatch);
    n: number of references;
    mistake_type_recall: {type: recall in [0, 1] or None};
    mistake_type_recall_macro: mean of the defined type recalls;
    rejection_rate_by_type: {type: share of its negatives predicted failure};
    instruction_sensitivity, pair_group_accuracy: paired-design scores in
        [0, 1] (None without steps_id / pair_group_id in the references);
    cost, runtime: telemetry aggregates of result records (None without);
    and any metric added to ScoreReport (ScoreReport.metric_values).
Examples:
    >>> import agenthorizon
    >>> metric = agenthorizon.load_metric()
    >>> metric.compute(predictions=[True, "true"], references=["positive", "negative"])["balanced_accuracy"]
    0.5
"""

_CITATION = CITATION_BIBTEX


def _encode_predictions(predictions: Any) -> Any:
    if predictions is None:
        return None
    if isinstance(predictions, Mapping):
        raise ValueError(
            "a mapping trajectory_id -> prediction is accepted by compute(), which aligns it with "
            "the references; add_batch() needs predictions in reference order"
        )
    # Stored as JSON result records: one string column holds None, numbers, dicts and text alike.
    # Their shape is lost there, so a known wrong one is named here.
    predictions = list(predictions)
    warn_shapes(predictions, stacklevel=4)
    return [json.dumps(prediction_record(prediction)) for prediction in predictions]


def _encode_references(references: Any) -> Any:
    if references is None:
        return None
    return [json.dumps(record) for record in reference_records(references)]


@add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class AgentHorizonMetric(evaluate.Metric):
    """Strict AgentHorizon scoring (balanced accuracy, invalid rate, mistake-type recall)."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
            homepage="https://huggingface.co/datasets/ServiceNow/AgentHorizon",
            reference_urls=["https://huggingface.co/datasets/ServiceNow/AgentHorizon"],
        )

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict | None:
        """Score predictions against references (see the inputs description)."""
        if isinstance(predictions, Mapping) and references is not None:
            # Align here: evaluate stores predictions as a column, in reference order.
            references = reference_records(references)
            predictions = align_predictions(predictions, references)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Add a batch of predictions and references (see the inputs description)."""
        super().add_batch(
            predictions=_encode_predictions(predictions), references=_encode_references(references), **kwargs
        )

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Add one prediction and reference (see the inputs description)."""
        super().add(
            prediction=_encode_predictions([prediction])[0],
            reference=None if reference is None else _encode_references([reference])[0],
            **kwargs,
        )

    def _compute(self, predictions: list[str], references: list[str]) -> dict[str, Any]:
        return score([json.loads(p) for p in predictions], [json.loads(r) for r in references]).metric_values()
