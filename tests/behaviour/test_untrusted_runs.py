"""Runs that a judge cannot break and that fail loudly: hostile answers, a full disk, keys that
must never be written, dead or misconfigured servers, retries, the circuit breaker and --max-cost.

Everything goes through the real runner and CLI against a real HTTP server on loopback."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path
from urllib.parse import quote

import pytest

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.judges import BaseJudge, JudgeOutput
from agenthorizon.judging.runs.folder import is_result_name
from agenthorizon.judging.runs.runner import run_judge
from loopback import StubServer
from tmpfs import mounted_tmpfs

VERDICT = '{"success": true, "reasoning": "ok"}'


@pytest.fixture()
def stub():
    server = StubServer()
    yield server
    server.close()


@pytest.fixture(scope="module")
def dataset(tiny_root):
    return agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths")


def results(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in out.iterdir() if is_result_name(p)}


def no_results(out: Path) -> bool:
    return not out.exists() or not [p for p in out.iterdir() if is_result_name(p)]


def judge_cli(tiny_root, out, *extra):
    return main(["judge", "--data", str(tiny_root), "--config", "AH", "--out", str(out), "--no-progress",
                 "--bootstrap", "0", *extra])


# --- 1. judge output never stops a run ------------------------------------------------------


class Hostile(BaseJudge):
    """Answers with a lone surrogate, a wrong type, an unencodable telemetry value, by item position."""

    name = "hostile"

    def __init__(self, ids):
        self.order = {tid: i for i, tid in enumerate(ids)}

    async def ajudge(self, judge_input):
        kind = self.order[judge_input.trajectory_id] % 4
        if kind == 0:  # what json.loads gives for the model text "\ud83d": a lone surrogate
            return JudgeOutput(text='{"success": true, "reasoning": "emoji half \ud83d"}')
        if kind == 1:
            return {"text": VERDICT}  # not a JudgeOutput
        if kind == 2:
            return JudgeOutput(text=VERDICT, extra={"handle": object()})  # not JSON
        return JudgeOutput(text=VERDICT)

    def spec(self):
        return {"name": "hostile", "spec": "hostile"}


def test_any_judge_answer_is_written_and_only_its_item_fails(dataset, tmp_path):
    ids = list(dataset["trajectory_id"])
    summary = run_judge(Hostile(ids), dataset, tmp_path / "run", progress=False, concurrency=2)
    written = results(tmp_path / "run")
    assert set(written) == set(ids)  # every item has a result file that parses
    for position, tid in enumerate(ids):
        result = written[tid]
        if position % 4 == 0:
            assert result["parse_status"] == "ok" and result["verdict"]["reasoning"] == "emoji half \ud83d"
        elif position % 4 == 1:
            assert result["parse_status"] == "error" and "expected a JudgeOutput" in result["error"]
        elif position % 4 == 2:
            assert result["parse_status"] == "error"
            assert tid in result["error"] and "could not be written as JSON" in result["error"]
        else:
            assert result["parse_status"] == "ok"
    # ASCII on disk: the surrogate is an escape, not bytes UTF-8 cannot hold
    raw = (tmp_path / "run" / f"{ids[0]}.json").read_bytes()
    assert b"\\ud83d" in raw and raw.isascii()
    assert summary.counts.error == len(summary.errors) == sum(p % 4 in (1, 2) for p in range(len(ids)))
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["status"] == "finished" and record["ended_at"] and record["interruption"] is None
    # the resume skips the answered surrogate item instead of failing on it again
    again = run_judge(Hostile(ids), dataset, tmp_path / "run", progress=False)
    assert again.counts.skipped == len(ids) - summary.counts.error


@pytest.fixture()
def small_disk(tmp_path):
    """A 1 MiB tmpfs (root only): a disk that really fills up."""
    yield from mounted_tmpfs(tmp_path / "disk", "1m")


def test_a_full_disk_stops_the_run_with_one_line_and_run_json_says_why(tiny_root, small_disk, capsys):
    out = small_disk / "run"
    # Leave room for run.json and its spare bytes, and a page or two of results.
    free = shutil.disk_usage(small_disk).free
    (small_disk / "filler").write_bytes(b"\0" * (free - 28 * 1024))
    code = judge_cli(tiny_root, out, "--judge", "lexical", "--concurrency", "1")
    captured = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in captured.err
    errors = [line for line in captured.err.splitlines() if "error" in line]
    assert len(errors) == 1 and "no space left" in errors[0] and "re-run" in errors[0]
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "stopped" and record["interruption"]["cause"] == "io_error"
    assert "no space left" in record["interruption"]["reason"]
    written = results(out)
    assert record["counts"]["ok"] == len(written) < 8  # counts match what is on disk, every file parses
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


# --- 2. secrets --------------------------------------------------------------------------


def test_a_key_with_a_newline_is_refused_at_start_without_echoing_it(tiny_root, stub, tmp_path, monkeypatch, capsys):
    secret = "sk-NEWLINE-KEY-0123456789abcdef"
    for bad in (secret + "\n", secret + "\r", " " + secret, secret[:10] + "\t" + secret[10:]):
        monkeypatch.setenv("AH_KEY", bad)
        started = time.monotonic()
        code = judge_cli(tiny_root, tmp_path / "run", "--judge", "openai:stub-model", "--base-url", stub.base_url,
                         "--api-key-env", "AH_KEY", "--images", "none")
        err = capsys.readouterr().err
        assert code != 0 and time.monotonic() - started < 20
        assert "AH_KEY" in err and "whitespace or control characters" in err and "tr -d" in err
        assert secret[:12] not in err and "Traceback" not in err
    assert stub.requests == []  # no item was sent
    assert no_results(tmp_path / "run")


def test_no_representation_of_the_key_reaches_any_written_text(tiny_root, stub, tmp_path, monkeypatch, capsys):
    # A valid key whose repr, JSON and percent-encodings all differ from the raw text.
    secret = "sk-Sweep/Key+9=\"quoted\"\\back'slash-0123456789"
    forms = {
        "raw": secret,
        "repr": repr(secret)[1:-1],
        "json": json.dumps(secret)[1:-1],
        "percent": quote(secret, safe=""),
        "percent-path": quote(secret),
    }
    assert len(set(forms.values())) == len(forms)
    monkeypatch.setenv("AH_SWEEP_KEY", secret)
    echo = " | ".join(forms.values())
    stub.script = [(500, {}, {"error": {"message": f"upstream said {echo}"}}, 0)] * 3 + [
        (200, {}, StubServer.completion(json.dumps({"success": True, "reasoning": f"key {echo}"})), 0)
    ] * 5
    out = tmp_path / "run"
    code = judge_cli(tiny_root, out, "--judge", "openai:stub-model", "--base-url", stub.base_url,
                     "--api-key-env", "AH_SWEEP_KEY", "--images", "none", "--retries", "0",
                     "--max-transport-failures", "0", "--concurrency", "1")
    assert code == 1  # three items errored
    assert all(r["headers"]["Authorization"] == f"Bearer {secret}" for r in stub.requests)  # it was used
    report = tmp_path / "report.html"
    assert main(["report", str(out), "--data", str(tiny_root), "--out", str(report), "--bootstrap", "0"]) == 0
    captured = capsys.readouterr()
    texts = {p.name: p.read_text() for p in out.iterdir()}
    texts.update({"report.html": report.read_text(), "stdout": captured.out, "stderr": captured.err})
    assert len([name for name in texts if name.endswith(".json")]) == 9  # 8 results + run.json
    assert "[API key]" in "".join(texts.values())  # the echoes were there and were scrubbed
    for where, text in texts.items():
        for name, form in forms.items():
            assert form not in text, f"{where} holds the {name} form of the key"


# --- 4. fail loudly and early ---------------------------------------------------------------


@pytest.mark.parametrize(
    "setup, message",
    [
        ("refused", "cannot reach"),
        ("unauthorized", "refused the API key sent from AH_KEY (HTTP 401)"),
        # No key set, none sent: the line says so and how to set one, not that a key was refused.
        ("no-key", "wants an API key (HTTP 401) and none was sent: AH_KEY is not set; export AH_KEY=<key>"),
        ("unknown-model", "does not serve model 'stub-model'; it serves: other-model"),
    ],
)
def test_preflight_fails_within_seconds_before_any_item(tiny_root, stub, tmp_path, monkeypatch, capsys, setup, message):
    monkeypatch.setenv("AH_KEY", "sk-preflight-0123456789")
    base_url = stub.base_url
    if setup == "refused":
        base_url = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
    elif setup in ("unauthorized", "no-key"):
        stub.models_status = 401
        if setup == "no-key":
            monkeypatch.delenv("AH_KEY")
    else:
        stub.models = ["other-model"]
    started = time.monotonic()
    code = judge_cli(tiny_root, tmp_path / "run", "--judge", "openai:stub-model", "--base-url", base_url,
                     "--api-key-env", "AH_KEY", "--images", "none")
    err = capsys.readouterr().err
    assert code == 1 and time.monotonic() - started < 20
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert stub.requests == []
    assert no_results(tmp_path / "run")


def test_a_command_judge_whose_program_does_not_exist_fails_at_once(tiny_root, tmp_path, capsys):
    code = judge_cli(tiny_root, tmp_path / "run", "--judge", "command:no-such-agent-xyz -p")
    err = capsys.readouterr().err
    assert code == 1 and "program 'no-such-agent-xyz' not found" in err
    assert no_results(tmp_path / "run")


@pytest.mark.slow
def test_retries_zero_is_one_attempt_and_a_dead_server_trips_the_breaker(tiny_root, stub, tmp_path, capsys):
    stub.script = [(503, {}, "overloaded", 0)] * 100
    started = time.monotonic()
    code = judge_cli(tiny_root, tmp_path / "run", "--judge", "openai:stub-model", "--base-url", stub.base_url,
                     "--images", "none", "--retries", "0", "--concurrency", "1")
    err = capsys.readouterr().err
    assert code == 1 and time.monotonic() - started < 30
    assert len(stub.requests) == 5  # one attempt per item, five items, then the breaker
    assert "stopped after 5 consecutive items failed to reach the judge" in err and "Traceback" not in err
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["status"] == "stopped" and record["interruption"]["cause"] == "breaker"
    assert "consecutive" in record["interruption"]["reason"]
    assert record["counts"]["error"] == 5 and record["counts"]["missing"] == 3

    # --retries 2: three attempts per item, one layer only (not 3 x the judge's own 6)
    stub.requests.clear()
    code = judge_cli(tiny_root, tmp_path / "run2", "--judge", "openai:stub-model", "--base-url", stub.base_url,
                     "--images", "none", "--retries", "2", "--concurrency", "1", "--max-transport-failures", "2")
    assert code == 1 and len(stub.requests) == 2 * 3


def test_every_item_erroring_does_not_exit_zero(tiny_root, stub, tmp_path, capsys):
    stub.script = [(400, {}, {"error": {"message": "bad request"}}, 0)] * 100  # permanent, not transport
    code = judge_cli(tiny_root, tmp_path / "run", "--judge", "openai:stub-model", "--base-url", stub.base_url,
                     "--images", "none")
    err = capsys.readouterr().err
    assert code == 1 and "8 item(s) have no valid result yet (error 8)" in err and "Re-running the same command" in err


# A server's error page as a hostile or broken proxy could send it (not JSON, raw control characters):
# clear the screen, set the window title, return the cursor to overwrite the line, a C1 CSI, a bidi override.
HOSTILE_BODY = "upstream error\x1b[2J\x1b]0;owned\x07\rfake OK line\x9b31m\u202eevil"


def test_control_characters_from_a_server_reach_the_console_escaped(tiny_root, stub, tmp_path, capfd):
    stub.script = [(400, {}, HOSTILE_BODY, 0)] * 8  # permanent: every item fails with the server's text
    assert judge_cli(tiny_root, tmp_path / "run", "--judge", "openai:stub-model", "--base-url", stub.base_url,
                     "--images", "none") == 1
    printed = capfd.readouterr()
    shown = printed.out + printed.err
    for raw in ("\x1b", "\x07", "\r", "\x9b", "\u202e"):
        assert raw not in shown
    assert "upstream error\\x1b[2J\\x1b]0;owned\\x07\\rfake OK line\\x9b31m\\u202eevil" in printed.out

    # The same body in the preflight's answer (the model is unknown): one escaped error line, exit 1 (the run could not start).
    stub.models_status, stub.script = 404, [(404, {}, "The model `stub-model` does not exist" + HOSTILE_BODY, 0)]
    assert judge_cli(tiny_root, tmp_path / "run2", "--judge", "openai:stub-model", "--base-url", stub.base_url,
                     "--images", "none") == 1
    err = capfd.readouterr().err
    assert "does not know model" in err and "\\x1b[2J" in err and "\x1b" not in err and "\r" not in err


class Priced(BaseJudge):
    """Costs ``cost`` US dollars an item (``None``: says nothing of its cost); notes how many items were in flight."""

    name = "priced"

    def __init__(self, cost=2.0):
        self.cost = cost
        self.started = []
        self.in_flight = self.most_in_flight = 0

    async def ajudge(self, judge_input):
        self.started.append(judge_input.trajectory_id)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0.05)  # long enough for every free worker to try to start an item
        finally:
            self.in_flight -= 1
        return JudgeOutput(text=VERDICT, cost_usd=self.cost)

    def spec(self):
        return {"name": "priced", "spec": "priced"}


def test_max_cost_holds_under_concurrency_and_a_higher_cap_resumes(dataset, tmp_path):
    # $2 an item, 8 workers, a $3 cap: the first item alone (its cost is unknown until it ends),
    # then another only if 2 + 2 <= 3, which it is not. Before the fix all 8 started: $16.
    judge = Priced()
    summary = run_judge(judge, dataset, tmp_path / "run", concurrency=8, max_cost=3.0, progress=False)
    spent = sum(r["telemetry"]["cost_usd"] for r in results(tmp_path / "run").values())
    assert len(judge.started) == 1 and judge.most_in_flight == 1 and spent == 2.0
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["status"] == "stopped" and record["interruption"]["cause"] == "max_cost"
    assert "$2.0000 recorded, up to $2.0000 an item" in record["interruption"]["reason"]
    assert summary.stopped == record["interruption"]["reason"] and record["counts"]["missing"] == 7

    # A $9 cap: 2 + 2 * 3 <= 9, so three more items at once, and no fourth (2 + 6 + 2 > 9).
    judge = Priced()
    run_judge(judge, dataset, tmp_path / "run", concurrency=8, max_cost=9.0, progress=False)
    assert len(judge.started) == 3 and judge.most_in_flight == 3
    assert sum(r["telemetry"]["cost_usd"] for r in results(tmp_path / "run").values()) == 8.0
    # A cap for everything: the run finishes, the earlier items kept.
    judge = Priced()
    summary = run_judge(judge, dataset, tmp_path / "run", concurrency=8, max_cost=100.0, progress=False)
    assert len(judge.started) == 4 and summary.record.status == "finished" and summary.counts.skipped == 4


def test_max_cost_the_highest_cost_so_far_is_the_projection_not_the_mean(dataset, tmp_path):
    costs = iter([0.5, 3.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])

    class Uneven(Priced):
        async def ajudge(self, judge_input):
            self.cost = next(costs)
            return await super().ajudge(judge_input)

    judge = Uneven()
    run_judge(judge, dataset, tmp_path / "run", concurrency=1, max_cost=6.0, progress=False)
    # After $0.5 + $3: the mean ($1.75) would let a third item start, the highest ($3) does not.
    assert len(judge.started) == 2


def test_max_cost_projects_the_answers_an_item_may_still_ask_for(dataset, tmp_path):
    # $1 an answer. The first item answers at once; every later item's first answer holds no verdict,
    # so with --reask 2 it asks again. Projected at the first item's $1, two items would start beside it
    # under a $3 cap (1 + 1 * 2 <= 3) and spend $2 each: $5. An item may ask three times: $3 each.
    class Hesitant(Priced):
        def __init__(self):
            super().__init__(cost=1.0)
            self.asked = {}

        async def ajudge(self, judge_input):
            output = await super().ajudge(judge_input)
            seen = self.asked[judge_input.trajectory_id] = self.asked.get(judge_input.trajectory_id, 0) + 1
            first_item = len(self.asked) == 1
            return output if first_item or seen > 1 else JudgeOutput(text="let me think", cost_usd=self.cost)

    judge = Hesitant()
    run_judge(judge, dataset, tmp_path / "run", concurrency=8, max_cost=3.0, reask=2, progress=False)
    spent = sum(r["telemetry"]["cost_usd"] for r in results(tmp_path / "run").values())
    assert spent <= 3.0
    assert sum(judge.asked.values()) == spent  # every answer's dollar is counted once


def test_max_cost_with_a_judge_that_reports_no_cost_is_refused_or_stops_loudly(dataset, tiny_root, tmp_path, capsys):
    # A judge known never to report a cost (a plain command, codex, gemini, openai without prices): refused.
    assert judge_cli(tiny_root, tmp_path / "cmd", "--judge", "command:cat", "--max-cost", "1") == 2
    err = capsys.readouterr().err
    assert "max_cost $1 cannot be enforced" in err and "reports no cost" in err and no_results(tmp_path / "cmd")
    assert judge_cli(tiny_root, tmp_path / "cx", "--judge", "codex:gpt-5.5", "--max-cost", "1") == 2
    assert "cannot be enforced" in capsys.readouterr().err
    # One that may or may not (OpenCode, a judge of one's own): the first answer without a cost stops the run.
    judge = Priced(cost=None)
    summary = run_judge(judge, dataset, tmp_path / "run", concurrency=8, max_cost=3.0, progress=False)
    assert len(judge.started) == 1 and summary.record.interruption.cause == "max_cost"
    assert summary.stopped.startswith("max cost cannot be enforced: the judge reported no cost for trajectory")


def test_max_cost_through_the_cli_stops_with_exit_1_and_one_line(tiny_root, stub, tmp_path, capsys):
    # $2 an item: 80 completion tokens at $25,000 per million. Eight workers, a $3 cap.
    args = ["--judge", "openai:stub-model", "--base-url", stub.base_url, "--images", "none", "--concurrency", "8",
            "--price-in", "0", "--price-out", "25000", "--max-cost", "3"]
    assert judge_cli(tiny_root, tmp_path / "run", *args) == 1
    printed = capsys.readouterr()
    assert len(stub.requests) == 1 and len(results(tmp_path / "run")) == 1
    lines = [line for line in printed.err.splitlines() if "max-cost" in line]
    assert lines == ["agenthorizon judge: stopped by --max-cost 3, 7 item(s) not started (why: the 'stopped early' "
                     "line above)"]
    reason = ("max cost reached: $2.0000 recorded, up to $2.0000 an item (the highest so far), limit $3.0000; no new "
              "item started (raise --max-cost and re-run to continue)")
    assert (printed.out + printed.err).count(reason) == 1 and f"stopped early: {reason}" in printed.out  # said once
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["status"] == "stopped" and record["interruption"]["cause"] == "max_cost"
    assert judge_cli(tiny_root, tmp_path / "run", *args[:-1], "16") == 0  # 2 + 2 * 7 = 16: the rest fits
    assert len(stub.requests) == 8


def test_max_cost_stops_starting_items_once_the_recorded_cost_would_pass_it(tiny_root, stub, tmp_path, capsys):
    # Every answer costs 1200 * 10 / 1e6 + 80 * 100 / 1e6 = $0.02.
    args = ["--judge", "openai:stub-model", "--base-url", stub.base_url, "--images", "none", "--concurrency", "1",
            "--price-in", "10", "--price-out", "100", "--max-cost", "0.07"]
    code = judge_cli(tiny_root, tmp_path / "run", *args)
    out = capsys.readouterr()
    assert code == 1
    written = results(tmp_path / "run")
    cost = sum(r["telemetry"]["cost_usd"] for r in written.values())
    assert len(written) == 3 and cost == pytest.approx(0.06)  # a fourth would pass $0.07
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["status"] == "stopped" and record["interruption"]["cause"] == "max_cost"
    assert "max cost reached" in record["interruption"]["reason"] and record["counts"]["missing"] == 5
    assert record["totals"]["cost_usd"] == {"total": pytest.approx(0.06), "known": pytest.approx(0.06), "unknown_items": 0}
    assert "stopped early: max cost reached" in out.out
    # resuming with a higher limit carries on from the recorded cost
    assert judge_cli(tiny_root, tmp_path / "run", *args[:-1], "0.13") == 1
    assert len(results(tmp_path / "run")) == 6
