"""``--prices FILE``: read a price table and add the estimated cost of a run's items to its score."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from agenthorizon.judging.runs.records import RunRecord
from agenthorizon.scoring.metrics import ScoreReport
from agenthorizon.scoring.prices import Price, estimated_cost_summary, parse_prices

__all__ = ["add_estimated_costs", "load_prices", "run_model"]

PRICES_LIMIT = 4 * 2**20
"""The largest price table read: 4 MiB."""


def load_prices(path: str | os.PathLike[str]) -> dict[str, Price]:
    """Model -> :class:`~agenthorizon.scoring.prices.Price` from a JSON file; errors name the file."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            raw = handle.read(PRICES_LIMIT + 1)
    except OSError as error:
        raise ValueError(f"{path}: cannot read the price table ({error.strerror or error})") from None
    if len(raw) > PRICES_LIMIT:
        raise ValueError(f"{path}: larger than 4 MiB; expected a small JSON price table")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f'{path}: not JSON ({error}); expected {{"MODEL": {{"input": D, "output": D}}}}') from None
    return parse_prices(data, str(path))


def run_model(records: Mapping[str, RunRecord | None]) -> str:
    """The one model the run records name; ``ValueError`` when none or several do (a price is per model)."""
    models = {record.model for record in records.values() if record is not None and record.model}
    if len(models) != 1:
        found = ", ".join(sorted(models)) if models else "none"
        raise ValueError(f"--prices needs the results to be of one model recorded in run.json; found {found}")
    return models.pop()


def add_estimated_costs(
    report: ScoreReport, prices_path: str | os.PathLike[str], records: Mapping[str, RunRecord | None],
    telemetry: Mapping[str, Any], rows: Sequence[Mapping[str, Any]],
) -> list[str]:
    """Put ``estimated_cost_usd`` (marked estimated) in ``report.cost`` and return a note saying so.

    The estimate covers the scored items whose result reports no cost
    (:func:`~agenthorizon.scoring.prices.estimated_cost_summary`); ``cost_usd``
    keeps the reported costs alone.
    """
    prices = load_prices(prices_path)
    model = run_model(records)
    if model not in prices:
        raise ValueError(f"{prices_path}: no price for model {model!r}; the table has {', '.join(sorted(prices))}")
    items = [telemetry.get(row["trajectory_id"]) for row in rows]
    summary = estimated_cost_summary(items, prices[model], model)
    if report.cost is None:
        report.cost = {}
    report.cost["estimated_cost_usd"] = summary
    return [f"Estimated costs ({prices_path}, {model}): {summary['n_items']} items report no cost and are "
            f"estimated from their tokens ({summary['n_known']} with tokens); never added to the reported cost_usd"]
