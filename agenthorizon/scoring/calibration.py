"""Calibration of a judge's stated confidence: does "high" mean right more often than "low"?

A verdict's ``confidence`` is a level (``low``, ``medium``, ``high``) or a
number in [0, 1], read as the judge's probability that its verdict is right.
An invalid prediction is wrong and carries no confidence.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np

from agenthorizon.schema import CONFIDENCE_VALUES
from agenthorizon.scoring.bootstrap import check_bootstrap, percentile_interval, resampled_sums
from agenthorizon.scoring.outcomes import outcomes_from_records
from agenthorizon.scoring.predictions import prediction_verdict
from agenthorizon.scoring.references import align_predictions, reference_records

__all__ = ["Calibration", "CoveragePoint", "ReliabilityBin", "auroc", "calibration", "parse_confidence"]


def parse_confidence(value: Any) -> str | float | None:
    """A stated confidence as a level name or a number in [0, 1]; ``None`` when it is neither.

    >>> parse_confidence(" High"), parse_confidence(0.8), parse_confidence("0.25"), parse_confidence(3)
    ('high', 0.8, 0.25, None)
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        text = value.strip().lower()
        if text in CONFIDENCE_VALUES:
            return text
        try:
            value = float(text)
        except ValueError:
            return None
    if isinstance(value, (int, float)) and math.isfinite(value) and 0 <= value <= 1:
        return float(value)
    return None


def auroc(scores: Sequence[float], positive: Sequence[bool]) -> float | None:
    """Area under the ROC curve of ``scores`` for ``positive``: P(score of a positive > score of a negative).

    Ties count one half (the Mann-Whitney statistic divided by the pairs).
    In [0, 1]: 0.5 is no better than chance, 1 ranks every positive first;
    ``None`` without both classes.

    >>> auroc([0.9, 0.8, 0.3, 0.3], [True, False, True, False])
    0.625
    """
    scores = np.asarray(scores, dtype=float)
    positive = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if n_pos == 0 or n_neg == 0:
        return None
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    sorted_scores = scores[order]
    start = 0
    for end in range(1, len(scores) + 1):  # average ranks of ties
        if end == len(scores) or sorted_scores[end] != sorted_scores[start]:
            ranks[order[start:end]] = (start + end + 1) / 2
            start = end
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


@dataclass(frozen=True)
class CoveragePoint:
    """Selective accuracy when abstaining below ``threshold``: items kept, their share and accuracy."""

    threshold: str
    kept: int
    coverage: float
    accuracy: float | None
    interval: tuple[float, float] | None


@dataclass(frozen=True)
class ReliabilityBin:
    """Items whose numeric confidence falls in [``low``, ``high``): their mean confidence and accuracy."""

    low: float
    high: float
    n: int
    mean_confidence: float | None
    accuracy: float | None
    interval: tuple[float, float] | None


@dataclass(frozen=True)
class Calibration:
    """How a judge's stated confidence relates to being right; see :func:`calibration`."""

    n: int
    n_level: int
    n_numeric: int
    n_without: int
    accuracy_by_level: dict[str, CoveragePoint]
    """Per level, the items stating exactly it (``coverage`` is their share of all items)."""
    selective: tuple[CoveragePoint, ...]
    """Abstaining below each level in turn (``any`` keeps every item, confidence or not)."""
    reliability: tuple[ReliabilityBin, ...]
    expected_calibration_error: float | None
    brier_score: float | None
    auroc: float | None
    """AUROC of the confidence (levels as 0, 1, 2; numbers as given) for "the verdict is right"."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible dict."""
        values = asdict(self)
        values["selective"] = list(values["selective"])
        values["reliability"] = list(values["reliability"])
        return values


def _ratio_interval(clusters: np.ndarray, kept: np.ndarray, hits: np.ndarray, n_resamples: int, seed: int,
                    level: float) -> tuple[float, float] | None:
    if not n_resamples or not kept.any():
        return None
    sums = resampled_sums(clusters, [kept, hits], n_resamples, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = np.where(sums[:, 0] > 0, sums[:, 1] / np.where(sums[:, 0] > 0, sums[:, 0], 1), np.nan)
    return percentile_interval(ratios, level)


def calibration(
    predictions: Any, references: Any, *, bins: int = 10, bootstrap: int = 1000, seed: int = 0, level: float = 0.95,
) -> Calibration:
    """Calibration of the confidence a judge states with its verdicts (each verdict's ``confidence``, :func:`parse_confidence`).

    For levels: accuracy per level and selective accuracy (abstain below
    ``low``, ``medium``, ``high``) with coverage in [0, 1]. For numbers: a
    reliability table of ``bins`` equal-width bins, expected calibration error
    (sum of n_b / n * |accuracy_b - mean confidence_b|, in [0, 1]) and Brier score
    (mean (confidence - correct)^2, in [0, 1]). AUROC in [0, 1] over the items
    stating one kind of confidence (``None`` when kinds mix or one class is
    missing). ``bootstrap`` resamples pair groups for every accuracy's
    percentile interval.

    >>> refs = ["positive", "negative", "positive", "negative"]
    >>> preds = [{"success": True, "confidence": "high"}, {"success": False, "confidence": "high"},
    ...          {"success": False, "confidence": "low"}, {"success": False, "confidence": "medium"}]
    >>> result = calibration(preds, refs, bootstrap=0)
    >>> [(point.threshold, point.coverage, point.accuracy) for point in result.selective]
    [('any', 1.0, 0.75), ('low', 1.0, 0.75), ('medium', 0.75, 1.0), ('high', 0.5, 1.0)]
    >>> result.auroc
    1.0
    """
    check_bootstrap(bootstrap)
    if bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins}")
    records = reference_records(references)
    outcomes = outcomes_from_records(predictions, records)
    stated = []
    for prediction, valid in zip(align_predictions(predictions, records), outcomes.valid):
        verdict = prediction_verdict(prediction) if valid else None
        stated.append(parse_confidence(verdict.get("confidence")) if isinstance(verdict, dict) else None)
    n = len(stated)
    correct, clusters = outcomes.correct, outcomes.clusters
    level_rank = {name: rank for rank, name in enumerate(CONFIDENCE_VALUES)}
    ranks = np.array([level_rank[c] if isinstance(c, str) else -1 for c in stated])
    numbers = np.array([c if isinstance(c, float) else np.nan for c in stated])
    has_level, has_number = ranks >= 0, ~np.isnan(numbers)

    def point(name: str, kept: np.ndarray) -> CoveragePoint:
        count = int(kept.sum())
        accuracy = float(correct[kept].mean()) if count else None
        return CoveragePoint(name, count, count / n if n else 0.0, accuracy,
                             _ratio_interval(clusters, kept, kept & correct, bootstrap, seed, level))

    by_level = {name: point(name, ranks == rank) for name, rank in level_rank.items()} if has_level.any() else {}
    selective = ()
    if has_level.any():
        selective = (point("any", np.ones(n, dtype=bool)),
                     *(point(name, ranks >= rank) for name, rank in level_rank.items()))
    reliability: list[ReliabilityBin] = []
    ece = brier = None
    if has_number.any():
        edges = np.linspace(0.0, 1.0, bins + 1)
        index = np.minimum((numbers[has_number] * bins).astype(int), bins - 1)  # 1.0 falls in the last bin
        right, said = correct[has_number], numbers[has_number]
        total = int(has_number.sum())
        ece = 0.0
        positions = np.flatnonzero(has_number)
        for b in range(bins):
            inside = index == b
            count = int(inside.sum())
            mask = np.zeros(n, dtype=bool)
            mask[positions[inside]] = True
            accuracy = float(right[inside].mean()) if count else None
            mean = float(said[inside].mean()) if count else None
            if count:
                ece += count / total * abs(accuracy - mean)
            reliability.append(ReliabilityBin(float(edges[b]), float(edges[b + 1]), count, mean, accuracy,
                                              _ratio_interval(clusters, mask, mask & correct, bootstrap, seed, level)))
        brier = float(np.mean((said - right) ** 2))
    area = None
    if has_level.any() != has_number.any():
        chosen = has_level if has_level.any() else has_number
        area = auroc((ranks if has_level.any() else numbers)[chosen], correct[chosen])
    return Calibration(
        n=n, n_level=int(has_level.sum()), n_numeric=int(has_number.sum()),
        n_without=int(n - has_level.sum() - has_number.sum()), accuracy_by_level=by_level, selective=selective,
        reliability=tuple(reliability), expected_calibration_error=ece, brier_score=brier, auroc=area,
    )
