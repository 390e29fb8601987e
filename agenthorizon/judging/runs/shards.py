"""Shards of a run: shard ``i/n`` (1 <= i <= n) judges the items whose position among the sorted ids is ``i - 1`` modulo ``n``.

The assignment depends only on the set of ids, not on the dataset's order; the
``n`` shards partition the items and differ in size by at most one.
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["ASSIGNMENT", "parse_shard", "shard_ids"]

ASSIGNMENT = "sorted-id position mod count"
"""How items are assigned to shards, as recorded under ``shard.assignment`` in the run record."""


def parse_shard(shard: str | tuple[int, int] | None) -> tuple[int, int] | None:
    """``"2/4"`` -> ``(2, 4)``; shards are numbered from 1.

    >>> parse_shard("2/4"), parse_shard(None)
    ((2, 4), None)
    """
    if shard is None:
        return None
    if isinstance(shard, tuple):
        index, count = shard
    else:
        text = str(shard).strip()
        try:
            left, right = text.split("/")
            index, count = int(left), int(right)
        except ValueError:
            raise ValueError(f"shard {shard!r}: expected I/N with integers, e.g. 1/4") from None
    if count < 1 or not 1 <= index <= count:
        raise ValueError(f"shard {shard!r}: expected 1 <= I <= N (shards are numbered 1..N)")
    return index, count


def shard_ids(trajectory_ids: Sequence[str], shard: str | tuple[int, int] | None) -> set[str]:
    """The ids of ``trajectory_ids`` that belong to ``shard`` (all of them when ``None``).

    >>> sorted(shard_ids(["c", "a", "b", "d"], "1/2")), sorted(shard_ids(["c", "a", "b", "d"], "2/2"))
    (['a', 'c'], ['b', 'd'])
    """
    parsed = parse_shard(shard)
    if parsed is None:
        return set(trajectory_ids)
    index, count = parsed
    return {tid for position, tid in enumerate(sorted(trajectory_ids)) if position % count == index - 1}

