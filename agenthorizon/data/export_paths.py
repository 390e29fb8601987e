"""Path-only exports (``images`` "none" or "paths"), column by column: builder rows as exported Arrow tables.

Screenshot paths are made relative to the release root; :class:`RelativePaths`
is the per-path rule, and the fallback for paths a whole-column strip cannot take.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Iterator, Sequence

__all__ = ["SCREENSHOTS", "RelativePaths", "arrow_batches", "export_table", "relative_array", "relative_lists"]

SCREENSHOTS = "screenshots"


class RelativePaths:
    """Turn the absolute paths the builder gives into release-relative POSIX paths."""

    def __init__(self, root: Path) -> None:
        # The builder may give the root as it was passed or resolved (a Hub
        # snapshot is a tree of symlinks); accept a path under either.
        self._roots = list(dict.fromkeys([str(root.absolute()), str(root.resolve())]))
        self.prefixes = [root.rstrip(os.sep) + os.sep for root in self._roots]

    def __call__(self, path: str | None, where: str) -> str | None:
        if path is None:
            return None
        # The builder's paths are the root joined with a normalised relative path:
        # stripping the prefix is enough.
        for prefix in self.prefixes:
            if path.startswith(prefix) and ".." not in path:
                relative = path[len(prefix) :]
                return relative if os.sep == "/" else relative.replace(os.sep, "/")
        for root in self._roots:
            relative = os.path.relpath(os.path.abspath(path), root)
            if not relative.startswith(".."):
                return Path(relative).as_posix()
        raise ValueError(f"{where}: screenshot {path} is not inside the release root {self._roots[0]}")


def arrow_batches(dataset: Any, size: int) -> Iterator[Any]:
    """The rows of a ``datasets.Dataset`` as Arrow tables of ``size`` rows, in order."""
    if getattr(dataset, "_indices", None) is not None:  # a selection: let datasets map the indices
        for table in dataset.with_format("arrow").iter(batch_size=size):
            # datasets gathers one chunk per row; one copy of the batch saves a call per row downstream
            yield table.combine_chunks()
        return
    # The whole table, sliced without copies (with_format deep-copies the dataset's table object).
    table = dataset.data.table
    for start in range(0, table.num_rows, size):
        yield table.slice(start, size)


def export_table(table: Any, images: str, relative: RelativePaths, schema: Any) -> tuple[Any, list[int]]:
    """Builder rows (``images="paths"`` Arrow batch) as exported rows of ``schema``, and their size hints.

    What :func:`export_row` does row by row, done on whole columns: every
    ``steps[k].screenshot`` (and, for ``"paths"``, every ``screenshots``
    entry) made release-relative; ``screenshots`` dropped for ``"none"``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    items = table.column("trajectory_id").to_pylist()
    columns = {"steps": relative_lists(table.column("steps"), relative, items, field="screenshot")}
    if images == "paths":
        columns[SCREENSHOTS] = relative_lists(table.column(SCREENSHOTS), relative, items)
    exported = pa.Table.from_arrays(
        [columns[name] if name in columns else table.column(name) for name in schema.names], schema=schema
    )
    # _size_hint of each row: Markdown characters plus 200 per step
    markdown = pc.fill_null(pc.utf8_length(table.column("markdown")), 0)
    steps = pc.list_value_length(table.column("steps"))
    return exported, pc.add(markdown, pc.multiply(steps, 200)).to_pylist()


def relative_lists(column: Any, relative: RelativePaths, items: Sequence[str], field: str | None = None) -> Any:
    """A list column of paths (or of structs whose ``field`` is a path) with every path release-relative.

    Chunk by chunk, so the other step fields are reused as they are, never copied.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    converted_chunks, first = [], 0
    for lists in chunks:
        values = lists.flatten()  # the values of this slice only
        offsets = pc.subtract(lists.offsets, lists.offsets[0])
        if field is None:
            children, paths = None, values
        else:
            index = values.type.get_field_index(field)
            children = values.flatten()
            paths = children[index]

        def step_items(lists=lists, chunk_items=items[first : first + len(lists)]) -> list[str]:
            # the item of each value, only to name it in an error
            lengths = pc.list_value_length(lists).to_pylist()
            return [item for item, n in zip(chunk_items, lengths) for _ in range(n or 0)]

        converted = relative_array(paths, relative, step_items)
        if children is not None:
            children[index] = converted
            converted = pa.StructArray.from_arrays(children, fields=list(values.type))
        mask = lists.is_null() if lists.null_count else None
        converted_chunks.append(pa.ListArray.from_arrays(offsets, converted, type=lists.type, mask=mask))
        first += len(lists)
    return pa.chunked_array(converted_chunks, type=column.type)


def relative_array(paths: Any, relative: RelativePaths, items: Any) -> Any:
    """Release-relative POSIX paths of a string array of builder paths (nulls stay null).

    A prefix strip on the whole array when every path lies under one root
    spelling; otherwise path by path through ``relative``, which names the
    item (``items()``) of a path outside the release.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    for prefix in relative.prefixes:
        if pc.all(pc.starts_with(paths, prefix)).as_py() is not False and not _may_contain(paths, ".."):
            # Every path starts with the prefix, so its first occurrence is the one removed.
            stripped = pc.replace_substring(paths, prefix, "", max_replacements=1)
            return stripped if os.sep == "/" else pc.replace_substring(stripped, os.sep, "/")
    return pa.array(
        [relative(path, f"item {item}") for path, item in zip(paths.to_pylist(), items())], pa.string()
    )


def _may_contain(strings: Any, part: str) -> bool:
    """False only when no string of the string array ``strings`` contains ``part`` (True when unsure).

    One search of the bytes between the array's first and last offset, which
    hold every value of the (possibly sliced) array and nothing else; a match
    across two values can only give a false alarm.

    >>> import pyarrow as pa
    >>> _may_contain(pa.array(["a/b", None, "c..d", "e"]).slice(0, 2), ".."), _may_contain(pa.array(["a.", ".b"]), "..")
    (False, True)
    """
    import numpy as np
    import pyarrow as pa

    if not (pa.types.is_string(strings.type) or pa.types.is_large_string(strings.type)):
        return True  # another layout (string views, say): cannot tell, so the caller takes the per-path rule
    _, offsets, data = strings.buffers()
    if data is None or not len(strings):
        return False
    offsets = np.frombuffer(offsets, dtype=np.int64 if pa.types.is_large_string(strings.type) else np.int32)
    start, end = int(offsets[strings.offset]), int(offsets[strings.offset + len(strings)])
    return re.compile(re.escape(part.encode("utf-8"))).search(memoryview(data)[start:end]) is not None
