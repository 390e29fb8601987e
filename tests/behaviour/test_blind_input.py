"""THE blind-record test: no label, pairing or mistake-type information reaches a judge.

Inputs are built from *full* rows of the tiny corpus (every hidden field
present), then searched for hidden field names and hidden values: in the
JudgeInput itself, its repr, the rendered prompts, the HTTP payload an
OpenAI-compatible server receives, and the working directory and stdin of a
command judge.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.judging.inputs import BlindScreenshots, JudgeInput, build_judge_input, strip_hidden
from agenthorizon.judging.judges import CommandJudge, OpenAICompatibleJudge
from agenthorizon.judging.judges.release_prompt import framework_files
from agenthorizon.judging.judges.prompts import COMMAND_PROMPT, DIRECT_PROMPT, render_prompt
from agenthorizon.schema import HIDDEN_FIELDS, LABEL_FILES, LABEL_VALUES, MISTAKE_TYPES

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
    """Yield (path, key_or_None, string) for every key and string reachable in ``value``."""
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
    from agenthorizon.judging.blind_screenshots import BlindScreenshots
    from agenthorizon.data import images

    row = next(r for r in full_rows if sum(p is not None for p in r["screenshots"].paths) >= 3)
    screenshots = build_judge_input(row).screenshots
    opened = []
    real_open = images.open_image
    monkeypatch.setattr(images, "open_image", lambda *a, **k: opened.append(a) or real_open(*a, **k))
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


@pytest.mark.parametrize("images", ["lazy", "paths"])
def test_a_blind_row_shows_no_hidden_value_in_any_column(tiny_root, full_rows, images):
    """Every column of every blind row, walked to its strings: no hidden id, no label text.

    The one exception is the real file location of each screenshot (the
    ``screenshots`` column's paths), which a program needs to read the file;
    decoded blind screenshots carry no file name.
    """
    blind = agenthorizon.load_dataset(tiny_root, "all", split="test", images=images, blind=True)
    by_id = {row["trajectory_id"]: row for row in full_rows}
    checked_images = 0
    for row in blind:
        assert set(row) == set(blind.column_names) and not set(HIDDEN_FIELDS) & set(row)
        full = by_id[row["trajectory_id"]]
        ids, words = secret_values(full)
        assert full["steps_id"] in full["markdown"]  # the full row does carry it: the walk can fail
        for column, value in row.items():
            if column == "screenshots":
                if images == "lazy":
                    present = [i for i, p in enumerate(value.paths) if p is not None]
                    if present:
                        image = value[present[0]]
                        assert not getattr(image, "filename", ""), "a blind screenshot shows its file name"
                        checked_images += 1
                    assert_no_ids(repr(value), ids, f"{column} repr")
                continue
            for path, key, text in walk(value, column):
                assert key not in HIDDEN_FIELDS, f"{path}: hidden field {key!r} in a blind row"
                if text is not None:
                    assert_no_ids(text, ids, path)
                    for word in words:
                        assert word.lower() not in text.lower(), f"{path}: label text {word!r} leaked"
        # Re-pointed the way judge inputs are.
        assert row["markdown"] == build_judge_input(full).markdown
        for step, judged in zip(row["steps"], build_judge_input(full).steps):
            if judged["screenshot"] is not None:
                assert step["screenshot"].endswith(judged["screenshot"].removeprefix("../"))
    assert checked_images or images == "paths"
    # Blind rows are written blind: a column read, another format or pandas shows no steps id either.
    steps_ids = {row["steps_id"] for row in full_rows}
    for texts in (list(blind["markdown"]), list(blind.with_format(None)["markdown"]), blind.to_pandas()["markdown"]):
        assert not any(steps_id in text for text in texts for steps_id in steps_ids)


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


def test_http_payload_and_command_sandbox_carry_no_hidden_value(full_rows, tiny_root, tmp_path, monkeypatch):
    server = _stub_server()
    monkeypatch.setenv("AH_BLIND_KEY", "sk-blind-test")
    try:
        judge = OpenAICompatibleJudge("m", base_url=server.base_url, api_key_env="AH_BLIND_KEY", image_budget=3,
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
