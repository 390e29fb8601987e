"""Why a run stops starting items: a dead judge server (:class:`Breaker`) and ``--max-cost`` (:class:`CostBudget`).

Pure bookkeeping over finished items; the event loop consults them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from agenthorizon.schema import STATUS_ERROR

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
    """``--max-cost``: what a run folder's items cost (US dollars), and whether one more item may start.

    The rule, with ``spent`` the recorded cost of the folder's results and
    ``projected`` the *highest* cost of one item seen so far (not the mean: a
    run's costly items must not hide behind its cheap ones), or with
    re-asking the highest cost of one answer times the answers an item may
    ask for, when that is more (an item in flight may still re-ask):

    - while no item has reported a cost, one item at a time is in flight
      (the first cost is unknown until it arrives);
    - afterwards a new item starts only when
      ``spent + projected * (in_flight + 1) <= limit``;
    - when nothing is in flight and one more item would not fit, the run stops.

    An item that failed (status ``error``) without a cost is charged
    ``projected``: it may have spent as much as any item before failing. An
    *answered* item without a cost makes the limit unenforceable: the run
    stops at once, saying so.

    >>> from agenthorizon.judging.runs.records import ResultRecord, Telemetry
    >>> budget = CostBudget(3.0)
    >>> budget.may_start(in_flight=0), budget.may_start(in_flight=1)  # no cost known yet: one at a time
    (True, False)
    >>> budget.add(ResultRecord("t", "ok", telemetry=Telemetry(cost_usd=2.0)))
    >>> budget.may_start(in_flight=0)  # 2 + 2 > 3
    False
    >>> budget.stop_reason(in_flight=0)
    'max cost reached: $2.0000 recorded, up to $2.0000 an item (the highest so far), limit $3.0000; no new item started (raise --max-cost and re-run to continue)'
    >>> CostBudget(5.0, spent=2.0, highest=2.0).may_start(in_flight=0), CostBudget(5.0, spent=2.0, highest=2.0).may_start(in_flight=1)
    (True, False)
    """

    def __init__(
        self, limit: float | None, spent: float = 0.0, highest: float | None = None, *, answers_per_item: int = 1,
    ) -> None:
        self.limit = limit
        self.spent = spent
        """US dollars the results counted so far reported."""
        self.highest = highest
        """What one item may cost, from the results so far (``None``: no item has reported a cost): the
        highest cost of an item, or of one answer times ``answers_per_item`` when that is more."""
        self.answers_per_item = answers_per_item
        """The most answers one item may ask for (``1 + reask``): an item in flight may still re-ask."""
        self.estimated = 0.0
        """US dollars charged for failed items whose cost is unknown (``highest`` each)."""
        self.unenforceable: str | None = None
        """Why the limit cannot be enforced: an answered item reported no cost."""

    def add(self, result: ResultRecord) -> None:
        """Count one result's cost; see the class docstring for results without one."""
        cost = result.telemetry.cost_usd
        if cost is not None:
            self.spent += cost
            # One answer's cost times the answers an item may still ask for: an item that answered at
            # once says nothing of what one that re-asks will cost.
            answer_costs = [answer.cost_usd for answer in result.answers if answer.cost_usd is not None]
            per_answer = max(answer_costs) if answer_costs else cost / max(1, result.telemetry.answers or 1)
            projected = max(cost, per_answer * self.answers_per_item)
            self.highest = projected if self.highest is None else max(self.highest, projected)
        elif result.parse_status == STATUS_ERROR:
            self.estimated += self.highest or 0.0
        elif self.limit is not None and self.unenforceable is None:
            source = result.telemetry.cost_source
            self.unenforceable = (
                f"max cost cannot be enforced: the judge reported no cost for trajectory {result.trajectory_id}"
                + (f" (cost_source {source})" if source else "")
                + f"; ${self.spent:.4f} recorded, limit ${self.limit:.4f}; no new item started "
                "(give the judge prices, e.g. --price-in/--price-out, or run without --max-cost)"
            )

    def may_start(self, in_flight: int) -> bool:
        """Whether one more item may start now, with ``in_flight`` items being judged."""
        if self.limit is None:
            return True
        if self.unenforceable is not None:
            return False
        if self.highest is None:
            return in_flight == 0
        return self.spent + self.estimated + self.highest * (in_flight + 1) <= self.limit

    def stop_reason(self, in_flight: int) -> str | None:
        """Why the run must stop starting items (``None``: it may start one now, or wait for those in flight).

        An unenforceable limit stops at once; otherwise the run stops when
        nothing is in flight and one more item would not fit.
        """
        if self.limit is None:
            return None
        if self.unenforceable is not None:
            return self.unenforceable
        if in_flight or self.may_start(in_flight):
            return None
        estimated = f" (+ ${self.estimated:.4f} charged for failed items of unknown cost)" if self.estimated else ""
        return (
            f"max cost reached: ${self.spent:.4f} recorded{estimated}, up to ${self.highest or 0.0:.4f} an item "
            f"(the highest so far), limit ${self.limit:.4f}; no new item started (raise --max-cost and re-run to continue)"
        )

    @classmethod
    def from_records(
        cls, limit: float | None, results: Iterable[ResultRecord | None], *, answers_per_item: int = 1,
    ) -> CostBudget:
        """A budget that starts from the cost recorded in a run folder's results (a resumed run counts them).

        Known costs are counted first, so that every failed result of unknown
        cost is charged the highest cost of the folder.
        """
        held = [result for result in results if result is not None]
        budget = cls(limit, answers_per_item=answers_per_item)
        for result in sorted(held, key=lambda r: r.telemetry.cost_usd is None):
            budget.add(result)
        return budget
