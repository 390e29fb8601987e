"""The ``"agenthorizon"`` format of ``datasets``: Python rows whose ``screenshots`` are lazy.

``datasets``' Python format, with ``screenshots`` as one
:class:`~agenthorizon.data.screenshots.LazyScreenshots` per row
(``"agenthorizon-blind"``: :class:`~agenthorizon.data.screenshots.BlindScreenshots`).
A format, not ``set_transform``, so that a column read (``ds["label"]``) formats
that column only. Importing this module registers both formats.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from datasets.formatting import _register_formatter
from datasets.formatting.formatting import PythonFormatter

from agenthorizon.data.screenshots import BlindScreenshots, LazyScreenshots

__all__ = [
    "BLIND_FORMAT_TYPE",
    "BlindLazyScreenshotsFormatter",
    "FORMAT_TYPE",
    "LazyScreenshotsFormatter",
    "lazy_screenshots_column",
]

FORMAT_TYPE = "agenthorizon"
BLIND_FORMAT_TYPE = "agenthorizon-blind"
"""The same format for blind rows: ``screenshots`` is a :class:`BlindScreenshots`, which shows no path."""
_COLUMN = "screenshots"


def lazy_screenshots_column(
    column: pa.Array | pa.ChunkedArray, *, blind: bool = False
) -> list[LazyScreenshots | BlindScreenshots | None]:
    """One :class:`LazyScreenshots` per row of an Arrow ``screenshots`` column (``None`` for a null row).

    ``column`` is a list of image structs (``{"bytes", "path"}``) or of path
    strings; a null entry is a step without a screenshot. ``blind=True`` gives
    :class:`BlindScreenshots` of the blind names a blind build stores.

    >>> column = pa.array([[{"bytes": None, "path": "/a/step_1.png"}, None], None])
    >>> lazy_screenshots_column(column)[0].paths, lazy_screenshots_column(column)[1]
    (('/a/step_1.png', None), None)
    """
    make = BlindScreenshots.of_blind_paths if blind else LazyScreenshots.of_paths
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    result: list[LazyScreenshots | BlindScreenshots | None] = []
    for chunk in chunks:
        # offsets index chunk.values (not the slice): read only the values this slice covers
        offsets = chunk.offsets.to_pylist()
        start = offsets[0]
        values = chunk.values.slice(start, offsets[-1] - start)
        if pa.types.is_struct(values.type):
            index = values.type.get_field_index("path")
            # StructArray.flatten() merges the struct's own nulls into each field; field() does not
            values = values.flatten()[index] if values.null_count else values.field(index)
        paths = values.to_pylist()
        valid = chunk.is_valid().to_pylist() if chunk.null_count else None
        for index in range(len(chunk)):
            if valid is not None and not valid[index]:
                result.append(None)
            else:
                result.append(make(tuple(paths[offsets[index] - start : offsets[index + 1] - start])))
    return result


class LazyScreenshotsFormatter(PythonFormatter):
    """``datasets``' Python formatter, with ``screenshots`` as :class:`LazyScreenshots`."""

    blind = False

    def format_row(self, pa_table: pa.Table) -> Any:
        if self.lazy or _COLUMN not in pa_table.column_names:
            return super().format_row(pa_table)  # lazy: a LazyRow formatting columns through format_column
        batches = pa_table.to_batches()
        if len(batches) != 1 or self._decodes_any(pa_table.column_names):
            row = super().format_row(_without_screenshots(pa_table))
            screenshots = lazy_screenshots_column(pa_table.column(_COLUMN), blind=self.blind)[0]
            return {name: screenshots if name == _COLUMN else row[name] for name in pa_table.column_names}
        # The Python format's row without its features decoding, a no-op when no column needs it.
        batch = batches[0]
        return {
            name: lazy_screenshots_column(column, blind=self.blind)[0] if name == _COLUMN else column.to_pylist()[0]
            for name, column in zip(batch.schema.names, batch.columns)
        }

    def format_column(self, pa_table: pa.Table) -> list:
        if pa_table.column_names[0] == _COLUMN:
            return lazy_screenshots_column(pa_table.column(0), blind=self.blind)
        return super().format_column(pa_table)

    def _decodes_any(self, names: list[str]) -> bool:
        """Whether ``datasets`` would decode any column of ``names`` but ``screenshots`` (an ``Image`` feature, say)."""
        if self.features is None:
            return False
        requires = getattr(self.features, "_column_requires_decoding", None)
        if requires is None:  # not a datasets.Features: let the Python format decide
            return True
        return any(requires.get(name, True) for name in names if name != _COLUMN)

    def format_batch(self, pa_table: pa.Table) -> Any:
        if self.lazy or _COLUMN not in pa_table.column_names:
            return super().format_batch(pa_table)
        batch = super().format_batch(_without_screenshots(pa_table))
        screenshots = lazy_screenshots_column(pa_table.column(_COLUMN), blind=self.blind)
        return {name: screenshots if name == _COLUMN else batch[name] for name in pa_table.column_names}


def _without_screenshots(pa_table: pa.Table) -> pa.Table:
    return pa_table.remove_column(pa_table.schema.get_field_index(_COLUMN))


class BlindLazyScreenshotsFormatter(LazyScreenshotsFormatter):
    """:class:`LazyScreenshotsFormatter` for datasets built blind: ``screenshots`` as :class:`BlindScreenshots`."""

    blind = True


_register_formatter(LazyScreenshotsFormatter, FORMAT_TYPE)
_register_formatter(BlindLazyScreenshotsFormatter, BLIND_FORMAT_TYPE)
