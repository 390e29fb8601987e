"""A dataset row's steps read into blind columns (:func:`read_steps`), the step part of ``build_judge_input``.

Dataset rows take a fast path; anything else (release-shaped step records,
hand-made rows) a step-by-step one whose errors name the step.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Mapping, Sequence
from typing import Any

from agenthorizon.judging.blinding import may_hold_hidden, strip_hidden
from agenthorizon.schema import STEP_PARAMETER_COLUMNS

__all__ = ["read_steps"]


def read_steps(
    raw_steps: Sequence[Any], where: str
) -> tuple[Sequence[int], Sequence[str], list[dict[str, Any]], Sequence[Any], str | None]:
    """``(step_ids, action_types, parameters, timestamps_us, parameters_text)`` of a row's steps.

    ``parameters`` have every hidden key removed; ``parameters_text`` is the
    JSON text they were decoded from (``None`` when decoded step by step).
    Errors name ``where`` and the step.

    >>> read_steps([{"step_id": 0, "action_type": "click", "parameters": '{"x": 1, "label": "positive"}', "timestamp_us": None}], "t1")
    ((0,), ('click',), [{'x': 1}], (None,), '[{"x": 1, "label": "positive"}]')
    >>> read_steps([{"action": {"type": "type", "parameters": {"text": "hi"}}}], "t1")
    ([0], ['type'], [{'text': 'hi'}], [None], None)
    """
    columns = _row_step_columns(raw_steps)
    if columns is not None:
        step_ids, action_types, texts, timestamps_us = columns
    else:  # not the steps of a dataset row: check and convert step by step
        for index, raw in enumerate(raw_steps):
            if not isinstance(raw, Mapping):
                raise ValueError(f"{where}, step {index}: expected a mapping, got {type(raw).__name__}")
        step_ids = [_step_id(raw, index, where) for index, raw in enumerate(raw_steps)]
        action_types = [_action_type(raw, f"{where}, step {index}") for index, raw in enumerate(raw_steps)]
        texts = [raw.get("parameters") for raw in raw_steps]
        timestamps_us = [raw.get("timestamp_us") for raw in raw_steps]
    parameters, parameters_text = _all_parameters(texts, raw_steps, where)
    return step_ids, action_types, parameters, timestamps_us, parameters_text


def _step_parameters(step: Mapping[str, Any], where: str) -> dict[str, Any]:
    raw = step.get("parameters")
    if isinstance(raw, str):
        try:
            parameters = json.loads(raw)
        except json.JSONDecodeError as error:
            raise ValueError(f"{where}: step parameters are not valid JSON ({error.msg})") from None
        if not isinstance(parameters, dict):
            raise ValueError(f"{where}: step parameters must be a JSON object")
        return strip_hidden(parameters)
    if isinstance(raw, Mapping):
        return strip_hidden(dict(raw))
    action = step.get("action")
    if isinstance(action, Mapping):  # a release-shaped step record
        return strip_hidden(dict(action.get("parameters") or {}))
    # No lossless parameters: rebuild them from the flat columns.
    return {k: step[k] for k in STEP_PARAMETER_COLUMNS if step.get(k) is not None}


# The four step fields of a dataset row that a judge input is made of, in one C-level lookup.
_ROW_STEP_FIELDS = operator.itemgetter("step_id", "action_type", "parameters", "timestamp_us")


def _row_step_columns(raw_steps: Sequence[Any]) -> tuple[tuple[Any, ...], ...] | None:
    """``(step_ids, action_types, parameter texts, timestamps)`` of a dataset row's steps, or ``None``.

    The fast path (C-level ``map``/``zip``, types checked as sets; it runs on
    the runner's event loop). ``None`` (use the step-by-step path) when any
    step is not a ``dict`` with the four fields, an id is not an ``int`` or a
    type not a ``str``.

    >>> _row_step_columns([{"step_id": 0, "action_type": "click", "parameters": "{}", "timestamp_us": None}])
    ((0,), ('click',), ('{}',), (None,))
    >>> _row_step_columns([{"step_id": 0, "action": {"type": "click"}}]) is None
    True
    """
    if not raw_steps or not set(map(type, raw_steps)) <= {dict}:
        return None
    try:
        columns = tuple(zip(*map(_ROW_STEP_FIELDS, raw_steps)))
    except KeyError:
        return None
    if not set(map(type, columns[0])) <= {int} or not set(map(type, columns[1])) <= {str}:
        return None  # bool ids and missing types included
    return columns


def _all_parameters(
    texts: Sequence[Any], raw_steps: Sequence[Mapping[str, Any]], where: str
) -> tuple[list[dict[str, Any]], str | None]:
    """Every step's parameters, hidden keys removed, and the JSON text they were decoded from.

    ``texts`` holds each step's ``parameters`` field; JSON strings are decoded
    as one array (faster than one ``json.loads`` per step). Anything else
    falls back to the per-step path, whose errors name the step (the text is
    then ``None``).
    """
    try:
        joined = "[" + ",".join(texts) + "]"  # TypeError unless every step has a JSON text
        decoded = json.loads(joined)
    except (TypeError, json.JSONDecodeError):
        decoded = None
    # A text such as '{"a": 1}, {"b": 2}' would add items: then the count differs.
    if decoded is not None and len(decoded) == len(texts) and set(map(type, decoded)) <= {dict}:
        if may_hold_hidden(decoded, joined):
            return [strip_hidden(p) for p in decoded], joined
        return decoded, joined  # no hidden key anywhere in the text: nothing to strip
    return [_step_parameters(step, f"{where}, step {index}") for index, step in enumerate(raw_steps)], None


def _step_id(raw: Mapping[str, Any], index: int, where: str) -> int:
    """A step's id (its position when the row has none), checked to be an integer."""
    step_id = raw.get("step_id")
    if step_id is None:
        return index
    if isinstance(step_id, bool) or not isinstance(step_id, int):
        raise ValueError(f"{where}, step {index}: step_id must be an integer, got {step_id!r}")
    return int(step_id)


def _action_type(raw: Mapping[str, Any], where: str) -> str:
    """A step's action type, from a row step (``action_type``) or a release step (``action.type``)."""
    action_type = raw.get("action_type")
    if action_type is None and isinstance(raw.get("action"), Mapping):
        action_type = raw["action"].get("type")
    if not isinstance(action_type, str):
        raise ValueError(f"{where}: missing action type")
    return action_type
