"""Provenance notes of a score: what the result files held (:func:`result_notes`), which predictions had a
known wrong shape (:func:`score_noting_shapes`). Notes never change a number: an unreadable or untrusted
result still scores as invalid.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Sequence

from agenthorizon.judging.runs.folder import LOCK_SUFFIX, ResultSet, is_record_name
from agenthorizon.scoring.metrics import ScoreReport, score
from agenthorizon.schema import STATUS_OK
from agenthorizon.scoring.predictions import PredictionShapeWarning
from agenthorizon.util.terminal_text import printable

__all__ = ["ignored_files", "predictions_from_results", "result_notes", "score_noting_shapes", "telemetry_from_results"]

SHOWN = 10
"""How many names a note lists before it says "..."."""


def predictions_from_results(result_set: ResultSet, wanted_ids: set[str]) -> tuple[dict[str, Any], list[str]]:
    """Predictions by trajectory id for the ``wanted_ids``, and the unexpected ids (results for other items), sorted."""
    return result_set.predictions(wanted_ids), sorted(result_set.ids() - wanted_ids)


def telemetry_from_results(result_set: ResultSet, wanted_ids: set[str] | None = None) -> dict[str, Any] | None:
    """Trajectory id -> the typed telemetry of each runner result (of ``wanted_ids``), for the cost and runtime aggregates.

    ``None`` when there is no runner result at all; an item without a runner
    result is absent, which the aggregates count as unknown.

    >>> telemetry_from_results(ResultSet()) is None
    True
    """
    if not result_set.records:
        return None
    return {key: record.telemetry for key, record in result_set.records.items() if wanted_ids is None or key in wanted_ids}


def ignored_files(result_set: ResultSet) -> list[str]:
    """Files in result directories that are neither results nor run records (nor locks)."""
    return [
        path for path in result_set.ignored
        if not is_record_name(Path(path).name) and not Path(path).name.endswith(LOCK_SUFFIX)
    ]


def _listing(values: Sequence[str]) -> str:
    # File names and messages from a run folder: shown escaped and cut (terminal_text).
    return ", ".join(printable(value, limit=_VALUE_LIMIT) for value in values[:SHOWN]) + (", ..." if len(values) > SHOWN else "")


_VALUE_LIMIT = 300


def result_notes(result_set: ResultSet, unexpected: Sequence[str], n_missing: int) -> list[str]:
    """Provenance lines about the result files: found, missing, unreadable, untrusted, unexpected, ignored.

    >>> result_notes(ResultSet(), [], 3)
    ['Results found: 0; items without a result (scored as missing): 3']
    """
    notes = [f"Results found: {len(result_set.ids())}; items without a result (scored as missing): {n_missing}"]
    if result_set.unreadable:
        notes.append(f"Unreadable result files (scored as malformed_json): {len(result_set.unreadable)}: "
                     f"{_listing(list(result_set.unreadable.values()))}")
    for reason, what in (("id_mismatch", "holding another item's result"), ("judge_mismatch", "written by another judge")):
        messages = [message for r, message in result_set.untrusted.values() if r == reason]
        if messages:
            notes.append(f"Result files {what} (scored as {reason}): {len(messages)}: {_listing(messages)}")
    if unexpected:
        notes.append(
            f"Unexpected results for items outside the config (not scored): {len(unexpected)}: {_listing(list(unexpected))}"
        )
    reasked = [record for record in result_set.records.values() if (record.telemetry.answers or 1) > 1]
    if reasked:
        extra = sum(record.telemetry.answers - 1 for record in reasked)
        valid = sum(record.parse_status == STATUS_OK for record in reasked)
        notes.append(
            f"Re-asked after an answer without a valid verdict (--reask): {len(reasked)} item(s), {extra} more "
            f"answer(s); {valid} ended with a valid verdict (the last answer is scored)"
        )
    names = [Path(path).name for path in ignored_files(result_set)]
    if names:
        notes.append(f"Ignored files (not <uuid>.json): {len(names)}: {_listing(names)}")
    return notes


def score_noting_shapes(predictions: Any, references: Any, **options: Any) -> tuple[ScoreReport, list[str]]:
    """:func:`agenthorizon.score`, and its prediction-shape warnings as report notes.

    Scores stay strict; the notes name predictions of a known wrong shape
    (0/1, "true", {"prediction": b}) and the fix. Other warnings are passed on.

    >>> report, notes = score_noting_shapes([1, True], ["positive", "positive"])
    >>> report.n_invalid, notes[0].startswith("Warning: 1 of 2 predictions are integers 0/1")
    (1, True)
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PredictionShapeWarning)
        report = score(predictions, references, **options)
    notes = [f"Warning: {w.message}" for w in caught if issubclass(w.category, PredictionShapeWarning)]
    for other in (w for w in caught if not issubclass(w.category, PredictionShapeWarning)):
        warnings.warn_explicit(other.message, other.category, other.filename, other.lineno)
    return report, notes
