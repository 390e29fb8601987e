"""Config membership: AH, AH-S, AH-D and all, and the AH-D derivation.

Pure logic over label rows. Rows passed here carry the seven label fields plus
``difficulty`` (``hard`` / ``easy``, from the file they came from).
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping, Sequence

from agenthorizon.release.labels import group_key, pair_groups
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

__all__ = [
    "DevSet",
    "Selection",
    "check_config",
    "check_selection",
    "derive_dev_set",
    "dev_groups",
    "dev_set_from_manifest",
    "resolve_selection",
    "select_config",
]

EXCLUDE_DEV_WITH_AH_D = (
    "exclude_dev removes the AH-D items from AH, AH-S and all; it cannot be combined with config 'AH-D'"
)

_CONFIG_DIFFICULTY = {
    CONFIG_AH: DIFFICULTY_BY_LABEL_FILE[LABEL_FILE_HARD],
    CONFIG_AH_S: DIFFICULTY_BY_LABEL_FILE[LABEL_FILE_EASY],
}


def check_config(config: Any) -> str:
    """``config`` when it is a config name; ``ValueError`` naming the configs otherwise.

    >>> check_config("AH-S")
    'AH-S'
    """
    if config not in CONFIG_NAMES:
        raise ValueError(f"unknown config {config!r}; expected one of {', '.join(CONFIG_NAMES)}")
    return config


def check_selection(config: Any, *, dev_groups: Any = DEV_GROUPS, exclude_dev: Any = False) -> None:
    """The one validator of an item selection's parameters, used by every entry point.

    Raises ``ValueError`` for an unknown config, a ``dev_groups`` that is not a
    non-negative integer, an ``exclude_dev`` that is not a Boolean, and
    ``exclude_dev`` with ``AH-D`` (:data:`EXCLUDE_DEV_WITH_AH_D`).

    >>> check_selection("AH", exclude_dev=True)
    >>> check_selection("AH-D", exclude_dev=True)
    Traceback (most recent call last):
    ...
    ValueError: exclude_dev removes the AH-D items from AH, AH-S and all; it cannot be combined with config 'AH-D'
    """
    check_config(config)
    if not isinstance(dev_groups, int) or isinstance(dev_groups, bool) or dev_groups < 0:
        raise ValueError(f"dev_groups must be a non-negative integer, got {dev_groups!r}")
    if not isinstance(exclude_dev, bool):
        raise ValueError(f"exclude_dev must be true or false, got {exclude_dev!r}")
    if config == CONFIG_AH_D and exclude_dev:
        raise ValueError(EXCLUDE_DEV_WITH_AH_D)


@dataclass(frozen=True)
class Selection:
    """Which items a run or a score is about: one config of one release, exactly.

    Recorded in every run record and rebuilt from it by every reader, so
    ``score``, ``leaderboard``, ``report`` and ``plot`` see the items the run
    was made on. Validated once, on construction (:func:`check_selection`).

    Attributes
    ----------
    config : {"AH", "AH-S", "AH-D", "all"}
        The config name.
    dev_groups : int, default=50
        Pair groups in AH-D (used by AH-D and ``exclude_dev``).
    dev_manifest : str or None
        A file of trajectory ids defining AH-D instead of the derivation.
    dev_manifest_sha256 : str or None
        sha256 of that file's bytes, so a changed manifest is noticed.
    exclude_dev : bool, default=False
        AH-D items left out of AH, AH-S or all.
    label_manifest_sha256 : str or None
        sha256 of the selected items' label manifest
        (:func:`agenthorizon.release.labels.manifest_sha256`); ``None`` for a
        blind run scored without labels.

    Examples
    --------
    >>> Selection("AH").to_dict()["config"]
    'AH'
    >>> Selection.from_dict({"config": "AH-D", "exclude_dev": True}, "run.json")
    Traceback (most recent call last):
    ...
    ValueError: run.json: exclude_dev removes the AH-D items from AH, AH-S and all; it cannot be combined with config 'AH-D'
    """

    config: str
    dev_groups: int = DEV_GROUPS
    dev_manifest: str | None = None
    dev_manifest_sha256: str | None = None
    exclude_dev: bool = False
    label_manifest_sha256: str | None = None

    def __post_init__(self) -> None:
        check_selection(self.config, dev_groups=self.dev_groups, exclude_dev=self.exclude_dev)

    def load_options(self) -> dict[str, Any]:
        """Keyword arguments of ``load_dataset`` / ``load_references`` that select these items."""
        return {"dev_groups": self.dev_groups, "dev_manifest": self.dev_manifest, "exclude_dev": self.exclude_dev}

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON object, as recorded in ``run.json``."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Selection:
        """Validate a recorded selection; errors start with ``where``."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: expected a selection object with a config, got {type(data).__name__}")
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"{where}: unknown selection field(s) {', '.join(unknown)}")
        if "config" not in data:
            raise ValueError(f"{where}: expected a selection object with a config")
        try:
            return cls(**data)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None

    def contradiction(self, other: Selection) -> list[str]:
        """The fields (besides hashes that are ``None`` on one side) where ``other`` differs."""
        differing = []
        for name, mine in asdict(self).items():
            theirs = getattr(other, name)
            if name.endswith("sha256") and (mine is None or theirs is None):
                continue
            if mine != theirs:
                differing.append(f"{name}: {mine!r} vs {theirs!r}")
        return differing


def resolve_selection(
    recorded: Mapping[str, Selection | None], given: Mapping[str, Any], *, default_config: str | None
) -> Selection:
    """The one selection of some runs, checked against options given by the user.

    ``recorded`` maps each run (its folder) to its recorded selection
    (``None`` when it has no record); they must agree. ``given`` holds the
    options the user passed (``config``, ``exclude_dev``, ``dev_groups``,
    ``dev_manifest``; ``None`` for not given): each must agree with the runs,
    and fills in when no run records a selection. ``default_config`` is used
    when neither names a config (``None``: that is an error).

    >>> runs = {"runs/a": Selection("AH"), "runs/b": None}
    >>> resolve_selection(runs, {"config": None}, default_config="AH-D").config
    'AH'
    >>> resolve_selection(runs, {"config": "AH-S"}, default_config=None)
    Traceback (most recent call last):
    ...
    ValueError: --config AH-S contradicts the recorded config 'AH' of runs/a; drop --config to use the run's
    """
    known = [(where, selection) for where, selection in recorded.items() if selection is not None]
    options = {key: value for key, value in given.items() if value is not None}
    if not known:
        config = options.pop("config", default_config)
        if config is None:
            raise ValueError("the runs have no run.json naming their config; pass --config")
        return Selection(config, **options)
    first, chosen = known[0]
    for where, selection in known[1:]:
        differing = chosen.contradiction(selection)
        if differing:
            raise ValueError(
                f"{where} was run on other items than {first} ({'; '.join(differing)}); "
                "compare runs of one config and selection"
            )
    for key, value in options.items():
        recorded_value = getattr(chosen, key)
        if key == "dev_manifest":
            from pathlib import Path

            value = str(Path(value).resolve())
        if value != recorded_value:
            flag = "--" + key.replace("_", "-")
            raise ValueError(
                f"{flag} {given[key]} contradicts the recorded {key} {recorded_value!r} of {first}; "
                f"drop {flag} to use the run's"
            )
    return chosen


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

    Parameters
    ----------
    rows : iterable of mapping
        Label rows with ``instruction_id`` and ``steps_id``. Must be the whole
        release (both label files): the derivation is defined on it, and a
        subset would draw different groups.
    n_groups : int, default=50
        How many groups to take (``schema.DEV_GROUPS``, the paper's 50); 0
        gives an empty list.

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
    groups = {group for group in pair_groups(rows).values() if len(group) == DEV_GROUP_SIZE}
    ordered = sorted(groups, key=group_key)
    random.Random(DEV_SEED).shuffle(ordered)
    return ordered[:n_groups]


def derive_dev_set(rows: Iterable[Mapping[str, str]], n_groups: int = DEV_GROUPS) -> DevSet:
    """AH-D: every item (from either label file) whose pair group is a dev group.

    Parameters
    ----------
    rows : iterable of mapping
        The whole release's label rows (``trajectory_id``,
        ``instruction_id``, ``steps_id``), both label files.
    n_groups : int, default=50
        Number of dev groups, as in :func:`dev_groups`.

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
    chosen = dev_groups(rows, n_groups)
    chosen_set = set(chosen)
    groups = pair_groups(rows)
    ids = frozenset(row["trajectory_id"] for row in rows if groups[row["trajectory_id"]] in chosen_set)
    return DevSet(groups=tuple(chosen), trajectory_ids=ids)


def dev_set_from_manifest(rows: Sequence[Mapping[str, str]], manifest_ids: Iterable[str], where: str) -> DevSet:
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
