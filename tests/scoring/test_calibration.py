"""Calibration of stated confidence, against scikit-learn's AUROC and the definitions written out here."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from agenthorizon.scoring.calibration import auroc, calibration, parse_confidence

LEVELS = ("low", "medium", "high")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), st.booleans()), min_size=2, max_size=40))
def test_auroc_equals_scikit_learn(pairs):
    scores, labels = zip(*pairs)
    ours = auroc(scores, labels)
    if len(set(labels)) < 2:
        assert ours is None
    else:
        assert ours == pytest.approx(roc_auc_score(labels, scores))


def _items(rng, n, kind):
    refs = [{"trajectory_id": f"{i:08d}-0000-4000-8000-000000000000", "label": "positive" if i % 2 else "negative",
             "pair_group_id": f"g{i // 4}", "mistake_type": ""} for i in range(n)]
    preds = []
    for i in range(n):
        truth = i % 2 == 1
        if rng.random() < 0.05:
            preds.append(None)  # no verdict: wrong, and no confidence
            continue
        p = rng.random()
        right = rng.random() < 0.4 + 0.5 * p  # confident verdicts are right more often
        said = truth if right else not truth
        confidence = LEVELS[min(2, int(3 * p))] if kind == "levels" else round(p, 3)
        preds.append({"success": said, "confidence": confidence if rng.random() > 0.1 else None})
    return preds, refs


def _correct(preds, refs):
    return np.array([p is not None and p["success"] == (r["label"] == "positive") for p, r in zip(preds, refs)])


def test_levels_selective_accuracy_and_auroc_from_the_definitions():
    preds, refs = _items(np.random.default_rng(1), 400, "levels")
    result = calibration(preds, refs, bootstrap=300, seed=2)
    correct = _correct(preds, refs)
    rank = np.array([LEVELS.index(p["confidence"]) if p and p["confidence"] else -1 for p in preds])
    for threshold, point in zip(("any", *LEVELS), result.selective):
        kept = np.ones(len(preds), bool) if threshold == "any" else rank >= LEVELS.index(threshold)
        assert point.threshold == threshold and point.kept == kept.sum()
        assert point.coverage == pytest.approx(kept.mean()) and point.accuracy == pytest.approx(correct[kept].mean())
        assert point.interval[0] <= point.accuracy <= point.interval[1]
    for name in LEVELS:
        mask = rank == LEVELS.index(name)
        assert result.accuracy_by_level[name].accuracy == pytest.approx(correct[mask].mean())
    stated = rank >= 0
    assert result.auroc == pytest.approx(roc_auc_score(correct[stated], rank[stated]))
    assert result.n_without == (~stated).sum() and result.expected_calibration_error is None


def test_numbers_reliability_ece_and_brier_from_the_definitions():
    preds, refs = _items(np.random.default_rng(4), 500, "numbers")
    result = calibration(preds, refs, bins=10, bootstrap=0)
    correct = _correct(preds, refs)
    said = np.array([p["confidence"] if p and p["confidence"] is not None else np.nan for p in preds])
    has = ~np.isnan(said)
    bins = np.minimum((said[has] * 10).astype(int), 9)
    ece = sum((bins == b).sum() / has.sum() * abs(correct[has][bins == b].mean() - said[has][bins == b].mean())
              for b in range(10) if (bins == b).any())
    assert result.expected_calibration_error == pytest.approx(ece)
    assert result.brier_score == pytest.approx(np.mean((said[has] - correct[has]) ** 2))
    assert [b.n for b in result.reliability] == [int((bins == b).sum()) for b in range(10)]
    assert result.auroc == pytest.approx(roc_auc_score(correct[has], said[has]))
    assert result.selective == ()


def test_a_confidence_is_a_level_or_a_number_in_the_unit_interval():
    assert [parse_confidence(v) for v in ("LOW", "medium ", 0, 1, "0.5", 1.5, "very", True, None)] == [
        "low", "medium", 0.0, 1.0, 0.5, None, None, None, None]
