"""The accuracy-by-length curve against statsmodels: its logistic fit, and the band refitted per resample."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from agenthorizon.scoring.bootstrap import resample_cluster_counts
from agenthorizon.scoring.length_curve import fit_logistic, length_curve


def _items(n_groups=60, seed=4):
    rng = np.random.default_rng(seed)
    steps, correct, groups = [], [], []
    for g in range(n_groups):
        length = int(rng.integers(20, 360))
        for _ in range(int(rng.integers(2, 5))):  # a pair group: 2 to 4 items of near-equal length
            s = length + int(rng.integers(-3, 4))
            steps.append(s)
            correct.append(bool(rng.random() < 1 / (1 + np.exp(-(1.8 - 0.008 * s)))))
            groups.append(g)
    return np.array(steps), np.array(correct), np.array(groups)


def test_the_fit_equals_statsmodels_logit():
    steps, correct, _ = _items()
    fit = sm.Logit(correct.astype(float), sm.add_constant(steps.astype(float))).fit(disp=0)
    assert fit_logistic(steps, correct) == pytest.approx(tuple(fit.params), rel=1e-4, abs=1e-6)


def test_the_band_is_the_percentiles_of_statsmodels_fits_on_the_same_cluster_draws():
    steps, correct, groups = _items()
    curve = length_curve(steps, correct, groups, n_resamples=200, seed=3, n_grid=5)
    draws = np.concatenate(list(resample_cluster_counts(groups.max() + 1, 200, 3)))
    grid = np.array(curve.grid)
    fitted = []
    for weights in draws:
        model = sm.GLM(correct.astype(float), sm.add_constant(steps.astype(float)), family=sm.families.Binomial(),
                       freq_weights=weights[groups].astype(float))
        a, b = model.fit().params
        fitted.append(1 / (1 + np.exp(-(a + b * grid))))
    low, high = np.percentile(np.array(fitted), [2.5, 97.5], axis=0)
    assert [pair[0] for pair in curve.band] == pytest.approx(low.tolist(), abs=1e-5)
    assert [pair[1] for pair in curve.band] == pytest.approx(high.tolist(), abs=1e-5)
    a, b = fit_logistic(steps, correct)
    assert curve.fitted == pytest.approx((1 / (1 + np.exp(-(a + b * grid)))).tolist())
    assert curve.slope_interval[0] < curve.slope < curve.slope_interval[1]


def test_bins_are_quantile_groups_with_their_accuracy():
    steps, correct, _ = _items()
    curve = length_curve(steps, correct, n_bins=4)
    assert sum(b.n for b in curve.bins) == steps.size
    for b in curve.bins:
        members = (steps >= b.low) & (steps <= b.high)
        assert members.sum() == b.n and correct[members].mean() == pytest.approx(b.accuracy)
    assert [b.low for b in curve.bins] == sorted(b.low for b in curve.bins)


def test_missing_lengths_are_refused():
    with pytest.raises(ValueError, match="step count"):
        length_curve([10, float("nan")], [True, False])
