"""Config membership (AH, AH-S, AH-D, all) and the AH-D derivation, over label rows.

Rows carry the seven label fields plus ``difficulty`` (``hard`` / ``easy``).
:func:`select_rows` is the single definition of a config's rows; every route
calls it (through :func:`agenthorizon.release.files.read_config_rows` when the
rows come from disk).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

# Selection and its checks live in item_selection; re-exported here.
from agenthorizon.release.item_selection import (
    EXCLUDE_DEV_WITH_AH_D,
    Selection,
    SelectionConflict,
    check_config,
    check_selection,
    resolve_selection,
)
from agenthorizon.release.labels import group_key, pair_group_id, pair_groups
from agenthorizon.schema import (
    CONFIG_AH,
    CONFIG_AH_D,
    CONFIG_AH_S,
    CONFIG_ALL,
    DEV_GROUP_SIZE,
    DEV_GROUPS,
    DEV_SEED,
    DIFFICULTY_BY_LABEL_FILE,
    LABEL_FILE_EASY,
    LABEL_FILE_HARD,
)

__all__ = [
    "EXCLUDE_DEV_WITH_AH_D",
    "DevSet",
    "Selection",
    "SelectionConflict",
    "annotate",
    "check_config",
    "check_selection",
    "derive_dev_set",
    "dev_groups",
    "dev_set_from_manifest",
    "resolve_selection",
    "select_config",
    "select_rows",
]

_CONFIG_DIFFICULTY = {
    CONFIG_AH: DIFFICULTY_BY_LABEL_FILE[LABEL_FILE_HARD],
    CONFIG_AH_S: DIFFICULTY_BY_LABEL_FILE[LABEL_FILE_EASY],
}


@dataclass(frozen=True)
class DevSet:
    """The AH-D development set: its groups (sorted deliverable ids) and items."""

    groups: tuple[tuple[str, ...], ...]
    trajectory_ids: frozenset[str]


def dev_groups(
    rows: Iterable[Mapping[str, str]],
    n_groups: int = DEV_GROUPS,
    *,
    groups: Mapping[str, tuple[str, ...]] | None = None,
) -> list[tuple[str, ...]]:
    """The pair groups of AH-D, in the authors' order.

    Groups are connected components of deliverable ids linked by negatives; those
    joining exactly two deliverables are sorted by ``"::".join(sorted(ids))``,
    shuffled with ``random.Random(42)`` and the first ``n_groups`` kept (all when
    fewer). ``rows`` must be the whole release: a subset draws different groups.
    ``groups`` is :func:`~agenthorizon.release.labels.pair_groups` of ``rows`` when
    the caller has it. Raises ValueError for a negative ``n_groups``.

    >>> rows = [{"trajectory_id": f"n{i}", "instruction_id": a, "steps_id": b}
    ...         for i, (a, b) in enumerate([("a", "b"), ("c", "d"), ("e", "f"), ("g", "g")])]
    >>> dev_groups(rows)
    [('c', 'd'), ('a', 'b'), ('e', 'f')]
    >>> dev_groups(rows, n_groups=2)
    [('c', 'd'), ('a', 'b')]
    """
    if n_groups < 0:
        raise ValueError(f"dev_groups must be a non-negative integer, got {n_groups}")
    if groups is None:
        groups = pair_groups(rows)
    two_deliverables = {group for group in groups.values() if len(group) == DEV_GROUP_SIZE}
    ordered = sorted(two_deliverables, key=group_key)
    import random  # here: a score without a dev split starts without it

    random.Random(DEV_SEED).shuffle(ordered)
    return ordered[:n_groups]


def derive_dev_set(
    rows: Iterable[Mapping[str, str]],
    n_groups: int = DEV_GROUPS,
    *,
    groups: Mapping[str, tuple[str, ...]] | None = None,
) -> DevSet:
    """AH-D: every item (of either label file) whose pair group is a dev group.

    On the full release, 50 groups give 162 items.

    >>> rows = [
    ...     {"trajectory_id": "p", "instruction_id": "a", "steps_id": "a"},
    ...     {"trajectory_id": "n1", "instruction_id": "a", "steps_id": "b"},
    ...     {"trajectory_id": "n2", "instruction_id": "b", "steps_id": "a"},
    ... ]
    >>> dev = derive_dev_set(rows)
    >>> dev.groups, sorted(dev.trajectory_ids)
    ((('a', 'b'),), ['n1', 'n2', 'p'])
    """
    rows = list(rows)
    if groups is None:
        groups = pair_groups(rows)
    chosen = dev_groups(rows, n_groups, groups=groups)
    chosen_set = set(chosen)
    ids = frozenset(row["trajectory_id"] for row in rows if groups[row["trajectory_id"]] in chosen_set)
    return DevSet(groups=tuple(chosen), trajectory_ids=ids)


def dev_set_from_manifest(
    rows: Sequence[Mapping[str, str]],
    manifest_ids: Iterable[str],
    where: str,
    *,
    groups: Mapping[str, tuple[str, ...]] | None = None,
) -> DevSet:
    """AH-D given as a list of trajectory ids (a dev manifest), checked against the labels.

    Ids are stripped and blanks skipped; ``groups`` of the result are the items'
    pair groups sorted by group key. An id no label row has raises ValueError
    naming ``where`` (a silently ignored id would shrink the dev set).

    >>> rows = [
    ...     {"trajectory_id": "p", "instruction_id": "a", "steps_id": "a"},
    ...     {"trajectory_id": "n", "instruction_id": "a", "steps_id": "b"},
    ... ]
    >>> dev = dev_set_from_manifest(rows, ["p", " n ", ""], "dev.txt")
    >>> dev.groups, sorted(dev.trajectory_ids)
    ((('a', 'b'),), ['n', 'p'])
    >>> dev_set_from_manifest(rows, ["x"], "dev.txt")
    Traceback (most recent call last):
    ...
    ValueError: dev.txt: 1 trajectory id(s) are in no label file: x; expected every dev manifest id to be a release item
    """
    known = {row["trajectory_id"] for row in rows}
    manifest = [trajectory_id.strip() for trajectory_id in manifest_ids if trajectory_id.strip()]
    unknown = [trajectory_id for trajectory_id in manifest if trajectory_id not in known]
    if unknown:
        shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise ValueError(
            f"{where}: {len(unknown)} trajectory id(s) are in no label file: {shown}; "
            "expected every dev manifest id to be a release item"
        )
    if groups is None:
        groups = pair_groups(rows)
    ids = frozenset(manifest)
    member_groups = sorted({groups[trajectory_id] for trajectory_id in ids}, key=group_key)
    return DevSet(groups=tuple(member_groups), trajectory_ids=ids)


def select_config(
    rows: Iterable[Mapping[str, str]],
    config: str,
    dev: DevSet,
    *,
    exclude_dev: bool = False,
) -> list[Mapping[str, str]]:
    """The rows of ``config`` (the input objects, in input order).

    ``AH`` / ``AH-S`` are the ``hard`` / ``easy`` rows, ``all`` both, ``AH-D`` the
    items of ``dev``; ``exclude_dev`` drops the dev items (ValueError with AH-D or
    an unknown config).

    >>> rows = [
    ...     {"trajectory_id": "h1", "difficulty": "hard"},
    ...     {"trajectory_id": "e1", "difficulty": "easy"},
    ...     {"trajectory_id": "h2", "difficulty": "hard"},
    ... ]
    >>> dev = DevSet(groups=(), trajectory_ids=frozenset({"h2"}))
    >>> [row["trajectory_id"] for row in select_config(rows, "AH", dev)]
    ['h1', 'h2']
    >>> [row["trajectory_id"] for row in select_config(rows, "all", dev, exclude_dev=True)]
    ['h1', 'e1']
    >>> [row["trajectory_id"] for row in select_config(rows, "AH-D", dev)]
    ['h2']
    """
    check_selection(config, exclude_dev=exclude_dev)
    rows = list(rows)
    if config == CONFIG_AH_D:
        return [row for row in rows if row["trajectory_id"] in dev.trajectory_ids]
    if config != CONFIG_ALL:
        rows = [row for row in rows if row["difficulty"] == _CONFIG_DIFFICULTY[config]]
    if exclude_dev:
        rows = [row for row in rows if row["trajectory_id"] not in dev.trajectory_ids]
    return rows


def annotate(
    rows: Iterable[Mapping[str, Any]], dev: DevSet, groups: Mapping[str, tuple[str, ...]]
) -> list[dict[str, Any]]:
    """Copies of ``rows`` with ``pair_group_id`` and ``in_dev`` added.

    ``groups`` is :func:`~agenthorizon.release.labels.pair_groups` of the
    whole release (an item's group is defined over both label files).

    >>> rows = [{"trajectory_id": "p", "instruction_id": "a", "steps_id": "a"}]
    >>> annotate(rows, DevSet((), frozenset({"p"})), pair_groups(rows))
    [{'trajectory_id': 'p', 'instruction_id': 'a', 'steps_id': 'a', 'pair_group_id': '86f7e437faa5', 'in_dev': True}]
    """
    group_ids: dict[tuple[str, ...], str] = {}
    annotated = []
    for row in rows:
        group = groups[row["trajectory_id"]]
        if group not in group_ids:
            group_ids[group] = pair_group_id(group)
        annotated.append(
            {**row, "pair_group_id": group_ids[group], "in_dev": row["trajectory_id"] in dev.trajectory_ids}
        )
    return annotated


def select_rows(
    rows: Iterable[Mapping[str, Any]],
    selection: Selection,
    *,
    dev_manifest_ids: Iterable[str] | None = None,
) -> list[dict[str, Any]]:
    """The rows of a selection's config, copied, in release order, with ``pair_group_id`` and ``in_dev``.

    ``rows`` is the whole release (both label files). AH-D comes from
    ``dev_manifest_ids`` when the selection names a dev manifest (then required),
    from :func:`derive_dev_set` otherwise. ``label_manifest_sha256`` is not checked
    here. Raises ValueError for unknown manifest ids or manifest ids given or
    missing against the selection.

    >>> rows = [
    ...     {"trajectory_id": "p", "instruction_id": "a", "steps_id": "a", "difficulty": "hard"},
    ...     {"trajectory_id": "n", "instruction_id": "a", "steps_id": "b", "difficulty": "hard"},
    ...     {"trajectory_id": "e", "instruction_id": "c", "steps_id": "c", "difficulty": "easy"},
    ... ]
    >>> [(row["trajectory_id"], row["in_dev"]) for row in select_rows(rows, Selection("AH"))]
    [('p', True), ('n', True)]
    >>> [row["trajectory_id"] for row in select_rows(rows, Selection("all", exclude_dev=True))]
    ['e']
    >>> [row["trajectory_id"] for row in select_rows(rows, Selection("AH-D", dev_manifest="dev.txt"), dev_manifest_ids=["n"])]
    ['n']
    """
    rows = list(rows)
    groups = pair_groups(rows)
    if selection.dev_manifest is not None:
        if dev_manifest_ids is None:
            raise ValueError(
                f"the selection names the dev manifest {selection.dev_manifest}; expected its trajectory ids "
                "(agenthorizon.release.files.read_config_rows reads them)"
            )
        dev = dev_set_from_manifest(rows, dev_manifest_ids, selection.dev_manifest, groups=groups)
    else:
        if dev_manifest_ids is not None:
            raise ValueError("dev manifest ids given for a selection without a dev manifest; expected none")
        dev = derive_dev_set(rows, selection.dev_groups, groups=groups)
    return annotate(select_config(rows, selection.config, dev, exclude_dev=selection.exclude_dev), dev, groups)
