"""Significance across many judges on the same items (:func:`significance`): every pair compared, the family adjusted."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any, Mapping, Sequence

import numpy as np

from agenthorizon.scoring.bootstrap import check_bootstrap, mcnemar_exact, paired_balanced_accuracies, percentile_interval
from agenthorizon.scoring.outcomes import item_outcomes

__all__ = ["PairComparison", "Significance", "compact_letters", "holm", "minimum_detectable_difference", "significance"]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given.

    With the ``m`` p-values sorted ascending, the ``i``-th (1-based) becomes
    ``max over j <= i of min(1, (m - j + 1) * p_(j))``. Each adjusted value
    is in [0, 1]; rejecting where it is below alpha controls the family-wise
    error rate at alpha.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]

    References
    ----------
    .. [1] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scandinavian Journal of Statistics 6(2), 1979.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda index: p_values[index])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p_values[index])))
        adjusted[index] = running
    return [round(value, 15) for value in adjusted]


def minimum_detectable_difference(
    n: int, discordance: float, *, alpha: float = 0.05, power: float = 0.8
) -> float | None:
    """Smallest accuracy difference a paired McNemar test detects with ``power`` at level ``alpha``.

    For ``n`` paired items of which a share ``discordance`` (psi) have one
    judge right and the other wrong, Connor's sample-size formula
    ``n = (z_{1-alpha/2} sqrt(psi) + z_power sqrt(psi - delta^2))^2 / delta^2``
    is solved for ``delta``, the difference in per-item accuracy. The result
    is in (0, psi]; ``None`` when even ``delta = psi`` falls short, or there
    is no discordance.

    >>> round(minimum_detectable_difference(500, 0.2), 4)
    0.0559

    References
    ----------
    .. [1] R. J. Connor, "Sample size for testing differences in proportions
       for the paired-sample design", Biometrics 43(1), 1987.
    """
    if n < 1 or not 0 <= discordance <= 1:
        raise ValueError(f"need n >= 1 and discordance in [0, 1], got n={n}, discordance={discordance}")
    if discordance == 0:
        return None
    z_alpha = NormalDist().inv_cdf(1 - alpha / 2)
    z_power = NormalDist().inv_cdf(power)

    def shortfall(delta: float) -> float:
        return math.sqrt(n) * delta - z_alpha * math.sqrt(discordance) - z_power * math.sqrt(max(0.0, discordance - delta**2))

    if shortfall(discordance) < 0:
        return None
    low, high = 0.0, discordance
    for _ in range(100):  # bisection: shortfall rises with delta
        middle = (low + high) / 2
        low, high = (middle, high) if shortfall(middle) < 0 else (low, middle)
    return high


def compact_letters(order: Sequence[str], different: set[frozenset[str]]) -> dict[str, str]:
    """A compact letter display: judges that share a letter are not significantly different.

    ``order`` lists the judges best first; ``different`` holds the pairs
    that differ significantly. Piepho's insert-and-absorb algorithm; letters
    go to the groups in the order of their best member, so the best judge
    has ``a``.

    >>> compact_letters(["x", "y", "z"], {frozenset({"x", "z"})})
    {'x': 'a', 'y': 'ab', 'z': 'b'}

    References
    ----------
    .. [1] H.-P. Piepho, "An algorithm for a letter-based representation of
       all-pairwise comparisons", J. Computational and Graphical Statistics 13(2), 2004.
    """
    groups: list[frozenset[str]] = [frozenset(order)]
    for pair in sorted(different, key=lambda p: sorted(order.index(j) for j in p)):
        a, b = sorted(pair, key=order.index)
        split: list[frozenset[str]] = []
        for group in groups:
            split += [group - {a}, group - {b}] if a in group and b in group else [group]
        groups = [g for g in split if g and not any(g < other for other in split)]
        groups = list(dict.fromkeys(groups))
    groups.sort(key=lambda group: min(order.index(judge) for judge in group))
    letters = {judge: "" for judge in order}
    for index, group in enumerate(groups):
        letter = _letter(index)
        for judge in sorted(group, key=order.index):
            letters[judge] += letter
    return letters


def _letter(index: int) -> str:
    """``a`` ... ``z``, then ``aa``, ``ab``...: enough letters for any number of groups."""
    text = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        text = chr(ord("a") + rest) + text
    return text


@dataclass(frozen=True)
class PairComparison:
    """Judges ``a`` and ``b`` on the same items (``a`` ranked above ``b``).

    ``difference`` is balanced accuracy a minus b, in [-1, 1], with its
    pair-clustered paired bootstrap ``interval``; ``p_value`` the exact
    McNemar p, ``p_holm`` its Holm adjustment over every pair,
    ``significant`` whether ``p_holm < alpha``;
    ``minimum_detectable_difference`` the smallest per-item accuracy
    difference this pair's item count and discordance detect at 80 % power
    (:func:`minimum_detectable_difference`).
    """

    a: str
    b: str
    difference: float
    interval: tuple[float, float] | None
    only_a_correct: int
    only_b_correct: int
    p_value: float
    p_holm: float
    significant: bool
    minimum_detectable_difference: float | None


@dataclass(frozen=True)
class Significance:
    """Every pairwise comparison of a set of judges; see :func:`significance`."""

    judges: tuple[str, ...]
    """The judges, best balanced accuracy first."""
    balanced_accuracy: dict[str, float]
    pairs: tuple[PairComparison, ...]
    tied_with_best: tuple[str, ...]
    """The best judge and every judge not significantly worse than it after adjustment."""
    letters: dict[str, str]
    """Compact letter display: judges sharing a letter do not differ significantly."""
    n: int
    n_clusters: int
    alpha: float
    level: float
    n_bootstrap: int
    seed: int

    def pair(self, a: str, b: str) -> PairComparison:
        """The comparison of ``a`` and ``b``, in either order."""
        for pair in self.pairs:
            if {pair.a, pair.b} == {a, b}:
                return pair
        raise KeyError(f"no comparison of {a!r} and {b!r}; judges are {', '.join(self.judges)}")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible dict of every number."""
        values = asdict(self)
        values["judges"] = list(self.judges)
        values["tied_with_best"] = list(self.tied_with_best)
        values["pairs"] = [{**pair, "interval": None if pair["interval"] is None else list(pair["interval"])}
                           for pair in values["pairs"]]
        return values


def significance(
    predictions: Mapping[str, Any], references: Any, *, bootstrap: int = 2000, seed: int = 0, level: float = 0.95,
    alpha: float = 0.05,
) -> Significance:
    """Compare every pair of judges (name -> predictions, at least two) on the same ``references``, adjusted for the number of pairs.

    Predictions and references are as :func:`agenthorizon.score` takes them
    (both labels present). One pair-clustered draw of ``bootstrap`` resamples
    (0: no interval) serves every judge; each pair gets an exact McNemar
    p-value, Holm-adjusted so ``alpha`` is the family-wise error rate. Judges
    are ranked by balanced accuracy (ties by name); the higher-ranked one is
    ``a`` of each :class:`PairComparison`.

    >>> refs = ["positive", "negative"] * 30
    >>> good, fair = [True, False] * 30, [True, False] * 20 + [True, True] * 10
    >>> result = significance({"good": good, "fair": fair, "yes": [True] * 60}, refs, bootstrap=0)
    >>> result.judges, result.letters
    (('good', 'fair', 'yes'), {'good': 'a', 'fair': 'b', 'yes': 'c'})
    >>> result.pair("good", "yes").only_a_correct, result.tied_with_best
    (30, ('good',))
    """
    check_bootstrap(bootstrap)
    if len(predictions) < 2:
        raise ValueError(f"significance needs at least two judges, got {len(predictions)}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    outcomes = {name: item_outcomes(values, references) for name, values in predictions.items()}
    first = next(iter(outcomes.values()))
    positive = first.positive
    if positive.all() or not positive.any():
        raise ValueError("significance needs references with both positive and negative items")
    accuracy = {name: float(result.accuracies()[0]) for name, result in outcomes.items()}
    order = tuple(sorted(accuracy, key=lambda name: (-accuracy[name], name)))
    draws = None
    if bootstrap:
        draws = paired_balanced_accuracies(positive, [outcomes[name].correct for name in order], first.clusters,
                                           n_resamples=int(bootstrap), seed=seed)
    tests = []
    for i, a in enumerate(order):
        for j in range(i + 1, len(order)):
            b = order[j]
            only_a, only_b, p_value = mcnemar_exact(outcomes[a].correct, outcomes[b].correct)
            interval = None if draws is None else percentile_interval(draws[:, i] - draws[:, j], level)
            tests.append((a, b, interval, only_a, only_b, p_value))
    adjusted = holm([test[-1] for test in tests])
    n = len(first)
    pairs = tuple(
        PairComparison(
            a=a, b=b, difference=accuracy[a] - accuracy[b], interval=interval, only_a_correct=only_a,
            only_b_correct=only_b, p_value=p_value, p_holm=p_holm, significant=p_holm < alpha,
            minimum_detectable_difference=minimum_detectable_difference(n, (only_a + only_b) / n, alpha=alpha),
        )
        for (a, b, interval, only_a, only_b, p_value), p_holm in zip(tests, adjusted)
    )
    different = {frozenset((pair.a, pair.b)) for pair in pairs if pair.significant}
    best = order[0]
    tied = tuple(name for name in order if name == best or frozenset((best, name)) not in different)
    return Significance(
        judges=order, balanced_accuracy=accuracy, pairs=pairs, tied_with_best=tied,
        letters=compact_letters(order, different), n=n, n_clusters=int(np.unique(first.clusters).size),
        alpha=alpha, level=level, n_bootstrap=int(bootstrap), seed=seed,
    )
