"""Estimated costs from a price table, for runs that report tokens but no cost.

An estimate is never a reported cost: it is summarised on its own
(``estimated_cost_usd`` beside ``cost_usd``) and only for the items whose
judge reported no cost, so the two never add up silently. Pure: no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from agenthorizon.scoring.telemetry import quantity_summary

__all__ = ["Price", "estimated_cost_summary", "estimated_costs", "parse_prices"]

_PER = 1_000_000


@dataclass(frozen=True)
class Price:
    """US dollars per million input and per million output tokens of one model."""

    input_per_million: float
    output_per_million: float

    def cost(self, input_tokens: float, output_tokens: float) -> float:
        """input_tokens × input price / 10^6 + output_tokens × output price / 10^6, in dollars.

        >>> Price(2.0, 8.0).cost(500_000, 25_000)
        1.2
        """
        return (input_tokens * self.input_per_million + output_tokens * self.output_per_million) / _PER

    def to_dict(self) -> dict[str, float]:
        return {"input_per_million": self.input_per_million, "output_per_million": self.output_per_million}


def _amount(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{where}: expected a price in dollars per million tokens (a number >= 0), got {value!r}")
    return float(value)


def parse_prices(data: Any, where: str) -> dict[str, Price]:
    """Model -> :class:`Price`, from ``{"MODEL": {"input": D, "output": D}, ...}`` (dollars per million tokens).

    Errors name ``where`` (the file) and the model.

    >>> parse_prices({"gpt-x": {"input": 1.25, "output": 10}}, "prices.json")["gpt-x"]
    Price(input_per_million=1.25, output_per_million=10.0)
    """
    if not isinstance(data, Mapping) or not data:
        raise ValueError(f'{where}: expected a JSON object {{"MODEL": {{"input": D, "output": D}}, ...}} '
                         "(dollars per million tokens), got " + (f"{type(data).__name__}" if data else "nothing"))
    prices = {}
    for model, entry in data.items():
        if not isinstance(entry, Mapping) or set(entry) != {"input", "output"}:
            raise ValueError(f'{where}: model {model!r}: expected {{"input": D, "output": D}} '
                             f"(dollars per million tokens), got {entry!r:.80}")
        prices[str(model)] = Price(_amount(f"{where}: model {model!r}: input", entry["input"]),
                                   _amount(f"{where}: model {model!r}: output", entry["output"]))
    return prices


def _get(item: Any, name: str) -> Any:
    if item is None:
        return None
    value = item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)
    return None if isinstance(value, bool) or not isinstance(value, (int, float)) else value


def estimated_costs(telemetry: Sequence[Any], price: Price) -> list[float | None]:
    """Per item without a reported cost: its estimated cost from its tokens; ``None`` when its tokens are unknown.

    Items whose judge reported ``cost_usd`` are left out (their cost is known);
    the list holds one entry per item without one.

    >>> estimated_costs([{"cost_usd": 0.3, "input_tokens": 9}, {"input_tokens": 10**6, "output_tokens": 0},
    ...                  {"input_tokens": 5}], Price(1.0, 4.0))
    [1.0, None]
    """
    out = []
    for item in telemetry:
        if _get(item, "cost_usd") is not None:
            continue
        tokens_in, tokens_out = _get(item, "input_tokens"), _get(item, "output_tokens")
        out.append(None if tokens_in is None or tokens_out is None else price.cost(tokens_in, tokens_out))
    return out


def estimated_cost_summary(telemetry: Sequence[Any], price: Price, model: str) -> dict[str, Any]:
    """The :func:`~agenthorizon.scoring.telemetry.quantity_summary` of the estimated costs, marked as estimated.

    Over the items that report no cost (``n_items``; the ``n_reported``
    others are left out), with ``estimated: True``, the ``model`` and the
    ``price``. Cached input tokens are priced as input tokens, so an
    estimate for a run with prompt caching is an upper bound.

    >>> summary = estimated_cost_summary([{"input_tokens": 10**6, "output_tokens": 10**5}], Price(1.0, 10.0), "m")
    >>> summary["total"], summary["estimated"], summary["n_reported"]
    (2.0, True, 0)
    """
    items = list(telemetry)
    values = estimated_costs(items, price)
    return {**quantity_summary(values), "estimated": True, "model": model, "price": price.to_dict(),
            "n_reported": len(items) - len(values)}
