"""The build's fast paths give exactly what the standard library gives.

Trajectory json is parsed with orjson where it yields ``json.loads``' values
(``release.files.parse_json_bytes``), the steps' ``parameters`` texts are
``json.dumps`` of each object and the typed parameter columns are read by
pyarrow's JSON reader (``data.parameters``). Each is compared here with the
standard library on awkward input; ``tests/data/test_builder.py`` checks whole
builds against an independent reading of every step.
"""

from __future__ import annotations

import json
import math
import re
import struct

import pyarrow as pa
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agenthorizon.data.parameters import encode_each, json_lines, text_column, typed_columns
from agenthorizon.release.files import _parse_json, parse_json_bytes
from agenthorizon.schema import FLOAT_PARAMETERS, STRING_PARAMETERS


def _identical(a, b) -> bool:
    """Equal with the same types, key order and float bits (so 1 != 1.0, -0.0 != 0.0, nan == nan)."""
    pending = [(a, b)]  # a stack, not recursion: documents nest deeply here
    while pending:
        a, b = pending.pop()
        if type(a) is not type(b):
            return False
        if isinstance(a, dict):
            if list(a) != list(b):
                return False
            pending += [(a[k], b[k]) for k in a]
        elif isinstance(a, list):
            if len(a) != len(b):
                return False
            pending += zip(a, b)
        elif isinstance(a, float):
            if struct.pack("<d", a) != struct.pack("<d", b) and not (math.isnan(a) and math.isnan(b)):
                return False
        elif a != b:
            return False
    return True


def _standard(raw: bytes):
    """What the standard parser gives: the value, or its error message."""
    try:
        return ("value", _parse_json(raw, "t.json", "an object"))
    except ValueError as error:
        return ("error", str(error))


def _fast(raw: bytes):
    try:
        return ("value", parse_json_bytes(raw, "t.json", "an object"))
    except ValueError as error:
        return ("error", str(error))


def _assert_same_parse(raw: bytes) -> None:
    fast, standard = _fast(raw), _standard(raw)
    assert fast[0] == standard[0], (raw[:80], fast, standard)
    if fast[0] == "error":
        assert fast[1] == standard[1]
    else:
        assert _identical(fast[1], standard[1]), (raw[:80], fast[1], standard[1])


@pytest.mark.parametrize(
    "raw",
    [
        b'{"timestamp_us": 18446744073709551616}',  # 2**64: orjson alone gives a float
        b'{"t": -9223372036854775809, "u": 9223372036854775808}',
        b'{"big": 1234567890123456789012345678901234567890}',
        b'{"f": 0.1000000000000000055511151231257827021181583404541015625}',
        b'{"f": 1e400, "g": -1e400, "h": 1e-400}',  # json reads inf and 0.0; orjson refuses the first
        b'{"x": NaN, "y": Infinity, "z": -Infinity}',
        b'{"s": "\\ud800"}',  # a lone surrogate
        b'{"s": "\\ud83d\\ude00 \\u00e9 caf\xc3\xa9"}',
        b'{"a": 1, "a": 2, "b": 3}',  # a duplicate key keeps its last value in its first place
        b'\xef\xbb\xbf{"bom": 1}',
        '{"utf16": "\u00e9"}'.encode("utf-16"),
        '{"utf32": 1}'.encode("utf-32-le"),
        b'{"s": "\xed\xa0\x80"}',  # a surrogate spelt in UTF-8
        b'{"s": "\xff"}',
        b"[" * 2000 + b"]" * 2000,
        b"[" * 900 + b"]" * 900,
        # Deeper than the standard parser reads (about 1,000 levels less the caller's
        # stack) but not than orjson's 1,024: the standard parser decides, as above.
        b"[" * 1000 + b"]" * 1000,
        b"[" * 1024 + b"]" * 1024,
        b'{"a": ' * 1010 + b"1" + b"}" * 1010,
        b'{"a": -0, "b": -0.0, "c": 1E5, "d": 1e-05}',
        b' \t\n{"ws": [ ] }\r\n',
        b'{"ctl": "a\x01b"}',
        b'{"a": 1,}',
        b'{"a": 01}',
        b'{"a": .5}',
        b"",
        b"{} {}",
        b'{"a": 1}\x0c',
    ],
)
def test_fast_parse_equals_the_standard_parser(raw):
    _assert_same_parse(raw)


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(st.characters(codec=None, exclude_categories=())),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_json_values, st.booleans())
@pytest.mark.slow
def test_fast_parse_equals_the_standard_parser_on_any_document(value, ensure_ascii):
    text = json.dumps({"v": value}, ensure_ascii=ensure_ascii)
    _assert_same_parse(text.encode("utf-8", "surrogatepass"))


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=1, max_value=30).flatmap(lambda n: st.text("0123456789", min_size=n, max_size=n)),
    st.integers(min_value=0, max_value=25),
    st.integers(min_value=-330, max_value=310),
)
def test_decimal_numbers_read_as_the_standard_parser_reads_them(digits, point, exponent):
    point = min(point, len(digits))
    number = (digits[:point] or "0") + ("." + digits[point:] if digits[point:] else "") + f"e{exponent}"
    _assert_same_parse(b'{"n": ' + number.encode() + b"}")


_parameter_values = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=4)
    | st.lists(st.text(max_size=3) | st.none() | st.integers(), max_size=3)
    | st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)
)
_typed_names = (*FLOAT_PARAMETERS, *STRING_PARAMETERS, "num_clicks", "keys")
_parameter_objects = st.dictionaries(st.sampled_from((*_typed_names, "other", "region")), _parameter_values, max_size=5)


@settings(max_examples=300, deadline=None)
@given(st.lists(_parameter_objects, max_size=6))
def test_json_lines_are_json_dumps_of_each_object(objects):
    assert json_lines(objects) == "\n".join(map(json.dumps, objects))
    assert encode_each(objects) == [json.dumps(o) for o in objects]
    lines = json_lines(objects).encode("ascii")
    assert text_column(lines, len(objects)).to_pylist() == [json.dumps(o) for o in objects]


def _expected_typed(objects: list[dict]) -> dict[str, list]:
    """The typed columns as docs/architecture.md defines them, value by value."""

    def number(value):
        ok = type(value) in (int, float) and abs(value) < 2**1024 and float(value) == float(value)
        return float(value) if ok and math.isfinite(float(value)) else None

    columns: dict[str, list] = {}
    for name in FLOAT_PARAMETERS:
        columns[name] = [number(o.get(name)) for o in objects]
    for name in STRING_PARAMETERS:
        columns[name] = [o.get(name) if type(o.get(name)) is str else None for o in objects]
    columns["num_clicks"] = [
        o.get("num_clicks") if type(o.get("num_clicks")) is int and -(2**31) <= o["num_clicks"] < 2**31 else None
        for o in objects
    ]
    columns["keys"] = [
        o.get("keys") if type(o.get("keys")) is list and all(type(k) is str for k in o["keys"]) else None for o in objects
    ]
    return columns


_TYPED_SCHEMA = pa.schema(
    [(name, pa.float64()) for name in FLOAT_PARAMETERS]
    + [(name, pa.string()) for name in STRING_PARAMETERS]
    + [("num_clicks", pa.int32()), ("keys", pa.list_(pa.string()))]
)


# Values a typed column may meet, mostly of its own type, with the edge cases
# a reader could get wrong (non-finite floats, ints beyond float precision or
# int32, bools, a null inside keys) and values of other types.
_numbers = st.integers(min_value=-(2**70), max_value=2**70) | st.floats() | st.sampled_from([-0.0, 2**53 + 1, 1e-05, 1e16])
_typed_objects = st.fixed_dictionaries(
    {},
    optional={
        **{name: _numbers | st.none() | st.booleans() | st.text(max_size=2) for name in FLOAT_PARAMETERS},
        **{name: st.text(max_size=3) | st.none() | st.integers() | st.booleans() for name in STRING_PARAMETERS},
        "num_clicks": st.integers(min_value=-(2**40), max_value=2**40) | st.floats() | st.none() | st.booleans(),
        "keys": st.lists(st.text(max_size=2) | st.none(), max_size=3) | st.text(max_size=2) | st.none(),
        "other": _parameter_values,
    },
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_typed_objects | _parameter_objects, min_size=1, max_size=3))
@example([{"x": float("nan")}, {"y": float("inf"), "keys": ["a"]}])
@example([{"keys": ["a", None], "num_clicks": 2.0}, {"x": 2**70, "button": True}])
@pytest.mark.slow
def test_typed_columns_read_by_pyarrow_are_the_value_by_value_ones_or_refused(objects):
    columns = typed_columns(json_lines(objects).encode("ascii"), len(objects), _TYPED_SCHEMA)
    if columns is None:
        return  # the builder then converts value by value
    expected = _expected_typed(objects)
    for name, column in zip(_TYPED_SCHEMA.names, columns):
        assert _identical(column.to_pylist(), expected[name]), (name, column.to_pylist(), expected[name])


def test_typed_columns_read_common_parameters():
    objects = [{"x": 1, "y": 2.5, "button": "left"}, {}, {"keys": ["ctrl", "s"], "num_clicks": 2, "x": 2**53 + 1}]
    columns = dict(zip(_TYPED_SCHEMA.names, typed_columns(json_lines(objects).encode(), 3, _TYPED_SCHEMA)))
    assert columns["x"].to_pylist() == [1.0, None, float(2**53 + 1)]
    assert columns["keys"].to_pylist() == [None, None, ["ctrl", "s"]]
    assert columns["num_clicks"].to_pylist() == [None, None, 2]
    for odd in ({"x": True}, {"num_clicks": 2.0}, {"keys": "ctrl"}, {"keys": ["a", None]}, {"button": 1}, {"x": float("nan")}, {"y": -float("inf")}):
        assert typed_columns(json_lines([odd]).encode(), 1, _TYPED_SCHEMA) is None, odd


# --- through a build -------------------------------------------------------------------------------------------


def _first_json(root):
    from agenthorizon.schema import LABEL_FILES, json_relpath

    first = json.loads((root / LABEL_FILES[0]).read_text(encoding="utf-8").splitlines()[0])
    return root / json_relpath(first["trajectory_id"])


@pytest.mark.parametrize("timestamp", [2**64, -(2**63) - 1, 10**30])
def test_an_integer_beyond_64_bits_is_reported_exactly_not_as_a_float(tiny_copy, datasets_cache, timestamp):
    from agenthorizon import load_dataset

    path = _first_json(tiny_copy)
    trajectory = json.loads(path.read_text(encoding="utf-8"))
    trajectory["steps"][1]["timestamp_us"] = timestamp
    path.write_text(json.dumps(trajectory), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"step 1: timestamp_us is {timestamp}; expected a 64-bit integer"):
        load_dataset(str(tiny_copy), "AH", split="test", cache_dir=datasets_cache)


def test_a_trajectory_only_the_standard_parser_reads_loads_as_before(tiny_copy, datasets_cache):
    """NaN and a lone surrogate in parameters: orjson refuses the file, json reads it."""
    from agenthorizon import load_dataset

    path = _first_json(tiny_copy)
    trajectory = json.loads(path.read_text(encoding="utf-8"))
    trajectory["steps"][0]["action"]["parameters"] = {"x": float("nan"), "y": 3, "text": "caf\u00e9", "note": "\ud800"}
    path.write_text(json.dumps(trajectory), encoding="utf-8")
    row = load_dataset(str(tiny_copy), "AH", split="test", cache_dir=datasets_cache, images="paths")[0]
    step = row["steps"][0]
    assert (step["x"], step["y"], step["text"]) == (None, 3.0, "caf\u00e9")
    assert step["parameters"] == '{"x": NaN, "y": 3, "text": "caf\\u00e9", "note": "\\ud800"}'


@pytest.mark.parametrize(
    "references",
    [
        ["../media/images/abc/step_1.png", "../media/images/abc/step_2.png"],  # one folder: the C-level path
        ["../media/images/abc/step_1.png", None, "../media/images/abc/step_3.png"],
        ["../media/images/abc/step_1.png", "../media/images/abd/step_2.png"],  # two folders
        ["../media/images/abc/step_1.png", "../media/images/abc/step_2.png\nstep_3.png"],  # a newline in a name
        ["../media/images/abc/step_1.png", "../media/images/abc/step_\u0661.png"],  # a non-ASCII digit
        ["../media/images/abc/step_1.png", "../media/images/abc/step_2.png/.."],
        ["../media/images/../step_1.png", "../media/images/../step_2.png"],
        ["../media/images/abc/step_1.png", "../media/images/abc/../../../../x/step_2.png"],
        ["../media/images/abc/step_1.png", ""],
    ],
)
def test_screenshot_paths_equal_the_per_reference_guard_on_whole_trajectories(tmp_path, references):
    from agenthorizon.release.files import screenshot_path, screenshot_paths

    root = str(tmp_path / "release")
    json_path = f"{root}/sandbox/data/jsons/t.json"

    def one_by_one():
        return [None if r is None else screenshot_path(root, json_path, r, f"t step {i}") for i, r in enumerate(references)]

    try:
        expected = one_by_one()
    except ValueError as error:
        with pytest.raises(ValueError, match=re.escape(str(error))):
            screenshot_paths(root, json_path, references, "t")
    else:
        assert screenshot_paths(root, json_path, references, "t") == expected
