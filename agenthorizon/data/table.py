"""The dataset rows of AgentHorizon as Arrow tables (:func:`build_table`), read from a release's files.

Columns are built whole, per batch of items, not row by row. Kept apart from
the builder module: ``datasets`` patches ``open`` and ``os.path`` in a builder's
module, which would route local reads through ``fsspec``.
"""

from __future__ import annotations

import json
import math
import os
from itertools import chain
from typing import Any, Mapping, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from agenthorizon.data.item_fields import read_item
from agenthorizon.data.parameters import encode_each, json_lines, text_column, typed_columns
from agenthorizon.release.blind import blind_screenshot_paths, repoint_images
from agenthorizon.release.trajectory import INT32
from agenthorizon.schema import (
    FLOAT_PARAMETERS,
    STEP_PARAMETER_COLUMNS,
    STRING_PARAMETERS,
)

__all__ = ["build_table", "encode_each"]


def build_table(
    root: str | os.PathLike[str],
    label_rows: Sequence[Mapping[str, Any]],
    schema: pa.Schema,
    *,
    blind: bool = False,
    folder_listings: dict[str, Any] | None = None,
) -> pa.Table:
    """The dataset rows of ``label_rows`` as one Arrow table of ``schema``.

    ``schema`` is ``features(images).arrow_schema``
    (:func:`agenthorizon.data.features.features`). Each label row carries the
    seven label fields, ``difficulty``, ``pair_group_id``, ``in_dev`` and
    ``location`` (``file:line``, used in errors). ``screenshots`` holds Image storage structs
    (``{"bytes": None, "path": ...}``) when the schema stores images, path
    strings otherwise, null where a step has none. Rows keep the order of
    ``label_rows``. Raises ``FileNotFoundError`` / ``ValueError`` naming the
    json file, the label row and the step of a missing or invalid trajectory
    (the first bad item, in order).

    ``blind=True`` writes blind rows: image references in ``markdown``,
    ``steps[].screenshot`` and ``screenshots`` name the item's own trajectory
    id instead of the steps-id folder (names in a judge's sandbox, not files
    on disk). ``folder_listings`` is kept by the caller across the batches of
    one build, so each screenshot folder is checked for links once.
    """
    root_text = os.fspath(root)
    batch = _Batch(schema, blind=blind, folder_listings=folder_listings)
    for label_row in label_rows:
        batch.add(root_text, label_row)
    return batch.to_table()


class _Batch:
    """Column lists of a batch of rows; steps of all items are concatenated."""

    def __init__(self, schema: pa.Schema, *, blind: bool = False, folder_listings: dict[str, Any] | None = None) -> None:
        self.schema = schema
        self.blind = blind
        self.folder_listings = {} if folder_listings is None else folder_listings
        self.step_screenshots: list[str | None] = []  # blind only: the re-pointed references
        # one list per item-level field; steps and screenshots are built from the step lists
        self.rows: dict[str, list[Any]] = {name: [] for name in schema.names if name not in _STEP_LEVEL_FIELDS}
        self.offsets = [0]  # steps of item k are steps[offsets[k]:offsets[k + 1]]
        self.step_ids: list[int] = []
        self.action_types: list[str] = []
        self.timestamps: list[int | None] = []
        self.screenshots: list[str | None] = []
        # json.dumps of each step's parameter object, a line a step, one text per item
        self.parameter_lines: list[str] = []
        self.step_count = 0

    def add(self, root: str, label_row: Mapping[str, Any]) -> None:
        item = read_item(root, label_row, self.folder_listings, markdown=True)
        trajectory_id = label_row["trajectory_id"]
        markdown = item.markdown
        values = {
            "trajectory_id": trajectory_id,
            "label": label_row["label"],
            "mistake_type": label_row["mistake_type"],
            "instruction_id": label_row["instruction_id"],
            "instruction_source": label_row["instruction_source"],
            "steps_id": label_row["steps_id"],
            "steps_source": label_row["steps_source"],
            "pair_group_id": label_row["pair_group_id"],
            "difficulty": label_row["difficulty"],
            "in_dev": bool(label_row["in_dev"]),
            **item.values,
            "markdown": repoint_images(markdown, trajectory_id) if self.blind else markdown,
        }
        step_ids, action_types, parameters, timestamps = item.step_ids, item.action_types, item.parameters, item.timestamps
        screenshots = item.screenshots
        for name, column in self.rows.items():
            column.append(values[name])
        self.offsets.append(self.offsets[-1] + len(step_ids))
        self.step_ids += step_ids
        self.action_types += action_types
        self.timestamps += timestamps
        self.screenshots += screenshots
        if self.blind:
            self.step_screenshots += blind_screenshot_paths(root, screenshots, trajectory_id)
        if parameters:
            self.parameter_lines.append(json_lines(parameters))
            self.step_count += len(parameters)

    def _typed_columns(self, lines: bytes) -> dict[str, pa.Array]:
        """The typed parameter columns: read from the parameter lines, or value by value when a type is off."""
        count = self.step_count
        columns = typed_columns(lines, count, _TYPED_SCHEMA)
        if columns is not None:
            return dict(zip(_TYPED_SCHEMA.names, columns))
        # A value of another type than its column's: convert value by value, leaving it null.
        # Parsing the lines gives back each object exactly (json writes floats as repr).
        typed: dict[str, list[Any]] = {name: [None] * count for name in STEP_PARAMETER_COLUMNS}
        column_of = typed.get
        for index, values in enumerate(map(json.loads, lines.split(b"\n"))):
            for name, value in values.items():
                column = column_of(name)
                if column is not None:
                    column[index] = value
        return {
            **{name: _float_column(typed[name]) for name in FLOAT_PARAMETERS},
            **{name: _string_column(typed[name]) for name in STRING_PARAMETERS},
            "num_clicks": _int32_column(typed["num_clicks"]),
            "keys": _keys_column(typed["keys"]),
        }

    def to_table(self) -> pa.Table:
        schema = self.schema
        steps_type = schema.field("steps").type
        step_fields = list(steps_type.value_type)
        count = self.step_count
        # One JSON text of every step's parameters, a line each: the lossless
        # `parameters` strings and, read by pyarrow, the typed columns.
        lines = "\n".join(self.parameter_lines).encode("ascii")
        # Blind rows name no steps-id folder in any column.
        paths = pa.array(self.step_screenshots if self.blind else self.screenshots, pa.string())
        step_columns = {
            "step_id": pa.array(self.step_ids, pa.int32()),
            "action_type": pa.array(self.action_types, pa.string()),
            **self._typed_columns(lines),
            "parameters": text_column(lines, count),
            "timestamp_us": pa.array(self.timestamps, pa.int64()),
            "screenshot": paths,
        }
        offsets = pa.array(self.offsets, pa.int32())
        steps = pa.ListArray.from_arrays(
            offsets,
            pa.StructArray.from_arrays([step_columns[field.name] for field in step_fields], fields=step_fields),
            type=steps_type,
        )
        screenshots_type = schema.field("screenshots").type
        if pa.types.is_struct(screenshots_type.value_type):
            # Image's storage form; a step without a screenshot is a null entry.
            image_fields = list(screenshots_type.value_type)
            entries = pa.StructArray.from_arrays(
                [pa.nulls(count, pa.binary()), paths], fields=image_fields, mask=paths.is_null()
            )
        else:
            entries = paths
        screenshots = pa.ListArray.from_arrays(offsets, entries, type=screenshots_type)
        columns = []
        for field in schema:
            if field.name == "steps":
                columns.append(steps)
            elif field.name == "screenshots":
                columns.append(screenshots)
            else:
                columns.append(pa.array(self.rows[field.name], field.type))
        return pa.Table.from_arrays(columns, schema=schema)


_STEP_LEVEL_FIELDS = ("steps", "screenshots")
# The typed parameter columns of `steps` (agenthorizon.data.features).
_TYPED_SCHEMA = pa.schema(
    [(name, pa.float64()) for name in FLOAT_PARAMETERS]
    + [(name, pa.string()) for name in STRING_PARAMETERS]
    + [("num_clicks", pa.int32()), ("keys", pa.list_(pa.string()))]
)
_NONE = type(None)


# A value of an unexpected type stays out of its typed column (null) but survives
# in the lossless ``parameters`` JSON. Types are checked first: pyarrow alone
# would accept bools as numbers.


def _float_column(values: list[Any]) -> pa.Array:
    if set(map(type, values)) <= {float, int, _NONE}:
        try:
            column = pa.array(values, pa.float64())
        except (pa.ArrowInvalid, OverflowError):  # an int no float64 holds exactly
            column = None
        if column is not None:
            finite = pc.is_finite(column)
            if pc.all(finite).as_py() in (True, None):
                return column
            return pc.if_else(finite, column, pa.scalar(None, pa.float64()))
    return pa.array([_as_float(value) for value in values], pa.float64())


def _as_float(value: Any) -> float | None:
    if type(value) not in (int, float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _string_column(values: list[Any]) -> pa.Array:
    if not set(map(type, values)) <= {str, _NONE}:
        values = [value if type(value) is str else None for value in values]
    return pa.array(values, pa.string())


def _int32_column(values: list[Any]) -> pa.Array:
    if set(map(type, values)) <= {int, _NONE}:
        try:
            return pa.array(values, pa.int32())
        except (pa.ArrowInvalid, OverflowError):  # out of the int32 range
            pass
    return pa.array(
        [value if type(value) is int and INT32[0] <= value <= INT32[1] else None for value in values], pa.int32()
    )


def _keys_column(values: list[Any]) -> pa.Array:
    if set(map(type, values)) <= {list, _NONE}:
        lists = [value for value in values if value is not None]
        if set(map(type, chain.from_iterable(lists))) <= {str}:
            return pa.array(values, pa.list_(pa.string()))
    return pa.array(
        [value if type(value) is list and all(type(key) is str for key in value) else None for value in values],
        pa.list_(pa.string()),
    )
