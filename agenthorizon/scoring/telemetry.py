"""What judging a set of items cost and how long it took (the paper's Table 6), from per-item telemetry.

A value the judge did not report is unknown, never 0. Items are objects with
the quantities as attributes (the runner's ``Telemetry``, not imported:
scoring sits below judging), mappings, or ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Sequence

import numpy as np

from agenthorizon.scoring.bootstrap import cluster_codes, percentile_interval, resampled_totals
from agenthorizon.scoring.predictions import is_result_record
from agenthorizon.scoring.references import align_predictions

__all__ = ["TELEMETRY_GROUPS", "aligned_telemetry", "quantity_summary", "telemetry_aggregates"]

TELEMETRY_GROUPS: dict[str, tuple[tuple[str, str], ...]] = {
    "cost": (("input_tokens", "input_tokens"), ("output_tokens", "output_tokens"), ("cost_usd", "cost_usd")),
    "runtime": (("wall_time_s", "latency_s"), ("turns", "turns"), ("tool_calls", "tool_calls")),
}
"""Group -> ((quantity name in the report, telemetry field it reads), ...).

``wall_time_s`` is ``Telemetry.latency_s``: wall-clock seconds of the judge call, retries included."""


def _quantities(item: Any, fields: Sequence[str]) -> list[float | None]:
    """The numbers ``item`` holds under ``fields``; ``None`` where one is unknown."""
    if item is None:
        return [None] * len(fields)
    get = item.get if isinstance(item, Mapping) else (lambda name: getattr(item, name, None))
    return [_number(get(name)) for name in fields]


def _number(value: Any) -> float | None:
    """``value`` as a float when it is a finite non-negative number, else ``None`` (unknown).

    An integer too large for a float is unknown too.

    >>> _number(3), _number(-1), _number(True), _number(float("nan")), _number(10**400)
    (3.0, None, None, None, None)
    """
    if value is None:
        return None
    if type(value) is not float and type(value) is not int:  # plain numbers skip numpy's scalar checks
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


def _median(known: np.ndarray) -> float:
    """The median as ``statistics.median`` computes it (the mean of the middle two of an even count).

    Not ``np.median`` (imports ``numpy.ma``) nor ``statistics``: both would slow ``agenthorizon score``'s start-up.

    >>> _median(np.array([3.0, 1.0, 2.0])), _median(np.array([4.0, 1.0, 2.0, 3.0]))
    (2.0, 2.5)
    """
    ordered = np.sort(known)
    middle = ordered.size // 2
    return float(ordered[middle] if ordered.size % 2 else (ordered[middle - 1] + ordered[middle]) / 2)


def quantity_summary(values: Sequence[float | None]) -> dict[str, Any]:
    """Per-trajectory statistics of one quantity (``None``: unknown for that item).

    ``n_items``, ``n_known``, ``n_unknown``; ``mean``, ``median``, ``max`` over the
    known values (``None`` when none); ``total`` over every item (``None`` as
    soon as one is unknown); ``known_total`` over the known ones.

    >>> summary = quantity_summary([0.25, None, 0.75])
    >>> summary["mean"], summary["max"], summary["total"], summary["known_total"], summary["n_unknown"]
    (0.5, 0.75, None, 1.0, 1)
    >>> quantity_summary([2, 4])["total"]
    6.0
    """
    known = np.asarray([value for value in values if value is not None], dtype=float)
    n_items = len(values)
    n_known = int(known.size)
    empty = n_known == 0
    return {
        "n_items": n_items,
        "n_known": n_known,
        "n_unknown": n_items - n_known,
        "mean": None if empty else float(known.mean()),
        "median": None if empty else _median(known),
        "max": None if empty else float(known.max()),
        "total": float(known.sum()) if n_known == n_items and n_items else None,
        "known_total": float(known.sum()),
    }


def _mean_intervals(
    columns: dict[str, list[float | None]], clusters: np.ndarray, n_resamples: int, seed: int, level: float
) -> dict[str, tuple[float, float] | None]:
    """Pair-clustered percentile interval of each quantity's mean over its known items."""
    codes = cluster_codes(np.asarray(clusters).tolist())
    n_clusters = int(codes.max()) + 1
    sums = []
    for values in columns.values():
        known = np.array([value is not None for value in values])
        amounts = np.array([0.0 if value is None else value for value in values])
        sums += [np.bincount(codes, weights=amounts, minlength=n_clusters),
                 np.bincount(codes, weights=known.astype(float), minlength=n_clusters)]
    resampled = resampled_totals(np.stack(sums, axis=1), n_resamples, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = resampled[:, 0::2] / np.where(resampled[:, 1::2] > 0, resampled[:, 1::2], np.nan)
    return {name: percentile_interval(means[:, i], level) for i, name in enumerate(columns)}


def telemetry_aggregates(
    telemetry: Sequence[Any],
    *,
    clusters: np.ndarray | None = None,
    n_resamples: int = 0,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, dict[str, dict[str, Any]]]:
    """Cost and runtime of judging the scored items: ``{"cost": {...}, "runtime": {...}}`` of :func:`quantity_summary`.

    Quantities: ``input_tokens``, ``output_tokens``, ``cost_usd`` (US dollars);
    ``wall_time_s`` (seconds), ``turns``, ``tool_calls``. A field that is absent,
    ``None``, negative, not finite or not a number is unknown. Each quantity's
    ``mean_interval`` is the pair-clustered percentile interval of its known
    mean (``None`` without ``n_resamples``).

    >>> items = [{"cost_usd": 0.1, "latency_s": 2.0, "turns": 3}, {"cost_usd": 0.3, "latency_s": 4.0}, None]
    >>> aggregates = telemetry_aggregates(items)
    >>> round(aggregates["cost"]["cost_usd"]["mean"], 6), aggregates["cost"]["cost_usd"]["n_unknown"]
    (0.2, 1)
    >>> aggregates["runtime"]["wall_time_s"]["median"], aggregates["runtime"]["turns"]["total"]
    (3.0, None)
    """
    items = list(telemetry)
    keys = [(group, name) for group, quantities in TELEMETRY_GROUPS.items() for name, _ in quantities]
    fields = [field for quantities in TELEMETRY_GROUPS.values() for _, field in quantities]
    rows = [_quantities(item, fields) for item in items]
    columns = {key: [row[i] for row in rows] for i, key in enumerate(keys)}
    intervals = {}
    if n_resamples and items:
        clusters = np.arange(len(items)) if clusters is None else clusters
        intervals = _mean_intervals(columns, clusters, n_resamples, seed, level)
    aggregates: dict[str, dict[str, dict[str, Any]]] = {group: {} for group in TELEMETRY_GROUPS}
    for (group, name), values in columns.items():
        aggregates[group][name] = {**quantity_summary(values), "mean_interval": intervals.get((group, name))}
    return aggregates


def aligned_telemetry(telemetry: Any, predictions: Any, records: Sequence[Mapping[str, Any]]) -> list[Any] | None:
    """One telemetry entry per reference record, or ``None`` when there is none to aggregate.

    ``telemetry`` is a sequence aligned with ``records``, or a mapping
    ``trajectory_id -> telemetry`` (an absent id is unknown). When it is
    ``None``, the ``telemetry`` of predictions that are result records is
    used (a result file read as a dict carries it); predictions with none
    give ``None``.

    >>> records = [{"trajectory_id": "a"}, {"trajectory_id": "b"}]
    >>> aligned_telemetry({"b": {"cost_usd": 1.0}}, [True, False], records)
    [None, {'cost_usd': 1.0}]
    >>> aligned_telemetry(None, [True, False], records) is None
    True
    """
    if telemetry is None:
        results = [value if is_result_record(value) else None for value in align_predictions(predictions, records)]
        if not any(result is not None and "telemetry" in result for result in results):
            return None
        return [None if result is None else result.get("telemetry") for result in results]
    if isinstance(telemetry, Mapping):
        return [telemetry.get(record["trajectory_id"]) for record in records]
    telemetry = list(telemetry)
    if len(telemetry) != len(records):
        raise ValueError(
            f"got telemetry for {len(telemetry)} items and {len(records)} references; "
            "expected one entry per reference (None where unknown) or a mapping by trajectory_id"
        )
    return telemetry
