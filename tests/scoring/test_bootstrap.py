"""Pair-clustered bootstrap intervals and the exact McNemar test (scoring/bootstrap.py)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from agenthorizon.scoring.bootstrap import (
    bootstrap_accuracies,
    mcnemar_exact,
    percentile_interval,
    resample_cluster_counts,
)



def _paired(n_a: int, n_b: int, both: int = 3, neither: int = 2) -> tuple[np.ndarray, np.ndarray]:
    a = [True] * n_a + [False] * n_b + [True] * both + [False] * neither
    b = [False] * n_a + [True] * n_b + [True] * both + [False] * neither
    return np.array(a), np.array(b)


@pytest.mark.parametrize(
    ("n_a", "n_b", "expected"),
    [
        (8, 1, 2 * (1 + 9) / 2**9),  # 0.0390625
        (1, 8, 2 * (1 + 9) / 2**9),  # symmetric
        (0, 5, 2 / 2**5),
        (10, 0, 2 / 2**10),
        (7, 3, 2 * (1 + 10 + 45 + 120) / 2**10),  # 0.34375
        (1, 5, 2 * (1 + 6) / 2**6),  # 0.21875
        (3, 3, 1.0),  # capped at 1
        (0, 0, 1.0),  # no discordant pairs
    ],
)
def test_mcnemar_exact_matches_hand_computed_binomial(n_a, n_b, expected):
    a, b = _paired(n_a, n_b)
    assert mcnemar_exact(a, b) == (n_a, n_b, pytest.approx(expected, rel=1e-12))


def test_mcnemar_on_large_counts_matches_exact_sum():
    a, b = _paired(400, 330)
    n = 730
    expected = 2 * sum(comb(n, k) for k in range(331)) / 2**n
    assert mcnemar_exact(a, b)[2] == pytest.approx(expected, rel=1e-12)


def test_resampled_counts_draw_whole_clusters_with_replacement():
    chunks = list(resample_cluster_counts(7, 2500, seed=0))
    counts = np.vstack(chunks)
    assert counts.shape == (2500, 7)
    assert (counts.sum(axis=1) == 7).all()
    # chunked, so memory stays bounded
    from agenthorizon.scoring.bootstrap import _CHUNK

    assert len(chunks) == -(-2500 // _CHUNK) > 1 and max(len(chunk) for chunk in chunks) == _CHUNK
    again = np.vstack(list(resample_cluster_counts(7, 2500, seed=0)))
    assert (counts == again).all()


def test_vectorised_bootstrap_equals_explicit_resampling():
    # Recompute every resample by materialising its items, the slow way.
    rng = np.random.default_rng(5)
    clusters = np.repeat(np.arange(12), 3)
    positive = np.tile([True, False, False], 12)
    correct = rng.random(36) < 0.7
    counts = np.vstack(list(resample_cluster_counts(12, 300, seed=9)))
    balanced = []
    for row in counts:
        items = np.concatenate([np.tile(np.flatnonzero(clusters == g), k) for g, k in enumerate(row)])
        pos = correct[items][positive[items]].mean()
        neg = correct[items][~positive[items]].mean()
        balanced.append(0.5 * (pos + neg))
    expected = percentile_interval(np.array(balanced))
    got = bootstrap_accuracies(positive, correct, clusters, n_resamples=300, seed=9)["balanced_accuracy"]
    assert got == pytest.approx(expected)


def test_clustering_widens_intervals_for_dependent_items():
    # Copy every item three times inside its own cluster. Resampling whole
    # clusters gives exactly the interval of the original data; treating the
    # copies as independent items would pretend to three times the data.
    rng = np.random.default_rng(1)
    positive = np.tile([True, False], 20)
    correct = rng.random(40) < 0.7
    original = bootstrap_accuracies(positive, correct, np.arange(40), n_resamples=2000, seed=4)
    tripled = dict(positive=positive.repeat(3), correct=correct.repeat(3), n_resamples=2000, seed=4)
    clustered = bootstrap_accuracies(clusters=np.arange(40).repeat(3), **tripled)
    independent = bootstrap_accuracies(clusters=np.arange(120), **tripled)
    assert clustered["balanced_accuracy"] == pytest.approx(original["balanced_accuracy"])
    width = lambda bounds: bounds[1] - bounds[0]  # noqa: E731
    assert width(independent["balanced_accuracy"]) < 0.75 * width(clustered["balanced_accuracy"])


def test_percentile_interval_skips_undefined_resamples():
    assert percentile_interval(np.array([np.nan, np.nan])) is None
    assert percentile_interval(np.array([np.nan, 0.5, 0.5])) == (0.5, 0.5)
    with pytest.raises(ValueError, match="level"):
        percentile_interval(np.array([0.5]), level=1.5)


def test_resamples_are_one_stream_whatever_the_chunking():
    # The counts equal those of a single draw of every resample, so the chunk size
    # (a memory/speed setting) can never change an interval for a given seed.
    from agenthorizon.scoring.bootstrap import resample_cluster_counts

    n_clusters, n_resamples, seed = 7, 2501, 3  # odd sizes, several chunks and a partial last one
    draws = np.random.default_rng(seed).integers(0, n_clusters, size=(n_resamples, n_clusters), dtype=np.int32)
    expected = np.stack([np.bincount(row, minlength=n_clusters) for row in draws])
    chunks = list(resample_cluster_counts(n_clusters, n_resamples, seed))
    assert len(chunks) > 2
    assert (np.vstack(chunks) == expected).all()
