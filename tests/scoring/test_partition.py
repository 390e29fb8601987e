"""Re-partitioning by difficulty: the count of correct runs per item and the agreement with the shipped split."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenthorizon.scoring.outcomes import item_outcomes
from agenthorizon.scoring.partition import difficulty_partition, partition_agreement

pytestmark = pytest.mark.filterwarnings("ignore::agenthorizon.scoring.predictions.PredictionShapeWarning")

PREDICTIONS = [True, False, None, "true", {"success": False}, {"success": "yes"}]


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_hard_means_at_most_k_runs_correct_and_invalid_is_not_correct(data):
    n = data.draw(st.integers(1, 30))
    labels = data.draw(st.lists(st.sampled_from(["positive", "negative"]), min_size=n, max_size=n))
    runs = data.draw(st.lists(st.lists(st.sampled_from(PREDICTIONS), min_size=n, max_size=n), min_size=1, max_size=6))
    k = data.draw(st.integers(0, 7))
    counts, hard = difficulty_partition([item_outcomes(run, labels).correct for run in runs], k)
    for i, label in enumerate(labels):
        right = True if label == "positive" else False
        # Only a real Boolean (or a verdict dict with one) agreeing with the label is correct.
        n_right = sum(
            (p is right) or (isinstance(p, dict) and p.get("success") is right) for p in (run[i] for run in runs)
        )
        assert counts[i] == n_right
        assert hard[i] == (n_right <= k)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=50))
def test_agreement_counts_each_side_and_kappa(pairs):
    new = np.array([a for a, _ in pairs])
    shipped = np.array([b for _, b in pairs])
    result = partition_agreement(new, shipped)
    n = len(pairs)
    same = sum(a == b for a, b in pairs)
    assert result["agreement"] == pytest.approx(same / n)
    assert result["hard_both"] + result["easy_both"] + result["hard_to_easy"] + result["easy_to_hard"] == n
    assert result["hard_to_easy"] == sum(b and not a for a, b in pairs)
    p_new, p_shipped = new.mean(), shipped.mean()
    chance = p_new * p_shipped + (1 - p_new) * (1 - p_shipped)
    if chance < 1:
        assert result["cohen_kappa"] == pytest.approx((same / n - chance) / (1 - chance))
    else:
        assert result["cohen_kappa"] is None


def test_a_bad_threshold_is_refused():
    with pytest.raises(ValueError, match="threshold must be an integer >= 0"):
        difficulty_partition([np.array([True])], -1)
