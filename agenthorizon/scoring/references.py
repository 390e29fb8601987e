"""References (label rows or label strings) validated for scoring, and predictions aligned with them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agenthorizon.schema import LABEL_VALUES, MISTAKE_TYPES, POSITIVE, UNTYPED, canonical_mistake_type

__all__ = ["align_predictions", "reference_record", "reference_records", "reference_rows"]


def reference_record(reference: Any, position: int) -> dict[str, Any]:
    """Validate one reference and return its scoring fields.

    A reference is a label row (a mapping with ``label`` and ``mistake_type``;
    dataset rows work as they are) or a label string ``"positive"`` /
    ``"negative"``. The returned dict has ``label``, ``mistake_type`` (the
    canonical spelling, ``""`` for positives and untyped negatives),
    ``trajectory_id``, ``pair_group_id`` and ``steps_id`` (the recording the
    item shows, which pairs it with its sibling; ``None`` when absent).

    Raises ``ValueError`` naming ``position`` and what was expected.

    >>> reference_record({"label": "negative", "mistake_type": "misunderstanding of the instruction"}, 0)
    {'label': 'negative', 'mistake_type': 'Misunderstanding of the Instructions', 'trajectory_id': None, 'pair_group_id': None, 'steps_id': None}
    """
    where = f"references[{position}]"
    if isinstance(reference, str):
        if reference not in LABEL_VALUES:
            raise ValueError(f"{where}: expected the label string 'positive' or 'negative', got {reference!r}")
        return {"label": reference, "mistake_type": UNTYPED, "trajectory_id": None, "pair_group_id": None, "steps_id": None}
    if not isinstance(reference, Mapping):
        raise ValueError(
            f"{where}: expected a label row (a mapping with 'label' and 'mistake_type') "
            f"or a label string, got {type(reference).__name__}"
        )
    for key in ("label", "mistake_type"):
        if key not in reference:
            raise ValueError(f"{where}: label row has no {key!r} field; expected 'label' and 'mistake_type'")
    label = reference["label"]
    if label not in LABEL_VALUES:
        raise ValueError(f"{where}: expected label 'positive' or 'negative', got {label!r}")
    raw_type = reference["mistake_type"]
    if raw_type is None or raw_type == UNTYPED:
        mistake_type = UNTYPED
    else:
        mistake_type = canonical_mistake_type(raw_type)
        if mistake_type is None:
            raise ValueError(f"{where}: unknown mistake_type {raw_type!r}; expected one of {list(MISTAKE_TYPES)} or ''")
        if label == POSITIVE:
            raise ValueError(f"{where}: a positive has mistake_type {raw_type!r}; expected '' for positives")
    trajectory_id = reference.get("trajectory_id")
    group = reference.get("pair_group_id")
    steps_id = reference.get("steps_id")
    return {
        "label": label,
        "mistake_type": mistake_type,
        "trajectory_id": trajectory_id if isinstance(trajectory_id, str) and trajectory_id else None,
        "pair_group_id": group if isinstance(group, str) and group else None,
        "steps_id": steps_id if isinstance(steps_id, str) and steps_id else None,
    }


def _needed_columns(references: Any, fields: Iterable[str]) -> Any:
    # A datasets.Dataset decodes every column of a row on iteration; read only the columns
    # scoring uses. Duck-typed so this module never imports datasets.
    select = getattr(references, "select_columns", None)
    names = getattr(references, "column_names", None)
    if callable(select) and isinstance(names, list):
        keep = [name for name in dict.fromkeys(fields) if name in names]
        return select(keep)
    return references


def reference_rows(references: Any, extra_fields: Iterable[str] = ()) -> list[Any]:
    if isinstance(references, (str, bytes)) or isinstance(references, Mapping):
        raise ValueError(
            "references must be a sequence of label rows or label strings, "
            f"got a single {type(references).__name__}"
        )
    base = ("trajectory_id", "label", "mistake_type", "pair_group_id", "steps_id")
    rows = list(_needed_columns(references, (*base, *extra_fields)))
    if not rows:
        raise ValueError("references is empty; expected at least one label row")
    return rows


def reference_records(references: Any) -> list[dict[str, Any]]:
    """Validate a whole sequence of references; see :func:`reference_record`.

    >>> [record["label"] for record in reference_records(["negative", "positive"])]
    ['negative', 'positive']
    """
    return [reference_record(row, position) for position, row in enumerate(reference_rows(references))]


def align_predictions(predictions: Any, records: list[dict[str, Any]]) -> list[Any]:
    """One prediction per reference record, in reference order.

    ``predictions`` is a sequence as long as ``records``
    (:func:`reference_records`) or a mapping ``trajectory_id -> prediction``:
    an absent id gives ``None`` (a missing prediction), an id outside the
    references raises ``ValueError``. A reference id that occurs twice
    raises in either form (the item would be scored twice).

    >>> records = reference_records([{"trajectory_id": "a", "label": "positive", "mistake_type": ""},
    ...                              {"trajectory_id": "b", "label": "negative", "mistake_type": ""}])
    >>> align_predictions({"b": False}, records)
    [None, False]
    """
    seen: dict[str, int] = {}
    for position, record in enumerate(records):
        trajectory_id = record["trajectory_id"]
        if trajectory_id is not None and trajectory_id in seen:
            raise ValueError(
                f"references[{position}]: duplicate trajectory_id {trajectory_id} "
                f"(first at references[{seen[trajectory_id]}]); expected each item once"
            )
        seen.setdefault(trajectory_id, position)
    if isinstance(predictions, Mapping):
        ids = []
        for position, record in enumerate(records):
            if record["trajectory_id"] is None:
                raise ValueError(
                    f"references[{position}]: predictions is a mapping by trajectory_id, "
                    "so every reference needs a non-empty string 'trajectory_id'"
                )
            ids.append(record["trajectory_id"])
        unknown = [key for key in predictions if key not in seen]
        if unknown:
            shown = ", ".join(map(str, sorted(unknown, key=str)[:3]))
            raise ValueError(
                f"predictions hold {len(unknown)} trajectory id(s) that are not in the references "
                f"(e.g. {shown}); pass predictions for the referenced items only"
            )
        return [predictions.get(trajectory_id) for trajectory_id in ids]
    if isinstance(predictions, (str, bytes)) or not hasattr(predictions, "__len__"):
        raise ValueError(
            "predictions must be a sequence aligned with the references or a mapping "
            f"trajectory_id -> prediction, got {type(predictions).__name__}"
        )
    predictions = list(predictions)
    if len(predictions) != len(records):
        raise ValueError(
            f"got {len(predictions)} predictions for {len(records)} references; "
            "expected one prediction per reference (use None for a missing one)"
        )
    return predictions


