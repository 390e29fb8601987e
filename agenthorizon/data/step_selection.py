"""Which steps of a trajectory get an image (:func:`select_steps`).

:func:`evenly_spaced` is the one thinning rule, shared with the HTML report's
thumbnails. No I/O, no pixels.
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["SELECTION_STRATEGIES", "STRATEGY_ALL", "STRATEGY_EVEN", "STRATEGY_EVERY_K", "evenly_spaced", "select_steps"]

STRATEGY_ALL = "all"
STRATEGY_EVERY_K = "every-k"
STRATEGY_EVEN = "even"
SELECTION_STRATEGIES = (STRATEGY_ALL, STRATEGY_EVERY_K, STRATEGY_EVEN)


def select_steps(
    available: Sequence[int],
    strategy: str = STRATEGY_ALL,
    *,
    budget: int | None = None,
    every: int = 1,
) -> list[int]:
    """Choose which of ``available`` (step ids with a screenshot) to show.

    - ``"all"`` and ``"even"``: every available step;
    - ``"every-k"``: every ``every``-th available step, starting with the first.

    When a selection holds more than ``budget`` steps it is thinned by
    :func:`evenly_spaced` (first, last and evenly spaced between; with a
    budget of 1, only the last). The result is sorted and deterministic.

    >>> select_steps(range(10), "even", budget=4)
    [0, 3, 6, 9]
    >>> select_steps(range(10), "every-k", every=4)
    [0, 4, 8]
    """
    if strategy not in SELECTION_STRATEGIES:
        raise ValueError(f"selection strategy {strategy!r} is not one of {SELECTION_STRATEGIES}")
    if budget is not None and (not isinstance(budget, int) or budget < 1):
        raise ValueError(f"image budget must be a positive integer or None, got {budget!r}")
    if not isinstance(every, int) or every < 1:
        raise ValueError(f"'every' must be a positive integer, got {every!r}")
    chosen = sorted(available)
    if strategy == STRATEGY_EVERY_K:
        chosen = chosen[::every]
    if budget is not None and len(chosen) > budget:
        chosen = evenly_spaced(chosen, budget)
    return chosen


def evenly_spaced(items: Sequence[Any], count: int) -> list[Any]:
    """``count`` evenly spaced entries of ``items`` that keep its first and last, in order.

    Position ``i`` of ``count`` is ``items[round(i * (n - 1) / (count - 1))]``
    with halves rounded up, in exact integer arithmetic so every platform
    picks the same steps. With ``count == 1`` it keeps the **last** entry (the
    final state says most about success); with ``count`` at least
    ``len(items)``, all of ``items``.

    >>> evenly_spaced(list(range(10)), 4)
    [0, 3, 6, 9]
    >>> evenly_spaced([5, 6, 7], 1), evenly_spaced([5, 6], 3)
    ([7], [5, 6])
    """
    items = list(items)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise ValueError(f"count must be a positive integer, got {count!r}")
    if count >= len(items):
        return items
    if count == 1:
        return [items[-1]]
    last = len(items) - 1
    return [items[(i * last + (count - 1) // 2) // (count - 1)] for i in range(count)]
