"""Why a run stops starting items: a dead judge server (the breaker) and ``--max-cost``.

Both are pure bookkeeping over finished items, kept apart from the event loop
(:mod:`agenthorizon.judging.runs.loop`) that consults them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from agenthorizon.judging.runs.records import ResultRecord

__all__ = ["Breaker", "CostBudget"]


class Breaker:
    """Counts consecutive transport failures across items; trips at ``limit`` (``None``: never).

    Any item that reached the judge (an answer, or a failure that is not a
    transport failure) resets the count.

    >>> breaker = Breaker(2)
    >>> breaker.record("a", "ConnectError"), breaker.record("b", None), breaker.record("c", "HTTP 503")
    (None, None, None)
    >>> breaker.record("d", "HTTP 503").startswith("stopped after 2 consecutive items")
    True
    """

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.streak = 0
        self.last = ""

    def record(self, trajectory_id: str, transport_failure: str | None) -> str | None:
        """Note one finished item; the reason to stop the run when the streak reaches the limit."""
        if transport_failure is None:
            self.streak = 0
            return None
        self.streak += 1
        self.last = f"trajectory {trajectory_id}: {transport_failure}"
        if self.limit is not None and self.streak >= self.limit:
            return (
                f"stopped after {self.streak} consecutive items failed to reach the judge "
                f"(last: {self.last[:300]}); fix the server or connection and re-run the same command to resume"
            )
        return None


class CostBudget:
    """``--max-cost``: recorded cost so far (US dollars), and whether one more item would pass the limit.

    The expected cost of an item is the mean recorded cost of the items that
    have one; a new item may start while ``spent + expected * (in_flight + 1)``
    stays within ``limit``.

    >>> from agenthorizon.judging.runs.records import ResultRecord, Telemetry
    >>> budget = CostBudget(0.05, spent=0.0, items_with_cost=0)
    >>> paid = ResultRecord("t", "ok", telemetry=Telemetry(cost_usd=0.02))
    >>> budget.add(paid); budget.add(paid)
    >>> budget.stop_reason(in_flight=0).startswith("max cost reached")
    True
    >>> CostBudget(0.07, spent=0.04, items_with_cost=2).stop_reason(in_flight=0) is None
    True
    """

    def __init__(self, limit: float | None, spent: float, items_with_cost: int) -> None:
        self.limit = limit
        self.spent = spent
        self.items = items_with_cost

    def add(self, result: ResultRecord) -> None:
        """Count one result's cost (a result whose cost is unknown adds nothing)."""
        cost = result.telemetry.cost_usd
        if cost is not None:
            self.spent += cost
            self.items += 1

    def stop_reason(self, in_flight: int) -> str | None:
        """Why no new item may start: the spent cost plus the expected cost of in-flight items and one more."""
        if self.limit is None:
            return None
        expected = self.spent / self.items if self.items else 0.0
        if self.spent + expected * (in_flight + 1) > self.limit:
            return (
                f"max cost reached: ${self.spent:.4f} recorded, about ${expected:.4f} an item, limit "
                f"${self.limit:.4f}; no new item started (raise --max-cost and re-run to continue)"
            )
        return None

    @classmethod
    def from_records(cls, limit: float | None, results: Iterable[ResultRecord | None]) -> CostBudget:
        """A budget that starts from the cost recorded in a run folder's results (a resumed run counts them)."""
        budget = cls(limit, 0.0, 0)
        for result in results:
            if result is not None:
                budget.add(result)
        return budget
