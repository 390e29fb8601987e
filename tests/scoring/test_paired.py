"""Instruction sensitivity, pair-group accuracy and rejection by type, against a count written from their definitions.

The reference computation below is written from the issue's definitions,
not from the code: plain loops over items, pairs and groups, with a
prediction valid only when it is a real Boolean (or a verdict dict carrying
one). Random prediction sets include invalid-heavy ones. The intervals are
checked against a brute-force bootstrap that rebuilds each resample's items
from the documented draw stream.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agenthorizon
from agenthorizon.schema import BAD_SIDE_EFFECT, CRITICAL_MISTAKE, MISTAKE_TYPES, MISUNDERSTANDING
from agenthorizon.scoring.bootstrap import percentile_interval
from agenthorizon.scoring.metrics import score

pytestmark = pytest.mark.filterwarnings("ignore::agenthorizon.scoring.predictions.PredictionShapeWarning")

TYPES = [CRITICAL_MISTAKE, BAD_SIDE_EFFECT, MISUNDERSTANDING, ""]
VALID = [True, False, {"success": True}, {"success": False, "mistake_type": BAD_SIDE_EFFECT}]
INVALID = [None, "true", 1, {"success": None}, '{"success": tru', {"verdict": False}]


def said(prediction):
    """True / False for a valid prediction, None for an invalid one (from the protocol, not the code)."""
    if isinstance(prediction, bool):
        return prediction
    if isinstance(prediction, dict) and isinstance(prediction.get("success"), bool):
        return prediction["success"]
    return None


@st.composite
def scored_items(draw, invalid_share=None):
    """Label rows of random pair groups and one prediction per row."""
    rows = []
    for group in range(draw(st.integers(1, 8))):
        deliverables = [f"d{group}-{k}" for k in range(draw(st.integers(2, 3)))]
        for steps in deliverables:
            if draw(st.booleans()):  # the positive may have been removed in review
                rows.append({"label": "positive", "mistake_type": "", "steps_id": steps, "pair_group_id": f"g{group}"})
            for instruction in deliverables:
                if instruction != steps and draw(st.booleans()):
                    rows.append({"label": "negative", "mistake_type": draw(st.sampled_from(TYPES)), "steps_id": steps,
                                 "pair_group_id": f"g{group}"})
    if not rows:
        rows.append({"label": "negative", "mistake_type": "", "steps_id": "x", "pair_group_id": "g-x"})
    share = draw(st.sampled_from([0.0, 0.3, 0.9])) if invalid_share is None else invalid_share
    predictions = [
        draw(st.sampled_from(INVALID)) if draw(st.floats(0, 1, exclude_max=True)) < share else draw(st.sampled_from(VALID))
        for _ in rows
    ]
    return rows, predictions


def expected_sensitivity(rows, predictions):
    hits = pairs = 0
    for p, (row_p, pred_p) in enumerate(zip(rows, predictions)):
        for n, (row_n, pred_n) in enumerate(zip(rows, predictions)):
            if row_p["label"] == "positive" and row_n["label"] == "negative" and row_n["steps_id"] == row_p["steps_id"]:
                pairs += 1
                hits += said(pred_p) is True and said(pred_n) is False
    return (hits / pairs if pairs else None), pairs


def correct(row, prediction):
    return said(prediction) is (row["label"] == "positive")


def expected_group_accuracy(rows, predictions):
    groups = {}
    for row, prediction in zip(rows, predictions):
        groups.setdefault(row["pair_group_id"], []).append(correct(row, prediction))
    return sum(all(values) for values in groups.values()) / len(groups), len(groups)


def expected_rejection(rows, predictions, mistake_type):
    of_type = [said(p) is False for r, p in zip(rows, predictions) if r["label"] == "negative" and r["mistake_type"] == mistake_type]
    return (sum(of_type) / len(of_type) if of_type else None), len(of_type)


@settings(max_examples=80, deadline=None)
@given(scored_items())
def test_paired_scores_agree_with_their_definitions(items):
    rows, predictions = items
    report = score(predictions, rows)
    assert (report.instruction_sensitivity, report.n_instruction_pairs) == pytest.approx(expected_sensitivity(rows, predictions))
    assert (report.pair_group_accuracy, report.n_pair_groups) == pytest.approx(expected_group_accuracy(rows, predictions))
    for mistake_type in MISTAKE_TYPES:
        rate, total = expected_rejection(rows, predictions, mistake_type)
        cell = report.rejection_rate_by_type[mistake_type]
        assert (cell["rate"], cell["total"]) == pytest.approx((rate, total))
        # Rejecting at all is necessary for naming the type: rejection >= recall.
        recall = report.mistake_type_recall[mistake_type]["recall"]
        assert rate is None or rate >= recall
    values = report.metric_values()
    assert values["instruction_sensitivity"] == report.instruction_sensitivity
    assert values["rejection_rate_by_type"] == {t: report.rejection_rate_by_type[t]["rate"] for t in MISTAKE_TYPES}


@settings(max_examples=40, deadline=None)
@given(scored_items(invalid_share=1.0))
def test_all_invalid_predictions_score_zero_and_keep_every_denominator(items):
    rows, predictions = items
    report = score(predictions, rows)
    _, pairs = expected_sensitivity(rows, predictions)
    assert report.n_instruction_pairs == pairs
    assert report.instruction_sensitivity == (0.0 if pairs else None)
    assert report.pair_group_accuracy == 0.0
    assert all(cell["rate"] in (0.0, None) for cell in report.rejection_rate_by_type.values())


@settings(max_examples=40, deadline=None)
@given(scored_items(invalid_share=0.0), st.integers(0, 2**16))
def test_a_judge_blind_to_the_instruction_scores_zero(items, seed):
    rows, _ = items
    # Its answer depends on the recording alone: the positive and the negative showing it get the same one.
    rng = np.random.default_rng(seed)
    answer = {steps: bool(rng.integers(2)) for steps in {row["steps_id"] for row in rows}}
    report = score([answer[row["steps_id"]] for row in rows], rows)
    assert report.instruction_sensitivity in (0.0, None)


def test_a_fair_coin_scores_a_quarter():
    rows = []
    for k in range(3000):
        rows += [{"label": "positive", "mistake_type": "", "steps_id": f"s{k}", "pair_group_id": f"g{k}"},
                 {"label": "negative", "mistake_type": "", "steps_id": f"s{k}", "pair_group_id": f"g{k}"}]
    coin = np.random.default_rng(7).integers(0, 2, len(rows)).astype(bool).tolist()
    assert score(coin, rows).instruction_sensitivity == pytest.approx(0.25, abs=0.02)


def test_without_steps_or_groups_the_paired_scores_are_undefined_not_zero():
    report = score([True, False], ["positive", "negative"])
    assert report.instruction_sensitivity is None and report.n_instruction_pairs == 0
    assert report.pair_group_accuracy is None and report.n_pair_groups == 0


def brute_force_interval(rows, predictions, statistic, n_resamples, seed):
    """Resample pair groups with numpy's documented draw stream; recompute the statistic on the rebuilt items."""
    order = list(dict.fromkeys(row["pair_group_id"] for row in rows))
    draws = np.random.default_rng(seed).integers(0, len(order), (n_resamples, len(order)), dtype=np.int32)
    values = []
    for draw in draws:
        new_rows, new_predictions = [], []
        for copy, g in enumerate(draw):
            for row, prediction in zip(rows, predictions):
                if row["pair_group_id"] == order[g]:  # each copy of a group is a group of its own
                    new_rows.append({**row, "pair_group_id": f"{order[g]}#{copy}", "steps_id": f"{row['steps_id']}#{copy}"})
                    new_predictions.append(prediction)
        value = statistic(new_rows, new_predictions)[0]
        values.append(np.nan if value is None else value)
    return percentile_interval(np.array(values))


@settings(max_examples=8, deadline=None)
@given(scored_items(), st.integers(0, 1000))
def test_intervals_resample_pair_groups(items, seed):
    rows, predictions = items
    report = score(predictions, rows, bootstrap=60, seed=seed)
    expected = {
        "instruction_sensitivity": brute_force_interval(rows, predictions, expected_sensitivity, 60, seed),
        "pair_group_accuracy": brute_force_interval(rows, predictions, expected_group_accuracy, 60, seed),
        f"rejection_rate_by_type/{CRITICAL_MISTAKE}": brute_force_interval(
            rows, predictions, lambda r, p: expected_rejection(r, p, CRITICAL_MISTAKE), 60, seed),
    }
    for name, interval in expected.items():
        assert report.intervals[name] == (None if interval is None else pytest.approx(interval)), name


def test_metric_compute_returns_the_paired_scores_of_dataset_rows(tiny_root):
    dataset = agenthorizon.load_dataset(tiny_root, "all", split="test", images=None)
    rows = dataset.to_list()
    rng = np.random.default_rng(3)
    predictions = [VALID[i] if i < len(VALID) else INVALID[i - len(VALID)] for i in rng.integers(0, 10, len(rows))]
    result = agenthorizon.load_metric().compute(predictions=predictions, references=dataset)
    sensitivity, pairs = expected_sensitivity(rows, predictions)
    assert pairs > 0 and result["instruction_sensitivity"] == pytest.approx(sensitivity)
    assert result["pair_group_accuracy"] == pytest.approx(expected_group_accuracy(rows, predictions)[0])
    for mistake_type in MISTAKE_TYPES:
        assert result["rejection_rate_by_type"][mistake_type] == pytest.approx(expected_rejection(rows, predictions, mistake_type)[0])
