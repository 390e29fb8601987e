"""The exact ``datasets.Features`` of an AgentHorizon row, defined once (fields: docs/data.md)."""

from __future__ import annotations

from typing import Any

import datasets

from agenthorizon.release.files import check_images
from agenthorizon.schema import FLOAT_PARAMETERS, STRING_PARAMETERS

__all__ = ["features", "list_feature"]


def list_feature(feature: Any) -> Any:
    """``datasets.List(feature)``: an Arrow list of ``feature``, on every supported ``datasets``.

    ``datasets`` >= 4 has ``List``; 3.x spells it ``[feature]`` (its
    ``Sequence`` of a dict would store a struct of lists instead).

    >>> step = {"step_id": datasets.Value("int32")}
    >>> datasets.Features({"steps": list_feature(step)}).arrow_schema.field("steps").type
    ListType(list<item: struct<step_id: int32>>)
    """
    list_class = getattr(datasets, "List", None)
    return [feature] if list_class is None else list_class(feature)


def features(images: str | None = "lazy") -> datasets.Features:
    """The exact ``datasets.Features`` of a row, for an images mode.

    Screenshots are stored as ``List(Image(decode=False))`` for ``"lazy"`` (the
    default: decoded on access through the ``"agenthorizon"`` format of
    :mod:`agenthorizon.data.formatting`) and as ``List(Image())`` for
    ``"eager"`` (datasets decodes the whole list when a row is read); both
    store paths only. ``"paths"`` and ``None`` store ``List(Value("string"))``.
    Entries are null where a step has no screenshot.
    """
    check_images(images)
    string, int32 = datasets.Value("string"), datasets.Value("int32")
    step = {
        "step_id": int32,
        "action_type": string,
        **{name: datasets.Value("float64") for name in FLOAT_PARAMETERS},
        **{name: string for name in STRING_PARAMETERS},
        "num_clicks": int32,
        "keys": list_feature(string),
        "parameters": string,
        "timestamp_us": datasets.Value("int64"),
        "screenshot": string,
    }
    if images in ("lazy", "eager"):
        screenshot = datasets.Image(decode=images == "eager")
    else:
        screenshot = string
    return datasets.Features(
        {
            "trajectory_id": string,
            "instruction": string,
            "label": string,
            "mistake_type": string,
            "instruction_id": string,
            "instruction_source": string,
            "steps_id": string,
            "steps_source": string,
            "pair_group_id": string,
            "difficulty": string,
            "in_dev": datasets.Value("bool"),
            "category": string,
            "subcategory": string,
            "task_type": string,
            "applications": list_feature(string),
            "os": string,
            "screen_resolution": list_feature(int32),
            "num_steps": int32,
            "steps": list_feature(step),
            "screenshots": list_feature(screenshot),
            "markdown": string,
        }
    )
