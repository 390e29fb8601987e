"""Trajectory JSON -> the release's Markdown (``sandbox/data/markdowns/<id>.md``), byte for byte.

The rules are SPEC section "Trajectory Markdown"; inputs the SPEC has no rule
for are rendered as docs/architecture.md ("Design notes by module") lists.
Pure logic: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MISSING = "?"
"""What an absent parameter (or step id) renders as."""

UNKNOWN_ACTION = "unknown"
"""What an action without a ``type`` renders as."""

TYPE_TEXT_LIMIT = 80
"""Typed text longer than this is cut to ``TYPE_TEXT_LIMIT - 3`` characters plus ``...``."""

_ELLIPSIS = "..."
_RIGHT_BUTTON = "right"


def _value(parameters: Mapping[str, Any], name: str) -> str:
    # absent -> "?", present -> str(value), so a null value prints as "None"
    return str(parameters[name]) if name in parameters else MISSING


def _point(parameters: Mapping[str, Any], x: str = "x", y: str = "y") -> str:
    return f"({_value(parameters, x)}, {_value(parameters, y)})"


def _keys(parameters: Mapping[str, Any], separator: str) -> str:
    if "keys" not in parameters:
        return ""
    keys = parameters["keys"]
    if keys is None:
        return MISSING  # outside the SPEC's rules (the release's renderer fails); see the module docstring
    if isinstance(keys, (list, tuple)):
        return separator.join(MISSING if key is None else str(key) for key in keys)
    return str(keys)  # a single key given as a string: print it as is


def _cut(text: str) -> str:
    if len(text) > TYPE_TEXT_LIMIT:
        return text[: TYPE_TEXT_LIMIT - len(_ELLIPSIS)] + _ELLIPSIS
    return text


def _click(parameters: Mapping[str, Any]) -> str:
    button = "right" if parameters.get("button") == _RIGHT_BUTTON else "left"
    text = f"{button}-click {_point(parameters)}"
    clicks = parameters.get("num_clicks")
    # bool is an int subclass; True is not a click count
    if isinstance(clicks, (int, float)) and not isinstance(clicks, bool) and clicks > 1:
        text += f" x{clicks}"
    return text


def _typed(parameters: Mapping[str, Any]) -> str:
    text = parameters.get("text", "")
    return f'type "{MISSING if text is None else _cut(str(text))}"'


def action_string(action: Mapping[str, Any] | None) -> str:
    """The one-line description of an action: the text between backticks on a step's ``**Action:**`` line.

    ========== ==================================================
    type       string
    ========== ==================================================
    click      ``right-click (x, y)`` when ``button`` is ``"right"``, else ``left-click (x, y)``; `` x{n}`` appended when ``num_clicks > 1``
    type       ``type "TEXT"`` (no text: ``type ""``), text over 80 characters cut to 77 + ``...``
    press      ``press k1 k2`` (no keys: ``press `` with nothing after the space)
    hotkey     ``hotkey k1+k2`` (no keys: ``hotkey ``)
    scroll     ``scroll {direction} {amount}px at (x, y)``
    drag       ``drag (sx, sy) -> (ex, ey)``
    key_down   ``keydown K``
    key_up     ``keyup K``
    (none)     ``unknown``
    other      the bare type name (``move``, ``wait``, unknown types)
    ========== ==================================================

    An absent parameter prints as ``?`` (:data:`MISSING`), a null one as ``None``;
    a non-mapping action or ``parameters`` counts as absent. Never raises.

    >>> action_string({"type": "click", "parameters": {"x": 10, "y": 20, "button": "middle"}})
    'left-click (10, 20)'
    >>> action_string({"type": "click", "parameters": {"x": 10, "y": 20, "button": "right", "num_clicks": 2}})
    'right-click (10, 20) x2'
    >>> action_string({"type": "scroll", "parameters": {"x": 5, "y": None, "direction": "down"}})
    'scroll down ?px at (5, None)'
    >>> action_string({"type": "hotkey", "parameters": {"keys": ["ctrl", "s"]}}), action_string({"type": "press"})
    ('hotkey ctrl+s', 'press ')
    >>> action_string({"type": "zoom", "parameters": {"factor": 2}}), action_string({"parameters": {}})
    ('zoom', 'unknown')
    """
    if not isinstance(action, Mapping):
        action = {}  # a null or non-object action: rendered as an action without type
    kind = action.get("type", UNKNOWN_ACTION)
    parameters = action.get("parameters")
    if not isinstance(parameters, Mapping):
        parameters = {}
    if kind == "click":
        return _click(parameters)
    if kind == "type":
        return _typed(parameters)
    if kind == "press":
        return f"press {_keys(parameters, ' ')}"
    if kind == "hotkey":
        return f"hotkey {_keys(parameters, '+')}"
    if kind == "scroll":
        return (
            f"scroll {_value(parameters, 'direction')} {_value(parameters, 'amount')}px "
            f"at {_point(parameters)}"
        )
    if kind == "drag":
        return f"drag {_point(parameters, 'start_x', 'start_y')} -> {_point(parameters, 'end_x', 'end_y')}"
    if kind == "key_down":
        return f"keydown {_value(parameters, 'key')}"
    if kind == "key_up":
        return f"keyup {_value(parameters, 'key')}"
    return str(kind)  # a null type prints as Python prints it: None


def timestamp_ms(timestamp_us: Any) -> str:
    """A step's ``timestamp_us`` as the milliseconds the release prints: ``format(int(t) / 1000, ".0f")``.

    ``int()`` first, then float division, then rounding half to even (above 2**53
    us the division is inexact, as in the release's files). ValueError when
    ``int()`` cannot read the value.

    >>> timestamp_ms(1_718_000_000_123_456), timestamp_ms(1500), timestamp_ms(2500), timestamp_ms(2501)
    ('1718000000123', '2', '2', '3')
    >>> timestamp_ms(2500.9), timestamp_ms(-1500)
    ('2', '-2')
    """
    try:
        whole = int(timestamp_us)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"timestamp_us is {timestamp_us!r}; expected a number of microseconds") from None
    return format(whole / 1000, ".0f")


def _step_lines(step: Mapping[str, Any], actions: bool = True) -> list[str]:
    label = str(step["step_id"]) if "step_id" in step else MISSING
    lines = ["---", f"### Step {label}"]
    screenshot = step.get("screenshot")
    if screenshot:
        lines.append(f"![Step {label} screenshot]({screenshot})")
    if actions:
        lines.append(f"**Action:** `{action_string(step.get('action'))}`")
    timestamp = step.get("timestamp_us")
    if timestamp is not None:
        lines.append(f"**Timestamp:** {timestamp_ms(timestamp)} ms")
    return lines


def _instruction(task: Mapping[str, Any]) -> str:
    instruction = task.get("instruction")
    return "" if instruction is None else str(instruction).strip()


def to_markdown(trajectory: Mapping[str, Any], *, actions: bool = True) -> str:
    """A trajectory JSON object in the release's Markdown layout, ending in exactly one newline.

    Title, goal, step count, then per step a heading, the screenshot reference
    (when non-empty), the :func:`action_string` line and the timestamp (when
    present), blocks separated by one blank line. ``actions=False`` leaves out the
    action lines (the actions ablation of
    :func:`agenthorizon.judging.inputs.build_judge_input`). Raises ValueError
    naming the trajectory (and step) for a malformed ``task``, ``steps``, step or
    timestamp.

    >>> md = to_markdown({"trajectory_id": "t", "task": {"instruction": "Save it."},
    ...     "steps": [{"step_id": 0, "action": {"type": "hotkey", "parameters": {"keys": ["ctrl", "s"]}},
    ...                "timestamp_us": 2500}]})
    >>> print(md, end="")
    # Trajectory Report
    <BLANKLINE>
    ## Goal
    <BLANKLINE>
    Save it.
    <BLANKLINE>
    ## Steps
    <BLANKLINE>
    Total steps: **1**
    <BLANKLINE>
    ---
    <BLANKLINE>
    ### Step 0
    <BLANKLINE>
    **Action:** `hotkey ctrl+s`
    <BLANKLINE>
    **Timestamp:** 2 ms
    """
    name = trajectory.get("trajectory_id", "<unnamed>") if isinstance(trajectory, Mapping) else "<unnamed>"
    if not isinstance(trajectory, Mapping):
        raise ValueError(f"trajectory {name}: expected a JSON object, got {type(trajectory).__name__}")
    task = trajectory.get("task", {})
    if not isinstance(task, Mapping):
        raise ValueError(f"trajectory {name}: 'task' is {type(task).__name__}; expected an object")
    steps = trajectory.get("steps")
    if not isinstance(steps, list):
        raise ValueError(f"trajectory {name}: 'steps' is {type(steps).__name__}; expected a list of steps")
    blocks = ["# Trajectory Report", "## Goal", _instruction(task), "## Steps", f"Total steps: **{len(steps)}**"]
    for index, step in enumerate(steps):
        if not isinstance(step, Mapping):
            raise ValueError(f"trajectory {name}: step {index} is {type(step).__name__}; expected an object")
        try:
            blocks.extend(_step_lines(step, actions))
        except ValueError as error:
            raise ValueError(f"trajectory {name}: step {index}: {error}") from None
    return "\n\n".join(blocks) + "\n"
