"""Judges for tests that need a run to end in a particular way, answering from the test, never from their input."""

from __future__ import annotations

import json

from agenthorizon.judging.judges import BaseJudge, JudgeOutput


class InterruptedJudge(BaseJudge):
    """Answers ``answers[trajectory_id]`` (default ``True``) and raises ``KeyboardInterrupt``, as Ctrl-C does
    in the running loop, when asked for item ``stop_at`` (1-based; ``None``: never), so the real runner
    records an interrupted run holding the results written before."""

    name = "interrupted"

    def __init__(self, stop_at: int | None, answers: dict[str, bool] | None = None) -> None:
        self.stop_at, self.answers, self.calls = stop_at, answers or {}, 0

    async def ajudge(self, judge_input):
        self.calls += 1
        if self.calls == self.stop_at:
            raise KeyboardInterrupt
        success = self.answers.get(judge_input.trajectory_id, True)
        return JudgeOutput(text=json.dumps({"success": success, "reasoning": "looks done"}))

    def spec(self):
        return {"name": self.name, "spec": "interrupted"}
