"""One item's own files read into the values of its dataset row (:func:`read_item`).

Imports no ``pyarrow``, so readers that need a few fields (the report) do not pay for it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from itertools import repeat
from typing import Any, Mapping

from agenthorizon.release.files import (
    escaping_screenshots,
    link_out_message,
    read_markdown,
    read_trajectory,
    screenshot_paths,
)
from agenthorizon.release.trajectory import (
    INT32,
    INT64,
    check_steps,
    environment_of,
    optional_str,
    resolution,
    string_list,
)
from agenthorizon.schema import json_relpath

__all__ = ["ItemFiles", "read_item"]

_NONE = type(None)


@dataclass(frozen=True)
class ItemFiles:
    """What one item's own files give its dataset row, read and checked by :func:`read_item`.

    Attributes
    ----------
    values : dict
        The fields of :data:`agenthorizon.schema.TRAJECTORY_FIELDS`, as the row holds them.
    step_ids, action_types, parameters, timestamps : list
        The step columns, a value per step (``parameters``: ``{}`` for none).
    screenshots : list of str or None
        Each step's screenshot path (``None`` where a step has none),
        absolute, checked to stay in the release.
    markdown : str or None
        The item's Markdown (rendered from the json when the release has
        none); ``None`` when not asked for.
    """

    values: dict[str, Any]
    step_ids: list[int]
    action_types: list[str]
    parameters: list[dict[str, Any]]
    timestamps: list[int | None]
    screenshots: list[str | None]
    markdown: str | None = None


def read_item(
    root: str,
    label_row: Mapping[str, Any],
    folder_listings: dict[str, Any] | None = None,
    *,
    markdown: bool = True,
) -> ItemFiles:
    """The trajectory json (and, with ``markdown``, the Markdown) of one label row, read and checked as a build does.

    Files are read through the release's confined readers; a screenshot that
    is a link out of the release is refused. Raises ``FileNotFoundError`` /
    ``ValueError`` naming the json file, the label row and the step.
    ``folder_listings`` as in :func:`~agenthorizon.data.table.build_table`.

    >>> import tempfile, agenthorizon
    >>> from agenthorizon.release.files import read_labels
    >>> root = agenthorizon.generate_sample(tempfile.mkdtemp() + "/release", preset="tiny").root
    >>> item = read_item(str(root), read_labels(root)[0], markdown=False)
    >>> item.values["num_steps"] == len(item.step_ids) == len(item.screenshots), item.markdown
    (True, None)
    """
    trajectory_id = label_row["trajectory_id"]
    where = f"label row {label_row.get('location', trajectory_id)}"
    json_path = root + os.sep + json_relpath(trajectory_id).replace("/", os.sep)
    trajectory = read_trajectory(root, json_path, where)
    task = trajectory["task"]
    environment = environment_of(trajectory, json_path, where)
    steps = trajectory["steps"]
    step_ids, action_types, parameters, timestamps, references = _step_columns(steps, root, json_path, where)
    screenshots = screenshot_paths(root, json_path, references, f"{json_path} ({where})")
    _refuse_escaping(root, screenshots, json_path, where, folder_listings)
    text = None
    if markdown:
        text = read_markdown(root, trajectory_id, where)
        if text is None:
            from agenthorizon.release.render import to_markdown  # rendering is only needed for incomplete releases

            text = to_markdown(trajectory)
    values = {
        "instruction": task["instruction"],
        "category": optional_str(task, "category", json_path, where),
        "subcategory": optional_str(task, "subcategory", json_path, where),
        "task_type": optional_str(task, "task_type", json_path, where),
        "applications": string_list(task.get("applications"), "task.applications", json_path, where) or [],
        "os": optional_str(environment, "os", json_path, where),
        "screen_resolution": resolution(environment.get("screen_resolution"), json_path, where),
        "num_steps": len(steps),
    }
    return ItemFiles(values, step_ids, action_types, parameters, timestamps, screenshots, text)


def _refuse_escaping(
    root: str, screenshots: list[str | None], json_path: str, where: str, listings: dict[str, Any] | None = None
) -> None:
    """Raise for the first screenshot that is a link out of the release (see ``escaping_screenshots``)."""
    escapes = escaping_screenshots(root, screenshots, listings)
    if escapes:
        index, path, real = escapes[0]
        raise ValueError(f"{json_path} ({where}) step {index}: " + link_out_message(path, "screenshot", real, root))


def _step_columns(
    steps: list[Any], root: str, json_path: str, where: str
) -> tuple[list[int], list[str], list[dict[str, Any]], list[int | None], list[Any]]:
    """step ids, action types, parameter objects, timestamps and screenshot references.

    The checks are type sets over whole columns; only when one fails does
    :func:`check_steps` walk the steps to name the first bad one.
    """
    count = len(steps)
    if not count:
        return [], [], [], [], []
    get = dict.get
    if set(map(type, steps)) != {dict}:
        check_steps(steps, root, json_path, where)
    step_ids = list(map(get, steps, repeat("step_id", count)))
    actions = list(map(get, steps, repeat("action", count)))
    timestamps = list(map(get, steps, repeat("timestamp_us", count)))
    references = list(map(get, steps, repeat("screenshot", count)))
    valid = set(map(type, step_ids)) == {int} and min(step_ids) >= INT32[0] and max(step_ids) <= INT32[1]
    valid = valid and set(map(type, actions)) == {dict}
    if valid:
        action_types = list(map(get, actions, repeat("type", count)))
        parameters = list(map(get, actions, repeat("parameters", count)))
        valid = set(map(type, action_types)) == {str} and set(map(type, parameters)) <= {dict, _NONE}
    if valid:
        present = timestamps if None not in timestamps else [value for value in timestamps if value is not None]
        valid = not present or (
            set(map(type, present)) == {int} and min(present) >= INT64[0] and max(present) <= INT64[1]
        )
    if not valid:
        check_steps(steps, root, json_path, where)
        # unreachable unless the column checks are stricter than the step checks
        raise AssertionError(f"{json_path} ({where}): steps failed a column check but no step check")
    if None in parameters:
        parameters = [{} if value is None else value for value in parameters]
    return step_ids, action_types, parameters, timestamps, references
