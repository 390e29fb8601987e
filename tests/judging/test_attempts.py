"""``telemetry.attempts`` counts every call of every layer: the judge's own retries, the runner's, re-asks.

The OpenAI-compatible judge runs against a scripted server on 127.0.0.1
(tests/loopback.py's ``StubServer``); each count is checked against the
requests that server received for the item.
"""

from __future__ import annotations

import json

import pytest

import agenthorizon
from agenthorizon.judging.judges import BaseJudge, JudgeOutput, TransientJudgeError
from agenthorizon.judging.runs.folder import read_results
from agenthorizon.judging.runs.runner import run_judge
from loopback import StubServer
from test_judges import fast_judge, stub  # noqa: F401 (fixtures)

UNAVAILABLE = (503, {}, {"error": {"message": "overloaded"}}, 0)
NO_VERDICT = (200, {}, StubServer.completion("I cannot tell."), 0)


@pytest.fixture(scope="module")
def one_item(tiny_root):
    return agenthorizon.load_dataset(tiny_root, "AH", split="test", images=None).select(range(1))


def _result(out):
    (record,) = read_results([out]).records.values()
    return record


def _item_requests(server):
    return [r for r in server.requests if r["path"].endswith("/chat/completions")]


def test_a_judge_that_gave_up_after_3_attempts_records_3(stub, one_item, tiny_root, tmp_path, monkeypatch):
    monkeypatch.setenv("AH_TEST_KEY", "sk-test-not-a-real-key")
    stub.script = [UNAVAILABLE] * 3
    run_judge(fast_judge(stub, images="none", retries=2), one_item, tmp_path / "run", data_root=tiny_root,
              progress=False, breaker=None)
    result = _result(tmp_path / "run")
    assert result.parse_status == "error" and "gave up after 3 attempts" in result.error
    assert result.telemetry.attempts == len(_item_requests(stub)) == 3
    written = json.loads(next(p for p in (tmp_path / "run").glob("*-*.json")).read_text())
    assert written["telemetry"]["attempts"] == 3


def test_retries_then_an_answer_and_a_reask_count_every_request(stub, one_item, tiny_root, tmp_path, monkeypatch):
    monkeypatch.setenv("AH_TEST_KEY", "sk-test-not-a-real-key")
    # 2 failures and an answer without a verdict, then the re-ask: 1 failure and a verdict.
    stub.script = [UNAVAILABLE, UNAVAILABLE, NO_VERDICT, UNAVAILABLE]
    run_judge(fast_judge(stub, images="none", retries=2), one_item, tmp_path / "run", data_root=tiny_root,
              progress=False, reask=1)
    result = _result(tmp_path / "run")
    assert result.parse_status == "ok" and result.telemetry.answers == 2
    assert result.telemetry.attempts == len(_item_requests(stub)) == 5


class FlakyJudge(BaseJudge):
    """Fails transiently ``failures`` times, then answers: the runner's own retry layer.

    A stand-in, not a real judge: the OpenAI judge retries itself (the runner
    makes one attempt for it), so the runner's retries are only reached by a
    judge without retries of its own failing transiently.
    """

    name = "flaky"

    def __init__(self, failures: int) -> None:
        self.failures, self.calls = failures, 0

    def judge(self, judge_input):
        self.calls += 1
        if self.calls <= self.failures:
            raise TransientJudgeError("rate limited")
        return JudgeOutput(text='{"success": true}')

    def spec(self):
        return {"name": self.name, "spec": "flaky"}


def test_the_runners_retries_are_counted_when_the_answer_comes(one_item, tiny_root, tmp_path):
    judge = FlakyJudge(failures=2)
    run_judge(judge, one_item, tmp_path / "run", data_root=tiny_root, progress=False, retries=2, backoff_base=0.01)
    result = _result(tmp_path / "run")
    assert result.parse_status == "ok"
    assert result.telemetry.attempts == judge.calls == 3
