"""Which items a run or a score is about: the :class:`Selection`, its checks, and reconciling runs with given options.

Pure: no I/O. :func:`check_selection` is the one validator of a selection's
parameters; :class:`Selection` is the validated value a run records;
:func:`resolve_selection` rebuilds the selection of some runs and checks the
options a user gave against it, raising :class:`SelectionConflict` (a field,
the recorded and the given value: callers word it their own way). Which
rows a selection picks is :func:`agenthorizon.release.splits.select_rows`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from agenthorizon.schema import CONFIG_AH_D, CONFIG_NAMES, DEV_GROUPS

__all__ = [
    "EXCLUDE_DEV_WITH_AH_D",
    "Selection",
    "SelectionConflict",
    "check_config",
    "check_selection",
    "resolve_selection",
]

EXCLUDE_DEV_WITH_AH_D = (
    "exclude_dev removes the AH-D items from AH, AH-S and all; it cannot be combined with config 'AH-D'"
)

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


class SelectionConflict(ValueError):
    """An item selection option that contradicts the runs' recorded selection, or a config no one names.

    Raised by :func:`resolve_selection`; a ``ValueError``, so callers that
    catch bad input catch it. The attributes let a caller say it in its own
    words (the command line names its ``--config`` flag, for instance).

    Attributes
    ----------
    field : str
        The :class:`Selection` field, e.g. ``"config"`` or ``"exclude_dev"``.
    given : object
        The value given (``None`` when none was: no run records a config and
        none was given).
    recorded : object
        The value the run records (``None`` when no run records one).
    run : str or None
        The run (its folder) that records ``recorded``; ``None`` when no run
        records a selection.

    Examples
    --------
    >>> error = SelectionConflict("config", "AH-S", "AH", "runs/a")
    >>> str(error)
    "config 'AH-S' contradicts the recorded config 'AH' of runs/a; leave config unset to use the run's"
    >>> error.field, error.given, error.recorded
    ('config', 'AH-S', 'AH')
    """

    def __init__(self, field: str, given: Any, recorded: Any, run: str | None) -> None:
        super().__init__(field, given, recorded, run)  # args rebuild the error when it is unpickled
        self.field, self.given, self.recorded, self.run = field, given, recorded, run

    def __str__(self) -> str:
        if self.run is None:
            return f"no run record names a {self.field} and none was given; expected a {self.field}"
        return (
            f"{self.field} {self.given!r} contradicts the recorded {self.field} {self.recorded!r} of {self.run}; "
            f"leave {self.field} unset to use the run's"
        )


def resolve_selection(
    recorded: Mapping[str, Selection | None], given: Mapping[str, Any], *, default_config: str | None
) -> Selection:
    """The one selection of some runs, checked against options given by the user.

    Parameters
    ----------
    recorded : mapping of str to Selection or None
        Each run (its folder) and its recorded selection (``None`` when it
        has no record). The recorded selections must agree.
    given : mapping of str to object
        The options the user passed (``config``, ``exclude_dev``,
        ``dev_groups``, ``dev_manifest``; ``None`` for not given), compared
        as they are: a ``dev_manifest`` must already be in its recorded form
        (:func:`agenthorizon.release.files.dev_manifest_path`). Each must
        agree with the runs, and fills in when no run records a selection.
    default_config : str or None
        The config when neither a run nor ``given`` names one (``None``: that
        is an error).

    Returns
    -------
    Selection
        The runs' recorded selection, else one built from ``given``.

    Raises
    ------
    SelectionConflict
        A given option differs from the recorded one, or no config is named
        anywhere and there is no default.
    ValueError
        Two runs record different selections (naming both and the fields).

    Examples
    --------
    >>> runs = {"runs/a": Selection("AH"), "runs/b": None}
    >>> resolve_selection(runs, {"config": None}, default_config="AH-D").config
    'AH'
    >>> resolve_selection(runs, {"config": "AH-S"}, default_config=None)
    Traceback (most recent call last):
    ...
    agenthorizon.release.item_selection.SelectionConflict: config 'AH-S' contradicts the recorded config 'AH' of runs/a; leave config unset to use the run's
    """
    known = [(where, selection) for where, selection in recorded.items() if selection is not None]
    options = {key: value for key, value in given.items() if value is not None}
    if not known:
        config = options.pop("config", default_config)
        if config is None:
            raise SelectionConflict("config", None, None, None)
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
        if value != recorded_value:
            raise SelectionConflict(key, value, recorded_value, first)
    return chosen
