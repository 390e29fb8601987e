"""Trajectory JSON -> the release's Markdown layout, byte for byte.

The release ships every trajectory twice: structured
(``sandbox/data/jsons/<id>.json``) and as the Markdown a judge reads
(``sandbox/data/markdowns/<id>.md``). :func:`to_markdown` reproduces the
second from the first, so a corpus without Markdown files (or a modified
trajectory) can still be shown to a judge exactly as the release shows it.

Layout (lines joined by ``\\n``, one blank line between blocks)::

    # Trajectory Report

    ## Goal

    <instruction>

    ## Steps

    Total steps: **<number of steps>**

    ---

    ### Step 0

    ![Step 0 screenshot](../media/images/<steps_id>/step_1.png)

    **Action:** `left-click (512, 300)`

    **Timestamp:** 1718000000123 ms

and so on for every step. The image line appears only when the step has a
screenshot (the reference is printed as stored in the JSON), the timestamp
line only when the step has a timestamp.

Details the SPEC leaves open, decided here (and followed by the sample corpus):

* The file ends with exactly one newline after the last line.
* Milliseconds are ``timestamp_us / 1000`` rounded half to even, as Python's
  ``round`` does (``1500`` us -> ``2`` ms, ``2500`` us -> ``2`` ms); integer
  timestamps are rounded exactly, with no float error at any magnitude.
* Values print as Python's ``str`` prints them: integers as integers
  (``512``), floats as floats (``512.5``, ``512.0``), strings verbatim
  (typed text is not escaped). Missing or null values print as ``?``.
* ``move``, ``wait`` and unknown action types print as their bare type name,
  because the release layout defines no richer string for them.

Pure logic: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MISSING = "?"
"""What a missing or null value renders as."""

TYPE_TEXT_LIMIT = 80
"""Typed text longer than this is cut to ``TYPE_TEXT_LIMIT - 3`` characters plus ``...``."""

_ELLIPSIS = "..."


def _value(parameters: Mapping[str, Any], name: str) -> str:
    value = parameters.get(name)
    if value is None:
        return MISSING
    return str(value)


def _point(parameters: Mapping[str, Any], x: str = "x", y: str = "y") -> str:
    return f"({_value(parameters, x)}, {_value(parameters, y)})"


def _keys(parameters: Mapping[str, Any], separator: str) -> str:
    keys = parameters.get("keys")
    if keys is None:
        return MISSING
    if isinstance(keys, (list, tuple)):
        return separator.join(MISSING if key is None else str(key) for key in keys)
    return str(keys)  # a single key given as a string: print it as is


def _cut(text: str) -> str:
    if len(text) > TYPE_TEXT_LIMIT:
        return text[: TYPE_TEXT_LIMIT - len(_ELLIPSIS)] + _ELLIPSIS
    return text


def action_string(action: Mapping[str, Any] | None) -> str:
    """The one-line description of an action, as the release Markdown prints it.

    This is the text between backticks on a step's ``**Action:**`` line of
    :func:`to_markdown`. Strings by action type:

    ========== ==================================================
    type       string
    ========== ==================================================
    click      ``left-click (x, y)`` / ``right-click (x, y)``, `` x{n}`` appended when ``num_clicks > 1``
    type       ``type "TEXT"``, text over 80 characters cut to 77 + ``...``
    press      ``press k1 k2``
    hotkey     ``hotkey k1+k2``
    scroll     ``scroll {direction} {amount}px at (x, y)``
    drag       ``drag (sx, sy) -> (ex, ey)``
    key_down   ``keydown K``
    key_up     ``keyup K``
    other      the bare type name (``move``, ``wait``, unknown types)
    ========== ==================================================

    Missing or null values print as ``?`` (:data:`MISSING`); so does the whole
    string when ``action`` is not a mapping.

    Parameters
    ----------
    action : mapping or None
        A step's action object, ``{"type": str, "parameters": {...}}``, as in
        ``sandbox/data/jsons/<id>.json``. A ``parameters`` value that is not a
        mapping is treated as empty.

    Returns
    -------
    str
        One line, no trailing newline; never raises.

    See Also
    --------
    to_markdown : the whole trajectory in the release layout.

    Examples
    --------
    >>> action_string({"type": "click", "parameters": {"x": 10, "y": 20, "button": "left"}})
    'left-click (10, 20)'
    >>> action_string({"type": "click", "parameters": {"x": 10, "y": 20, "button": "right", "num_clicks": 2}})
    'right-click (10, 20) x2'
    >>> action_string({"type": "scroll", "parameters": {"x": 5, "y": 6, "direction": "down"}})
    'scroll down ?px at (5, 6)'
    >>> action_string({"type": "hotkey", "parameters": {"keys": ["ctrl", "s"]}})
    'hotkey ctrl+s'
    >>> action_string({"type": "zoom", "parameters": {"factor": 2}})
    'zoom'
    """
    if not isinstance(action, Mapping):
        return MISSING
    kind = action.get("type")
    parameters = action.get("parameters")
    if not isinstance(parameters, Mapping):
        parameters = {}
    if kind == "click":
        text = f"{_value(parameters, 'button')}-click {_point(parameters)}"
        clicks = parameters.get("num_clicks")
        # bool is an int subclass; True is not a click count
        if isinstance(clicks, (int, float)) and not isinstance(clicks, bool) and clicks > 1:
            text += f" x{clicks}"
        return text
    if kind == "type":
        text = parameters.get("text")
        return f'type "{MISSING if text is None else _cut(str(text))}"'
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
    return MISSING if kind is None else str(kind)


def timestamp_ms(timestamp_us: int | float) -> int:
    """``timestamp_us / 1000`` rounded half to even (Python's ``round``).

    Integers are rounded exactly (no float division), so the result is right
    for timestamps of any size.

    >>> timestamp_ms(1_718_000_000_123_456), timestamp_ms(1500), timestamp_ms(2500), timestamp_ms(2501)
    (1718000000123, 2, 2, 3)
    """
    if isinstance(timestamp_us, int) and not isinstance(timestamp_us, bool):
        quotient, remainder = divmod(timestamp_us, 1000)
        if remainder > 500 or (remainder == 500 and quotient % 2 == 1):
            quotient += 1
        return quotient
    return round(timestamp_us / 1000)


def _step_blocks(step: Mapping[str, Any], index: int) -> list[str]:
    step_id = step.get("step_id")
    label = MISSING if step_id is None else str(step_id)
    blocks = ["---", f"### Step {label}"]
    screenshot = step.get("screenshot")
    if screenshot:
        blocks.append(f"![Step {label} screenshot]({screenshot})")
    blocks.append(f"**Action:** `{action_string(step.get('action'))}`")
    timestamp = step.get("timestamp_us")
    if timestamp is not None:
        if not isinstance(timestamp, (int, float)) or isinstance(timestamp, bool):
            raise ValueError(f"step {index}: timestamp_us is {timestamp!r}; expected a number of microseconds")
        blocks.append(f"**Timestamp:** {timestamp_ms(timestamp)} ms")
    return blocks


def to_markdown(trajectory: Mapping[str, Any]) -> str:
    """Render a trajectory JSON object in the release's Markdown layout, byte for byte.

    The result is the text of the ``sandbox/data/markdowns/<id>.md`` that
    matches ``sandbox/data/jsons/<id>.json`` (layout and rounding rules in the
    module docstring): a title, the goal, the step count, then per step a
    heading, the screenshot reference (when the step has one), the action
    line (:func:`action_string`) and the timestamp in milliseconds (when the
    step has one). A missing instruction or action value prints as ``?``.

    Parameters
    ----------
    trajectory : mapping
        The parsed trajectory JSON: ``task`` (a mapping holding
        ``instruction``), ``steps`` (a list of step mappings with ``step_id``,
        ``action``, optional ``screenshot`` and ``timestamp_us``) and,
        optionally, ``trajectory_id`` (used in error messages).

    Returns
    -------
    str
        The Markdown text, blocks separated by one blank line, ending in
        exactly one newline.

    Raises
    ------
    ValueError
        Naming the trajectory (and step) when ``trajectory`` is not a mapping,
        ``task`` is not a mapping, ``steps`` is not a list, a step is not a
        mapping, or a ``timestamp_us`` is not a number.

    See Also
    --------
    action_string : the one-line action description.
    timestamp_ms : microseconds to the printed milliseconds.
    agenthorizon.judging.inputs.build_judge_input : uses this Markdown for blind judge inputs.

    Examples
    --------
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
    instruction = task.get("instruction")
    blocks = [
        "# Trajectory Report",
        "## Goal",
        MISSING if instruction is None else str(instruction),
        "## Steps",
        f"Total steps: **{len(steps)}**",
    ]
    for index, step in enumerate(steps):
        if not isinstance(step, Mapping):
            raise ValueError(f"trajectory {name}: step {index} is {type(step).__name__}; expected an object")
        try:
            blocks.extend(_step_blocks(step, index))
        except ValueError as error:
            raise ValueError(f"trajectory {name}: {error}") from None
    return "\n\n".join(blocks) + "\n"
