"""THE blind test: no label, pairing or mistake-type information reaches a judge.

Judge inputs are built from *full* rows of the tiny corpus (every hidden field
present), then searched for hidden field names and hidden values: in the
JudgeInput itself, its repr, the rendered prompts, the HTTP payload an
OpenAI-compatible server receives, and the working directory and stdin of a
command judge. Blind rows (``load_dataset(blind=True)``) of the tiny and small
samples, in every config, are walked as deep as a notebook reaches (their
screenshots' repr, attributes, private slots, pickle, slices and decoded
images; every datasets route; error messages), and must hold no hidden value.

Over 500 lines on purpose: this is the one blind test, and its two halves
share the hidden values and the walkers.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
import sys
import traceback
from pathlib import Path

import pytest
from PIL import Image

import agenthorizon
from agenthorizon.data.screenshots import LazyScreenshots
from agenthorizon.judging.inputs import BlindScreenshots, JudgeInput, build_judge_input, strip_hidden
from agenthorizon.judging.judges import CommandJudge, OpenAICompatibleJudge
from agenthorizon.judging.judges.release_prompt import framework_files
from agenthorizon.judging.judges.prompts import COMMAND_PROMPT, DIRECT_PROMPT, render_prompt
from agenthorizon.release.files import load_references
from agenthorizon.schema import (
    CONFIG_ALL,
    CONFIG_NAMES,
    HIDDEN_FIELDS,
    IMAGES_DIR,
    LABEL_FILES,
    LABEL_VALUES,
    MISTAKE_TYPES,
    SOURCE_VALUES,
)

ID_FIELDS = ("instruction_id", "steps_id", "pair_group_id")


@pytest.fixture(scope="module")
def full_rows(tiny_root):
    dataset = agenthorizon.load_dataset(tiny_root, "all", split="test", images="lazy")
    rows = list(dataset)
    assert rows and all(set(HIDDEN_FIELDS) <= set(row) for row in rows)
    return rows


def secret_values(row):
    """Strings that must never reach a judge for this row."""
    ids = {row[name] for name in ID_FIELDS if row[name]}
    words = set(LABEL_VALUES) | set(MISTAKE_TYPES) | {"Misunderstanding of the Instruction"}
    # A label word that is genuinely part of the recording (an instruction about
    # "negative numbers") is content, not a leak; none occurs in the sample corpus.
    content = (row["instruction"] + row["markdown"] + json.dumps(row["steps"], default=str)).lower()
    words = {w for w in words if w.lower() not in content}
    return ids, words


def walk(value, path="input"):
    """Yield (path, key_or_None, string) for every key and string reachable in ``value``.

    A judge input's screenshots are walked by their repr: built from a full
    row, they hold its real paths in a private slot (see :func:`deep_walk`
    for blind rows, which hold none).
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield path, field.name, None
            yield from walk(getattr(value, field.name), f"{path}.{field.name}")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield path, key, None
            yield from walk(item, f"{path}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from walk(item, f"{path}[{index}]")
    elif isinstance(value, str):
        yield path, None, value
    elif isinstance(value, BlindScreenshots):
        yield path, None, repr(value)


def assert_no_ids(text, ids, where):
    for value in ids:
        assert value not in text, f"{where}: hidden id {value} leaked"


def test_judge_input_has_no_hidden_field_or_value(full_rows):
    for row in full_rows:
        judge_input = build_judge_input(row)
        ids, words = secret_values(row)
        # steps is built lazily from step_columns; walk the built records too.
        reachable = [*walk(judge_input), *walk(list(judge_input.steps), "input.steps")]
        for path, key, text in reachable:
            assert key not in HIDDEN_FIELDS, f"{path}: hidden field {key!r} reached the judge input"
            if text is not None:
                assert_no_ids(text, ids, path)
                for word in words:
                    assert word.lower() not in text.lower(), f"{path}: label text {word!r} leaked"
        text = repr(judge_input)
        assert_no_ids(text, ids, "repr")
        assert not any(word in text for word in words)
        for name in HIDDEN_FIELDS:
            assert not hasattr(judge_input, name)


def test_screenshots_are_there_but_their_paths_are_not(full_rows):
    row = next(r for r in full_rows if any(p for p in r["screenshots"].paths))
    judge_input = build_judge_input(row)
    index = judge_input.screenshots.present[0]
    image = judge_input.screenshots[index]
    assert image.size[0] > 0
    assert not getattr(image, "filename", "")  # decoded from bytes: not even the file name shows
    assert not hasattr(judge_input.screenshots, "paths")
    assert judge_input.screenshots.read_bytes(index) == Path(row["screenshots"].paths[index]).read_bytes()
    step = judge_input.steps[index]
    assert step["screenshot"] == f"../media/images/{row['trajectory_id']}/step_{step['step_id'] + 1}.png"
    # The Markdown keeps its image lines, re-pointed at the blind folder.
    assert f"](../media/images/{row['trajectory_id']}/step_" in judge_input.markdown


def test_a_slice_of_blind_screenshots_stays_lazy_and_blind(full_rows, monkeypatch):
    from agenthorizon.data import screenshots as screenshots_module
    from agenthorizon.judging.blind_screenshots import BlindScreenshots

    row = next(r for r in full_rows if sum(p is not None for p in r["screenshots"].paths) >= 3)
    screenshots = build_judge_input(row).screenshots
    opened = []
    real_open = screenshots_module.open_image
    monkeypatch.setattr(screenshots_module, "open_image", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    part = screenshots[1:3]
    assert isinstance(part, BlindScreenshots) and len(part) == 2 and opened == []  # a slice decodes nothing
    assert part.read_bytes(0) == screenshots.read_bytes(1)
    assert part[0].size == screenshots[1].size and len(opened) == 2  # indexing decodes, one image each
    assert not hasattr(part, "paths")


def test_rendered_prompts_add_no_hidden_value(full_rows):
    for row in full_rows:
        judge_input = build_judge_input(row)
        ids, words = secret_values(row)
        for template in (DIRECT_PROMPT, COMMAND_PROMPT):
            prompt = render_prompt(template, judge_input)
            assert_no_ids(prompt, ids, "prompt")
            for word in words:
                # The rubric names the mistake types; filling it in must add none.
                assert prompt.count(word) == template.count(word), f"prompt: {word!r} added"


def test_blind_and_full_rows_give_the_same_input(tiny_root, full_rows):
    blind = agenthorizon.load_dataset(tiny_root, "all", split="test", images="lazy", blind=True)
    assert not set(HIDDEN_FIELDS) & set(blind.column_names)
    by_id = {row["trajectory_id"]: row for row in full_rows}
    for row in blind:
        from_blind, from_full = build_judge_input(row), build_judge_input(by_id[row["trajectory_id"]])
        assert from_blind == from_full
        assert from_blind.trajectory_json() == from_full.trajectory_json()


def hidden_values(reference, blind_row):
    """The ids and words a blind row must not show: every hidden field's value (``schema.HIDDEN_FIELDS``).

    ``reference`` is the item's label row (``load_references``: the seven label
    fields, ``difficulty``, ``pair_group_id``, ``in_dev``). A word that is
    genuinely part of the recording (an instruction about "negative numbers",
    a "child" folder) is content, not a leak; ids are searched everywhere.
    """
    ids = {reference[name] for name in ID_FIELDS if reference[name]}
    words = {reference["label"], reference["difficulty"], *LABEL_VALUES, *MISTAKE_TYPES, *SOURCE_VALUES}
    words |= {reference[name] for name in ("mistake_type", "instruction_source", "steps_source") if reference[name]}
    words.add("Misunderstanding of the Instruction")
    content = (blind_row["instruction"] + blind_row["markdown"] + json.dumps(blind_row["steps"], default=str)).lower()
    return ids, {word for word in words if word.lower() not in content}


def deep_walk(value, path, seen=None, every_image=True):
    """Yield (path, key_or_None, text) for everything a notebook user or a judge reaches from ``value``.

    Beyond :func:`walk`: the screenshot objects' ``repr``, ``str``, every
    attribute (public ones and their own private slots), what they pickle
    to, a slice of them and each screenshot they decode (the first and last
    only, unless ``every_image``); each decoded image's ``repr``, ``str`` and
    every public attribute (``filename``, ``info``, ...).
    """
    seen = {} if seen is None else seen  # id -> object, kept alive so that no id is reused during the walk
    if isinstance(value, str):
        yield path, None, value
    elif isinstance(value, (BlindScreenshots, LazyScreenshots)):
        if id(value) in seen:
            return
        seen[id(value)] = value
        yield path, None, repr(value)
        yield path, None, str(value)
        yield f"pickle.dumps({path})", None, pickle.dumps(value).decode("latin-1")
        for name in dir(value):
            if name.startswith("__") and not name.startswith(f"_{type(value).__name__}__"):
                continue  # Python's own machinery; the object's mangled slots are walked
            attribute = getattr(value, name)
            if callable(attribute):
                yield f"{path}.{name}", None, repr(attribute)
            else:
                yield from deep_walk(attribute, f"{path}.{name}", seen)
        if path.endswith("[1:]"):
            return  # a slice is the same kind of object over the same screenshots: its images are walked once
        yield from deep_walk(value[1:], f"{path}[1:]", seen)
        indices = range(len(value)) if every_image else sorted({0, len(value) - 1} & set(range(len(value))))
        for index in indices:
            yield from deep_walk(value[index], f"{path}[{index}]", seen)
    elif isinstance(value, Image.Image):
        yield path, None, repr(value)
        yield path, None, str(value)
        for name in _image_attributes(value):
            yield from deep_walk(getattr(value, name), f"{path}.{name}", seen)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield path, key, None
            yield from deep_walk(item, f"{path}[{key!r}]", seen)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from deep_walk(item, f"{path}[{index}]", seen)
    elif hasattr(value, "tolist"):  # numpy arrays and scalars, from pandas
        yield from deep_walk(value.tolist(), path, seen)
    elif isinstance(value, bytes):
        yield path, None, value.decode("latin-1")
    elif value is not None and not isinstance(value, (bool, int, float)):
        yield path, None, repr(value)


_IMAGE_ATTRIBUTES: dict[type, list[str]] = {}


def _image_attributes(image):
    """The public data attributes of a decoded image (``filename``, ``info``, ``size``...), found once per class."""
    names = _IMAGE_ATTRIBUTES.get(type(image))
    if names is None:
        names = [name for name in dir(image) if not name.startswith("_") and not callable(getattr(image, name))]
        _IMAGE_ATTRIBUTES[type(image)] = names
    return names


def assert_blind(value, ids, words, where, every_image=True):
    """Fail on any hidden field name, id or word reachable from ``value`` (see :func:`deep_walk`)."""
    for path, key, text in deep_walk(value, where, every_image=every_image):
        assert key not in HIDDEN_FIELDS, f"{path}: hidden field {key!r} in a blind row"
        if text is not None:
            assert_no_ids(text, ids, path)
            for word in words:
                assert word.lower() not in text.lower(), f"{path}: hidden value {word!r} leaked"


@pytest.fixture(scope="module", params=["tiny", "small"])
def sample_root(request):
    return request.getfixturevalue(f"{request.param}_root")


@pytest.mark.parametrize("images", ["lazy", "paths"])
@pytest.mark.parametrize("config", CONFIG_NAMES)
@pytest.mark.slow
def test_a_blind_row_shows_no_hidden_value_anywhere(sample_root, config, images):
    """Every value of every blind row, screenshots included, walked to its strings: no hidden value.

    The screenshots are walked as deep as a notebook reaches: their repr,
    attributes, private slots, pickle, slices and every decoded image. Their
    paths are blind names, under the trajectory id as a judge's sandbox lays
    them out, and read the real files.
    """
    blind = agenthorizon.load_dataset(sample_root, config, split="test", images=images, blind=True)
    references = {row["trajectory_id"]: row for row in load_references(sample_root, config)}
    assert len(blind) == len(references) > 0 and not set(HIDDEN_FIELDS) & set(blind.column_names)
    root = str(sample_root)
    checked = 0
    for row in blind:
        reference = references[row["trajectory_id"]]
        ids, words = hidden_values(reference, row)
        assert reference["steps_id"] in _real_markdown(sample_root, row["trajectory_id"])  # so the walk can fail
        for column, value in row.items():
            # Each screenshot of each item is decoded and walked in "all"; elsewhere the first and last.
            assert_blind(value, ids, words, column, every_image=config == CONFIG_ALL)
        # Every path a blind row offers is the blind name, and the same in both columns.
        folder = f"{root}/{IMAGES_DIR}/{row['trajectory_id']}/"
        names = row["screenshots"] if images == "paths" else _stored_names(row["screenshots"])
        assert names == [step["screenshot"] for step in row["steps"]]
        assert all(name is None or (name.startswith(folder) and "/" not in name[len(folder):]) for name in names)
        if images == "lazy":
            screens = row["screenshots"]
            assert isinstance(screens, BlindScreenshots) and not hasattr(screens, "paths")
            assert build_judge_input(row).screenshots is screens
            checked += len(screens.present)
    assert checked or images == "paths"


def _real_markdown(root, trajectory_id):
    return (Path(root) / "sandbox/data/markdowns" / f"{trajectory_id}.md").read_text(encoding="utf-8")


def _stored_names(screens):
    """The blind names a BlindScreenshots holds (what it pickles), without reaching into it by name."""
    _cls, (sources, _trajectory_id) = screens.__reduce__()
    return list(sources)


@pytest.mark.slow
def test_every_datasets_route_to_a_blind_dataset_is_blind(tiny_root):
    """Rows, slices, batches, columns, other formats, pandas, dicts, pickles: no steps id by any route."""
    blind = agenthorizon.load_dataset(tiny_root, "all", split="test", blind=True)
    references = load_references(tiny_root, "all")
    ids = {row[name] for row in references for name in ID_FIELDS if row[name]}
    words = set(MISTAKE_TYPES) | {"Misunderstanding of the Instruction"}  # the labels' own texts, in no row's content
    routes = {
        "ds[0]": blind[0],
        "ds[:3]": blind[:3],
        "ds.iter(batch_size=2)": list(blind.iter(batch_size=2)),
        "ds['screenshots']": list(blind["screenshots"]),
        "ds[1:4]['screenshots']": blind[1:4]["screenshots"],
        "with_format(None)": list(blind.with_format(None)),
        "with_format('numpy')": blind.with_format("numpy")[:],
        "with_format('arrow')": blind.with_format("arrow")[:].to_pylist(),
        "to_pandas": blind.to_pandas().to_dict("records"),
        "to_dict": blind.to_dict(),
        "to_list": blind.to_list(),
        "pickle.dumps(ds[0])": pickle.dumps(blind[0]),
        "pickle.dumps(ds)": pickle.dumps(blind.select(range(3))),
        "dir(ds[0]['screenshots'])": dir(blind[0]["screenshots"]),
    }
    other = blind.with_format(None)
    other.set_format("agenthorizon-blind")  # set_format as a user would, on the same blind cache
    routes["set_format('agenthorizon-blind')"] = list(other)
    for where, value in routes.items():
        assert_blind(value, ids, words, where)
    assert pickle.loads(pickle.dumps(blind[0])) == blind[0]
    # The column of the Arrow cache itself holds blind names.
    stored = blind.data.column("screenshots").to_pylist()
    assert_blind(stored, ids, words, "Arrow column")


def test_blind_screenshots_read_the_real_files_one_at_a_time(tiny_root, full_rows, monkeypatch):
    from agenthorizon.data import screenshots as screenshots_module

    blind = agenthorizon.load_dataset(tiny_root, "all", split="test", blind=True)
    by_id = {row["trajectory_id"]: row for row in full_rows}
    decoded = []
    real_open = screenshots_module.open_image
    monkeypatch.setattr(screenshots_module, "open_image", lambda *a, **k: decoded.append(k.get("name")) or real_open(*a, **k))
    row = next(r for r in blind if len(r["screenshots"].present) >= 3)
    full = by_id[row["trajectory_id"]]
    screens = row["screenshots"]
    assert decoded == []  # reading the row decoded nothing
    for index in screens.present[:3]:
        image = screens[index]
        step = row["steps"][index]["step_id"]
        assert decoded[-1] == (
            f"trajectory {row['trajectory_id']}, step {step} "
            f"(data/media/images/{row['trajectory_id']}/step_{step + 1}.png)"
        )  # one decode per index, named by trajectory and step
        real = full["screenshots"].paths[index]
        assert screens.read_bytes(index) == Path(real).read_bytes()
        assert image.tobytes() == full["screenshots"][index].tobytes() and not image.filename
        decoded.pop()  # the full row's decode, by its path
    assert len(decoded) == 3
    part = screens[1:]
    assert isinstance(part, BlindScreenshots) and len(decoded) == 3  # a slice decodes nothing
    assert part.read_bytes(0) == screens.read_bytes(1)


def test_blindness_is_per_item_two_rows_compare_by_content(tiny_root):
    """A positive and a negative of one recording still show the same screenshots (docs/data.md)."""
    blind = {row["trajectory_id"]: row for row in agenthorizon.load_dataset(tiny_root, "all", split="test", blind=True)}
    references = load_references(tiny_root, "all")
    by_steps = {}
    for reference in references:
        by_steps.setdefault(reference["steps_id"], []).append(reference["trajectory_id"])
    first, second = next(ids for ids in by_steps.values() if len(ids) >= 2)[:2]
    a, b = blind[first]["screenshots"], blind[second]["screenshots"]
    index = a.present[0]
    assert a.read_bytes(index) == b.read_bytes(index)  # same recording, same pixels
    assert a != b and repr(a) == repr(b)  # but nothing in either names the other or the shared folder


def test_a_missing_screenshot_names_the_item_and_step_not_the_folder(tiny_copy):
    from agenthorizon.data.images import ScreenshotNotFoundError

    full = agenthorizon.load_dataset(tiny_copy, "all", split="test")
    row = next(r for r in full if sum(p is not None for p in r["screenshots"].paths) >= 2)
    index = next(i for i, p in enumerate(row["screenshots"].paths) if p is not None)
    Path(row["screenshots"].paths[index]).unlink()
    trajectory_id, steps_id = row["trajectory_id"], row["steps_id"]
    step = row["steps"][index]["step_id"]
    blind_row = next(r for r in agenthorizon.load_dataset(tiny_copy, "all", split="test", blind=True)
                     if r["trajectory_id"] == trajectory_id)
    paths_row = next(r for r in agenthorizon.load_dataset(tiny_copy, "all", split="test", blind=True, images="paths")
                     if r["trajectory_id"] == trajectory_id)
    screens = blind_row["screenshots"]
    reads = {
        "screens[k]": lambda: screens[index],
        "read_bytes": lambda: screens.read_bytes(index),
        "prepare": lambda: screens.prepare(use_cache=False),
        "iteration": lambda: list(screens),
        "a judge input of an images='paths' row": lambda: build_judge_input(paths_row).screenshots[index],
    }
    for where, read in reads.items():
        with pytest.raises(ScreenshotNotFoundError) as caught:
            read()
        message = str(caught.value)
        assert f"trajectory {trajectory_id}, step {step}" in message, f"{where}: {message}"
        assert f"data/media/images/{trajectory_id}/step_{step + 1}.png" in message, where
        shown = "".join(traceback.format_exception(caught.value))
        assert steps_id not in shown and str(tiny_copy) not in shown, f"{where}: {shown}"
        assert caught.value.__context__ is None and caught.value.__cause__ is None, where
    assert screens[index + 1] is not None or not screens.has(index + 1)  # only the missing one fails


def test_eager_blind_rows_are_refused_with_the_way_out(tiny_root):
    # datasets' Image feature opens files by the stored path, which a blind row does not have.
    with pytest.raises(ValueError, match=r"images='eager' with blind=True.*images='lazy'"):
        agenthorizon.load_dataset(tiny_root, "AH", split="test", images="eager", blind=True)


def test_blind_and_full_rows_show_the_same_markdown_and_steps(tiny_root, full_rows):
    blind = agenthorizon.load_dataset(tiny_root, "all", split="test", blind=True)
    by_id = {row["trajectory_id"]: row for row in full_rows}
    for row in blind:
        full = by_id[row["trajectory_id"]]
        assert full["steps_id"] in full["markdown"]  # the full row does carry it
        judged = build_judge_input(full)
        # Re-pointed the way judge inputs are.
        assert row["markdown"] == judged.markdown
        for step, judged_step in zip(row["steps"], judged.steps):
            if judged_step["screenshot"] is not None:
                assert step["screenshot"].endswith(judged_step["screenshot"].removeprefix("../"))
        assert row["screenshots"].present == judged.screenshots.present


def test_hidden_keys_nested_anywhere_are_stripped(full_rows):
    row = dict(full_rows[0])
    steps = [dict(step) for step in row["steps"]]
    parameters = json.loads(steps[0]["parameters"])
    parameters.update({"label": "positive", "meta": {"mistake_type": "Bad Side Effect", "ok": 1}})
    steps[0]["parameters"] = json.dumps(parameters)
    row["steps"] = steps
    row["secret_extra_field"] = "gold answer"  # not whitelisted: must not travel
    judge_input = build_judge_input(row)
    got = judge_input.steps[0]["action"]["parameters"]
    assert "label" not in got and got["meta"] == {"ok": 1}
    assert "gold answer" not in repr(judge_input)
    assert strip_hidden([{"in_dev": True, "x": ({"difficulty": "hard"},)}]) == [{"x": ({},)}]


def test_bad_rows_are_named_in_the_error():
    with pytest.raises(ValueError, match="trajectory_id"):
        build_judge_input({"instruction": "x"})
    with pytest.raises(ValueError, match="trajectory abc: field 'steps'"):
        build_judge_input({"trajectory_id": "abc", "instruction": "x", "steps": None})
    with pytest.raises(ValueError, match="trajectory abc, step 0: step parameters are not valid JSON"):
        build_judge_input({"trajectory_id": "abc", "instruction": "x",
                           "steps": [{"step_id": 0, "action_type": "click", "parameters": "{oops"}]})


def _stub_server():
    from loopback import StubServer

    return StubServer()


@pytest.mark.slow
def test_http_payload_and_command_sandbox_carry_no_hidden_value(full_rows, tiny_root, tmp_path, monkeypatch):
    server = _stub_server()
    monkeypatch.setenv("AH_BLIND_KEY", "sk-blind-test")
    try:
        judge = OpenAICompatibleJudge.from_options("m", base_url=server.base_url, api_key_env="AH_BLIND_KEY", image_budget=3,
                                      cache_dir=str(tmp_path / "cache"), backoff_base=0.01)
        for row in full_rows[:6]:
            judge.judge(build_judge_input(row))
        for request, row in zip(server.requests, full_rows[:6]):
            payload = json.dumps(request["body"])
            ids, words = secret_values(row)
            assert_no_ids(payload, ids, "HTTP payload")
            for word in words:
                assert payload.count(word) == json.dumps(DIRECT_PROMPT).count(word)
            assert "/media/images/" not in payload.replace(f"/media/images/{row['trajectory_id']}/", "")
    finally:
        server.close()

    # The command judge: a script records everything it can see.
    script = tmp_path / "spy.py"
    script.write_text(
        "import json, os, sys\n"
        "seen = {'stdin': sys.stdin.read(), 'files': {}}\n"
        "for d, _, fs in os.walk('.'):\n"
        "    for f in fs:\n"
        "        p = os.path.join(d, f)\n"
        "        seen['files'][p] = open(p, 'rb').read().decode('latin-1')\n"
        "        seen.setdefault('links', []).append(os.path.realpath(p))\n"
        "json.dump(seen, open(os.environ['SPY_OUT'], 'w'))\n"
        "print('{\"success\": true}')\n"
    )
    (tmp_path / "spy").mkdir()  # passed into the sandbox the way a harness's config folder is
    (tmp_path / "spy").chmod(0o777)  # writable by the agent, which runs as nobody when the tests run as root
    spy_out = tmp_path / "spy" / "seen.json"
    judge = CommandJudge([sys.executable, str(script)], env={"SPY_OUT": str(spy_out)}, config_dirs=[str(tmp_path / "spy")])
    judge.bind_release(tiny_root)  # as the runner does: the release's framework files join each directory
    framework = {name: text for name, text in framework_files(judge.release).items()}
    for row in full_rows:
        judge.judge(build_judge_input(row))
        seen = json.loads(spy_out.read_text())
        ids, words = secret_values(row)
        everything = seen["stdin"] + json.dumps(sorted(seen["files"])) + "".join(seen["files"].values())
        assert_no_ids(everything, ids, "command sandbox")
        assert_no_ids(json.dumps(seen.get("links", [])), ids, "command sandbox link targets")
        item_files = {name: text for name, text in seen["files"].items() if name.startswith("./data/")}
        # The framework files are the release's public judge texts, the same for every item
        # (they name the mistake types, as any judge prompt does); nothing else joins the item's files.
        assert {name[2:]: text for name, text in seen["files"].items() if name not in item_files} == framework
        for word in words:
            assert seen["stdin"].count(word) == COMMAND_PROMPT.count(word)
            assert not any(word in text for text in item_files.values())
        assert not any(Path(name).name in LABEL_FILES for name in seen["files"])
        assert all(row["trajectory_id"] in name for name in item_files)  # only this item's files


def test_judge_input_is_frozen(full_rows):
    judge_input = build_judge_input(full_rows[0])
    assert isinstance(judge_input, JudgeInput)
    with pytest.raises(dataclasses.FrozenInstanceError):
        judge_input.instruction = "other"  # type: ignore[misc]


def test_ids_in_parameter_values_and_other_image_spellings_are_hidden(full_rows):
    row = dict(full_rows[0])
    steps_id, tid = row["steps_id"], row["trajectory_id"]
    steps = [dict(step) for step in row["steps"]]
    steps[0]["parameters"] = json.dumps({"text": f"notes for {steps_id}", "nested": [{"path": f"/x/{steps_id}/a"}]})
    row["steps"] = steps
    judge_input = build_judge_input(row)
    ids, _ = secret_values(row)
    for path, _key, text in [*walk(judge_input), *walk(list(judge_input.steps), "input.steps")]:
        if text is not None:
            assert_no_ids(text, ids, path)
    assert judge_input.steps[0]["action"]["parameters"]["text"] == f"notes for {tid}"

    # A blind row knows no ids: the image folder goes by its place in the path, however spelt.
    blind = {k: v for k, v in row.items() if k not in HIDDEN_FIELDS}
    blind["steps"] = [dict(step, parameters="{}") for step in steps]
    blind["markdown"] = (
        f'<img src="media/images/{steps_id}/step_1.png"> ![s](../media/images/{steps_id}/step_2.png) '
        f"C:\\data\\media\\images\\{steps_id}\\step_3.png"
    )
    markdown = build_judge_input(blind).markdown
    assert steps_id not in markdown
    assert markdown.count(f"images/{tid}/step_") == 2 and f"images\\{tid}\\step_3.png" in markdown


def test_an_id_spelt_with_json_escapes_in_parameters_is_hidden(full_rows):
    # The id check searches the parameters' JSON text; an escape there must not hide an id from it.
    row = dict(full_rows[0])
    steps_id, tid = row["steps_id"], row["trajectory_id"]
    escaped = "".join(f"\\u{ord(char):04x}" for char in steps_id)
    steps = [dict(step) for step in row["steps"]]
    steps[-1]["parameters"] = '{"text": "see ' + escaped + '"}'
    row["steps"] = steps
    judge_input = build_judge_input(row)
    assert judge_input.steps[-1]["action"]["parameters"] == {"text": f"see {tid}"}
    assert all(steps_id not in json.dumps(step, ensure_ascii=False) for step in judge_input.steps)


def test_a_hidden_key_in_flat_parameters_is_stripped_however_spelt(full_rows):
    # Flat parameters (no nested object) are checked key by key after decoding; a
    # brace inside a string makes the check fall back to searching the text.
    escaped_label = "".join(f"\\u{ord(char):04x}" for char in "label")
    cases = [
        ('{"x": 1, "label": "positive"}', {"x": 1}),
        ('{"' + escaped_label + '": "negative", "y": 2}', {"y": 2}),
        ('{"text": "{ not an object", "mistake_type": "Bad Side Effect"}', {"text": "{ not an object"}),
    ]
    for text, expected in cases:
        row = dict(full_rows[0])
        row["steps"] = [dict(step) for step in row["steps"]]
        row["steps"][1]["parameters"] = text
        assert build_judge_input(row).steps[1]["action"]["parameters"] == expected, text
