"""Significance across many judges, each number against a computation written from its definition
(scipy's exact binomial test, statsmodels' Holm adjustment, a simulation of the exact McNemar test's power)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests

from agenthorizon.scoring.bootstrap import mcnemar_exact
from agenthorizon.scoring.compare import compare
from agenthorizon.scoring.significance import compact_letters, holm, minimum_detectable_difference, significance


def _judges(rng: np.random.Generator, n_items: int, skills: dict[str, float]):
    labels = np.array(["positive", "negative"] * (n_items // 2))
    truth = labels == "positive"
    predictions = {}
    for name, skill in skills.items():
        right = rng.random(n_items) < skill
        values = np.where(right, truth, ~truth).tolist()
        invalid = rng.random(n_items) < 0.05  # some answers unparseable: wrong, never dropped
        predictions[name] = [None if bad else value for value, bad in zip(values, invalid)]
    references = [{"trajectory_id": f"{i:08d}-0000-4000-8000-000000000000", "label": label,
                   "pair_group_id": f"g{i // 4}", "mistake_type": ""} for i, label in enumerate(labels)]
    return predictions, references


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=12))
@pytest.mark.slow
def test_holm_equals_statsmodels(p_values):
    expected = multipletests(p_values, method="holm")[1]
    assert holm(p_values) == pytest.approx(expected.tolist(), abs=1e-12)


def test_every_pair_has_the_definitions_numbers():
    rng = np.random.default_rng(7)
    predictions, references = _judges(rng, 200, {"a": 0.85, "b": 0.8, "c": 0.65, "d": 0.5})
    result = significance(predictions, references, bootstrap=500, seed=3)
    # balanced accuracy from the definition: invalid counts as wrong
    truth = np.array([r["label"] == "positive" for r in references])
    def balanced(values):
        correct = np.array([v is not None and v == t for v, t in zip(values, truth)])
        return 0.5 * (correct[truth].mean() + correct[~truth].mean()), correct
    scores = {name: balanced(values) for name, values in predictions.items()}
    assert list(result.judges) == sorted(scores, key=lambda name: -scores[name][0])
    raw = []
    for pair in result.pairs:
        (bal_a, right_a), (bal_b, right_b) = scores[pair.a], scores[pair.b]
        assert pair.difference == pytest.approx(bal_a - bal_b)
        only_a, only_b = int((right_a & ~right_b).sum()), int((~right_a & right_b).sum())
        assert (pair.only_a_correct, pair.only_b_correct) == (only_a, only_b)
        expected_p = binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0
        assert pair.p_value == pytest.approx(expected_p, rel=1e-9)
        raw.append(pair.p_value)
        # The interval is the two-judge comparison's (same resamples of the same clusters)
        single = compare(predictions[pair.a], predictions[pair.b], references, bootstrap=500, seed=3)
        assert pair.interval == pytest.approx(single.interval)
    assert [pair.p_holm for pair in result.pairs] == pytest.approx(multipletests(raw, method="holm")[1].tolist())
    assert len(result.pairs) == 6 and result.n == 200 and result.n_clusters == 50


def test_the_group_tied_with_the_best_and_the_letters_follow_the_adjusted_tests():
    rng = np.random.default_rng(11)
    predictions, references = _judges(rng, 400, {"top": 0.9, "close": 0.89, "mid": 0.75, "chance": 0.5})
    result = significance(predictions, references, bootstrap=0)
    best = result.judges[0]
    for name in result.judges[1:]:
        assert (name in result.tied_with_best) == (not result.pair(best, name).significant)
    for a, b in itertools.combinations(result.judges, 2):
        share = bool(set(result.letters[a]) & set(result.letters[b]))
        assert share == (not result.pair(a, b).significant), (a, b, result.letters)
    assert "chance" not in result.tied_with_best and result.letters[result.judges[0]].startswith("a")


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=7).flatmap(
    lambda n: st.tuples(st.just(n), st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
                                            .filter(lambda p: p[0] != p[1])))))
def test_compact_letters_share_a_letter_exactly_when_not_different(case):
    n, raw = case
    order = [f"j{i}" for i in range(n)]
    different = {frozenset((order[a], order[b])) for a, b in raw}
    letters = compact_letters(order, different)
    for a, b in itertools.combinations(order, 2):
        assert bool(set(letters[a]) & set(letters[b])) == (frozenset((a, b)) not in different)


def test_the_minimum_detectable_difference_is_detected_80_percent_of_the_time():
    """Simulate the exact McNemar test at the computed difference: its power is about 0.8 (the formula is
    the normal approximation, so a few points off either way)."""
    n, psi = 400, 0.25
    delta = minimum_detectable_difference(n, psi)
    rng = np.random.default_rng(5)
    draws = rng.multinomial(n, [(psi + delta) / 2, (psi - delta) / 2, 1 - psi], size=3000)
    rejected = 0
    for only_a, only_b, _ in draws:
        a = np.array([True] * only_a + [False] * only_b)
        rejected += mcnemar_exact(a, ~a)[2] < 0.05
    assert 0.72 <= rejected / len(draws) <= 0.86, rejected / len(draws)
    smaller = minimum_detectable_difference(4 * n, psi)
    assert smaller == pytest.approx(delta / 2, rel=0.05)  # four times the items: half the difference
    assert minimum_detectable_difference(10, 0.05) is None  # nothing this small can be shown


def test_bad_input_says_what_was_expected():
    with pytest.raises(ValueError, match="at least two judges"):
        significance({"a": [True]}, ["positive"])
    with pytest.raises(ValueError, match="both positive and negative"):
        significance({"a": [True], "b": [False]}, ["positive"])
