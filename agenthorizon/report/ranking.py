"""Ranking agreement of a leaderboard's judges between two item sets (configs or slices).

What ``leaderboard --rank-correlation A,B`` shows: a set is a config (``AH``)
or a slice value (``os=linux``).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from agenthorizon.report.leaderboard import Leaderboard
from agenthorizon.report.scored_runs import LEADERBOARD_CONFIGS
from agenthorizon.report.references import LABEL_ROW_FIELDS, load_run_references
from agenthorizon.report.tables import Rate, Table
from agenthorizon.release.item_selection import Selection
from agenthorizon.scoring.bootstrap import check_bootstrap
from agenthorizon.scoring.metrics import CONFIDENCE_LEVEL
from agenthorizon.scoring.outcomes import item_outcomes
from agenthorizon.scoring.ranking import rank_agreement
from agenthorizon.scoring.slices import SLICES, slice_values

__all__ = ["parse_item_sets", "rank_correlation", "rank_correlation_table"]


def parse_item_sets(text: str) -> tuple[str, str]:
    """``"A,B"`` -> ``("A", "B")``; each a config of the leaderboard or ``slice=value``.

    >>> parse_item_sets("AH,AH-S")
    ('AH', 'AH-S')
    >>> parse_item_sets("os=linux, os=windows")
    ('os=linux', 'os=windows')
    """
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"--rank-correlation expects two item sets A,B (e.g. AH,AH-S or os=linux,os=windows), got {text!r}")
    for part in parts:
        name = part.split("=", 1)[0]
        if part not in LEADERBOARD_CONFIGS and ("=" not in part or name not in SLICES):
            raise ValueError(
                f"unknown item set {part!r}; expected a config ({', '.join(LEADERBOARD_CONFIGS)}) "
                f"or slice=value with a slice from {', '.join(SLICES)}"
            )
    if parts[0] == parts[1]:
        raise ValueError(
            f"--rank-correlation {text!r} names one item set twice; a ranking always agrees with itself (rho = 1), "
            "expected two different item sets A,B (e.g. AH,AH-S)"
        )
    return parts[0], parts[1]


def _rows(board: Leaderboard, sets: tuple[str, str], data_root: Any, selection: dict[str, Any]) -> list[dict[str, Any]]:
    rows = [dict(row, _config=config) for config in LEADERBOARD_CONFIGS for row in board.references[config]]
    needed = {SLICES[item.split("=", 1)[0]][0] for item in sets if "=" in item} - set(LABEL_ROW_FIELDS)
    if needed:  # a slice read from the trajectory files (os, steps, applications)
        extra: dict[str, dict[str, Any]] = {}
        for config in LEADERBOARD_CONFIGS:
            loaded = load_run_references(data_root, Selection(config, **selection), fields=tuple(needed))
            extra.update({row["trajectory_id"]: row for row in loaded.rows})
        rows = [{**row, **{name: extra[row["trajectory_id"]][name] for name in needed}} for row in rows]
    return rows


def _mask(rows: list[dict[str, Any]], item_set: str) -> np.ndarray:
    if "=" not in item_set:
        return np.array([row["_config"] == item_set for row in rows], dtype=bool)
    name, value = item_set.split("=", 1)
    return np.asarray(slice_values(rows, name), dtype=object) == value


def rank_correlation(
    board: Leaderboard,
    sets: tuple[str, str],
    *,
    data_root: str | os.PathLike[str],
    selection: dict[str, Any] | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Spearman's rho and Kendall's tau-b between the judges' balanced accuracies on two item sets of ``board``.

    Only judges run on every config the sets draw from take part, and of partial
    rows only ranked ones; the rest are in ``excluded``. ``data_root`` and
    ``selection`` are read again only when a slice needs trajectory fields;
    ``bootstrap`` resamples pair groups over A and B. Returns ``a``, ``b``,
    ``n_items_a``, ``n_items_b``, ``judges``, ``balanced_a``, ``balanced_b``,
    ``spearman_rho``, ``kendall_tau`` (in [-1, 1] or ``None``), ``intervals``,
    ``bootstrap``, ``excluded``. ValueError for an empty set, two identical sets
    or fewer than two judges covering both.
    """
    check_bootstrap(bootstrap)
    rows = _rows(board, sets, data_root, selection or {})
    in_a, in_b = _mask(rows, sets[0]), _mask(rows, sets[1])
    for item_set, mask in zip(sets, (in_a, in_b)):
        if not mask.any():
            raise ValueError(f"item set {item_set!r} holds no item of the leaderboard's configs; expected a non-empty set")
    if np.array_equal(in_a, in_b):
        raise ValueError(
            f"item sets {sets[0]!r} and {sets[1]!r} hold the same {int(in_a.sum())} items; a ranking always agrees "
            "with itself (rho = 1), expected two different item sets"
        )
    configs = {row["_config"] for row, used in zip(rows, in_a | in_b) if used}
    # A partial row the leaderboard left unranked takes no part: its missing items would rank it as wrong.
    judges = [row for row in board if all(row.reports.get(config) is not None for config in configs)
              and (row.partial is None or row.rank is not None)]
    excluded = [row.judge for row in board if row not in judges]
    if len(judges) < 2:
        raise ValueError(
            f"rank correlation needs at least two judges run on {', '.join(sorted(configs))}; got {len(judges)}"
        )
    outcomes = [item_outcomes(board.predictions[row.judge_key], rows) for row in judges]
    result = rank_agreement(
        outcomes[0].positive, [one.correct for one in outcomes], outcomes[0].clusters, in_a, in_b,
        n_resamples=bootstrap, seed=seed, level=CONFIDENCE_LEVEL,
    )
    return {
        "a": sets[0], "b": sets[1], "n_items_a": int(in_a.sum()), "n_items_b": int(in_b.sum()),
        "judges": [row.judge for row in judges], **result,
        "bootstrap": {"n_resamples": bootstrap, "seed": seed, "level": CONFIDENCE_LEVEL} if bootstrap else None,
        "excluded": excluded,
    }


def _coefficient(value: float | None, interval: Any) -> str:
    text = "undefined" if value is None else f"{value:.3f}"
    if interval:
        text += f" [{interval[0]:.3f}, {interval[1]:.3f}]"
    return text


def rank_correlation_table(agreement: dict[str, Any]) -> Table:
    """The judges' balanced accuracy on A and on B, with the coefficients as notes."""
    a, b = agreement["a"], agreement["b"]
    intervals = agreement["intervals"] or {}
    notes = [
        f"Spearman rho = {_coefficient(agreement['spearman_rho'], intervals.get('spearman_rho'))}; "
        f"Kendall tau-b = {_coefficient(agreement['kendall_tau'], intervals.get('kendall_tau'))}",
        f"{len(agreement['judges'])} judges; {agreement['n_items_a']} items in {a}, {agreement['n_items_b']} in {b}",
    ]
    if agreement["bootstrap"]:
        boot = agreement["bootstrap"]
        notes.append(f"Intervals: {100 * boot['level']:.0f}% pair-clustered percentile bootstrap, "
                     f"{boot['n_resamples']} resamples, seed {boot['seed']}")
    if agreement["excluded"]:
        notes.append(f"Not run on both sets' configs (left out): {', '.join(agreement['excluded'])}")
    body = [
        [judge, Rate(x), Rate(y)]
        for judge, x, y in zip(agreement["judges"], agreement["balanced_a"], agreement["balanced_b"])
    ]
    return Table(title=f"Rank agreement: {a} vs {b}", header=["judge", f"{a} bal.", f"{b} bal."], rows=body, notes=notes)
