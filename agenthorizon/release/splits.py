"""Config membership: AH, AH-S, AH-D and all, and the AH-D derivation.

Pure logic over label rows. Rows passed here carry the seven label fields plus
``difficulty`` (``hard`` / ``easy``, from the file they came from).
:func:`select_rows` is the one function that turns the release's label rows
and a :class:`Selection` into a config's rows; every route (the builder,
``load_dataset``, the references of ``score`` and the reports, ``info``, the
Hub fetch plan, the export) calls it, through
:func:`agenthorizon.release.files.read_config_rows` where the rows come from
disk.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

# Selection and its checks live in item_selection; re-exported here, where
# every route has always imported them from.
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

    The authors' harness forms groups as connected components of deliverable
    ids linked by negatives, keeps those that join exactly two deliverables,
    sorts them by ``"::".join(sorted(ids))``, shuffles that list with
    ``random.Random(42).shuffle`` and takes the first ``n_groups`` (all of them
    when there are fewer).

    Parameters
    ----------
    rows : iterable of mapping
        Label rows with ``instruction_id`` and ``steps_id``. Must be the whole
        release (both label files): the derivation is defined on it, and a
        subset would draw different groups.
    n_groups : int, default=50
        How many groups to take (``schema.DEV_GROUPS``, the paper's 50); 0
        gives an empty list.
    groups : mapping, optional
        :func:`~agenthorizon.release.labels.pair_groups` of ``rows``, when the
        caller has it already (computed here otherwise).

    Returns
    -------
    list of tuple of str
        Each group as its sorted deliverable ids, in the shuffled order; at
        most ``n_groups`` long.

    Raises
    ------
    ValueError
        If ``n_groups`` is negative.

    See Also
    --------
    derive_dev_set : the items of these groups.
    agenthorizon.release.labels.pair_groups : the connected groups of every item.

    Examples
    --------
    Three two-deliverable groups and a one-deliverable item (never in AH-D);
    the order is the seeded shuffle's, not the sorted one:

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
    random.Random(DEV_SEED).shuffle(ordered)
    return ordered[:n_groups]


def derive_dev_set(
    rows: Iterable[Mapping[str, str]],
    n_groups: int = DEV_GROUPS,
    *,
    groups: Mapping[str, tuple[str, ...]] | None = None,
) -> DevSet:
    """AH-D: every item (from either label file) whose pair group is a dev group.

    Parameters
    ----------
    rows : iterable of mapping
        The whole release's label rows (``trajectory_id``,
        ``instruction_id``, ``steps_id``), both label files.
    n_groups : int, default=50
        Number of dev groups, as in :func:`dev_groups`.
    groups : mapping, optional
        :func:`~agenthorizon.release.labels.pair_groups` of ``rows``, when the
        caller has it already.

    Returns
    -------
    DevSet
        ``groups``: the chosen groups in the authors' order;
        ``trajectory_ids``: every item of those groups (positives and
        negatives). On the full release, 50 groups give 162 items.

    Raises
    ------
    ValueError
        If ``n_groups`` is negative (from :func:`dev_groups`).

    See Also
    --------
    dev_groups : which groups are chosen, and how.
    dev_set_from_manifest : AH-D given as a list of ids instead.
    select_config : the rows of a config, AH-D included.

    Examples
    --------
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
    """AH-D given by a list of trajectory ids (a dev manifest), validated against the labels.

    Use it when a dev set was fixed elsewhere (e.g. a file shipped with a
    paper) instead of derived by :func:`derive_dev_set`.

    Parameters
    ----------
    rows : sequence of mapping
        The whole release's label rows (``trajectory_id``,
        ``instruction_id``, ``steps_id``).
    manifest_ids : iterable of str
        The dev items' trajectory ids, e.g. the lines of a manifest file;
        surrounding white space is stripped and blank entries are skipped.
    where : str
        What to call the manifest in errors (usually its file path).
    groups : mapping, optional
        :func:`~agenthorizon.release.labels.pair_groups` of ``rows``, when the
        caller has it already.

    Returns
    -------
    DevSet
        ``trajectory_ids``: exactly the manifest's ids; ``groups``: the pair
        groups those items belong to, sorted by group key.

    Raises
    ------
    ValueError
        Naming ``where`` and up to five offending ids when the manifest names
        an id that no label row has, because a silently ignored id would
        shrink the dev set.

    See Also
    --------
    derive_dev_set : AH-D derived the authors' way.

    Examples
    --------
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
    """The rows of ``config``, in release order.

    ``AH`` and ``AH-S`` are the two label files (rows with ``difficulty``
    ``hard`` and ``easy``), ``all`` is both, ``AH-D`` the items of ``dev``.

    Parameters
    ----------
    rows : iterable of mapping
        Label rows carrying ``trajectory_id`` and ``difficulty``.
    config : {"AH", "AH-S", "AH-D", "all"}
        A name of ``schema.CONFIG_NAMES``.
    dev : DevSet
        The dev set (from :func:`derive_dev_set` or
        :func:`dev_set_from_manifest`), used for ``AH-D`` and ``exclude_dev``.
    exclude_dev : bool, default=False
        Remove the dev items from AH, AH-S or all, to evaluate without them.

    Returns
    -------
    list of mapping
        The selected rows themselves (not copies), in their input order.

    Raises
    ------
    ValueError
        If ``config`` is unknown, or ``exclude_dev`` is combined with
        ``AH-D`` (which has no meaning).

    See Also
    --------
    derive_dev_set : the AH-D items.

    Examples
    --------
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
    """The rows of a selection's config, annotated: the one definition every route uses.

    AH-D (for ``AH-D`` itself, ``in_dev`` and ``exclude_dev``) is drawn from
    the whole release, from the dev manifest's ids when the selection names a
    manifest and by :func:`derive_dev_set` otherwise; then the config's rows
    are picked (:func:`select_config`) and annotated (:func:`annotate`). Pair
    groups are computed once.

    Parameters
    ----------
    rows : iterable of mapping
        The whole release's label rows (both label files), in release order,
        each with the seven label fields and ``difficulty`` (as
        :func:`agenthorizon.release.files.read_labels` gives them; other
        keys, such as ``location``, are kept).
    selection : Selection
        Which items. Its ``label_manifest_sha256`` is not checked here:
        whether the labels are the ones a run recorded is a note for the
        reader of the run, not a different selection.
    dev_manifest_ids : iterable of str, optional
        The ids listed in ``selection.dev_manifest`` (required when it names
        one; :func:`agenthorizon.release.files.read_config_rows` reads them).

    Returns
    -------
    list of dict
        Copies of the selected rows, in release order, each with
        ``pair_group_id`` (12 hex digits) and ``in_dev`` (bool) added.

    Raises
    ------
    ValueError
        A dev manifest naming an id no label row has, or
        ``dev_manifest_ids`` missing for a selection with a manifest (or
        given for one without).

    See Also
    --------
    agenthorizon.release.files.read_config_rows : the same, reading the release.
    derive_dev_set, select_config, annotate : the steps.

    Examples
    --------
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
