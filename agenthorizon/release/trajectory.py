"""What a valid trajectory JSON holds: the checks loading and ``verify`` share.

Beyond the shape :func:`~agenthorizon.release.files.read_trajectory` checks, a
row needs typed task and environment fields and well-formed steps. Loading and
``verify`` run the same checks, so ``verify`` never says OK for a release that
does not load.
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from agenthorizon.release.files import screenshot_path
from agenthorizon.util.terminal_text import ECHO_LIMIT, printable

__all__ = ["INT32", "INT64", "check_steps", "optional_str", "resolution", "string_list", "trajectory_problem"]

INT32 = (-(2**31), 2**31 - 1)
"""Range of a step id (an ``int32`` column)."""
INT64 = (-(2**63), 2**63 - 1)
"""Range of a timestamp in microseconds (an ``int64`` column)."""


def check_steps(steps: list[Any], root: str, json_path: str, where: str) -> None:
    """Raise the ``ValueError`` of the first invalid step of a trajectory, naming it.

    A step is an object with an ``int32`` ``step_id`` (not a boolean), an
    ``action`` object with a string ``type`` and optional ``parameters``
    object, an optional ``int64`` ``timestamp_us`` and an optional screenshot
    reference that :func:`~agenthorizon.release.files.screenshot_path` accepts.
    """
    for index, step in enumerate(steps):
        at = f"{json_path} ({where}) step {index}"
        if type(step) is not dict:
            raise ValueError(f"{at}: expected a step object, got {type(step).__name__}")
        step_id = step.get("step_id")
        if type(step_id) is not int:
            raise ValueError(f"{at}: step_id is {printable(step_id, limit=ECHO_LIMIT, quote=True)}; expected an integer")
        if not INT32[0] <= step_id <= INT32[1]:
            raise ValueError(f"{at}: step_id is {step_id!r}; expected a 32-bit integer")
        action = step.get("action")
        if type(action) is not dict or type(action.get("type")) is not str:
            raise ValueError(f"{at}: expected an action object with a string 'type'")
        parameters = action.get("parameters")
        if parameters is not None and type(parameters) is not dict:
            raise ValueError(f"{at}: action parameters must be an object")
        timestamp = step.get("timestamp_us")
        if timestamp is not None and (type(timestamp) is not int or not INT64[0] <= timestamp <= INT64[1]):
            raise ValueError(f"{at}: timestamp_us is {printable(timestamp, limit=ECHO_LIMIT, quote=True)}; expected a 64-bit integer")
        reference = step.get("screenshot")
        if reference is not None:
            screenshot_path(root, json_path, reference, at)


def optional_str(mapping: Mapping[str, Any], key: str, json_path: str, where: str) -> str | None:
    """``mapping[key]`` when it is a string or absent (``None``); otherwise a ``ValueError`` naming it."""
    value = mapping.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{json_path} ({where}): {key} is {printable(value, limit=ECHO_LIMIT, quote=True)}; expected a string")
    return value


def string_list(value: Any, name: str, json_path: str, where: str) -> list[str] | None:
    """``value`` when it is a list of strings or ``None``; otherwise a ``ValueError`` naming ``name``."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{json_path} ({where}): {name} must be a list of strings")
    return value


def resolution(value: Any, json_path: str, where: str) -> list[int] | None:
    """``value`` when it is ``[width, height]`` integers or ``None``; otherwise a ``ValueError``."""
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise ValueError(f"{json_path} ({where}): environment.screen_resolution must be [width, height] integers")
    return value


def environment_of(trajectory: Mapping[str, Any], json_path: str, where: str) -> Mapping[str, Any]:
    """The trajectory's ``environment`` object (empty when absent); a ``ValueError`` when it is not one."""
    environment = trajectory.get("environment")
    if environment is None:
        return {}
    if not isinstance(environment, dict):
        raise ValueError(f"{json_path} ({where}): 'environment' must be an object")
    return environment


def trajectory_problem(trajectory: Mapping[str, Any], root: str | os.PathLike[str], json_path: str, where: str) -> str | None:
    """The first reason the builder would refuse this trajectory's row, or ``None``.

    Runs every check a row build runs on a trajectory that
    :func:`~agenthorizon.release.files.read_trajectory` accepted.
    """
    task = trajectory["task"]
    try:
        environment = environment_of(trajectory, json_path, where)
        for key in ("category", "subcategory", "task_type"):
            optional_str(task, key, json_path, where)
        string_list(task.get("applications"), "task.applications", json_path, where)
        optional_str(environment, "os", json_path, where)
        resolution(environment.get("screen_resolution"), json_path, where)
        check_steps(trajectory["steps"], os.fspath(root), json_path, where)
    except ValueError as error:
        return str(error)
    return None
