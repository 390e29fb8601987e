"""One prediction -> (success, mistake type, status): :func:`validate_prediction`, used by every scoring route.

Raw text goes through the runner's parser, so the same text scores the same
by every route. Predictions in a known wrong shape are invalid like any
other; :func:`warn_shapes` names the shape and the fix.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from agenthorizon.schema import (
    INVALID_STATUSES,
    STATUS_ERROR,
    STATUS_MISSING,
    STATUS_MISSING_SUCCESS,
    STATUS_NON_BOOLEAN,
    STATUS_NOT_OBJECT,
    STATUS_OK,
)
from agenthorizon.scoring.verdicts import parse_verdict

__all__ = [
    "PredictionShapeWarning",
    "RESULT_STATUS",
    "is_result_record",
    "prediction_record",
    "prediction_shape",
    "prediction_verdict",
    "shape_warnings",
    "result_prediction",
    "validate_prediction",
    "warn_shapes",
]


def _is_bool(value: Any) -> bool:
    # numpy's bool_ (what a pandas/numpy comparison yields) is a Boolean; ints, strings and None are not.
    return isinstance(value, (bool, np.bool_))


def _mistake_type_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    # Kept as text so a non-string type is counted among the unmatched names.
    return str(value)


def _validate_verdict(verdict: Any) -> tuple[bool | None, str | None, str]:
    if not isinstance(verdict, Mapping):
        return None, None, STATUS_NOT_OBJECT
    if "success" not in verdict:
        return None, None, STATUS_MISSING_SUCCESS
    success = verdict["success"]
    if not _is_bool(success):
        return None, None, STATUS_NON_BOOLEAN
    return bool(success), _mistake_type_text(verdict.get("mistake_type")), STATUS_OK


RESULT_STATUS = "parse_status"
"""The key that makes a mapping a result record (see :func:`is_result_record`)."""


def is_result_record(value: Any) -> bool:
    """True when ``value`` has the shape of a result record: a mapping with a ``parse_status``.

    Also used by :mod:`agenthorizon.judging.runs.folder` to tell runner
    results. A missing ``verdict`` is ``null``.

    >>> is_result_record({"parse_status": "no_json"}), is_result_record({"success": True})
    (True, False)
    """
    return isinstance(value, Mapping) and RESULT_STATUS in value


def result_prediction(parse_status: str, verdict: Mapping[str, Any] | None) -> dict[str, Any]:
    """A prediction in the result-record shape: what a runner result gives scoring.

    >>> validate_prediction(result_prediction("ok", {"success": False}))
    (False, None, 'ok')
    """
    return {RESULT_STATUS: parse_status, "verdict": verdict}


def _is_raw_output(value: Mapping) -> bool:
    # {"trajectory_id": ..., "raw_output": "<the judge's text>"}: a JSONL row of raw answers.
    return "success" not in value and RESULT_STATUS not in value and isinstance(value.get("raw_output"), str)


def validate_prediction(prediction: Any) -> tuple[bool | None, str | None, str]:
    """Check one prediction strictly: valid only with a real Boolean ``success``.

    Accepted forms:

    - ``True`` / ``False`` (Python or numpy Booleans);
    - ``None``: no prediction, status ``"missing"``;
    - a verdict dict ``{"success": bool, "mistake_type": str | None, ...}``;
    - a judge's raw answer text, parsed by
      :func:`agenthorizon.scoring.verdicts.parse_verdict` exactly as the
      runner parses it (a fenced ```` ```json ```` block or prose followed by
      the verdict object is read);
    - ``{"raw_output": text}`` (e.g. a JSONL row of raw answers), parsed the same way;
    - a runner result record (:func:`is_result_record`): valid only when its
      ``parse_status`` is ``"ok"`` and its ``verdict`` carries a Boolean
      ``success``; otherwise invalid with its own ``parse_status`` as reason.

    Parameters
    ----------
    prediction : object
        Any value; no value makes this function raise.

    Returns
    -------
    success : bool or None
        The predicted outcome, ``None`` when the prediction is invalid.
    mistake_type : str or None
        The mistake type the prediction names, ``None`` when it names none or
        is invalid.
    status : str
        ``"ok"`` or one of :data:`agenthorizon.schema.INVALID_STATUSES`:
        ``missing`` (``None``, empty text), ``no_json`` (text without a JSON
        object, ``"true"`` included), ``malformed_json``, ``not_object`` (a
        non-object value such as a list), ``missing_success``,
        ``non_boolean`` (``success`` is ``null``, a string or a number; also a
        bare number), ``error`` (a failed judge call, or a result status
        outside the vocabulary), ``id_mismatch`` / ``judge_mismatch`` (result
        files that are not what their name claims).

    Examples
    --------
    >>> validate_prediction(False)
    (False, None, 'ok')
    >>> validate_prediction('{"success": false, "mistake_type": "Bad Side Effect"}')
    (False, 'Bad Side Effect', 'ok')
    >>> validate_prediction({"success": "true"})
    (None, None, 'non_boolean')
    >>> validate_prediction({"success": None})
    (None, None, 'non_boolean')
    >>> validate_prediction('Verdict: {"success": true}')  # the runner's parse rule
    (True, None, 'ok')
    >>> validate_prediction("true"), validate_prediction([True])
    ((None, None, 'no_json'), (None, None, 'not_object'))
    >>> validate_prediction({"parse_status": "no_json", "verdict": None})
    (None, None, 'no_json')
    """
    if prediction is None:
        return None, None, STATUS_MISSING
    if _is_bool(prediction):
        return bool(prediction), None, STATUS_OK
    if isinstance(prediction, Mapping) and _is_raw_output(prediction):
        prediction = prediction["raw_output"]
    if isinstance(prediction, str):
        verdict = parse_verdict(prediction)
        if verdict.status != STATUS_OK:
            return None, None, verdict.status
        return verdict.success, verdict.mistake_type, STATUS_OK
    if isinstance(prediction, Mapping):
        if is_result_record(prediction):
            status = prediction[RESULT_STATUS]
            if status == STATUS_OK:
                return _validate_verdict(prediction.get("verdict"))
            return None, None, status if status in INVALID_STATUSES else STATUS_ERROR
        return _validate_verdict(prediction)
    if isinstance(prediction, (int, float, np.number)):
        return None, None, STATUS_NON_BOOLEAN
    return None, None, STATUS_NOT_OBJECT


def prediction_verdict(prediction: Any) -> Mapping | None:
    """The verdict object a prediction carries, valid or not, for display.

    A verdict dict is returned as is and a result record gives its
    ``verdict``. For text (also a raw-output row's text): when the whole text
    is one JSON object, that object; otherwise the valid verdict
    :func:`parse_verdict` finds in it, or ``None``. Anything else gives
    ``None``. Validity is decided by :func:`validate_prediction`, not here.

    >>> prediction_verdict('{"success": true, "confidence": "high"}')["confidence"]
    'high'
    >>> prediction_verdict({"parse_status": "ok", "verdict": {"success": False}})
    {'success': False}
    >>> prediction_verdict(True) is None
    True
    """
    if isinstance(prediction, Mapping) and _is_raw_output(prediction):
        prediction = prediction["raw_output"]
    if isinstance(prediction, str):
        try:  # an object as the whole text is shown as it is, valid or not
            whole = json.loads(prediction)
        except (ValueError, RecursionError):
            whole = None
        if isinstance(whole, dict):
            return whole
        verdict = parse_verdict(prediction)
        return verdict.to_dict() if verdict.status == STATUS_OK else None
    if not isinstance(prediction, Mapping):
        return None
    if is_result_record(prediction):
        verdict = prediction.get("verdict")
        return verdict if isinstance(verdict, Mapping) else None
    return prediction


def prediction_record(prediction: Any) -> dict[str, Any]:
    """Reduce any prediction to the result-record form, losing nothing scoring uses.

    The record is plain JSON (``parse_status`` and ``verdict``, plus a result
    record's ``telemetry``), and
    ``validate_prediction(prediction_record(p)) == validate_prediction(p)`` for
    every ``p``.

    >>> prediction_record("1")
    {'parse_status': 'no_json', 'verdict': None}
    >>> prediction_record(False)
    {'parse_status': 'ok', 'verdict': {'success': False, 'mistake_type': None}}
    """
    success, mistake_type, status = validate_prediction(prediction)
    verdict = {"success": success, "mistake_type": mistake_type} if status == STATUS_OK else None
    record = result_prediction(status, verdict)
    if is_result_record(prediction) and isinstance(prediction.get("telemetry"), Mapping):
        # Kept for the cost and runtime aggregates (scoring.telemetry).
        record["telemetry"] = dict(prediction["telemetry"])
    return record


_BOOL_WORDS = frozenset({"true", "false", "yes", "no", "1", "0"})
_LABEL_WORDS = frozenset({"positive", "negative"})
# Keys people use for the outcome instead of "success".
_OTHER_KEYS = ("prediction", "predicted", "pred", "label", "answer", "result", "correct", "is_success", "succeeded")

_SHAPE_INTEGERS = "integers 0/1"
_SHAPE_BOOL_TEXT = 'strings such as "true"/"false"'
_SHAPE_LABELS = 'label strings "positive"/"negative"'
_FIXES = {
    _SHAPE_INTEGERS: "pass Booleans (bool(x)) or verdicts {\"success\": true}",
    _SHAPE_BOOL_TEXT: "pass Booleans, or the judge's JSON verdict text '{\"success\": true}'",
    _SHAPE_LABELS: 'map them to success: "positive" -> True, "negative" -> False',
}


class PredictionShapeWarning(UserWarning):
    """Predictions in a known wrong shape: they score as invalid; the message says the fix."""


def prediction_shape(prediction: Any) -> str | None:
    """The known wrong shape ``prediction`` has, or ``None``.

    >>> prediction_shape(1), prediction_shape(" True "), prediction_shape("negative")
    ('integers 0/1', 'strings such as "true"/"false"', 'label strings "positive"/"negative"')
    >>> prediction_shape({"prediction": True}), prediction_shape({"success": True})
    ('{"prediction": ...} objects', None)
    """
    if _is_bool(prediction) or prediction is None:
        return None
    if isinstance(prediction, (int, np.integer)) and prediction in (0, 1):
        return _SHAPE_INTEGERS
    if isinstance(prediction, str):
        word = prediction.strip().strip("\"'").lower()
        if word in _BOOL_WORDS:
            return _SHAPE_BOOL_TEXT
        if word in _LABEL_WORDS:
            return _SHAPE_LABELS
        return None
    if isinstance(prediction, Mapping) and "success" not in prediction and not is_result_record(prediction):
        for key in _OTHER_KEYS:
            if key in prediction:
                return f'{{"{key}": ...}} objects'
    return None


def shape_warnings(predictions: Iterable[Any]) -> list[str]:
    """One message per known wrong shape among ``predictions``: how many, and the fix.

    >>> shape_warnings([1, 0, True, {"prediction": False}])
    ['2 of 4 predictions are integers 0/1, which score as invalid (a prediction needs a Boolean success); pass Booleans (bool(x)) or verdicts {"success": true}', '1 of 4 predictions are {"prediction": ...} objects, which score as invalid (a prediction needs a Boolean success); name the key "success": {"success": true}']
    """
    predictions = list(predictions)
    shapes = Counter(shape for shape in map(prediction_shape, predictions) if shape is not None)
    messages = []
    for shape, count in shapes.items():
        # Every other shape is an object with another key for the outcome.
        fix = _FIXES.get(shape, 'name the key "success": {"success": true}')
        messages.append(
            f"{count} of {len(predictions)} predictions are {shape}, which score as invalid "
            f"(a prediction needs a Boolean success); {fix}"
        )
    return messages


def warn_shapes(predictions: Iterable[Any], *, stacklevel: int = 3) -> list[str]:
    """Issue :func:`shape_warnings` as :class:`PredictionShapeWarning`; returns the messages."""
    messages = shape_warnings(predictions)
    for message in messages:
        warnings.warn(message, PredictionShapeWarning, stacklevel=stacklevel)
    return messages
