"""The Parquet export loads with plain `datasets.load_dataset` (no project code)
and gives back the builder's rows, for every config and screenshot mode."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenthorizon.schema import CONFIG_NAMES, HIDDEN_FIELDS, MISTAKE_TYPES

_EXPORTS: dict[str, Path] = {}


@pytest.fixture(scope="module")
def export_dir(tiny_root: Path, tmp_path_factory: pytest.TempPathFactory):
    """Export the tiny corpus once per screenshot mode (all four configs)."""
    from agenthorizon.data.export import export_release

    def exported(images: str) -> Path:
        if images not in _EXPORTS:
            out = tmp_path_factory.mktemp(f"export-{images}")
            export_release(tiny_root, out, images=images)
            _EXPORTS[images] = out
        return _EXPORTS[images]

    yield exported
    _EXPORTS.clear()


def _builder_rows(root: Path, config: str) -> list[dict]:
    import agenthorizon

    return [dict(row) for row in agenthorizon.load_dataset(root, config, split="test", images="paths")]


def _plain_rows(out: Path, config: str):
    import datasets

    return datasets.load_dataset(str(out), config, split="test")


@pytest.mark.parametrize("images", ["none", "paths", "thumbnails", "full"])
@pytest.mark.slow
def test_plain_load_dataset_returns_the_builder_rows_for_every_config(tiny_root: Path, export_dir, images: str):
    from export_rows import assert_same_rows_as_builder

    out = export_dir(images)
    for config in CONFIG_NAMES:
        assert_same_rows_as_builder(tiny_root, _plain_rows(out, config), config, images)


def test_card_declares_configs_counts_features_and_the_blind_rule(tiny_root: Path, export_dir):
    import datasets
    from huggingface_hub import DatasetCard

    out = export_dir("none")
    card = DatasetCard.load(out / "README.md")
    configs = {entry["config_name"]: entry for entry in card.data.to_dict()["configs"]}
    assert set(configs) == set(CONFIG_NAMES)
    (shard,) = (path.relative_to(out).as_posix() for path in (out / "data" / "AH").glob("*.parquet"))
    assert configs["AH"]["data_files"] == [{"split": "test", "path": [shard]}]
    assert configs["AH"].get("default") is True
    infos = datasets.info.DatasetInfosDict.from_dataset_card_data(card.data)
    for config in CONFIG_NAMES:
        rows = _builder_rows(tiny_root, config)
        assert infos[config].splits["test"].num_examples == len(rows)
        positives = sum(row["label"] == "positive" for row in rows)
        types = [sum(row["mistake_type"] == name for row in rows) for name in MISTAKE_TYPES]
        untyped = sum(row["label"] == "negative" and not row["mistake_type"] for row in rows)
        line = next(line for line in card.text.splitlines() if line.startswith(f"| `{config}` |"))
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert cells[2:] == [str(v) for v in (len(rows), positives, len(rows) - positives, *types, untyped)], config
    text = card.text
    assert "Never show a judge the label, pairing or type fields" in text
    for name in HIDDEN_FIELDS:
        assert f"`{name}`" in text
    assert "random.Random(42).shuffle" in text  # AH-D's derivation
    assert "```bibtex" in text
    # Without a config name, plain datasets loads the default config, AH.
    assert len(datasets.load_dataset(str(out), split="test")) == len(_builder_rows(tiny_root, "AH"))
    # The card is written as huggingface_hub would write it back: loading and saving it changes nothing.
    written = (out / "README.md").read_text(encoding="utf-8")
    assert str(DatasetCard(written)) == written


@pytest.mark.parametrize("images", ["none", "thumbnails"])
def test_card_field_table_is_the_exported_columns_with_their_types(export_dir, images: str):
    # The table is derived from the Features: one row per Parquet column, in order, with the
    # column's Arrow type; exactly the HIDDEN_FIELDS are marked hidden from judges.
    import pyarrow.parquet as pq
    from huggingface_hub import DatasetCard

    out = export_dir(images)
    text = DatasetCard.load(out / "README.md").text
    table = text.split("## Fields\n\n", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in table]
    schema = pq.read_schema(next((out / "data" / "all").glob("*.parquet")))
    assert [name.strip("`") for name, _kind, _meaning in cells] == schema.names
    arrow_types = {"string": "string", "int32": "int32", "int64": "int64", "bool": "bool", "struct": "struct"}
    for (name, kind, meaning), field in zip(cells, schema):
        arrow = str(field.type)
        if kind.startswith("list of "):
            assert arrow.startswith("list<"), name
            inner = kind.removeprefix("list of ")
            assert inner == "image" and "bytes: binary" in arrow or arrow_types.get(inner, "?") in arrow, name
        else:
            assert arrow == kind, name
        assert meaning.endswith("— **hidden from judges**") == (name.strip("`") in HIDDEN_FIELDS), name
    assert ("`screenshots`" in [row[0] for row in cells]) == (images != "none")


def test_small_shard_size_writes_several_numbered_shards_that_load_in_order(tiny_root: Path, tmp_path: Path):
    from agenthorizon.data.export import export_release

    summary = export_release(tiny_root, tmp_path, configs=["all"], images="paths", max_shard_size="4KB")
    files = sorted((tmp_path / "data" / "all").glob("*.parquet"))
    assert len(files) > 1
    tag = files[0].stem.rsplit("-", 1)[1]
    assert len(tag) == 16
    assert [f.name for f in files] == [f"test-{i:05d}-of-{len(files):05d}-{tag}.parquet" for i in range(len(files))]
    assert summary.configs["all"].files == [f.relative_to(tmp_path).as_posix() for f in files]
    expected = [row["trajectory_id"] for row in _builder_rows(tiny_root, "all")]
    assert _plain_rows(tmp_path, "all")["trajectory_id"] == expected
    # A used folder is refused unless overwrite; then one shard replaces the old ones.
    with pytest.raises(ValueError, match=r"not empty .* overwrite=True"):
        export_release(tiny_root, tmp_path, configs=["all"], images="paths")
    export_release(tiny_root, tmp_path, configs=["all"], images="paths", overwrite=True)
    (shard,) = (tmp_path / "data" / "all").glob("*.parquet")
    assert shard.name.startswith("test-00000-of-00001-")


def test_a_folder_exported_again_with_other_rows_loads_the_new_rows_with_plain_datasets(tiny_root: Path, tmp_path: Path):
    # datasets (5.2) keys its cache of a local folder on the folder's name and the card's configs,
    # not on the files: with fixed shard names a second export -- into the same folder, or another
    # of the same name -- of a release whose labels were corrected (two mistake types swapped: the
    # same counts and sizes) loaded the rows cached from the first, with no warning. Real datasets,
    # one shared cache, as a user has.
    import json
    import shutil

    import datasets

    from agenthorizon.data.export import export_release

    corrected = tmp_path / "corrected" / "release"
    shutil.copytree(tiny_root, corrected)
    labels = corrected / "AgentHorizon.jsonl"
    rows = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    negatives = [i for i, row in enumerate(rows) if row["label"] == "negative"]
    first = negatives[0]
    second = next(i for i in negatives if rows[i]["mistake_type"] != rows[first]["mistake_type"])
    rows[first]["mistake_type"], rows[second]["mistake_type"] = rows[second]["mistake_type"], rows[first]["mistake_type"]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")

    def typed(root: Path) -> list[tuple[str, str]]:
        return [(row["trajectory_id"], row["mistake_type"]) for row in _builder_rows(root, "AH")]

    assert typed(tiny_root) != typed(corrected)
    cache, out = tmp_path / "hf-cache", tmp_path / "export"
    for root in (tiny_root, corrected):  # the same folder, exported again
        export_release(root, out, configs=["AH"], images="none", overwrite=True)
        loaded = datasets.load_dataset(str(out), "AH", split="test", cache_dir=str(cache))
        assert list(zip(loaded["trajectory_id"], loaded["mistake_type"])) == typed(root)
    other = tmp_path / "elsewhere" / "export"  # another folder of the same name
    export_release(tiny_root, other, configs=["AH"], images="none")
    loaded = datasets.load_dataset(str(other), "AH", split="test", cache_dir=str(cache))
    assert list(zip(loaded["trajectory_id"], loaded["mistake_type"])) == typed(tiny_root)


def test_cli_exports_chosen_configs_and_reports_bad_input(tiny_root: Path, tmp_path: Path, capsys):
    from agenthorizon.cli import main

    assert main(["export", str(tiny_root), str(tmp_path / "out"), "--configs", "AH-D", "--images", "none"]) == 0
    assert "AH-D:" in capsys.readouterr().out
    assert [p.name for p in (tmp_path / "out" / "data").iterdir()] == ["AH-D"]
    assert main(["export", str(tmp_path / "nowhere"), str(tmp_path / "x")]) == 2
    assert "nowhere" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # a usage error: argparse names the flag
        main(["export", str(tiny_root), str(tmp_path / "y"), "--max-shard-size", "lots"])
    assert stop.value.code == 2
    assert "--max-shard-size" in capsys.readouterr().err


def test_column_path_conversion_matches_the_per_path_rule_and_names_a_stray_item(tmp_path: Path):
    # Path-only exports convert whole Arrow columns; paths that the prefix strip cannot
    # take (a '..', or outside the release) go through the per-path rule, with its error.
    import pyarrow as pa

    from agenthorizon.data.export_paths import RelativePaths as _RelativePaths, relative_array as _relative_array

    root = tmp_path / "release"
    relative = _RelativePaths(root)
    inside = [f"{root}/media/images/d-1/step_1.png", None, f"{root}/media/images/d-1/step_2.png"]
    converted = _relative_array(pa.array(inside), relative, lambda: ["t1", "t1", "t2"]).to_pylist()
    assert converted == ["media/images/d-1/step_1.png", None, "media/images/d-1/step_2.png"]
    assert converted == [relative(path, "item t1") for path in inside]
    dotted = [f"{root}/media/x/../images/step_3.png"]
    assert _relative_array(pa.array(dotted), relative, lambda: ["t3"]).to_pylist() == ["media/images/step_3.png"]
    with pytest.raises(ValueError, match="item t2: screenshot /elsewhere/step_1.png is not inside the release root"):
        _relative_array(pa.array([inside[0], "/elsewhere/step_1.png"]), relative, lambda: ["t1", "t2"])


def test_thumbnails_decode_each_distinct_screenshot_once_per_export(tiny_root: Path, tmp_path: Path, monkeypatch):
    # Configs share items and negatives share their sibling's recording: one decode per file.
    import hashlib

    from PIL import Image

    import agenthorizon
    from agenthorizon.data.export import export_release

    opened = []
    real_open = Image.open

    def counting_open(source, *args, **kwargs):
        name = getattr(source, "name", source)  # a screenshot file (opened by path), not cached JPEG bytes
        if isinstance(name, (str, os.PathLike)):
            opened.append(os.fspath(name))
        return real_open(source, *args, **kwargs)

    monkeypatch.setattr(Image, "open", counting_open)
    export_release(tiny_root, tmp_path, configs=["AH", "all"], images="thumbnails")
    distinct = {
        path
        for shots in agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths")["screenshots"]
        for path in shots
        if path is not None
    }
    referenced = sum(
        path is not None
        for config in ("AH", "all")
        for shots in agenthorizon.load_dataset(tiny_root, config, split="test", images="paths")["screenshots"]
        for path in shots
    )
    assert referenced > len(distinct) > 0
    # no file decoded twice; files with equal bytes share one decode (the cache is content-addressed)
    assert len(opened) == len(set(opened)) and set(opened) <= distinct
    assert len(opened) == len({hashlib.sha256(Path(path).read_bytes()).digest() for path in distinct})
    assert not list(tmp_path.glob(".thumbnails-*"))  # the export's cache is gone


def test_configs_taken_from_all_equal_configs_loaded_one_by_one(tiny_root: Path, export_dir, tmp_path: Path):
    """An export of all four configs selects AH, AH-S and AH-D from one load of `all`;
    an export of AH-S and AH-D alone loads each: the shards hold the same rows either way."""
    import pyarrow.parquet as pq

    from agenthorizon.data.export import export_release

    together = export_dir("none")
    export_release(tiny_root, tmp_path / "apart", configs=["AH-D", "AH-S"], images="none")
    for config in ("AH-S", "AH-D"):
        shards = sorted((together / "data" / config).glob("*.parquet"))
        apart = sorted((tmp_path / "apart" / "data" / config).glob("*.parquet"))
        assert [p.name for p in shards] == [p.name for p in apart]
        assert pq.read_table(shards).equals(pq.read_table(apart), check_metadata=True), config
