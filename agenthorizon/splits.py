"""Config membership: AH, AH-S, AH-D and all, and the AH-D derivation.

Pure logic over label rows. Rows passed here carry the seven label fields plus
``difficulty`` (``hard`` / ``easy``, from the file they came from).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from agenthorizon.labels import group_key, pair_groups
from agenthorizon.schema import (
    CONFIG_AH,
    CONFIG_AH_D,
    CONFIG_AH_S,
    CONFIG_ALL,
    CONFIG_NAMES,
    DEV_GROUP_SIZE,
    DEV_GROUPS,
    DEV_SEED,
    DIFFICULTY_BY_LABEL_FILE,
    LABEL_FILE_EASY,
    LABEL_FILE_HARD,
)

_CONFIG_DIFFICULTY = {
    CONFIG_AH: DIFFICULTY_BY_LABEL_FILE[LABEL_FILE_HARD],
    CONFIG_AH_S: DIFFICULTY_BY_LABEL_FILE[LABEL_FILE_EASY],
}


@dataclass(frozen=True)
class DevSet:
    """The AH-D development set: its groups (sorted deliverable ids) and items."""

    groups: tuple[tuple[str, ...], ...]
    trajectory_ids: frozenset[str]


def dev_groups(rows: Iterable[Mapping[str, str]], n_groups: int = DEV_GROUPS) -> list[tuple[str, ...]]:
    """The pair groups of AH-D, in the authors' order.

    The authors' harness forms groups as connected components of deliverable
    ids linked by negatives, keeps those that join exactly two deliverables,
    sorts them by ``"::".join(sorted(ids))``, shuffles that list with
    ``random.Random(42).shuffle`` and takes the first ``n_groups`` (all of them
    when there are fewer).

    ``rows`` must be the whole release (both label files): the derivation is
    defined on it, and a subset would draw different groups.
    """
    if n_groups < 0:
        raise ValueError(f"dev_groups must be a non-negative integer, got {n_groups}")
    groups = {group for group in pair_groups(rows).values() if len(group) == DEV_GROUP_SIZE}
    ordered = sorted(groups, key=group_key)
    random.Random(DEV_SEED).shuffle(ordered)
    return ordered[:n_groups]


def derive_dev_set(rows: Iterable[Mapping[str, str]], n_groups: int = DEV_GROUPS) -> DevSet:
    """AH-D: every item (from either label file) whose pair group is a dev group.

    >>> rows = [
    ...     {"trajectory_id": "p", "instruction_id": "a", "steps_id": "a"},
    ...     {"trajectory_id": "n1", "instruction_id": "a", "steps_id": "b"},
    ...     {"trajectory_id": "n2", "instruction_id": "b", "steps_id": "a"},
    ... ]
    >>> sorted(derive_dev_set(rows).trajectory_ids)
    ['n1', 'n2', 'p']
    """
    rows = list(rows)
    chosen = dev_groups(rows, n_groups)
    chosen_set = set(chosen)
    groups = pair_groups(rows)
    ids = frozenset(row["trajectory_id"] for row in rows if groups[row["trajectory_id"]] in chosen_set)
    return DevSet(groups=tuple(chosen), trajectory_ids=ids)


def dev_set_from_manifest(rows: Sequence[Mapping[str, str]], manifest_ids: Iterable[str], where: str) -> DevSet:
    """AH-D given by a list of trajectory ids (a dev manifest), validated against the labels.

    Raises ``ValueError`` naming ``where`` when the manifest names an id that no
    label row has, because a silently ignored id would shrink the dev set.
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
    """The rows of ``config``, in release order.

    ``AH`` and ``AH-S`` are the two label files, ``all`` is both, ``AH-D`` the
    dev set. ``exclude_dev`` removes the dev items from AH, AH-S and all (it
    has no meaning for AH-D itself and is refused there).
    """
    if config not in CONFIG_NAMES:
        raise ValueError(f"unknown config {config!r}; expected one of {', '.join(CONFIG_NAMES)}")
    rows = list(rows)
    if config == CONFIG_AH_D:
        if exclude_dev:
            raise ValueError("exclude_dev=True removes AH-D items; it cannot be combined with config 'AH-D'")
        return [row for row in rows if row["trajectory_id"] in dev.trajectory_ids]
    if config != CONFIG_ALL:
        rows = [row for row in rows if row["difficulty"] == _CONFIG_DIFFICULTY[config]]
    if exclude_dev:
        rows = [row for row in rows if row["trajectory_id"] not in dev.trajectory_ids]
    return rows
