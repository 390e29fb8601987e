"""Loading AgentHorizon as a datasets dataset: configs, dev exclusion, blind
rows, lazy screenshots, cache reuse, faithful row fields and bad input."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path

import datasets
import pyarrow as pa
import pytest

import agenthorizon.data.screenshots as screenshots_module
from agenthorizon.data.builder import AgentHorizon
from agenthorizon.data.features import features
from agenthorizon.data.load import load_dataset
from agenthorizon.schema import HIDDEN_FIELDS, LABEL_FILE_EASY, LABEL_FILE_HARD, json_relpath, markdown_relpath
from agenthorizon.data.screenshots import BlindScreenshots, LazyScreenshots
from agenthorizon.release.files import read_labels
from agenthorizon.release.splits import derive_dev_set

REPO = Path(__file__).resolve().parents[2]


def _label_ids(root: Path, name: str) -> list[str]:
    lines = (root / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["trajectory_id"] for line in lines if line.strip()]


def _load(root: Path, cache: Path, name: str = "AH", **kwargs) -> datasets.Dataset:
    return load_dataset(str(root), name, split="test", cache_dir=cache, **kwargs)


@pytest.fixture()
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every screenshot decode (LazyScreenshots) and every PIL open (anything else)."""
    from PIL import Image

    calls: list[str] = []
    real_decode, real_open = screenshots_module.decode_screenshot, Image.open

    def counting_decode(path):
        calls.append(f"decode {path}")
        return real_decode(path)

    def counting_open(fp, *args, **kwargs):
        calls.append(f"open {getattr(fp, 'name', fp)}")  # a path, or the file opened from it
        return real_open(fp, *args, **kwargs)

    monkeypatch.setattr(screenshots_module, "decode_screenshot", counting_decode)
    monkeypatch.setattr(Image, "open", counting_open)
    return calls


def _first_row_with_screenshots(ds: datasets.Dataset, minimum: int = 2) -> int:
    for index in range(len(ds)):
        if sum(p is not None for p in ds[index]["screenshots"].paths) >= minimum:
            return index
    raise AssertionError("the corpus has no row with screenshots")


# --- configs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus", ["tiny_root", "small_root"])
@pytest.mark.slow
def test_counts_and_order_per_config_equal_the_label_files(corpus, request, datasets_cache):
    root = request.getfixturevalue(corpus)
    hard, easy = _label_ids(root, LABEL_FILE_HARD), _label_ids(root, LABEL_FILE_EASY)
    dev = derive_dev_set(read_labels(root)).trajectory_ids
    expected = {"AH": hard, "AH-S": easy, "all": hard + easy, "AH-D": [t for t in hard + easy if t in dev]}
    for name, ids in expected.items():
        ds = _load(root, datasets_cache, name, images="paths")
        assert ds["trajectory_id"] == ids, name
    assert 0 < len(expected["AH-D"]) < len(hard + easy) or corpus == "tiny_root"


def test_default_returns_a_dataset_dict_with_the_single_test_split(tiny_root, datasets_cache):
    loaded = load_dataset(str(tiny_root), cache_dir=datasets_cache)
    assert isinstance(loaded, datasets.DatasetDict) and list(loaded) == ["test"]
    assert loaded["test"]["trajectory_id"] == _label_ids(tiny_root, LABEL_FILE_HARD)
    with pytest.raises(ValueError, match="single split 'test'"):
        load_dataset(str(tiny_root), split="train", cache_dir=datasets_cache)


@pytest.mark.slow
def test_exclude_dev_makes_ah_d_disjoint_and_counts_add_up(small_root, datasets_cache):
    dev = set(_load(small_root, datasets_cache, "AH-D", images="paths")["trajectory_id"])
    assert dev
    for name in ("AH", "AH-S", "all"):
        full = _load(small_root, datasets_cache, name, images="paths")
        kept = _load(small_root, datasets_cache, name, images="paths", exclude_dev=True)
        kept_ids = set(kept["trajectory_id"])
        assert not kept_ids & dev, name
        assert len(kept) + len(set(full["trajectory_id"]) & dev) == len(full), name
        assert not any(kept["in_dev"])
        assert sum(full["in_dev"]) == len(set(full["trajectory_id"]) & dev)
    with pytest.raises(ValueError, match="cannot be combined with config 'AH-D'"):
        _load(small_root, datasets_cache, "AH-D", exclude_dev=True)


def test_dev_manifest_defines_ah_d(tiny_root, datasets_cache, tmp_path):
    chosen = _label_ids(tiny_root, LABEL_FILE_EASY)[:3]
    manifest = tmp_path / "dev.txt"
    manifest.write_text("# my dev set\n" + "\n".join(chosen) + "\n", encoding="utf-8")
    ds = _load(tiny_root, datasets_cache, "AH-D", dev_manifest=manifest, images="paths")
    assert sorted(ds["trajectory_id"]) == sorted(chosen)
    ah_s = _load(tiny_root, datasets_cache, "AH-S", dev_manifest=manifest, exclude_dev=True, images="paths")
    assert not set(ah_s["trajectory_id"]) & set(chosen)


def test_blind_rows_have_no_revealing_field(tiny_root, datasets_cache):
    ds = _load(tiny_root, datasets_cache, "all", blind=True)
    row = ds[0]
    for field in HIDDEN_FIELDS:
        assert field not in ds.column_names
        assert field not in row
    assert row["instruction"] and isinstance(row["screenshots"], BlindScreenshots)


def test_features_are_the_documented_ones():
    lazy, eager, paths = features("lazy"), features("eager"), features("paths")
    assert lazy["screenshots"] == datasets.List(datasets.Image(decode=False))
    assert eager["screenshots"] == datasets.List(datasets.Image())
    assert paths["screenshots"] == datasets.List(datasets.Value("string")) == features(None)["screenshots"]
    assert lazy["steps"].feature["parameters"] == datasets.Value("string")
    assert set(HIDDEN_FIELDS) <= set(lazy)


# --- row fields ---------------------------------------------------------------------------------


def test_row_fields_match_the_release_files(tiny_root, datasets_cache):
    ds = _load(tiny_root, datasets_cache, "all")
    labels = {row["trajectory_id"]: row for row in read_labels(tiny_root)}
    for row in ds:
        trajectory = json.loads((tiny_root / json_relpath(row["trajectory_id"])).read_text(encoding="utf-8"))
        label = labels[row["trajectory_id"]]
        for field in ("label", "mistake_type", "instruction_id", "steps_id", "instruction_source", "steps_source"):
            assert row[field] == label[field]
        assert row["difficulty"] == label["difficulty"]
        assert row["instruction"] == trajectory["task"]["instruction"]
        assert row["applications"] == trajectory["task"].get("applications", [])
        assert row["os"] == trajectory["environment"].get("os")
        assert row["screen_resolution"] == trajectory["environment"].get("screen_resolution")
        assert row["num_steps"] == len(trajectory["steps"]) == len(row["steps"]) == len(row["screenshots"])
        assert row["markdown"] == (tiny_root / markdown_relpath(row["trajectory_id"])).read_text(encoding="utf-8")
        json_dir = tiny_root / json_relpath(row["trajectory_id"]).rsplit("/", 1)[0]
        for step, raw, path in zip(row["steps"], trajectory["steps"], row["screenshots"].paths):
            assert step["step_id"] == raw["step_id"]
            assert step["action_type"] == raw["action"]["type"]
            assert json.loads(step["parameters"]) == raw["action"].get("parameters", {})
            assert step["timestamp_us"] == raw.get("timestamp_us")
            if "screenshot" in raw:
                assert path == os.path.normpath(json_dir / raw["screenshot"])
                assert step["screenshot"] == path
            else:
                assert path is None and step["screenshot"] is None
            parameters = raw["action"].get("parameters", {})
            if "x" in parameters:
                assert step["x"] == parameters["x"]
            if "keys" in parameters:
                assert step["keys"] == parameters["keys"]
    # pair_group_id is shared within a pair group and differs across groups
    groups: dict[str, set[str]] = {}
    for row in ds:
        groups.setdefault(row["pair_group_id"], set()).update({row["instruction_id"], row["steps_id"]})
    members = [m for ids in groups.values() for m in ids]
    assert len(members) == len(set(members))


def test_markdown_is_rendered_from_the_json_when_the_file_is_absent(tiny_copy, datasets_cache):
    from agenthorizon.release.render import to_markdown

    trajectory_id = _label_ids(tiny_copy, LABEL_FILE_HARD)[0]
    markdown_file = tiny_copy / markdown_relpath(trajectory_id)
    original = markdown_file.read_text(encoding="utf-8")
    markdown_file.unlink()
    row = _load(tiny_copy, datasets_cache)[0]
    trajectory = json.loads((tiny_copy / json_relpath(trajectory_id)).read_text(encoding="utf-8"))
    assert row["markdown"] == to_markdown(trajectory) == original


# --- images modes and laziness ---------------------------------------------------------------------


def test_building_and_reading_rows_decodes_no_image_and_indexing_decodes_one(tiny_root, datasets_cache, decodes):
    ds = _load(tiny_root, datasets_cache, "all")
    assert decodes == []
    index = _first_row_with_screenshots(ds)
    row = ds[index]
    for _ in ds:  # iteration
        pass
    ds.select([index, 0])[0]
    ds.map(lambda r: {"n": len(r["screenshots"])})[0]
    assert isinstance(row["screenshots"], LazyScreenshots)
    assert decodes == []
    k = next(i for i, p in enumerate(row["screenshots"].paths) if p is not None)
    image = row["screenshots"][k]
    assert decodes == [f"decode {row['screenshots'].paths[k]}", f"open {row['screenshots'].paths[k]}"]
    assert image.size[0] > 0
    assert row["screenshots"][len(row["screenshots"]) // 2 : ].paths == row["screenshots"].paths[len(row["screenshots"]) // 2 :]
    assert len(decodes) == 2  # slicing decoded nothing


def test_an_undecodable_image_breaks_only_its_own_index(tiny_copy, datasets_cache):
    ds = _load(tiny_copy, datasets_cache, "all")
    index = _first_row_with_screenshots(ds)
    paths = ds[index]["screenshots"].paths
    broken, fine = [k for k, p in enumerate(paths) if p is not None][:2]
    Path(paths[broken]).write_bytes(b"this is not a png")
    row = ds[index]  # accessing the row with a broken image works ...
    assert len(row["screenshots"]) == len(paths) and row["instruction"]
    assert row["screenshots"][fine].size[0] > 0  # ... and so do its other screenshots
    with pytest.raises(ValueError, match=f"{re.escape(paths[broken])}: image header does not read"):
        row["screenshots"][broken]
    # datasets' eager decoding, by contrast, fails on the row access itself
    eager = _load(tiny_copy, datasets_cache, "all", images="eager")
    with pytest.raises(Exception):
        eager[index]


def test_a_missing_screenshot_raises_only_on_access_with_its_path(tiny_copy, datasets_cache):
    ds = _load(tiny_copy, datasets_cache, "all")
    index = _first_row_with_screenshots(ds)
    paths = ds[index]["screenshots"].paths
    missing = next(k for k, p in enumerate(paths) if p is not None)
    Path(paths[missing]).unlink()
    reloaded = _load(tiny_copy, datasets_cache, "all")
    row = reloaded[index]
    assert row["screenshots"].paths == paths
    with pytest.raises(FileNotFoundError, match=f"{re.escape(paths[missing])}: screenshot file not found"):
        row["screenshots"][missing]


def test_eager_and_paths_modes(tiny_root, datasets_cache):
    from PIL import Image

    lazy = _load(tiny_root, datasets_cache, "AH")
    index = _first_row_with_screenshots(lazy)
    paths = lazy[index]["screenshots"].paths
    eager = _load(tiny_root, datasets_cache, "AH", images="eager")[index]["screenshots"]
    as_paths = _load(tiny_root, datasets_cache, "AH", images="paths")[index]["screenshots"]
    none_mode = _load(tiny_root, datasets_cache, "AH", images=None)[index]["screenshots"]
    assert as_paths == none_mode == list(paths)
    assert [None if image is None else image.filename for image in eager] == list(paths)
    assert all(isinstance(image, Image.Image) for image in eager if image is not None)


def test_arrow_cache_holds_paths_never_pixels(tiny_root, datasets_cache):
    ds = _load(tiny_root, datasets_cache, "all")
    table = pa.concat_tables([pa.ipc.open_stream(f["filename"]).read_all() for f in ds.cache_files])
    entries = table.column("screenshots").combine_chunks().flatten().to_pylist()
    stored = [entry for entry in entries if entry is not None]
    assert stored and all(entry["bytes"] is None and entry["path"].endswith(".png") for entry in stored)
    assert None in entries  # steps without a screenshot stay null


# --- cache reuse -------------------------------------------------------------------------------------


def test_loading_again_reuses_the_cache(tiny_copy, datasets_cache, generation_count):
    first = _load(tiny_copy, datasets_cache, "AH")
    second = _load(tiny_copy, datasets_cache, "AH")
    assert generation_count == ["AH"]
    assert second.cache_files == first.cache_files
    _load(tiny_copy, datasets_cache, "AH", dev_groups=1)  # other dev settings: another cache
    _load(tiny_copy, datasets_cache, "AH", images="paths")  # other storage: another cache
    assert generation_count == ["AH"] * 3


def test_a_changed_release_never_reuses_a_stale_cache(tiny_copy, datasets_cache, generation_count):
    before = _load(tiny_copy, datasets_cache, "AH")
    hard = tiny_copy / LABEL_FILE_HARD
    lines = hard.read_text(encoding="utf-8").splitlines(keepends=True)
    hard.write_text("".join(lines[1:]), encoding="utf-8")
    after = _load(tiny_copy, datasets_cache, "AH")
    assert generation_count == ["AH", "AH"]
    assert len(after) == len(before) - 1


def test_builder_refuses_labels_that_do_not_match_its_manifest(tiny_root, datasets_cache):
    builder = AgentHorizon(
        cache_dir=str(datasets_cache), config_name="AH", data_dir=str(tiny_root), release_label_sha256="0" * 64
    )
    with pytest.raises(ValueError, match="expected 0{64}; they changed"):
        builder.download_and_prepare()


def test_builder_without_data_dir_says_what_it_needs(datasets_cache):
    with pytest.raises(ValueError, match="needs data_dir: the release root"):
        AgentHorizon(cache_dir=str(datasets_cache), config_name="AH").download_and_prepare()


_UNPATCHED_BUILD = """
import builtins, pathlib, sys
from agenthorizon.data import builder
from agenthorizon.data.load import load_dataset
load_dataset(sys.argv[1], "AH", split="test", cache_dir=sys.argv[2])
# datasets' streaming patches would swap these globals and import scipy.io (about 0.3 s)
print(builder.Path is pathlib.Path, "open" not in vars(builder), "scipy.io" in sys.modules)
"""


def test_a_build_leaves_the_builder_module_unpatched_and_imports_no_streaming_readers(tiny_root, datasets_cache):
    import subprocess

    command = [sys.executable, "-c", _UNPATCHED_BUILD, str(tiny_root), str(datasets_cache)]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()
    assert output == ["True", "True", "False"]


# --- bad input -------------------------------------------------------------------------------------


def _first_json(root: Path) -> tuple[str, Path]:
    trajectory_id = _label_ids(root, LABEL_FILE_HARD)[0]
    return trajectory_id, root / json_relpath(trajectory_id)


def test_missing_json_names_the_file_and_label_row(tiny_copy, datasets_cache):
    _, path = _first_json(tiny_copy)
    path.unlink()
    with pytest.raises(FileNotFoundError, match=rf"{path} \(label row AgentHorizon\.jsonl:1\): trajectory json not found"):
        _load(tiny_copy, datasets_cache)


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"task": ', "unreadable json"),
        ("[1, 2]", "the json is a list, expected a trajectory object"),
        ('{"task": {}, "steps": []}', "missing task.instruction"),
        ('{"task": {"instruction": "x"}, "steps": {}}', "'steps' must be a list"),
    ],
)
def test_invalid_json_names_the_file_and_label_row(tiny_copy, datasets_cache, content, message):
    _, path = _first_json(tiny_copy)
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{path} \(label row AgentHorizon\.jsonl:1\): {message}"):
        _load(tiny_copy, datasets_cache)


@pytest.mark.parametrize(
    "reference, message",
    [("../../../../../../../etc/passwd", "escapes the release root"), ("/etc/passwd", "is absolute")],
)
def test_screenshot_path_escaping_the_root_is_refused(tiny_copy, datasets_cache, reference, message):
    _, path = _first_json(tiny_copy)
    trajectory = json.loads(path.read_text(encoding="utf-8"))
    trajectory["steps"][0]["screenshot"] = reference
    path.write_text(json.dumps(trajectory), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{path} \(label row AgentHorizon\.jsonl:1\) step 0: screenshot path .*{message}"):
        _load(tiny_copy, datasets_cache)


def test_a_path_that_climbs_but_stays_inside_the_root_is_accepted(tiny_copy, datasets_cache):
    _, path = _first_json(tiny_copy)
    trajectory = json.loads(path.read_text(encoding="utf-8"))
    k, step = next((k, s) for k, s in enumerate(trajectory["steps"]) if "screenshot" in s)
    original = step["screenshot"]
    step["screenshot"] = "../../data/" + original.removeprefix("../")  # jsons/../../data/media/...
    path.write_text(json.dumps(trajectory), encoding="utf-8")
    row = _load(tiny_copy, datasets_cache)[0]
    assert row["screenshots"].paths[k] == os.path.normpath(path.parent / original)
    assert row["screenshots"][k].size[0] > 0


# --- the Hub-style loading script ------------------------------------------------------------------------


def test_loading_script_exposes_the_same_builder(tiny_root, datasets_cache, monkeypatch):
    spec = importlib.util.spec_from_file_location("agenthorizon_loader", REPO / "agenthorizon_loader.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, "agenthorizon_loader", module)
    # datasets finds the builder class in the script the way it does for Hub scripts
    builder_class = datasets.load.import_main_class("agenthorizon_loader")
    assert builder_class is AgentHorizon
    builder = builder_class(cache_dir=str(datasets_cache), config_name="AH-S", data_dir=str(tiny_root))
    builder.download_and_prepare()
    ds = builder.as_dataset(split="test")
    assert ds["trajectory_id"] == _label_ids(tiny_root, LABEL_FILE_EASY)


# --- the column-wise table writer ---------------------------------------------------------------------


def _reference_step(raw: dict, json_dir: Path) -> dict:
    """A step's row fields computed straight from its json, as docs/architecture.md defines them."""
    parameters = raw["action"].get("parameters") or {}

    def number(name):
        value = parameters.get(name)
        ok = type(value) in (int, float) and value == value and abs(value) != float("inf")
        return float(value) if ok else None

    def text(name):
        value = parameters.get(name)
        return value if type(value) is str else None

    keys, clicks = parameters.get("keys"), parameters.get("num_clicks")
    return {
        "step_id": raw["step_id"],
        "action_type": raw["action"]["type"],
        **{name: number(name) for name in ("x", "y", "start_x", "start_y", "end_x", "end_y", "amount", "duration_s")},
        **{name: text(name) for name in ("button", "text", "key", "direction")},
        "num_clicks": clicks if type(clicks) is int else None,
        "keys": keys if type(keys) is list and all(type(k) is str for k in keys) else None,
        "parameters": json.dumps(parameters),
        "timestamp_us": raw.get("timestamp_us"),
        "screenshot": os.path.normpath(json_dir / raw["screenshot"]) if "screenshot" in raw else None,
    }


@pytest.mark.slow
def test_every_step_of_every_row_equals_an_independent_reading_of_its_json(small_root, datasets_cache):
    ds = _load(small_root, datasets_cache, "all", images="paths")
    json_dir = small_root / json_relpath("x").rsplit("/", 1)[0]
    assert ds["trajectory_id"] == _label_ids(small_root, LABEL_FILE_HARD) + _label_ids(small_root, LABEL_FILE_EASY)
    checked = 0
    for row in ds:
        trajectory = json.loads((small_root / json_relpath(row["trajectory_id"])).read_text(encoding="utf-8"))
        expected = [_reference_step(raw, json_dir) for raw in trajectory["steps"]]
        assert row["steps"] == expected, row["trajectory_id"]
        assert row["screenshots"] == [step["screenshot"] for step in expected]
        checked += len(expected)
    assert checked > 1000


def test_streaming_rows_equal_the_written_rows(tiny_root, datasets_cache):
    built = _load(tiny_root, datasets_cache, "all", images="paths")
    builder = AgentHorizon(cache_dir=str(datasets_cache), config_name="all", data_dir=str(tiny_root), images="paths")
    streamed = list(builder.as_streaming_dataset(split="test"))  # datasets streams via _generate_examples
    assert streamed == list(built)


def test_parameters_of_unexpected_types_stay_out_of_typed_columns_but_survive(tiny_copy, datasets_cache):
    _, path = _first_json(tiny_copy)
    trajectory = json.loads(path.read_text(encoding="utf-8"))
    odd = [
        {"x": True, "y": 10**400, "button": 3, "num_clicks": 2**40, "keys": ["ctrl", 1]},
        {"x": float("nan"), "y": 2**60 + 1, "text": None, "num_clicks": 2.0, "keys": ["ctrl", None]},
        {"region": [{"x": 1}, {"y": 2}], "amount": -3},  # nested objects: the one-call encoding falls back
    ]
    for step, parameters in zip(trajectory["steps"], odd):
        step["action"]["parameters"] = parameters
    path.write_text(json.dumps(trajectory), encoding="utf-8")
    steps = _load(tiny_copy, datasets_cache, images="paths")[0]["steps"]
    assert [json.loads(step["parameters"], parse_constant=str) for step in steps[:3]] == json.loads(
        json.dumps(odd), parse_constant=str
    )
    assert [(s["x"], s["y"], s["button"], s["num_clicks"], s["keys"]) for s in steps[:2]] == [
        (None, None, None, None, None),
        (None, float(2**60 + 1), None, None, None),
    ]
    assert steps[2]["amount"] == -3.0 and steps[2]["x"] is None


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda steps: steps[2].update(step_id="2"), r"step 2: step_id is '2'; expected an integer"),
        (lambda steps: steps[1].update(step_id=2**40), r"step 1: step_id is 1099511627776; expected a 32-bit integer"),
        (lambda steps: steps[3]["action"].pop("type"), r"step 3: expected an action object with a string 'type'"),
        (lambda steps: steps[1]["action"].update(parameters=[1]), r"step 1: action parameters must be an object"),
        (lambda steps: steps[2].update(timestamp_us=1.5), r"step 2: timestamp_us is 1.5; expected a 64-bit integer"),
        (lambda steps: steps.insert(1, "click"), r"step 1: expected a step object, got str"),
        # the first bad step is named, whatever its kind of problem
        (lambda steps: (steps[3].update(step_id=None), steps[1].update(screenshot="/etc/x.png")), r"step 1: screenshot"),
    ],
)
def test_an_invalid_step_names_the_file_label_row_and_first_bad_step(tiny_copy, datasets_cache, change, message):
    _, path = _first_json(tiny_copy)
    trajectory = json.loads(path.read_text(encoding="utf-8"))
    change(trajectory["steps"])
    path.write_text(json.dumps(trajectory), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{path} \(label row AgentHorizon\.jsonl:1\) {message}"):
        _load(tiny_copy, datasets_cache)


@pytest.mark.slow
def test_multiprocess_build_gives_the_same_rows_in_release_order_and_the_same_errors(small_root, tiny_copy, datasets_cache):
    one = _load(small_root, datasets_cache / "one", "all", images="paths")
    two = _load(small_root, datasets_cache / "two", "all", images="paths", num_proc=2)
    assert len(two.cache_files) == 2  # one shard per process ...
    assert two.data.table.equals(one.data.table)  # ... concatenated in release order
    _, path = _first_json(tiny_copy)
    path.unlink()  # the error crosses the process boundary with its message
    with pytest.raises(FileNotFoundError, match=rf"{path} \(label row AgentHorizon\.jsonl:1\): trajectory json not found"):
        _load(tiny_copy, datasets_cache, "all", num_proc=2)


def test_screenshot_paths_equal_the_per_reference_guard(tmp_path):
    from agenthorizon.release.files import screenshot_path, screenshot_paths

    root = str(tmp_path / "release")
    json_path = f"{root}/sandbox/data/jsons/t.json"
    references = [
        "../media/images/abc/step_1.png",  # the release's own form (joined without normalising)
        None,
        "../media/images/a b/step_12.png",
        "../media/images/../images/abc/step_2.png",
        "../media/images/abc/./step_3.png",
        "../../data/media/images/abc/step_4.png",
        "../media/images/..../step_5.png",
    ]
    expected = [None if r is None else screenshot_path(root, json_path, r, "t") for r in references]
    assert screenshot_paths(root, json_path, references, "t") == expected
    assert expected[0] == f"{root}/sandbox/data/media/images/abc/step_1.png"
    for bad, message in (
        ("../media/images/../../../../../x.png", "escapes the release root"),
        ("/x.png", "is absolute"),
        ("./x.png", "outside the screenshot folder"),  # inside the release, but not a screenshot
        ("../../../AgentHorizon.jsonl", "outside the screenshot folder"),
    ):
        with pytest.raises(ValueError, match=f"t step 1: screenshot path .* {message}"):
            screenshot_paths(root, json_path, ["../media/images/abc/step_1.png", bad], "t")


def test_encode_each_equals_json_dumps_of_each_object():
    from agenthorizon.data.table import encode_each

    objects = [{"x": 1, "keys": ["a"]}, {}, {"text": "}\x1f{ and }, {"}, {"n": [{"a": 1}, {"b": None}]}, {"f": 2.5e-07}]
    assert encode_each(objects) == [json.dumps(o) for o in objects]
    assert encode_each(objects[:3]) == [json.dumps(o) for o in objects[:3]]
    assert encode_each([]) == []
