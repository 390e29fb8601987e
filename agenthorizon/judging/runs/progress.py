"""The run's progress bar: tqdm with the tokens, cost and errors so far in its postfix."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from agenthorizon.schema import STATUS_ERROR

if TYPE_CHECKING:
    from agenthorizon.judging.runs.records import ResultRecord

__all__ = ["Progress"]


class Progress:
    """tqdm bar with tokens and cost in its postfix; a no-op when disabled.

    :meth:`update` takes each result as it is written (its telemetry and
    parse status); the totals are kept even when the bar is disabled.

    >>> from agenthorizon.judging.runs.records import ResultRecord, Telemetry
    >>> bar = Progress(total=2, initial=0, enabled=False, description="constant:true")
    >>> bar.update(ResultRecord("t", "error", telemetry=Telemetry(input_tokens=10, output_tokens=5)))
    >>> bar.tokens, bar.errors
    (15, 1)
    """

    # tqdm redraws a few times a second; formatting the postfix for every item
    # would only cost event-loop time.
    POSTFIX_INTERVAL_S = 0.1

    def __init__(self, total: int, initial: int, enabled: bool, description: str) -> None:
        self.tokens = 0
        self.cost = 0.0
        self.errors = 0
        self.bar = None
        self.postfix_at = 0.0
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, initial=initial, desc=description, unit="item", dynamic_ncols=True)

    def update(self, result: ResultRecord) -> None:
        """Count one written result and advance the bar."""
        telemetry = result.telemetry
        self.tokens += (telemetry.input_tokens or 0) + (telemetry.output_tokens or 0)
        self.cost += telemetry.cost_usd or 0.0
        self.errors += result.parse_status == STATUS_ERROR
        if self.bar is not None:
            now = time.monotonic()
            if now - self.postfix_at >= self.POSTFIX_INTERVAL_S:
                self.postfix_at = now
                self._set_postfix()
            self.bar.update(1)

    def _set_postfix(self) -> None:
        postfix = {"tokens": f"{self.tokens:,}", "errors": self.errors}
        if self.cost:
            postfix["cost"] = f"${self.cost:.2f}"
        self.bar.set_postfix(postfix, refresh=False)

    def close(self) -> None:
        """Show the final totals and close the bar."""
        if self.bar is not None:
            self._set_postfix()  # the final line shows the final totals
            self.bar.close()
