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


class Answers(BaseJudge):
    """Answers each item with the verdict ``answers[trajectory_id]`` the test chose (never from its input),
    with 10 input and 2 output tokens; ``confidence`` (when given) is stated in every verdict."""

    name = "answers"

    def __init__(self, answers: dict[str, bool], confidence: float | None = None) -> None:
        self.answers, self.confidence = answers, confidence

    def judge(self, judge_input):
        verdict = {"success": self.answers[judge_input.trajectory_id], "reasoning": "r"}
        if self.confidence is not None:
            verdict["confidence"] = self.confidence
        return JudgeOutput(text=json.dumps(verdict), input_tokens=10, output_tokens=2)

    def spec(self):
        return {"name": self.name, "spec": "answers"}
