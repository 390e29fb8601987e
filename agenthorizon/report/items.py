"""The report page's data, embedded as JSON: :func:`item_views` per item, :func:`run_views` per run's verdicts."""

from __future__ import annotations

import functools
from typing import Any

from agenthorizon.judging.runs.records import ResultRecord, Telemetry
from agenthorizon.report.options import ReportOptions
from agenthorizon.report.runs import RunSet
from agenthorizon.report.thumbnails import thumbnail_urls
from agenthorizon.schema import step_bucket
from agenthorizon.scoring.metrics import item_outcomes
from agenthorizon.scoring.predictions import prediction_verdict, validate_prediction

__all__ = ["answers_asked", "images_sent", "item_views", "run_views", "thumbnails"]

_RAW_OUTPUT_LIMIT = 4000  # characters of raw judge output shown when no reasoning parsed


def _picks(row: dict[str, Any], options: ReportOptions) -> list[tuple[int, str]]:
    """``(step id, path)`` of the screenshots an item shows: first, last and evenly spaced between."""
    from agenthorizon.data.step_selection import evenly_spaced

    if options.thumbnails <= 0:
        return []
    screenshots = row.get("screenshots") or []
    paths = list(getattr(screenshots, "paths", screenshots))
    available = [index for index, path in enumerate(paths) if path is not None]
    if not available:
        return []
    step_ids = row.get("step_ids")  # the report reads only these of the steps
    if step_ids is None and row.get("steps") is not None:
        step_ids = [step["step_id"] for step in row["steps"]]
    if step_ids is None or len(step_ids) != len(paths):
        step_ids = list(range(len(paths)))
    return [(step_ids[index], paths[index]) for index in evenly_spaced(available, options.thumbnails)]


def thumbnails(
    row: dict[str, Any],
    options: ReportOptions,
    unreadable: list[str],
    urls: dict[str, Any] | None = None,
    picks: list[tuple[int, str]] | None = None,
) -> list[dict[str, Any]]:
    """The item's thumbnails: first, last and evenly spaced screenshots, as JPEG data URLs.

    ``urls`` (from :func:`agenthorizon.report.thumbnails.thumbnail_urls`) and
    ``picks`` are made here when not given. An unreadable screenshot becomes a
    placeholder captioned as unreadable, its reason appended to ``unreadable``:
    one bad file never stops the report.
    """
    picks = _picks(row, options) if picks is None else picks
    if urls is None:
        urls = thumbnail_urls([path for _, path in picks], options.thumbnail_size, options.thumbnail_quality)
    thumbnails = []
    for step, path in picks:
        url = urls[path]
        if isinstance(url, Exception):
            unreadable.append(f"item {row['trajectory_id']} step {step}: {url}")
            thumbnails.append({"step": step, "src": _placeholder(options.thumbnail_size), "unreadable": True})
        else:
            thumbnails.append({"step": step, "src": url})
    return thumbnails


@functools.lru_cache(maxsize=4)
def _placeholder(size: tuple[int, int]) -> str:
    """A grey JPEG data URL of ``size`` that stands in for an unreadable screenshot."""
    import base64
    import io

    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, (200, 200, 200))
    ImageDraw.Draw(image).text((10, 10), "screenshot unreadable", fill=(60, 60, 60))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=70)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def images_sent(telemetry: Telemetry) -> str | None:
    """How an item's screenshots went to a direct judge, from its result's telemetry; ``None`` when not recorded.

    >>> images_sent(Telemetry(merged=True, merge_reason="count", extra={"images_mode_used": "mosaic", "n_images": 8}))
    '8 image(s) as 2x2 mosaics (merged: count)'
    >>> images_sent(Telemetry(merged=False, extra={"images_mode_used": "per-step", "n_images": 30}))
    '30 image(s) as per-step (not merged)'
    >>> images_sent(Telemetry(merged=False, extra={"images_mode_used": "per-step", "n_images": 90, "image_size": [172, 112]}))
    '90 image(s) as per-step at 172x112 (token budget) (not merged)'
    >>> images_sent(Telemetry(merged=False, extra={"images_mode_used": "per-step", "n_images": 7, "image_size": [497, 323],
    ...                                           "text_tokens": 588}))
    '7 image(s) as per-step at 497x323 (token budget over the input, 588 of text) (not merged)'
    """
    mode = telemetry.extra.get("images_mode_used")
    if not isinstance(mode, str):
        return None
    if mode == "none":
        return "none (text only)"
    shape = "2x2 mosaics" if mode == "mosaic" else mode
    if telemetry.merged is True:
        reason = telemetry.merge_reason
        merged = f"merged: {reason}" if reason is not None else "merged: mosaics requested"
    else:
        merged = "not merged"
    size = telemetry.extra.get("image_size")
    text = telemetry.extra.get("text_tokens")  # only a budget over the whole input records the text's share
    budget = "token budget" if not isinstance(text, int) else f"token budget over the input, {text} of text"
    at = f" at {size[0]}x{size[1]} ({budget})" if isinstance(size, list) and len(size) == 2 else ""
    return f"{telemetry.extra.get('n_images')} image(s) as {shape}{at} ({merged})"


def answers_asked(result: ResultRecord) -> str | None:
    """How many answers an item was asked for and their parse statuses, when it was re-asked; else ``None``.

    >>> from agenthorizon.judging.runs.records import Answer
    >>> answers_asked(ResultRecord("t", "ok", answers=(Answer("hm", "no_json"), Answer("{}", "ok"))))
    '2 answers (re-asked after an answer without a valid verdict): no_json, ok; the last is scored'
    """
    if len(result.answers) < 2:
        return None
    statuses = ", ".join(answer.parse_status for answer in result.answers)
    return f"{len(result.answers)} answers (re-asked after an answer without a valid verdict): {statuses}; the last is scored"


def _verdict_view(prediction: Any, result: ResultRecord | None, status: str, success: bool | None, outcome: str) -> dict[str, Any]:
    # Any form of prediction shows the verdict's own fields; a runner's ``result`` adds raw output, error, images sent.
    verdict = prediction_verdict(prediction) or {}
    reasoning = verdict.get("reasoning")
    raw = False
    if not isinstance(reasoning, str) or not reasoning:
        output = None if result is None else result.raw_output
        reasoning = output[:_RAW_OUTPUT_LIMIT] if output else None
        raw = reasoning is not None
    mistake_type = verdict.get("mistake_type")
    confidence = verdict.get("confidence")
    return {
        "images": None if result is None else images_sent(result.telemetry),
        "answers": None if result is None else answers_asked(result),
        "outcome": outcome,
        "status": status,
        "success": success,
        "mistake_type": mistake_type if isinstance(mistake_type, str) else None,
        "confidence": confidence if isinstance(confidence, str) else None,
        "reasoning": reasoning,
        "reasoning_is_raw": raw,
        "error": None if result is None else result.error,
    }


def run_views(run_set: RunSet) -> list[dict[str, Any]]:
    """Per run, its label and every item's verdict view (outcome class, status, reasoning...), in row order."""
    views = []
    for run in run_set.runs:
        predictions = run.predictions()
        # Outcome classes from scoring itself, so the item list never disagrees with the metrics.
        outcomes = item_outcomes(predictions, run_set.rows)
        verdicts = []
        for row, outcome in zip(run_set.rows, outcomes.outcome_classes()):
            prediction = predictions.get(row["trajectory_id"])
            success, _named, status = validate_prediction(prediction)
            result = run.results.records.get(row["trajectory_id"])
            verdicts.append(_verdict_view(prediction, result, status, success, outcome))
        views.append({"label": run.label, "verdicts": verdicts})
    return views


def item_views(
    run_set: RunSet, options: ReportOptions, unreadable: list[str], *, progress: bool = False
) -> list[dict[str, Any]]:
    """Every item's facts and thumbnails as the page shows them (unreadable screenshots appended to ``unreadable``).

    ``progress`` shows a progress bar of the thumbnails.
    """
    picks = [_picks(row, options) for row in run_set.rows]
    paths = [path for row_picks in picks for _, path in row_picks]
    urls = thumbnail_urls(paths, options.thumbnail_size, options.thumbnail_quality, progress=progress)
    return [
        {
            "id": row["trajectory_id"],
            "instruction": row["instruction"],
            "label": row["label"],
            "mistake_type": row["mistake_type"],
            "num_steps": row["num_steps"],
            "bucket": step_bucket(int(row["num_steps"])),
            "os": row.get("os"),
            "thumbnails": thumbnails(row, options, unreadable, urls, row_picks),
        }
        for row, row_picks in zip(run_set.rows, picks)
    ]
