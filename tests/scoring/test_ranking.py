"""Spearman's rho and Kendall's tau-b (numpy) against scipy, and the rank agreement of judges against a direct count."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from agenthorizon.scoring.ranking import kendall_tau_b, rank_agreement, spearman_rho

# Few distinct values: ties in both variables are common, as balanced accuracies on small sets are.
values = st.lists(st.sampled_from([0.1, 0.25, 0.5, 0.5, 0.75, 0.9]), min_size=2, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_coefficients_agree_with_scipy_ties_included(data):
    x = data.draw(values)
    y = data.draw(st.lists(st.sampled_from([0.0, 0.3, 0.3, 0.6, 1.0]), min_size=len(x), max_size=len(x)))
    rho, tau = spearman_rho(x, y), kendall_tau_b(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on a constant input, and returns nan
        want_rho = stats.spearmanr(x, y).statistic
        want_tau = stats.kendalltau(x, y, variant="b").statistic
    assert (rho is None) == math.isnan(want_rho)
    assert (tau is None) == math.isnan(want_tau)
    if rho is not None:
        assert rho == pytest.approx(want_rho, abs=1e-12)
    if tau is not None:
        assert tau == pytest.approx(want_tau, abs=1e-12)


def balanced(positive, correct, mask):
    pos = [c for p, c, m in zip(positive, correct, mask) if m and p]
    neg = [c for p, c, m in zip(positive, correct, mask) if m and not p]
    return (sum(pos) / len(pos) + sum(neg) / len(neg)) / 2


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**20), st.integers(3, 6))
def test_rank_agreement_ranks_the_balanced_accuracies_of_each_set(seed, n_judges):
    rng = np.random.default_rng(seed)
    n = 40
    positive = np.arange(n) % 2 == 0
    in_a = np.arange(n) < 20
    corrects = [rng.random(n) < rng.random() for _ in range(n_judges)]
    result = rank_agreement(positive, corrects, np.arange(n) // 4, in_a, ~in_a, n_resamples=50, seed=seed)
    a = [balanced(positive, c, in_a) for c in corrects]
    b = [balanced(positive, c, ~in_a) for c in corrects]
    assert result["balanced_a"] == pytest.approx(a) and result["balanced_b"] == pytest.approx(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_rho, want_tau = stats.spearmanr(a, b).statistic, stats.kendalltau(a, b).statistic
    for got, want in ((result["spearman_rho"], want_rho), (result["kendall_tau"], want_tau)):
        assert (got is None and math.isnan(want)) or got == pytest.approx(want)
    for low_high in result["intervals"].values():
        assert low_high is None or -1 <= low_high[0] <= low_high[1] <= 1


def test_identical_rankings_give_one_and_reversed_give_minus_one():
    assert spearman_rho([1, 2, 3], [10, 20, 30]) == 1.0 and kendall_tau_b([1, 2, 3], [10, 20, 30]) == 1.0
    assert spearman_rho([1, 2, 3], [3, 2, 1]) == -1.0 and kendall_tau_b([1, 2, 3], [3, 2, 1]) == -1.0
    assert spearman_rho([1, 1, 1], [1, 2, 3]) is None and kendall_tau_b([1], [1]) is None
