"""Release-exact Markdown rendering: golden files and the sample corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenthorizon.release.render import action_string, timestamp_ms, to_markdown
from agenthorizon.schema import JSONS_DIR, MARKDOWNS_DIR

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
GOLDEN_CASES = sorted(path.stem for path in GOLDEN.glob("*.json"))


def test_golden_cases_exist():
    # One golden pair per rule of SPEC "Trajectory Markdown":
    # every_action: each action type, long and 80-character text, steps without
    #   screenshot or timestamp, unknown types;
    # goal_and_step_ids: instruction stripped, step without id (`?`) or with a null
    #   one, image line only for a non-empty screenshot;
    # no_instruction: the goal is an empty line;
    # click_buttons: right-click only for "right", x{n} only when num_clicks > 1;
    # absent_and_null: `type ""`, `press `, `hotkey `, `unknown`, absent `?` vs null `None`;
    # timestamps: format(int(us) / 1000, ".0f"), null and missing timestamps;
    # beyond_the_release: inputs the release's renderer fails on, rendered sensibly.
    assert {
        "every_action", "no_steps", "goal_and_step_ids", "no_instruction", "click_buttons",
        "absent_and_null", "timestamps", "beyond_the_release",
    } <= set(GOLDEN_CASES)


@pytest.mark.parametrize("name", GOLDEN_CASES)
def test_golden_markdown_byte_for_byte(name):
    trajectory = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    expected = (GOLDEN / f"{name}.md").read_bytes()
    assert to_markdown(trajectory).encode("utf-8") == expected


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ({"type": "click", "parameters": {"x": 1, "y": 2, "button": "left"}}, "left-click (1, 2)"),
        ({"type": "click", "parameters": {"x": 1, "y": 2, "button": "right", "num_clicks": 3}}, "right-click (1, 2) x3"),
        ({"type": "click", "parameters": {"x": 1, "y": 2, "button": "left", "num_clicks": True}}, "left-click (1, 2)"),
        ({"type": "type", "parameters": {"text": "x" * 80}}, 'type "' + "x" * 80 + '"'),
        ({"type": "type", "parameters": {"text": "x" * 81}}, 'type "' + "x" * 77 + '..."'),
        ({"type": "press", "parameters": {"keys": ["tab"]}}, "press tab"),
        ({"type": "hotkey", "parameters": {"keys": ["command", "s"]}}, "hotkey command+s"),
        ({"type": "scroll", "parameters": {"x": 1.5, "y": 2, "direction": "up", "amount": 100}}, "scroll up 100px at (1.5, 2)"),
        ({"type": "drag", "parameters": {"start_x": 1, "start_y": 2, "end_x": 3, "end_y": 4}}, "drag (1, 2) -> (3, 4)"),
        ({"type": "move", "parameters": {"x": 1, "y": 2}}, "move"),
        ({"type": "wait", "parameters": {"duration_s": 2}}, "wait"),
        ({"type": "key_down", "parameters": {"key": "alt"}}, "keydown alt"),
        ({"type": "key_up", "parameters": {}}, "keyup ?"),
        ({"type": "open_url", "parameters": {"url": "https://example.org"}}, "open_url"),
        ({"type": "click"}, "left-click (?, ?)"),
        ({"type": "click", "parameters": {"x": 1, "y": 2, "button": "middle", "num_clicks": 2}}, "left-click (1, 2) x2"),
        ({"type": "click", "parameters": {"x": 1, "y": 2, "button": None}}, "left-click (1, 2)"),
        ({"type": "click", "parameters": {"x": None, "y": 2, "button": "right"}}, "right-click (None, 2)"),
        ({"type": "type", "parameters": {}}, 'type ""'),
        ({"type": "type", "parameters": {"text": None}}, 'type "?"'),
        ({"type": "press", "parameters": {}}, "press "),
        ({"type": "hotkey"}, "hotkey "),
        ({"type": "press", "parameters": {"keys": None}}, "press ?"),
        ({"type": "hotkey", "parameters": {"keys": "ctrl"}}, "hotkey ctrl"),
        ({"type": "scroll", "parameters": {"direction": None, "amount": 5}}, "scroll None 5px at (?, ?)"),
        ({"type": "key_down", "parameters": {"key": None}}, "keydown None"),
        ({"type": None}, "None"),
        ({}, "unknown"),
        (None, "unknown"),
    ],
)
def test_action_string(action, expected):
    assert action_string(action) == expected


@pytest.mark.parametrize(
    ("timestamp_us", "expected"),
    [
        (0, "0"), (499, "0"), (500, "0"), (1500, "2"), (2500, "2"), (2501, "3"), (10**18 + 500, "1000000000000000"),
        (1500.0, "2"), (1499.9, "1"), (2500.9, "2"), ("2500", "2"), (-500, "-0"),
        # above 2**53 us the float division is inexact, as in the release's files
        (9_007_199_254_740_993_001, "9007199254740994"),
    ],
)
def test_timestamp_is_int_then_float_division_rounded_half_to_even(timestamp_us, expected):
    assert timestamp_ms(timestamp_us) == expected


@pytest.mark.parametrize("timestamp_us", ["soon", float("nan"), float("inf"), [1500]])
def test_timestamp_int_cannot_read_is_an_error(timestamp_us):
    with pytest.raises(ValueError, match="expected a number of microseconds"):
        timestamp_ms(timestamp_us)


@pytest.mark.parametrize(
    ("task", "goal"),
    [({"instruction": " \n Do it.\t"}, "Do it."), ({}, ""), ({"instruction": None}, ""), ({"instruction": 42}, "42")],
)
def test_goal_is_the_stripped_instruction_or_an_empty_line(task, goal):
    markdown = to_markdown({"task": task, "steps": []})
    assert markdown.split("\n")[4] == goal
    assert markdown.startswith(f"# Trajectory Report\n\n## Goal\n\n{goal}\n\n## Steps\n\n")


def test_missing_screenshot_and_timestamp_lines_are_omitted():
    markdown = to_markdown({"task": {"instruction": "Do it."}, "steps": [
        {"step_id": 0, "action": {"type": "wait", "parameters": {}}},
    ]})
    assert "![" not in markdown and "**Timestamp:**" not in markdown
    assert markdown.endswith("### Step 0\n\n**Action:** `wait`\n")


@pytest.mark.parametrize(
    ("trajectory", "message"),
    [
        ({"trajectory_id": "t1", "task": {}, "steps": {}}, "t1: 'steps' is dict"),
        ({"trajectory_id": "t2", "task": [], "steps": []}, "t2: 'task' is list"),
        ({"trajectory_id": "t3", "task": {}, "steps": [3]}, "t3: step 0 is int"),
        ({"trajectory_id": "t4", "task": {}, "steps": [{"step_id": 0, "timestamp_us": "soon"}]}, "t4: step 0: timestamp_us"),
        ({"trajectory_id": "t5", "task": {}, "steps": [{}, {"timestamp_us": [1]}]}, "t5: step 1: timestamp_us"),
    ],
)
def test_malformed_trajectory_names_it(trajectory, message):
    with pytest.raises(ValueError, match=message):
        to_markdown(trajectory)


def test_every_sample_markdown_equals_rendering_of_its_json(tiny_root: Path):
    jsons = sorted((tiny_root / JSONS_DIR).glob("*.json"))
    assert jsons
    for path in jsons:
        trajectory = json.loads(path.read_text(encoding="utf-8"))
        markdown = (tiny_root / MARKDOWNS_DIR / f"{path.stem}.md").read_text(encoding="utf-8")
        assert markdown == to_markdown(trajectory), path.name
        # the Markdown's image lines are exactly the steps that have a screenshot
        assert markdown.count("![Step ") == sum("screenshot" in step for step in trajectory["steps"])


def test_docs_rendering_example_prints_what_the_docs_show(capsys):
    # docs/data.md "Trajectory Markdown": the snippet runs and prints exactly the block after it
    import re

    page = (Path(__file__).resolve().parents[2] / "docs" / "data.md").read_text(encoding="utf-8")
    section = page.split("\n## Trajectory Markdown\n", 1)[1]
    code, shown = re.findall(r"```(?:python)?\n(.*?)```", section, re.S)[:2]  # the section's first two blocks
    exec(compile(code, "docs/data.md", "exec"), {})
    assert capsys.readouterr().out == shown
