"""Precision, recall and F1 of the success class against scikit-learn, and their pair-clustered intervals
against a bootstrap written here from the definition."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import f1_score, precision_score, recall_score

from agenthorizon.scoring.bootstrap import resample_cluster_counts
from agenthorizon.scoring.metrics import score

# per item: (label is positive, the prediction: True, False or an invalid one)
items = st.lists(st.tuples(st.booleans(), st.sampled_from([True, False, None, "true"])), min_size=1, max_size=60)


@pytest.mark.filterwarnings("ignore::agenthorizon.scoring.predictions.PredictionShapeWarning")
@settings(max_examples=120, deadline=None)
@given(items)
def test_success_class_scores_equal_scikit_learn_with_invalid_never_success(rows):
    labels = ["positive" if positive else "negative" for positive, _ in rows]
    predictions = [prediction for _, prediction in rows]
    report = score(predictions, labels)
    truth = np.array([positive for positive, _ in rows])
    said = np.array([prediction is True for _, prediction in rows])  # invalid ("true", None) is not success
    for ours, theirs, defined in (
        (report.success_precision, precision_score, said.any()),
        (report.success_recall, recall_score, truth.any()),
        (report.success_f1, f1_score, truth.any() or said.any()),
    ):
        if defined:
            assert ours == pytest.approx(theirs(truth, said, zero_division=0))
        else:
            assert ours is None
    assert report.success_recall == report.positive_accuracy


def test_intervals_resample_whole_pair_groups():
    rng = np.random.default_rng(5)
    rows, predictions, groups = [], [], []
    for g in range(40):
        for label in ("positive", "negative", "negative"):
            rows.append({"label": label, "mistake_type": "", "pair_group_id": f"g{g}"})
            predictions.append(bool(rng.random() < (0.7 if label == "positive" else 0.35)))
            groups.append(g)
    report = score(predictions, rows, bootstrap=2000, seed=11)
    truth = np.array([row["label"] == "positive" for row in rows])
    said, groups = np.array(predictions), np.array(groups)
    tp = np.bincount(groups, truth & said, 40)
    fp = np.bincount(groups, ~truth & said, 40)
    pos = np.bincount(groups, truth, 40)
    # the same draws of groups the scorer makes (its resampler, seed 11), summed here by hand
    draws = np.concatenate(list(resample_cluster_counts(40, 2000, 11)))
    precision = (draws @ tp) / (draws @ (tp + fp))
    f1 = 2 * (draws @ tp) / (draws @ (tp + fp + pos))
    for name, values in (("success_precision", precision), ("success_f1", f1)):
        low, high = report.intervals[name]
        assert (low, high) == pytest.approx(tuple(np.nanpercentile(values, [2.5, 97.5])))
        assert low <= getattr(report, name) <= high
    assert report.to_dict()["success_f1"] == report.success_f1


@pytest.mark.filterwarnings("ignore::agenthorizon.scoring.predictions.PredictionShapeWarning")
@settings(max_examples=120, deadline=None)
@given(items)
def test_failure_precision_equals_scikit_learn_with_invalid_never_a_rejection(rows):
    report = score([prediction for _, prediction in rows], ["positive" if p else "negative" for p, _ in rows])
    failed = np.array([not positive for positive, _ in rows])
    rejected = np.array([prediction is False for _, prediction in rows])  # None and "true" reject nothing
    if rejected.any():
        assert report.failure_precision == pytest.approx(precision_score(failed, rejected, zero_division=0))
    else:
        assert report.failure_precision is None
