"""The "agenthorizon" datasets format: lazy screenshots without whole-row reads.

A column read on a dataset from ``load_dataset`` must read that column only
(under the ``set_transform`` used before, ``ds["label"]`` converted every
row's steps and Markdown to Python); rows and batches must equal the plain
Python rows except that ``screenshots`` are ``LazyScreenshots`` of the same paths.
"""

from __future__ import annotations

from pathlib import Path

import datasets
import pytest
from datasets.formatting.formatting import PythonArrowExtractor

from agenthorizon.data.builder import AgentHorizon
from agenthorizon.data.load import load_dataset
from agenthorizon.data.formatting import FORMAT_TYPE
from agenthorizon.data.screenshots import BlindScreenshots, LazyScreenshots


@pytest.fixture()
def lazy(tiny_root: Path, datasets_cache: Path) -> datasets.Dataset:
    return load_dataset(str(tiny_root), "all", split="test", cache_dir=datasets_cache)


@pytest.fixture()
def extracted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The column names of every Arrow table converted to Python objects."""
    seen: list[tuple[str, ...]] = []
    for method in ("extract_row", "extract_column", "extract_batch"):
        real = getattr(PythonArrowExtractor, method)

        def recording(self, pa_table, _real=real):
            seen.append(tuple(pa_table.column_names))
            return _real(self, pa_table)

        monkeypatch.setattr(PythonArrowExtractor, method, recording)
    return seen


def _paths(shots) -> tuple:
    return tuple(None if s is None else s["path"] for s in shots)


def test_load_dataset_sets_the_format_and_rows_equal_plain_rows_with_lazy_screenshots(lazy):
    plain = lazy.with_format(None)
    assert lazy.format["type"] == FORMAT_TYPE
    for index in range(len(lazy)):
        row, expected = lazy[index], plain[index]
        assert list(row) == list(expected)  # same fields, same order
        assert isinstance(row["screenshots"], LazyScreenshots)
        assert row["screenshots"].paths == _paths(expected["screenshots"])
        assert {k: v for k, v in row.items() if k != "screenshots"} == {
            k: v for k, v in expected.items() if k != "screenshots"
        }
    batch = lazy[2:5]
    assert [s.paths for s in batch["screenshots"]] == [_paths(s) for s in plain[2:5]["screenshots"]]
    assert [s.paths for s in lazy["screenshots"]] == [_paths(s) for s in plain["screenshots"]]
    assert batch["steps"] == plain[2:5]["steps"]


def test_column_reads_and_filters_on_a_label_read_that_column_only(lazy, extracted):
    labels = list(lazy["label"])
    assert labels == list(lazy.with_format(None)["label"])
    assert extracted and set(extracted) == {("label",)}
    extracted.clear()
    positives = lazy.filter(lambda label: label == "positive", input_columns="label", keep_in_memory=True)
    assert len(positives) == labels.count("positive") > 0
    assert set(extracted) == {("label",)}
    # the filtered dataset keeps the format
    assert positives.format["type"] == FORMAT_TYPE
    assert isinstance(positives[0]["screenshots"], LazyScreenshots)


def test_row_functions_and_batched_maps_see_lazy_screenshots(lazy):
    lengths = lazy.map(lambda row: {"n": len(row["screenshots"].paths)}, keep_in_memory=True)
    assert lengths.with_format(None)["n"] == [len(s) for s in lazy.with_format(None)["screenshots"]]
    kinds = lazy.map(
        lambda batch: {"kind": [type(s).__name__ for s in batch["screenshots"]]}, batched=True, keep_in_memory=True
    )
    assert set(kinds.with_format(None)["kind"]) == {"LazyScreenshots"}


def test_the_format_can_be_set_on_a_dataset_built_directly(tiny_root: Path, datasets_cache: Path):
    builder = AgentHorizon(cache_dir=str(datasets_cache), config_name="AH", data_dir=str(tiny_root))
    builder.download_and_prepare()
    ds = builder.as_dataset(split="test")
    raw = ds[0]["screenshots"]
    ds.set_format(FORMAT_TYPE)
    assert ds[0]["screenshots"].paths == _paths(raw)


def _same(value, expected, where: str) -> None:
    """``value`` equals ``expected`` with the same types all the way down (``1 == 1.0 == True`` is not enough)."""
    assert type(value) is type(expected), f"{where}: {type(value).__name__} instead of {type(expected).__name__}"
    if isinstance(expected, dict):
        assert list(value) == list(expected), f"{where}: keys differ"
        for key in expected:
            _same(value[key], expected[key], f"{where}[{key!r}]")
    elif isinstance(expected, list):
        assert len(value) == len(expected), f"{where}: length differs"
        for index, (item, expected_item) in enumerate(zip(value, expected)):
            _same(item, expected_item, f"{where}[{index}]")
    else:
        assert value == expected, f"{where}: {value!r} != {expected!r}"


@pytest.mark.parametrize("blind", [False, True])
def test_every_column_of_every_row_is_the_plain_row_value_with_its_type(tiny_root, datasets_cache, blind):
    """Iterated rows, indexed rows and batches hold the very objects of plain rows, screenshots aside."""
    lazy = load_dataset(str(tiny_root), "all", split="test", cache_dir=datasets_cache, blind=blind)
    plain = list(lazy.with_format(None))
    iterated, indexed = list(lazy), [lazy[index] for index in range(len(lazy))]
    batch = lazy[: len(lazy)]
    assert len(iterated) == len(plain) > 0
    for index, expected in enumerate(plain):
        for row, how in ((iterated[index], "iterated"), (indexed[index], "indexed")):
            assert list(row) == list(expected), f"{how} row {index}: columns differ"
            for name in expected:
                if name == "screenshots" and blind:  # blind names, shown by no attribute
                    assert isinstance(row[name], BlindScreenshots) and row[name] == BlindScreenshots.of_blind_paths(
                        _paths(expected[name])
                    )
                elif name == "screenshots":
                    assert isinstance(row[name], LazyScreenshots) and row[name].paths == _paths(expected[name])
                else:
                    _same(row[name], expected[name], f"{how} row {index} {name}")
                    _same(batch[name][index], expected[name], f"batch row {index} {name}")


def test_a_column_that_needs_decoding_is_still_decoded(tiny_root, datasets_cache):
    """The row fast path skips features decoding only when no column but ``screenshots`` needs it."""
    lazy = load_dataset(str(tiny_root), "AH", split="test", cache_dir=datasets_cache)
    first = lazy.with_format(None)[0]["screenshots"]
    path = next(shot["path"] for shot in first if shot is not None)
    with_image = lazy.with_format(None).map(lambda row: {"cover": path}, keep_in_memory=True)
    with_image = with_image.cast_column("cover", datasets.Image())
    with_image.set_format(FORMAT_TYPE)
    row = next(iter(with_image))
    assert row["cover"].size[0] > 0  # decoded to a PIL image, as the Python format does
    assert isinstance(row["screenshots"], LazyScreenshots)
