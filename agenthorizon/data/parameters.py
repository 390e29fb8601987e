"""The steps' ``parameters`` texts and typed parameter columns of a batch of rows.

A row's ``steps[].parameters`` is ``json.dumps`` of the action's parameter
object; both it and the typed columns (``x``, ``button``, ``keys``, ...) are
made from one JSON-lines text per batch (:func:`json_lines`). No I/O.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

__all__ = ["encode_each", "json_lines", "text_column", "typed_columns"]

# Separators that JSON text never holds raw (strings escape control characters).
_ITEM_SEPARATOR, _BOUNDARY = "\x1f", "\x1e"
# No cycle check (the same text, sooner): parsed json holds no cycles.
_LIST_ENCODER = json.JSONEncoder(separators=(_ITEM_SEPARATOR, ": "), check_circular=False)


def json_lines(objects: Sequence[dict[str, Any]]) -> str:
    """``"\\n".join(map(json.dumps, objects))``, from one encoder call.

    The list is encoded at once with ``"\\x1f"`` as item separator; an object
    that nests a list of objects shows as more lines than objects and falls
    back to one ``json.dumps`` each. The text is ASCII (``json`` escapes the
    rest). The objects must hold no reference cycle, as parsed json never does.

    >>> print(json_lines([{"x": 1, "keys": ["a", "b"]}, {}, {"text": "}, {"}]))
    {"x": 1, "keys": ["a", "b"]}
    {}
    {"text": "}, {"}
    """
    if not objects:
        return ""
    text = _LIST_ENCODER.encode(list(objects))[1:-1]
    lines = text.replace("}" + _ITEM_SEPARATOR + "{", "}\n{").replace(_ITEM_SEPARATOR, ", ")
    if lines.count("\n") == len(objects) - 1:
        return lines
    return "\n".join(map(json.dumps, objects))


def encode_each(objects: Sequence[dict[str, Any]]) -> list[str]:
    """``json.dumps`` of each object (default arguments), from one encoder call (see :func:`json_lines`).

    >>> encode_each([{"x": 1, "keys": ["a", "b"]}, {}, {"text": "}, {"}])
    ['{"x": 1, "keys": ["a", "b"]}', '{}', '{"text": "}, {"}']
    """
    return json_lines(objects).split("\n") if objects else []


def text_column(lines: bytes, count: int) -> pa.Array:
    """The ``count`` lines of ``lines`` (UTF-8) as an Arrow string array.

    >>> text_column(b'{"x": 1}\\n{}', 2).to_pylist()
    ['{"x": 1}', '{}']
    """
    if count == 0:
        return pa.array([], pa.string())
    pieces = pc.split_pattern(pa.array([lines], pa.binary()), b"\n").flatten()
    if len(pieces) != count:
        raise ValueError(f"expected {count} lines of parameter JSON, got {len(pieces)}")
    return pieces.cast(pa.string())


def typed_columns(lines: bytes, count: int, schema: pa.Schema) -> list[pa.Array] | None:
    """The fields of ``schema`` read from ``count`` lines of JSON objects; ``None`` if any value has another type.

    Refused (``None``, so the caller converts value by value): a value of
    another JSON type (a string or ``true`` for a number, ``2.0`` or an
    out-of-range integer for an ``int32``, a string for a list), a null inside
    a list, ``NaN`` and ``Infinity``. Keys outside the schema are ignored. A
    number read into ``float64`` is rounded as Python's ``float`` rounds it.

    >>> schema = pa.schema([("x", pa.float64()), ("keys", pa.list_(pa.string()))])
    >>> [c.to_pylist() for c in typed_columns(b'{"x": 1, "keys": ["a"]}\\n{"y": "z"}', 2, schema)]
    [[1.0, None], [['a'], None]]
    >>> typed_columns(b'{"x": true}', 1, schema) is None
    True
    """
    if count == 0:
        return [pa.array([], field.type) for field in schema]
    # One block: a line longer than a block would be refused.
    read = pa_json.ReadOptions(use_threads=False, block_size=max(len(lines), 1))
    parse = pa_json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    try:
        table = pa_json.read_json(pa.BufferReader(lines), read_options=read, parse_options=parse)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if table.num_rows != count:
        return None
    columns = [table.column(field.name).combine_chunks() for field in schema]
    for column in columns:
        if pa.types.is_list(column.type) and column.flatten().null_count:
            return None  # a list with a null item is not a list of strings
        if pa.types.is_floating(column.type) and pc.all(pc.is_finite(column)).as_py() is False:
            return None  # the reader takes NaN and Infinity, which json.dumps writes
    return columns
