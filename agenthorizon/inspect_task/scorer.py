"""The Inspect scorer and metrics of AgentHorizon: the project's parse rule and strict metrics.

The metrics are not averages of sample values: each scores the samples with
:func:`agenthorizon.scoring.metrics.score`, as ``agenthorizon score`` does. A
sample that errored (``--fail-on-error`` tolerance) never reaches a metric, so
each metric counts the task's unscored items as missing predictions.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Mapping, Sequence

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState

from agenthorizon.schema import NEGATIVE, POSITIVE, STATUS_OK
from agenthorizon.scoring.metric_list import METRICS
from agenthorizon.scoring.metrics import ScoreReport, score
from agenthorizon.scoring.predictions import result_prediction
from agenthorizon.scoring.verdicts import Verdict, parse_verdict

__all__ = [
    "balanced_accuracy",
    "declared_rates",
    "expected_counts",
    "invalid_rate",
    "metrics",
    "mistake_type_recall",
    "negative_accuracy",
    "positive_accuracy",
    "report_of",
    "verdict_scorer",
]

_UNSCORED = "not-scored"


def expected_counts(references: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Items by ``"label|mistake_type"``: what the metrics need to count unscored items.

    >>> expected_counts([{"label": "positive", "mistake_type": ""}, {"label": "negative", "mistake_type": "Bad Side Effect"}])
    {'negative|Bad Side Effect': 1, 'positive|': 1}
    """
    counts = Counter(f"{row['label']}|{row.get('mistake_type') or ''}" for row in references)
    return dict(sorted(counts.items()))


def report_of(scores: Sequence[SampleScore], expected: Mapping[str, int]) -> ScoreReport:
    """The strict :class:`~agenthorizon.scoring.metrics.ScoreReport` of Inspect ``SampleScore`` objects.

    Each score's metadata holds the item's reference and prediction (see
    :func:`verdict_scorer`); items of ``expected`` with no score are missing
    predictions, wrong for their item and kept in every denominator.
    """
    predictions: dict[str, Any] = {}
    rows: list[dict[str, Any]] = []
    seen: Counter[str] = Counter()
    for sample_score in scores:
        metadata = sample_score.score.metadata or {}
        trajectory_id = str(sample_score.sample_id)
        rows.append({"trajectory_id": trajectory_id, "label": metadata["label"],
                     "mistake_type": metadata["reference_mistake_type"]})
        predictions[trajectory_id] = result_prediction(metadata["parse_status"], metadata["verdict"])
        seen[f"{metadata['label']}|{metadata['reference_mistake_type']}"] += 1
    for key, count in expected.items():
        label, _, mistake_type = key.partition("|")
        for index in range(count - seen[key]):
            rows.append({"trajectory_id": f"{_UNSCORED}:{key}:{index}", "label": label, "mistake_type": mistake_type})
    return score(predictions, rows)


def _rate(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def _from_report(expected: Mapping[str, int] | None, read: Callable[[ScoreReport], Value]) -> Metric:
    """A metric reading its value from the :func:`report_of` of the scored samples."""

    def compute(scores: list[SampleScore]) -> Value:  # annotated: Inspect passes SampleScore objects
        return read(report_of(scores, expected or {}))

    return compute


@metric
def balanced_accuracy(expected: dict[str, int] | None = None) -> Metric:
    """0.5 x (positive accuracy + negative accuracy), in [0, 1]; 0.5 is chance (NaN without positives or negatives)."""
    return _from_report(expected, lambda report: _rate(report.balanced_accuracy))


@metric
def positive_accuracy(expected: dict[str, int] | None = None) -> Metric:
    """Share of positives judged success, in [0, 1] (NaN without positives)."""
    return _from_report(expected, lambda report: _rate(report.positive_accuracy))


@metric
def negative_accuracy(expected: dict[str, int] | None = None) -> Metric:
    """Share of negatives judged failure, in [0, 1] (NaN without negatives)."""
    return _from_report(expected, lambda report: _rate(report.negative_accuracy))


@metric
def invalid_rate(expected: dict[str, int] | None = None) -> Metric:
    """Share of items whose answer is invalid (unparseable, failed or missing), in [0, 1]."""
    return _from_report(expected, lambda report: float(report.invalid_rate))


@metric
def mistake_type_recall(expected: dict[str, int] | None = None) -> Metric:
    """Per mistake type T: negatives of type T judged failure *and* named T, over negatives of type T.

    One value per type, named ``"<type> recall"`` (Inspect shows each as a
    metric of its own); types with no negative among the items have no recall
    and are left out (not 0).
    """
    return _from_report(expected, lambda report: {
        f"{name} recall": value["recall"]
        for name, value in report.mistake_type_recall.items() if value["recall"] is not None
    })


@metric
def declared_rates(expected: dict[str, int] | None = None) -> Metric:
    """Each rate of :data:`~agenthorizon.scoring.metric_list.METRICS` marked ``inspect``, under its name, in [0, 1].

    One value per metric (Inspect shows each as a metric of its own); a rate
    whose denominator is 0 (e.g. success precision of a judge that accepts
    nothing) has no value and is left out (not 0).
    """
    return _from_report(expected, lambda report: {
        spec.name: report.rates[spec.name] for spec in METRICS if spec.inspect and report.rates[spec.name] is not None
    })


def metrics(expected: Mapping[str, int]) -> list[Metric]:
    """The task's Inspect metrics, each from :func:`report_of`; ``expected`` is :func:`expected_counts` of its items."""
    given = dict(expected)
    return [
        balanced_accuracy(given), positive_accuracy(given), negative_accuracy(given), invalid_rate(given),
        mistake_type_recall(given), declared_rates(given),
    ]


def _score_value(verdict: Verdict, label: str) -> float:
    if verdict.status != STATUS_OK:
        return 0.0
    return 1.0 if verdict.success == (label == POSITIVE) else 0.0


@scorer(metrics=[balanced_accuracy(), positive_accuracy(), negative_accuracy(), invalid_rate(), mistake_type_recall(),
                 declared_rates()])
def verdict_scorer() -> Scorer:
    """The Inspect scorer: :func:`~agenthorizon.scoring.verdicts.parse_verdict` against the target's label.

    The score's ``value`` is 1 for a valid verdict agreeing with the label,
    0 otherwise (an invalid answer is wrong); ``answer`` is ``success``,
    ``failure`` or the parse status of an invalid answer; ``metadata`` holds
    the reference (``label``, ``reference_mistake_type``) and the prediction
    (``parse_status``, ``verdict``) the metrics read. Its default metrics have
    no expected counts (for ``inspect score`` of a log alone); the task's have.
    """

    async def score_sample(state: TaskState, target: Target) -> Score:
        label, mistake_type = target[0], target[1] if len(target) > 1 else ""
        if label not in (POSITIVE, NEGATIVE):
            raise ValueError(f"sample {state.sample_id}: target label {label!r}; expected {POSITIVE} or {NEGATIVE}")
        verdict = parse_verdict(state.output.completion)
        valid = verdict.status == STATUS_OK
        return Score(
            value=_score_value(verdict, label),
            answer=("success" if verdict.success else "failure") if valid else verdict.status,
            explanation=verdict.reasoning if valid else verdict.detail,
            metadata={
                "label": label,
                "reference_mistake_type": mistake_type,
                "parse_status": verdict.status,
                "verdict": verdict.to_dict() if valid else None,
            },
        )

    return score_sample
