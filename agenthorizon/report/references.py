"""The references runs are scored against: :func:`run_selection` rebuilds the runs' selection,
:func:`load_run_references` reads its rows, label manifest and notes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from agenthorizon.judging.runs.records import RunRecord
from agenthorizon.release.files import dev_manifest_path, read_config_rows
from agenthorizon.release.hub import resolve_release
from agenthorizon.release.labels import manifest_sha256
from agenthorizon.release.item_selection import Selection, resolve_selection
from agenthorizon.schema import LABEL_FIELDS, SPLIT_NAME, TRAJECTORY_FIELDS

__all__ = [
    "LABEL_ROW_FIELDS",
    "STEP_IDS",
    "RunReferences",
    "label_manifest",
    "load_run_references",
    "manifest_notes",
    "recorded_selections",
    "run_selection",
]

LABEL_ROW_FIELDS = (*LABEL_FIELDS, "difficulty", "pair_group_id", "in_dev")
"""The fields of a config's label rows (:func:`agenthorizon.release.files.load_references`):
what can be scored and sliced without reading a trajectory file."""


def recorded_selections(records: Mapping[str, RunRecord | None]) -> dict[str, Selection | None]:
    """Each run's recorded selection (``None`` for a run without a record).

    >>> recorded_selections({"runs/a": None})
    {'runs/a': None}
    """
    return {path: None if record is None else record.selection for path, record in records.items()}


def run_selection(
    recorded: Mapping[str, Selection | None],
    given: Mapping[str, Any] | None = None,
    *,
    default_config: str | None = None,
) -> Selection:
    """The selection some runs were made on, checked against the options a user gave.

    A relative or ``~`` ``dev_manifest`` is normalised as runs record it. Raises
    :class:`~agenthorizon.release.item_selection.SelectionConflict` when an option
    contradicts a run's, or no config is named and ``default_config`` is ``None``.

    >>> run_selection({"runs/a": Selection("AH")}, {"config": None}).config
    'AH'
    >>> run_selection({}, {"exclude_dev": True}, default_config="AH").to_dict()["exclude_dev"]
    True
    """
    options = dict(given or {})
    if options.get("dev_manifest") is not None:
        options["dev_manifest"] = dev_manifest_path(options["dev_manifest"])
    return resolve_selection(recorded, options, default_config=default_config)


def label_manifest(config: str, label_rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``{"config", "n_items", "sha256"}`` of the labels a score is computed against.

    ``sha256`` (:func:`agenthorizon.release.labels.manifest_sha256`) is the hash a run records for its items.

    >>> row = {"trajectory_id": "t", "label": "positive", "instruction_id": "a", "instruction_source": "parent",
    ...        "steps_id": "a", "steps_source": "parent", "mistake_type": ""}
    >>> label_manifest("AH", [row])["n_items"]
    1
    """
    return {"config": config, "n_items": len(label_rows), "sha256": manifest_sha256(label_rows)}


def manifest_notes(
    recorded: Mapping[str, Selection | None], manifest: Mapping[str, Any], data_root: str | os.PathLike[str]
) -> list[str]:
    """A note for each run whose recorded label manifest differs from ``manifest``, the one scored against.

    Such a run is still scored. A run that records no manifest gets no note.

    >>> manifest = {"config": "AH", "n_items": 2, "sha256": "b" * 64}
    >>> manifest_notes({"runs/a": Selection("AH", label_manifest_sha256="a" * 64)}, manifest, "release")
    ['runs/a: run.json records label manifest aaaaaaaaaaaa..., but AH in release has bbbbbbbbbbbb...; its numbers are not comparable to the published ones']
    """
    notes = []
    for run, selection in recorded.items():
        sha = None if selection is None else selection.label_manifest_sha256
        if sha and sha != manifest["sha256"]:
            notes.append(
                f"{run}: run.json records label manifest {sha[:12]}..., but {manifest['config']} in {data_root} "
                f"has {manifest['sha256'][:12]}...; its numbers are not comparable to the published ones"
            )
    return notes


@dataclass(frozen=True)
class RunReferences:
    """What runs of one selection are scored against.

    ``rows``: one per item, in release order, with the fields asked for;
    ``manifest``: :func:`label_manifest` of their labels; ``notes``:
    :func:`manifest_notes`; ``release_ids``: every item of the release, which
    tells a result for another config from one for no item at all.
    """

    selection: Selection
    rows: list[dict[str, Any]]
    manifest: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    release_ids: frozenset[str] = frozenset()

    def ids(self) -> set[str]:
        """The items' trajectory ids."""
        return {row["trajectory_id"] for row in self.rows}


def load_run_references(
    data_root: str | os.PathLike[str],
    selection: Selection,
    recorded: Mapping[str, Selection | None] | None = None,
    *,
    fields: Sequence[str] | None = LABEL_ROW_FIELDS,
    images: str | None = None,
) -> RunReferences:
    """The rows ``selection`` picks from the release at ``data_root``, their label manifest, and notes on the runs.

    ``data_root`` is a release root or a Hub repo id; ``recorded`` maps run
    folders to their selections, for :func:`manifest_notes`. ``fields`` within
    :data:`LABEL_ROW_FIELDS` read only the label files; others also read item
    files or the dataset (``images`` mode) and keep those columns (all for
    ``None``). A recorded dev manifest must still hash to its recorded sha256.
    Reading errors name the file.

    >>> import tempfile, agenthorizon
    >>> root = agenthorizon.generate_sample(tempfile.mkdtemp() + "/release", preset="tiny").root
    >>> references = load_run_references(root, Selection("AH"))
    >>> references.manifest["n_items"] == len(references.rows), sorted(references.rows[0])[:3]
    (True, ['difficulty', 'in_dev', 'instruction_id'])
    """
    reads_dataset = fields is None or not set(fields) <= set(LABEL_ROW_FIELDS)
    if reads_dataset:
        root = resolve_release(
            data_root, selection.config, images=images, dev_groups=selection.dev_groups, dev_manifest=selection.dev_manifest
        )
    else:
        # From a Hub repo id, fetch just the label files.
        root = resolve_release(
            data_root, selection.config, images=None, dev_groups=selection.dev_groups,
            dev_manifest=selection.dev_manifest, labels_only=True,
        )
    config_rows = read_config_rows(root, selection)
    label_rows = config_rows.references()
    manifest = label_manifest(selection.config, label_rows)
    rows = label_rows
    if reads_dataset and fields is not None and images in (None, "paths") and set(fields) <= _ITEM_FILE_FIELDS:
        # Label and item fields only: read each item's json, without datasets (and its cache).
        rows = _item_file_rows(os.fspath(root), config_rows.rows, fields)
    elif reads_dataset:
        from agenthorizon.data.load import load_dataset

        dataset = load_dataset(root, selection.config, split=SPLIT_NAME, images=images, **selection.load_options())
        if fields is None:
            rows = [dict(row) for row in dataset]
        else:
            rows = _columns(dataset, fields)
    release_ids = frozenset(row["trajectory_id"] for row in config_rows.labels)
    return RunReferences(selection, rows, manifest, manifest_notes(recorded or {}, manifest, data_root), release_ids)


STEP_IDS = "step_ids"
"""A field :func:`load_run_references` derives: each row's ``steps[k]["step_id"]``, read without the other step columns."""

# Fields read from the label rows and each item's json alone, without the dataset ("screenshots" as paths).
_ITEM_FILE_FIELDS = frozenset((*LABEL_ROW_FIELDS, *TRAJECTORY_FIELDS, "screenshots", STEP_IDS))


def _item_file_rows(root: str, config_rows: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of ``config_rows`` with only ``fields`` (and ``trajectory_id``), item fields from each item's json."""
    from agenthorizon.data.item_fields import read_item

    names = list(dict.fromkeys(("trajectory_id", *fields)))
    listings: dict[str, Any] = {}
    rows = []
    for label_row in config_rows:
        item = read_item(root, label_row, listings, markdown=False)
        values = {**label_row, **item.values, "screenshots": item.screenshots, STEP_IDS: item.step_ids}
        values["in_dev"] = bool(values["in_dev"])
        rows.append({name: values[name] for name in names})
    return rows


def _columns(dataset: Any, fields: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of ``dataset`` with only ``fields`` (and ``trajectory_id``), read column by column from Arrow.

    ``step_ids`` is read out of ``steps`` alone; the other step columns are slow to turn into Python.
    """
    names = list(dict.fromkeys(("trajectory_id", *fields)))
    read = [name for name in names if name != STEP_IDS]
    if STEP_IDS in names and "steps" not in read:
        read.append("steps")
    table = dataset.select_columns(read).with_format("arrow")[:]
    columns = {name: table.column(name).to_pylist() for name in read if name != "steps" or "steps" in names}
    if STEP_IDS in names:
        steps = table.column("steps").combine_chunks()
        columns[STEP_IDS] = type(steps).from_arrays(steps.offsets, steps.values.field("step_id")).to_pylist()
    return [dict(zip(columns, values)) for values in zip(*columns.values())]
