"""Flip rate of a perturbed run against the unperturbed run of the same judge (:func:`flip_rate`).

Per item each run's verdict is ``success``, ``failure`` or ``invalid`` (a
missing result included); an item flips when they differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agenthorizon.scoring.bootstrap import check_bootstrap, percentile_interval, resampled_sums
from agenthorizon.scoring.outcomes import ItemOutcomes, ratio

__all__ = ["FlipRate", "flip_rate", "verdict_classes"]


def verdict_classes(outcomes: ItemOutcomes) -> np.ndarray:
    """Per item ``"success"``, ``"failure"`` or ``"invalid"``.

    >>> from agenthorizon.scoring.outcomes import item_outcomes
    >>> verdict_classes(item_outcomes([True, False, None], ["positive", "negative", "positive"])).tolist()
    ['success', 'failure', 'invalid']
    """
    return np.where(~outcomes.valid, "invalid", np.where(outcomes.predicted_success, "success", "failure"))


@dataclass(frozen=True)
class FlipRate:
    """How often a perturbation changed the verdict, and what it did to accuracy.

    ``rate`` = items whose verdict differs / items, in [0, 1] (``None`` for
    no items); ``accuracy_base`` and ``accuracy_perturbed`` are the plain
    accuracies (correct / items, invalid counted wrong) and
    ``accuracy_change`` their difference (perturbed - base, in [-1, 1]);
    ``rate_interval`` and ``change_interval`` their pair-clustered bootstrap
    intervals (``None`` without resamples). ``to_success`` and
    ``to_failure`` count the flips by the perturbed verdict.
    """

    n_items: int
    flips: int
    to_success: int
    to_failure: int
    rate: float | None
    rate_interval: tuple[float, float] | None
    accuracy_base: float | None
    accuracy_perturbed: float | None
    accuracy_change: float | None
    change_interval: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        return {name: (list(value) if isinstance(value, tuple) else value) for name, value in self.__dict__.items()}


def flip_rate(base: ItemOutcomes, perturbed: ItemOutcomes, *, bootstrap: int = 0, seed: int = 0,
              level: float = 0.95) -> FlipRate:
    """The flip rate of ``perturbed`` against ``base``: :func:`~agenthorizon.scoring.outcomes.item_outcomes` of two runs on the same references, in the same order.

    ``bootstrap`` resamples (0: none) give the intervals.

    >>> from agenthorizon.scoring.outcomes import item_outcomes
    >>> refs = ["positive", "negative", "positive", "negative"]
    >>> result = flip_rate(item_outcomes([True, False, True, True], refs), item_outcomes([True, True, None, True], refs))
    >>> result.flips, result.rate, result.to_success, result.accuracy_change
    (2, 0.5, 1, -0.5)
    """
    check_bootstrap(bootstrap)
    if len(base) != len(perturbed) or not np.array_equal(base.positive, perturbed.positive):
        raise ValueError("flip rate: the two runs must be scored against the same references, in the same order "
                         f"(got {len(base)} and {len(perturbed)} items)")
    before, after = verdict_classes(base), verdict_classes(perturbed)
    flipped = before != after
    n = len(base)
    accuracy_base = ratio(int(base.correct.sum()), n)
    accuracy_perturbed = ratio(int(perturbed.correct.sum()), n)
    rate_interval = change_interval = None
    if bootstrap and n:
        everyone = np.ones(n, dtype=bool)
        sums = resampled_sums(base.clusters, [everyone, flipped, base.correct, perturbed.correct], bootstrap, seed)
        rate_interval = percentile_interval(sums[:, 1] / sums[:, 0], level)
        change_interval = percentile_interval((sums[:, 3] - sums[:, 2]) / sums[:, 0], level)
    return FlipRate(
        n_items=n,
        flips=int(flipped.sum()),
        to_success=int((flipped & (after == "success")).sum()),
        to_failure=int((flipped & (after == "failure")).sum()),
        rate=ratio(int(flipped.sum()), n),
        rate_interval=rate_interval,
        accuracy_base=accuracy_base,
        accuracy_perturbed=accuracy_perturbed,
        accuracy_change=None if accuracy_base is None or accuracy_perturbed is None else accuracy_perturbed - accuracy_base,
        change_interval=change_interval,
    )
