"""Paired comparison of two judges on the same items (scoring/compare.py)."""

from __future__ import annotations

import json

import pytest

from agenthorizon.scoring.compare import compare


def _refs(n_groups: int = 40):
    return [
        {"label": label, "mistake_type": "", "pair_group_id": f"g{g}"}
        for g in range(n_groups)
        for label in ("positive", "negative")
    ]


def test_compare_a_judge_with_itself():
    refs = _refs()
    predictions = [True, True, False, False] * 20
    result = compare(predictions, predictions, refs, bootstrap=500)
    assert result.difference == 0.0
    assert result.interval == (0.0, 0.0)
    assert (result.only_a_correct, result.only_b_correct, result.p_value) == (0, 0, 1.0)


def test_compare_difference_interval_and_mcnemar_by_hand():
    refs = _refs()
    a = [True, False] * 40  # perfect
    b = [True, False] * 30 + [None, None] * 10  # last 10 groups invalid -> incorrect
    result = compare(a, b, refs, bootstrap=2000, seed=3)
    assert result.balanced_accuracy_a == 1.0
    assert result.balanced_accuracy_b == pytest.approx(0.75)
    assert result.difference == pytest.approx(0.25)
    low, high = result.interval
    assert 0 < low < 0.25 < high
    assert (result.only_a_correct, result.only_b_correct) == (20, 0)
    assert result.p_value == pytest.approx(2 / 2**20)
    assert (result.both_correct, result.both_incorrect) == (60, 0)
    again = compare(a, b, refs, bootstrap=2000, seed=3)
    assert again.interval == result.interval
    json.dumps(result.to_dict())


def test_compare_needs_both_labels():
    with pytest.raises(ValueError, match="both positive and negative"):
        compare([True], [False], ["positive"])
