"""The screenshot summaries a summarising judge cached, as a dataset to load and inspect (:func:`load_summaries`)."""

from __future__ import annotations

import os
from typing import Any

from agenthorizon.judging.judges.call_cache import CallCache, cache_key

__all__ = ["SUMMARY_COLUMNS", "load_summaries"]

SUMMARY_COLUMNS = ("trajectory_id", "step_id", "screenshot_sha256", "summariser_key", "model", "summary",
                   "input_tokens", "output_tokens", "cost_usd", "created_at")
"""The columns of :func:`load_summaries`."""


def load_summaries(cache_dir: str | os.PathLike[str] | None = None, *, summariser_key: str | None = None) -> Any:
    """Every cached screenshot summary, a row per item and step, as a ``datasets.Dataset``.

    A summary shared by several items appears once per item; a summary no item
    lists (its item's judging stopped first) is a row with ``trajectory_id``
    and ``step_id`` ``None``, never dropped.

    Parameters
    ----------
    cache_dir : path, optional
        The call cache's root, as given to the judge (``--model-cache``; default
        :func:`~agenthorizon.judging.judges.call_cache.default_model_cache`).
    summariser_key : str, optional
        Only this summariser's summaries (a result's ``summariser_key``).

    Returns
    -------
    datasets.Dataset
        Columns :data:`SUMMARY_COLUMNS`, sorted by trajectory id and step
        (unlisted summaries last). Tokens and cost are those of the call that
        made the summary (``None`` when the server did not say).

    Raises
    ------
    ValueError
        An item lists a screenshot whose summary is not in the cache.
    """
    import datasets

    summaries = {path.stem: entry for path, entry in CallCache(cache_dir, "summaries").entries()}
    rows: list[dict[str, Any]] = []
    listed: set[str] = set()
    for path, item in CallCache(cache_dir, "summary-items").entries():
        key = item.get("summariser_key")
        if summariser_key is not None and key != summariser_key:
            continue
        for step_id, digest in item.get("steps", []):
            summary_key = cache_key({"screenshot_sha256": digest, "summariser": key})
            entry = summaries.get(summary_key)
            if entry is None:
                raise ValueError(f"{path}: step {step_id} names screenshot {digest[:12]}, whose summary is not in the cache")
            listed.add(summary_key)
            rows.append(_row(entry, item["trajectory_id"], step_id))
    rows.sort(key=lambda row: (row["trajectory_id"], row["step_id"]))
    for summary_key, entry in sorted(summaries.items()):
        if summary_key not in listed and (summariser_key is None or entry.get("summariser_key") == summariser_key):
            rows.append(_row(entry, None, None))
    features = datasets.Features({
        "trajectory_id": datasets.Value("string"), "step_id": datasets.Value("int64"),
        "screenshot_sha256": datasets.Value("string"), "summariser_key": datasets.Value("string"),
        "model": datasets.Value("string"), "summary": datasets.Value("string"),
        "input_tokens": datasets.Value("int64"), "output_tokens": datasets.Value("int64"),
        "cost_usd": datasets.Value("float64"), "created_at": datasets.Value("string"),
    })
    return datasets.Dataset.from_dict({column: [row[column] for row in rows] for column in SUMMARY_COLUMNS},
                                      features=features)


def _row(entry: dict[str, Any], trajectory_id: str | None, step_id: int | None) -> dict[str, Any]:
    return {
        "trajectory_id": trajectory_id, "step_id": step_id, "screenshot_sha256": entry.get("screenshot_sha256"),
        "summariser_key": entry.get("summariser_key"), "model": (entry.get("summariser") or {}).get("model"),
        "summary": entry.get("summary"), "input_tokens": entry.get("input_tokens"),
        "output_tokens": entry.get("output_tokens"), "cost_usd": entry.get("cost_usd"), "created_at": entry.get("created_at"),
    }
