"""The run's progress bar: tqdm with the tokens, cost and errors so far in its postfix."""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

from agenthorizon.schema import STATUS_ERROR

if TYPE_CHECKING:
    from agenthorizon.judging.runs.records import ResultRecord

__all__ = ["Progress"]


class Progress:
    """The run's progress: a tqdm bar on a terminal, a plain line now and then in a pipe or log file.

    On a terminal (or with ``TQDM_DISABLE`` set) the bar is
    :func:`agenthorizon.util.progress.progress_bar`'s, with tokens, cost and
    errors in its postfix. Elsewhere (a pipe, a Slurm log) one line every tenth
    of the items (or every ``LINE_INTERVAL_S`` seconds while items finish) and
    one at the end. The totals are kept even when progress is off.

    >>> from agenthorizon.judging.runs.records import ResultRecord, Telemetry
    >>> bar = Progress(total=2, initial=0, enabled=False, description="constant:true")
    >>> bar.update(ResultRecord("t", "error", telemetry=Telemetry(input_tokens=10, output_tokens=5)))
    >>> bar.tokens, bar.errors
    (15, 1)
    """

    # tqdm redraws a few times a second: formatting the postfix per item would only cost event-loop time.
    POSTFIX_INTERVAL_S = 0.1
    LINE_INTERVAL_S = 60.0

    def __init__(self, total: int, initial: int, enabled: bool, description: str, *, stream: TextIO | None = None) -> None:
        self.tokens = 0
        self.cost = 0.0
        self.errors = 0
        self.bar = None
        self.postfix_at = 0.0
        self.total, self.done, self.description = total, initial, description
        self.lines: TextIO | None = None
        self.line_at = time.monotonic()
        self.line_every = max(1, total // 10)
        if not enabled:
            return
        stream = sys.stderr if stream is None else stream
        from agenthorizon.util.progress import is_terminal, progress_bar

        if is_terminal(stream) or "TQDM_DISABLE" in os.environ:
            self.bar = progress_bar(total, description, "item", initial=initial, file=stream)
        else:
            self.lines = stream

    def update(self, result: ResultRecord) -> None:
        """Count one written result and advance the bar (or write a line when one is due)."""
        telemetry = result.telemetry
        self.tokens += (telemetry.input_tokens or 0) + (telemetry.output_tokens or 0)
        self.cost += telemetry.cost_usd or 0.0
        self.errors += result.parse_status == STATUS_ERROR
        self.done += 1
        now = time.monotonic()
        if self.bar is not None:
            if now - self.postfix_at >= self.POSTFIX_INTERVAL_S:
                self.postfix_at = now
                self.bar.set_postfix(self._totals(), refresh=False)
            self.bar.update(1)
        elif self.lines is not None and (self.done % self.line_every == 0 or now - self.line_at >= self.LINE_INTERVAL_S):
            self._line()

    def _totals(self) -> dict[str, Any]:
        totals: dict[str, Any] = {"tokens": f"{self.tokens:,}", "errors": self.errors}
        if self.cost:
            totals["cost"] = f"${self.cost:.2f}"
        return totals

    def _line(self) -> None:
        self.line_at = time.monotonic()
        totals = ", ".join(f"{key} {value}" for key, value in self._totals().items())
        print(f"{self.description}: {self.done}/{self.total} items, {totals}", file=self.lines, flush=True)

    def close(self) -> None:
        """Show the final totals and close the bar (or write the last line)."""
        if self.bar is not None:
            self.bar.set_postfix(self._totals(), refresh=False)  # the final line shows the final totals
            self.bar.close()
        elif self.lines is not None and self.done % self.line_every:
            self._line()
