"""Which items a run or a score is about: :class:`Selection`, its checks, and reconciling runs with given options.

Pure. Which rows a selection picks is :func:`agenthorizon.release.splits.select_rows`.
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
    """Which items a run or a score is about: one config of one release, validated on construction.

    Recorded in every run record and rebuilt by every reader. ``dev_groups``: pair
    groups in AH-D; ``dev_manifest`` / ``dev_manifest_sha256``: a file of ids
    defining AH-D instead, and the sha256 of its bytes; ``exclude_dev``: AH-D left
    out of AH, AH-S or all; ``label_manifest_sha256``:
    :func:`agenthorizon.release.labels.manifest_sha256` of the items (``None`` for
    a blind run).

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
    """A ValueError: a given option contradicts the runs' recorded selection, or no config is named.

    ``field`` (a :class:`Selection` field), ``given`` and ``recorded`` (``None``
    when absent) and ``run`` (the folder recording it) let callers word it
    their own way.

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
    """The one selection of some runs (folder -> recorded selection or ``None``), checked against ``given`` options.

    ``given`` holds ``config``, ``exclude_dev``, ``dev_groups``, ``dev_manifest``
    (``None``: not given; a manifest already in its recorded form). Each must
    agree with the runs and fills in when none records a selection;
    ``default_config`` is used when no one names a config. Raises
    :class:`SelectionConflict`, or ValueError when two runs disagree.

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
