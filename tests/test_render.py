"""Release-exact Markdown rendering: golden files and the sample corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenthorizon.release.render import action_string, timestamp_ms, to_markdown
from agenthorizon.schema import JSONS_DIR, MARKDOWNS_DIR

GOLDEN = Path(__file__).parent / "golden"
GOLDEN_CASES = sorted(path.stem for path in GOLDEN.glob("*.json"))


def test_golden_cases_exist():
    # every_action: each action type, missing values, long and 80-character
    # text, steps without screenshot or timestamp, an unknown type, half-even ms
    assert {"every_action", "no_steps"} <= set(GOLDEN_CASES)


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
        ({"type": "click"}, "?-click (?, ?)"),
        ({}, "?"),
        (None, "?"),
    ],
)
def test_action_string(action, expected):
    assert action_string(action) == expected


@pytest.mark.parametrize(
    ("timestamp_us", "expected"),
    [(0, 0), (499, 0), (500, 0), (1500, 2), (2500, 2), (2501, 3), (10**18 + 500, 10**15), (1500.0, 2), (1499.9, 1)],
)
def test_timestamp_rounds_half_to_even(timestamp_us, expected):
    assert timestamp_ms(timestamp_us) == expected


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
