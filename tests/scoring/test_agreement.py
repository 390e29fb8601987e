"""Agreement and ensembles, each against a maintained implementation of its definition
(scikit-learn's Cohen's kappa, statsmodels' Fleiss' kappa, a by-hand majority)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

import agenthorizon
from agenthorizon.scoring.agreement import agreement, cohen_kappa, fleiss_kappa, krippendorff_alpha, majority_vote

# items x raters category codes: a number of raters, then every item rated by all of them
codes = st.integers(min_value=2, max_value=6).flatmap(
    lambda raters: st.lists(st.lists(st.integers(0, 2), min_size=raters, max_size=raters), min_size=2, max_size=40))


@settings(max_examples=80, deadline=None)
@given(codes)
def test_cohen_kappa_equals_scikit_learn(rows):
    matrix = np.array(rows)
    a, b = matrix[:, 0], matrix[:, 1]
    ours = cohen_kappa(a, b)
    if ours is None:
        assert len(set(a.tolist()) | set(b.tolist())) == 1
    else:
        assert ours == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(codes)
def test_fleiss_kappa_equals_statsmodels(rows):
    matrix = np.array(rows)
    ours = fleiss_kappa(matrix)
    table, _ = aggregate_raters(matrix, n_cat=3)
    if ours is None:
        assert len(set(matrix.ravel().tolist())) == 1
    else:
        assert ours == pytest.approx(statsmodels_fleiss(table, method="fleiss"), abs=1e-12)


def test_krippendorff_alpha_treats_invalid_as_missing():
    import krippendorff

    matrix = np.array([[0, 0, 2], [1, 1, 1], [0, 1, 0], [1, 1, 2], [0, 0, 0]])
    expected = krippendorff.alpha(reliability_data=np.where(matrix == 2, np.nan, matrix).T.astype(float),
                                  level_of_measurement="nominal")
    assert krippendorff_alpha(matrix) == pytest.approx(expected)
    assert krippendorff_alpha(np.array([[0, 0], [0, 0]])) is None  # one category: undefined


@settings(max_examples=60, deadline=None)
@given(codes)
def test_majority_vote_is_more_than_half_of_valid_verdicts_else_invalid(rows):
    for row, vote in zip(rows, majority_vote(np.array(rows))):
        success, failure = row.count(0), row.count(1)
        expected = {"success": True} if 2 * success > len(row) else {"success": False} if 2 * failure > len(row) else None
        assert vote == expected


def test_repeated_runs_self_agreement_and_the_majority_run_scored_strictly():
    refs = ["positive", "negative"] * 10
    rng = np.random.default_rng(3)
    runs = {f"run{k}": [bool(x) if rng.random() > 0.1 else None for x in rng.integers(0, 2, 20)] for k in range(5)}
    result = agreement(runs, refs)
    categories = np.array([[0 if v is True else 1 if v is False else 2 for v in values] for values in runs.values()]).T
    assert result.flip_rate == pytest.approx(np.mean([len(set(row)) > 1 for row in categories.tolist()]))
    assert result.fleiss_kappa == pytest.approx(statsmodels_fleiss(aggregate_raters(categories, n_cat=3)[0]))
    assert set(result.cohen_kappa) == {(a, b) for i, a in enumerate(runs) for j, b in enumerate(runs) if i < j}
    # The majority is a virtual judge that score() takes like any other, ties and no-majorities wrong
    report = agenthorizon.score(result.majority, refs)
    truth = [r == "positive" for r in refs]
    correct = [v is not None and v["success"] == t for v, t in zip(result.majority, truth)]
    expected = 0.5 * (np.mean([c for c, t in zip(correct, truth) if t]) + np.mean([c for c, t in zip(correct, truth) if not t]))
    assert report.balanced_accuracy == pytest.approx(expected)


@settings(max_examples=60, deadline=None)
@given(codes)
def test_every_pairs_kappa_at_once_equals_scikit_learn(rows):
    from agenthorizon.scoring.agreement import pairwise_cohen_kappa

    matrix = np.array(rows)
    kappas = pairwise_cohen_kappa(matrix)
    for i in range(matrix.shape[1]):
        for j in range(i + 1, matrix.shape[1]):
            a, b = matrix[:, i], matrix[:, j]
            if len(set(a.tolist()) | set(b.tolist())) == 1:
                assert np.isnan(kappas[i, j])
            else:
                assert kappas[i, j] == pytest.approx(cohen_kappa_score(a, b), abs=1e-9)
