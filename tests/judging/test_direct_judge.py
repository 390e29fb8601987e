"""The direct judge as the paper ran it, against real OpenAI-compatible servers on loopback.

One timeout that bounds a whole request, the answer cap at 50 MB (a JSON body
and a stream), re-asking after an answer without a verdict, the interleaved
layout, a system prompt from a file and token-budgeted screenshots -- through
the judge's real httpx code path, the real runner and ``agenthorizon judge``.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tracemalloc

import pytest
from PIL import Image

from agenthorizon.judging.inputs import build_judge_input
from agenthorizon.judging.judges import JudgeError, OpenAICompatibleJudge, TransientJudgeError
from agenthorizon.judging.judges.base import DEFAULT_MAX_OUTPUT_BYTES
from agenthorizon.judging.judges.openai_images import budget_size, image_tokens
from agenthorizon.judging.runs.folder import read_results
from agenthorizon.scoring.verdicts import parse_verdict
from loopback import StubServer, Streamed, completion_pieces, event_pieces
from test_judges import fast_judge, make_row, screenshot_files, stub  # noqa: F401 (fixtures)

VERDICT = '{"success": false, "reasoning": "wrong date", "mistake_type": "Critical Mistake"}'
MB = 10**6


def judge_for(stub, **options):
    return fast_judge(stub, **{"images": "none", **options})


def cli(argv, capsys):
    from agenthorizon.cli import main

    code = main(argv)
    return code, capsys.readouterr()


def judge_argv(root, server, out, *extra):
    return ["judge", "--data", str(root), "--config", "all", "--judge", "openai:stub-model", "--base-url",
            server.base_url, "--limit", "1", "--concurrency", "1", "--bootstrap", "0", "--no-progress",
            "--out", str(out), *extra]


# --- one timeout, end to end -------------------------------------------------------------


def test_a_server_that_dribbles_bytes_is_cut_at_the_timeout_of_the_whole_request(stub):
    # One byte of the answer every 0.1 s: every single read is quick, so a
    # per-read limit would wait for all 80 of them (8 s). The request's own
    # bound (1 s) cuts it, names the limit, and is retried like any timeout.
    dribble = Streamed(lambda: (b" " for _ in range(80)), pause=0.1)
    stub.script = [(200, {}, dribble, 0)]
    with pytest.raises(TransientJudgeError, match=r"gave up after 1 attempt.*last failure: no complete answer within 1 s \(--timeout"):
        judge_for(stub, timeout=1.0, retries=0).judge(build_judge_input(make_row("x")))
    assert 0 < dribble.sent < 80  # the client hung up long before the end


@pytest.mark.slow
def test_cli_timeout_is_the_one_limit_recorded_and_a_resume_says_why_the_item_failed(tiny_root, tmp_path, capsys):
    server = StubServer()
    slow = (200, {}, StubServer.completion(VERDICT), 1.5)
    server.script = [slow, slow]
    out = tmp_path / "run"
    try:
        code, printed = cli(judge_argv(tiny_root, server, out, "--timeout", "0.5", "--retries", "0"), capsys)
        assert code == 1
        assert "no complete answer within 0.5 s (--timeout" in printed.out  # the failure names the limit
        record = json.loads((out / "run.json").read_text())
        assert record["judge"]["timeout_s"] == 0.5 and record["runner"]["timeout_s"] is None  # one value
        (result,) = read_results([out]).records.values()
        assert result.parse_status == "error" and "0.5 s" in result.error
        # The same server, a larger limit: the slow answer now arrives (a timeout is not part of the judge key).
        code, printed = cli(judge_argv(tiny_root, server, out, "--timeout", "5", "--retries", "0"), capsys)
        assert code == 0, printed.out + printed.err
        assert "judged again: 1 item(s) that had failed before" in printed.out and "within 0.5 s" in printed.out
    finally:
        server.close()
    record = json.loads((out / "run.json").read_text())
    assert record["judge"]["timeout_s"] == 5.0 and record["counts"]["ok"] == 1
    assert len(server.requests) == 2


# --- the answer cap ----------------------------------------------------------------------


def _fifty_megabytes():
    block = "x" * MB
    return lambda: (*([block] * 50), VERDICT)


@pytest.mark.parametrize("stream", [False, True], ids=["json-body", "event-stream"])
def test_a_50_mb_answer_is_read_in_bounded_memory_and_its_end_kept(stub, stream):
    cap = 4 * 2**20
    pieces = (event_pieces if stream else completion_pieces)(_fifty_megabytes())
    body = Streamed(pieces, content_type="text/event-stream" if stream else "application/json")
    stub.script = [(200, {}, body, 0)]
    judge = judge_for(stub, max_output_bytes=cap, extra_body={"stream": True} if stream else None)
    tracemalloc.start()
    try:
        output = judge.judge(build_judge_input(make_row("x")))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert body.sent > 50 * MB
    # The 50 MB answer was never held: a few copies of what is kept (measured: 4.6-5.8 x the cap, the
    # loopback server's own 1 MB pieces included), against 50 MB for the answer alone.
    assert peak < 8 * cap < body.sent
    verdict = parse_verdict(output.text)
    assert verdict.status == "ok" and verdict.success is False  # read from the end, where it is
    answer_bytes = 50 * MB + len(VERDICT)
    if stream:  # the cap counts the answer's text
        assert output.extra["truncated_bytes"] == answer_bytes - cap
    else:  # the cap counts the body, of which the end is kept
        assert output.extra["truncated_bytes"] == body.sent - cap
    assert output.text.startswith(f"[agenthorizon: answer cut to its last {cap} bytes")
    assert f"the first {output.extra['truncated_bytes']} bytes were dropped" in output.text.splitlines()[0]
    assert (output.input_tokens, output.output_tokens) == (1200, 80)  # the usage after the answer was kept too


def test_cli_caps_a_50_mb_answer_in_the_result_file(tiny_root, tmp_path, capsys):
    server = StubServer()
    body = Streamed(completion_pieces(_fifty_megabytes()))
    server.script = [(200, {}, body, 0)]
    out = tmp_path / "run"
    try:
        code, printed = cli(judge_argv(tiny_root, server, out), capsys)
    finally:
        server.close()
    assert code == 0, printed.err
    (path,) = [p for p in out.glob("*.json") if p.name != "run.json"]
    assert path.stat().st_size < DEFAULT_MAX_OUTPUT_BYTES + 64 * 1024
    (result,) = read_results([out]).records.values()
    assert result.telemetry.truncated_bytes == body.sent - DEFAULT_MAX_OUTPUT_BYTES
    assert result.parse_status == "ok" and result.verdict["success"] is False
    assert json.loads((out / "run.json").read_text())["judge"]["max_output_bytes"] == DEFAULT_MAX_OUTPUT_BYTES


# --- re-asking ----------------------------------------------------------------------------


def test_cli_reasks_after_prose_keeps_every_answer_and_refuses_another_reask_on_resume(tiny_root, tmp_path, capsys):
    server = StubServer()
    server.script = [(200, {}, StubServer.completion("I believe the agent booked the right date.", 1000, 30), 0),
                     (200, {}, StubServer.completion(VERDICT, 1100, 40), 0)]
    out = tmp_path / "run"
    try:
        code, printed = cli(judge_argv(tiny_root, server, out, "--reask", "2", "--price-in", "1", "--price-out", "10"),
                            capsys)
    finally:
        server.close()
    assert code == 0, printed.err
    assert len(server.requests) == 2  # the valid second answer ended it
    assert server.requests[0]["body"] == server.requests[1]["body"]  # a fresh request, the same question
    (result,) = read_results([out]).records.values()
    assert [a.parse_status for a in result.answers] == ["no_json", "ok"]
    assert result.answers[0].raw_output == "I believe the agent booked the right date."
    assert (result.answers[0].input_tokens, result.answers[1].output_tokens) == (1000, 40)
    assert result.parse_status == "ok" and result.raw_output == VERDICT  # the last answer is scored
    telemetry = result.telemetry
    assert (telemetry.answers, telemetry.input_tokens, telemetry.output_tokens) == (2, 2100, 70)
    assert telemetry.cost_usd == pytest.approx((2100 * 1 + 70 * 10) / 1e6)  # both answers are paid for
    record = json.loads((out / "run.json").read_text())
    assert record["judge"]["reask"] == 2
    assert record["reasking"] == {"items": 1, "reasks": 1, "recovered": 1}
    assert "re-asked 1 item(s)" in printed.out

    code, printed = cli(["score", str(out), "--data", str(tiny_root)], capsys)
    assert "Re-asked after an answer without a valid verdict (--reask): 1 item(s), 1 more answer(s); 1 ended" in printed.out

    html = tmp_path / "report.html"
    code, printed = cli(["report", str(out), "--data", str(tiny_root), "--out", str(html), "--bootstrap", "0",
                         "--thumbnails", "0"], capsys)
    page = html.read_text(encoding="utf-8")
    assert "reask 2: 1 item(s) re-asked, 1 more answer(s), 1 recovered" in page
    assert "2 answers (re-asked after an answer without a valid verdict): no_json, ok" in page

    code, printed = cli(judge_argv(tiny_root, server, out, "--reask", "1"), capsys)
    assert code == 2 and "protocol.reask is 2 in the folder's run and 1 in this command" in printed.err


def test_reask_stops_at_its_limit_and_the_invalid_answer_counts_as_wrong(tiny_root, tmp_path):
    import agenthorizon
    from agenthorizon.judging.runs.runner import run_judge

    server = StubServer()
    server.script = [(200, {}, StubServer.completion(f"thinking... {n}"), 0) for n in range(3)]
    dataset = agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths")
    try:
        judge = OpenAICompatibleJudge.from_options("stub-model", base_url=server.base_url, images="none", api_key_env="AH_TEST_UNSET")
        summary = run_judge(judge, dataset.select([0]), tmp_path / "run", progress=False, reask=1, data_root=tiny_root)
    finally:
        server.close()
    assert len(server.requests) == 2  # one re-ask, then the limit
    # The judge bounds each request itself: the runner adds no second limit that could cut its retries.
    assert summary.record.runner["timeout_s"] is None and summary.record.judge["timeout_s"] == 900.0
    (result,) = read_results([tmp_path / "run"]).records.values()
    assert [a.raw_output for a in result.answers] == ["thinking... 0", "thinking... 1"]
    assert result.parse_status == "no_json" and summary.counts.unparseable == 1
    assert summary.score.n_invalid == 1  # invalid, and still in its denominator
    assert summary.record.reasking.to_dict() == {"items": 1, "reasks": 1, "recovered": 0}


def test_reask_is_the_runner_s_and_works_for_any_judge_kind(tiny_root, tmp_path):
    import agenthorizon
    from agenthorizon.judging.judges.base import BaseJudge, JudgeOutput
    from agenthorizon.judging.runs.runner import run_judge

    class SecondThoughts(BaseJudge):
        """Answers in prose the first time it sees an item, with a verdict the second."""

        name = "second-thoughts"

        def __init__(self):
            self.seen = []

        def judge(self, judge_input):
            first = judge_input.trajectory_id not in self.seen
            self.seen.append(judge_input.trajectory_id)
            return JudgeOutput(text="Let me think." if first else '{"success": true}', input_tokens=10, cost_usd=0.5)

        def spec(self):
            return {"name": self.name, "spec": self.name}

    dataset = agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths")
    summary = run_judge(SecondThoughts(), dataset, tmp_path / "run", progress=False, reask=1, data_root=tiny_root)
    assert summary.counts.ok == len(dataset) and summary.record.reasking.recovered == len(dataset)
    assert summary.record.totals.cost_usd.total == pytest.approx(len(dataset) * 1.0)  # both answers paid for
    assert summary.record.totals.input_tokens.total == 20 * len(dataset)


# --- layout and system prompt -----------------------------------------------------------------


def _parts(request):
    return [(p["type"], p.get("text")) for p in request["body"]["messages"][-1]["content"]]


def test_interleaved_layout_puts_each_screenshot_after_its_action_line(stub, screenshot_files):
    row = make_row("Book November 1", ["November 1"], screenshots=screenshot_files)
    judge = judge_for(stub, images="per-step", layout="interleaved", prompt="Judge this.\n\n{{MARKDOWN}}\n\nAnswer in JSON.")
    judge.judge(build_judge_input(row))
    parts = _parts(stub.requests[0])
    assert parts[0] == ("text", "Judge this.")
    assert parts[1] == ("text", "## Goal\n\nBook November 1\n\n## Steps (6)")
    steps = [("text", f"Step {k}: left-click (5, 6)") for k in range(5)]
    assert parts[2:12] == [part for step in steps for part in (step, ("image_url", None))]
    assert parts[12:] == [("text", 'Step 5: type "November 1"'), ("text", "Answer in JSON.")]
    assert "# Trajectory Report" not in json.dumps(stub.requests[0]["body"])  # the Markdown is not sent
    assert judge.spec()["layout"] == "interleaved"


def test_interleaved_mosaics_follow_the_last_step_they_hold(stub, screenshot_files):
    judge = judge_for(stub, images="mosaic", layout="interleaved", prompt="{{MARKDOWN}}")
    judge.judge(build_judge_input(make_row("Open it", screenshots=screenshot_files)))
    kinds = [kind if kind == "image_url" else text.split(" as ")[0].split(":")[0] for kind, text in _parts(stub.requests[0])]
    assert kinds == ["## Goal\n\nOpen it\n\n## Steps (5)", "Step 0", "Step 1", "Step 2", "Step 3", "Steps 0-3", "image_url",
                     "Step 4", "Step 4", "image_url"]


def test_cli_system_prompt_from_a_file_is_sent_and_recorded(tiny_root, tmp_path, capsys):
    system = tmp_path / "direct_system.txt"
    system.write_text("You review desktop recordings in three layers.\n", encoding="utf-8")
    server = StubServer()
    out = tmp_path / "run"
    try:
        code, printed = cli(judge_argv(tiny_root, server, out, "--system-prompt", str(system), "--layout", "interleaved",
                                       "--temperature", "0", "--max-tokens", "2048"), capsys)
        missing, printed_missing = cli(judge_argv(tiny_root, server, tmp_path / "other", "--system-prompt",
                                                  str(tmp_path / "nope.txt")), capsys)
    finally:
        server.close()
    assert code == 0, printed.err
    messages = server.requests[0]["body"]["messages"]
    assert messages[0] == {"role": "system", "content": "You review desktop recordings in three layers.\n"}
    assert messages[1]["role"] == "user" and isinstance(messages[1]["content"], list)
    record = json.loads((out / "run.json").read_text())
    assert record["judge"]["system_prompt"] == {"path": str(system),
                                                "sha256": hashlib.sha256(system.read_bytes()).hexdigest()}
    assert record["judge"]["layout"] == "interleaved"
    assert missing == 2 and "nope.txt" in printed_missing.err and "no such file" in printed_missing.err


# --- token budget -------------------------------------------------------------------------------


def _sizes(request):
    return [Image.open(io.BytesIO(base64.b64decode(p["image_url"]["url"].split(",", 1)[1]))).size
            for p in request["body"]["messages"][-1]["content"] if p["type"] == "image_url"]


def test_a_token_budget_gives_a_longer_item_smaller_screenshots(stub, screenshot_files):
    budget = 2 * image_tokens(512, 332)
    judge = judge_for(stub, images="per-step", image_token_budget=budget)
    short = judge.judge(build_judge_input(make_row("x", screenshots=screenshot_files[:2])))
    long = judge.judge(build_judge_input(make_row("x", screenshots=screenshot_files)))
    short_sizes, long_sizes = _sizes(stub.requests[0]), _sizes(stub.requests[1])
    assert short.extra["image_size"] == [512, 332] and long.extra["image_size"] == list(budget_size(5, budget))
    assert len(long_sizes) == 5 and all(w < short_sizes[0][0] and h < short_sizes[0][1] for w, h in long_sizes)
    width, height = long.extra["image_size"]
    assert 5 * image_tokens(width, height) <= budget < 5 * image_tokens(width + 1, round((width + 1) * 332 / 512))
    assert judge.spec()["images"]["token_budget"] == budget
    from agenthorizon.judging.runs.records import Telemetry
    from agenthorizon.report.items import images_sent

    shown = images_sent(Telemetry.from_dict(long.telemetry(), "r"))
    assert shown == f"5 image(s) as per-step at {width}x{height} (token budget) (not merged)"


def test_a_budget_too_small_for_the_images_fails_the_item_saying_what_to_change(stub, screenshot_files):
    judge = judge_for(stub, images="per-step", image_token_budget=5 * 85)
    with pytest.raises(JudgeError, match=r"--image-token-budget 425 cannot hold 5 image\(s\).*--image-budget"):
        judge.judge(build_judge_input(make_row("x", screenshots=screenshot_files)))
    assert stub.requests == []  # nothing was sent
    with pytest.raises(ValueError, match="image_token_budget must be a positive integer"):
        judge_for(stub, image_token_budget=0)


def test_a_stream_line_longer_than_the_cap_is_skipped_and_counted(stub):
    endless = "y" * 5000
    pieces = lambda: iter([f'data: {{"choices": [{{"delta": {{"content": "{endless}"}}}}]}}\n\n'.encode(),
                           b'data: {"choices": [{"delta": {"content": "{\\"success\\": true}"}}]}\n\ndata: [DONE]\n\n'])
    stub.script = [(200, {}, Streamed(pieces, content_type="text/event-stream"), 0)]
    output = judge_for(stub, max_output_bytes=1000, extra_body={"stream": True}).judge(build_judge_input(make_row("x")))
    assert output.extra["truncated_bytes"] > 5000 and parse_verdict(output.text).success is True
