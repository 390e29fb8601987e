"""Which items a run judges (:func:`select_items`), and the labels it scores them against (:func:`resolve_references`).

Columns are read without decoding the others, so a ``datasets.Dataset`` never
opens a screenshot here.
"""

from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

from agenthorizon.judging.runs.shards import shard_ids
from agenthorizon.release.files import dev_manifest_identity
from agenthorizon.release.splits import Selection
from agenthorizon.schema import DEV_GROUPS, LABEL_FIELDS, UUID_PATTERN
from agenthorizon.util.terminal_text import ECHO_LIMIT, printable

__all__ = ["PROVENANCE_OPTIONS", "SELECTION_OPTIONS", "check_data_options", "column", "config_name", "label_rows", "resolve_references", "select_items"]

SELECTION_OPTIONS = ("dev_groups", "dev_manifest", "exclude_dev")
"""``data_options`` that select items (recorded in the run's Selection)."""
PROVENANCE_OPTIONS = ("repo_id", "revision", "commit")
"""``data_options`` that only say where the data came from (recorded under ``data``)."""


def check_data_options(data_options: Mapping[str, Any] | None) -> None:
    """Refuse a ``data_options`` key that is neither a selection nor a provenance option.

    A mistyped selection key (``exclude_dv``) would otherwise select nothing
    and let the run record claim a selection it never made.

    >>> check_data_options({"exclude_dv": True})
    Traceback (most recent call last):
    ...
    ValueError: data_options: unknown key(s) exclude_dv; expected dev_groups, dev_manifest, exclude_dev, repo_id, revision, commit
    """
    unknown = sorted(set(data_options or {}) - set(SELECTION_OPTIONS) - set(PROVENANCE_OPTIONS))
    if unknown:
        expected = ", ".join((*SELECTION_OPTIONS, *PROVENANCE_OPTIONS))
        raise ValueError(f"data_options: unknown key(s) {', '.join(unknown)}; expected {expected}")


def column(dataset: Any, name: str) -> list[Any] | None:
    """A column of a ``datasets.Dataset`` or a list of rows, without decoding other columns.

    >>> column([{"trajectory_id": "a"}, {"trajectory_id": "b"}], "trajectory_id"), column([{}], "label")
    (['a', 'b'], None)
    """
    column_names = getattr(dataset, "column_names", None)
    if column_names is not None:
        # [:] reads the column as one batch; iterating datasets' Column formats row by row
        return list(dataset[name][:]) if name in column_names else None
    values = []
    for index, row in enumerate(dataset):
        if not isinstance(row, Mapping):
            raise ValueError(f"dataset item {index}: expected a row mapping, got {type(row).__name__}")
        if name not in row:
            return None
        values.append(row[name])
    return values


def label_rows(dataset: Any) -> list[dict[str, Any]] | None:
    """Label rows (label fields + pair_group_id when present) when the dataset is not blind."""
    column_names = getattr(dataset, "column_names", None)
    wanted = ("label", *LABEL_FIELDS, "pair_group_id")
    if column_names is not None:  # a datasets.Dataset names its columns: no need to read them to know
        present = set(column_names)
    else:
        present = {name for name in wanted if column(dataset, name) is not None}
    if "label" not in present:
        return None
    missing = [n for n in LABEL_FIELDS if n not in present]
    if missing:
        # Scoring and the run record's label manifest need all seven fields;
        # a half-labelled row would otherwise fail deep inside hashing.
        raise ValueError(
            f"dataset rows have 'label' but not the label fields {', '.join(missing)}; expected full rows "
            "of agenthorizon.load_dataset, or rows without 'label' (blind rows, scored from data_root)"
        )
    names = [n for n in wanted[1:] if n in present]
    if column_names is not None:
        return dataset.select_columns(names).to_list()
    return [{n: row[n] for n in names} for row in dataset]


def config_name(dataset: Any, config: str | None) -> str | None:
    """``config`` when given, else the dataset's own config name (``None`` when it has none)."""
    if config is not None:
        return config
    info = getattr(dataset, "info", None)
    return getattr(info, "config_name", None) or None


def select_items(dataset: Any, shard: tuple[int, int] | None, limit: int | None) -> tuple[list[str], list[int]]:
    """Every row's trajectory id, and the positions of the rows this run judges (shard, then limit).

    Raises ``ValueError`` for a ``trajectory_id`` that is missing, not a UUID, or repeated.
    """
    if limit is not None and (not isinstance(limit, int) or limit < 0):
        raise ValueError(f"limit must be >= 0, got {limit}")
    ids = column(dataset, "trajectory_id")
    if ids is None:
        raise ValueError("dataset rows have no 'trajectory_id'; expected rows from agenthorizon.load_dataset")
    seen: set[str] = set()
    for position, trajectory_id in enumerate(ids):
        # Result files are named <trajectory_id>.json: only a UUID keeps them inside out_dir.
        if not isinstance(trajectory_id, str) or not UUID_PATTERN.fullmatch(trajectory_id):
            raise ValueError(
                f"dataset item {position}: trajectory_id {printable(trajectory_id, limit=ECHO_LIMIT, quote=True)} is not a UUID; "
                "expected rows from agenthorizon.load_dataset"
            )
        if trajectory_id in seen:
            raise ValueError(f"dataset item {position}: duplicate trajectory_id {trajectory_id}; expected each item once")
        seen.add(trajectory_id)
    in_shard = shard_ids(ids, shard)
    positions = [p for p, tid in enumerate(ids) if tid in in_shard]
    return ids, positions if limit is None else positions[:limit]


def resolve_references(
    dataset: Any,
    ids: Sequence[str],
    config: str | None,
    data_root: str | os.PathLike[str] | None,
    data_options: Mapping[str, Any] | None,
) -> tuple[list[dict[str, Any]] | None, Selection | None]:
    """The label rows of the dataset's items (from the rows, else from ``data_root``) and the run's selection.

    The selection holds the label manifest's sha256 of the items. ``None``
    references for a blind dataset without ``data_root``; ``None`` selection
    when no config is known.
    """
    check_data_options(data_options)
    options = {key: value for key, value in (data_options or {}).items() if key in SELECTION_OPTIONS}
    references = label_rows(dataset)
    if references is None and data_root is not None and config is not None:
        from agenthorizon.release.files import load_references

        references = load_references(data_root, config, **options)
    manifest = None
    if references is not None:
        from agenthorizon.release.labels import manifest_sha256

        wanted = set(ids)
        manifest = manifest_sha256([row for row in references if row["trajectory_id"] in wanted])
    if config is None:
        return references, None
    dev_manifest = options.get("dev_manifest")
    manifest_path, manifest_sha = (None, None) if dev_manifest is None else dev_manifest_identity(dev_manifest)
    selection = Selection(
        config,
        dev_groups=int(options.get("dev_groups", DEV_GROUPS)),
        dev_manifest=manifest_path,
        dev_manifest_sha256=manifest_sha,
        exclude_dev=bool(options.get("exclude_dev", False)),
        label_manifest_sha256=manifest,
    )
    return references, selection
