"""Judges: baselines, the OpenAI-compatible judge over real HTTP, the command judge
with real subprocesses, and the spec factory."""

from __future__ import annotations

import base64
import io
import json
import random
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image

from agenthorizon.judging.inputs import build_judge_input
from agenthorizon.judging.judges import (
    CommandJudge,
    ConstantJudge,
    JudgeError,
    LexicalJudge,
    OpenAICompatibleJudge,
    RandomJudge,
    TransientJudgeError,
    make_judge,
)
from agenthorizon.judging.judges.baselines import extract_terms
from agenthorizon.judging.judges.openai_compat import parse_retry_after
from agenthorizon.schema import BAD_SIDE_EFFECT, CRITICAL_MISTAKE, MISUNDERSTANDING
from agenthorizon.scoring.verdicts import parse_verdict
from loopback import StubServer

TID = "11111111-2222-4333-8444-555555555555"
STEPS_ID = "000234004-234004-0000-000000234004"


def make_row(instruction, typed=(), *, screenshots=(), trajectory_id=TID):
    """A dataset-shaped row: one click per screenshot, then one type action per text."""
    steps = []
    for path in screenshots:
        steps.append({"step_id": len(steps), "action_type": "click", "parameters": json.dumps({"x": 5, "y": 6}),
                      "timestamp_us": 1000 * len(steps), "screenshot": str(path)})
    for text in typed:
        steps.append({"step_id": len(steps), "action_type": "type", "parameters": json.dumps({"text": text}),
                      "timestamp_us": None, "screenshot": None})
    markdown = f"# Trajectory Report\n\n## Goal\n\n{instruction}\n\n## Steps\n\nTotal steps: **{len(steps)}**\n"
    for step in steps:
        markdown += f"\n---\n\n### Step {step['step_id']}\n"
        if step["screenshot"]:
            markdown += f"\n![Step {step['step_id']} screenshot](../media/images/{STEPS_ID}/step_{step['step_id'] + 1}.png)\n"
    return {"trajectory_id": trajectory_id, "instruction": instruction, "steps": steps, "markdown": markdown,
            "label": "negative", "mistake_type": CRITICAL_MISTAKE, "steps_id": STEPS_ID, "os": "linux",
            "screen_resolution": [1024, 768], "applications": ["Notes"], "category": None,
            "subcategory": None, "task_type": None}


@pytest.fixture()
def screenshot_files(tmp_path):
    folder = tmp_path / "media" / STEPS_ID
    folder.mkdir(parents=True)
    paths = []
    for index in range(5):
        path = folder / f"step_{index + 1}.png"
        Image.new("RGB", (1024, 768), (40 * index, 100, 200)).save(path)
        paths.append(path)
    return paths


# --- baselines ------------------------------------------------------------------------


def test_constant_judge_answers_the_same_valid_verdict():
    judge_input = build_judge_input(make_row("Open the file"))
    for success in (True, False):
        verdict = parse_verdict(ConstantJudge(success).judge(judge_input).text)
        assert verdict.is_valid and verdict.success is success
    assert make_judge("constant").success is True
    assert make_judge("constant:false").success is False


def test_random_judge_depends_only_on_seed_and_id():
    inputs = [build_judge_input(make_row("x", trajectory_id=f"00000000-0000-4000-8000-{i:012d}")) for i in range(40)]
    judge = RandomJudge(seed=3)
    forward = {i.trajectory_id: judge.judge(i).text for i in inputs}
    backward = {i.trajectory_id: RandomJudge(seed=3).judge(i).text for i in reversed(inputs)}
    assert forward == backward
    successes = [parse_verdict(text).success for text in forward.values()]
    assert 5 < sum(successes) < 35  # a coin, not a constant
    other = {i.trajectory_id: RandomJudge(seed=4).judge(i).text for i in inputs}
    assert other != forward


def test_extract_terms_finds_the_checkable_details():
    terms = extract_terms('Send "Q3 plan.pdf" to ann@example.org on November 1, export as PNG, use 2.50 and 3 copies')
    kinds = {(t.kind, t.text) for t in terms}
    assert ("email", "ann@example.org") in kinds
    assert ("quoted", "Q3 plan.pdf") in kinds
    assert ("date", "November 1") in kinds
    assert ("format", "PNG") in kinds
    assert ("number", "2.50") in kinds and ("number", "3") in kinds
    # the 1 of the date is not also a number
    assert not any(t.kind == "number" and t.key == "1" for t in terms)


@pytest.mark.parametrize(
    "instruction, typed, success, mistake_type",
    [
        ("Book the room for November 1 for Dana Scully", ["Nov 1", "Dana Scully"], True, None),
        ("Book the room for November 1 for Dana Scully", ["November 11", "Dana Scully"], False, CRITICAL_MISTAKE),
        ("Set the grade of Dana Scully to B", ["Fox Mulder", "B"], False, CRITICAL_MISTAKE),
        ("Create a virtual environment named venv-reports", ["python -m venv env-notebooks"], False, MISUNDERSTANDING),
        ("Create a virtual environment named venv-reports", ["python -m venv ~/venv-reports"], True, None),
        ("Export the chart as PNG named sales.png", ["sales.jpg"], False, MISUNDERSTANDING),
        ("Email 'weekly notes' to bob@corp.com", ["bob@corp.com", "weekly notes", "list@outside.net"], False, BAD_SIDE_EFFECT),
        ("Email 'weekly notes' to bob@corp.com", ["bob@corp.com", "weekly notes"], True, None),
    ],
)
def test_lexical_judge_checks_instruction_details_against_typed_text(instruction, typed, success, mistake_type):
    output = LexicalJudge().judge(build_judge_input(make_row(instruction, typed)))
    verdict = parse_verdict(output.text)
    assert verdict.is_valid
    assert verdict.success is success
    assert verdict.mistake_type == mistake_type
    assert verdict.confidence in ("low", "medium", "high")
    assert verdict.reasoning


def test_lexical_judge_ignores_the_goal_section_and_accepts_without_details():
    # The Goal section repeats the instruction: it must not count as evidence.
    verdict = parse_verdict(LexicalJudge().judge(build_judge_input(make_row('Type "Alpha Beta"', ["Gamma Delta"]))).text)
    assert verdict.success is False and "contradicted: quoted 'Alpha Beta'" in verdict.reasoning
    # A detail that is merely absent (clicked, not typed) is not held against the trajectory.
    verdict = parse_verdict(LexicalJudge().judge(build_judge_input(make_row('Open "Alpha Beta"', []))).text)
    assert verdict.success is True
    verdict = parse_verdict(LexicalJudge().judge(build_judge_input(make_row("tidy up the desktop", []))).text)
    assert verdict.success is True and verdict.confidence == "low"


def test_make_judge_rejects_bad_specs_and_stray_options():
    with pytest.raises(ValueError, match="unknown judge spec"):
        make_judge("gpt")
    with pytest.raises(ValueError, match="seed must be an integer"):
        make_judge("random:abc")
    with pytest.raises(ValueError, match="openai:MODEL"):
        make_judge("openai:")
    with pytest.raises(ValueError, match="does not take"):
        make_judge("lexical", temperature=0.5)
    judge = make_judge("openai:my-model", base_url="http://127.0.0.1:9/v1", temperature=0.3, images="none")
    assert (judge.model, judge.temperature, judge.base_url) == ("my-model", 0.3, "http://127.0.0.1:9/v1")


# --- the OpenAI-compatible judge against a local stub server ----------------------------


@pytest.fixture()
def stub():
    server = StubServer()
    yield server
    server.close()


def fast_judge(stub, **kwargs):
    options = dict(base_url=stub.base_url, api_key_env="AH_TEST_KEY", backoff_base=0.01, backoff_max=0.05,
                   timeout=5.0, rng=random.Random(0), cache_dir=None)
    options.update(kwargs)
    return OpenAICompatibleJudge.from_options("stub-model", **options)


def test_openai_judge_sends_prompt_images_and_key_and_records_usage(stub, screenshot_files, monkeypatch, tmp_path):
    monkeypatch.setenv("AH_TEST_KEY", "sk-test-not-a-real-key")
    judge = fast_judge(stub, temperature=0.2, max_tokens=321, price_input_per_1m=2.0, price_output_per_1m=10.0,
                       cache_dir=str(tmp_path / "cache"))
    judge_input = build_judge_input(make_row("Book November 1", ["November 11"], screenshots=screenshot_files))
    output = judge.judge(judge_input)

    assert parse_verdict(output.text).success is False
    assert (output.input_tokens, output.output_tokens, output.attempts) == (1200, 80, 1)
    assert output.cost_usd == pytest.approx((1200 * 2.0 + 80 * 10.0) / 1e6)
    assert output.latency_s > 0
    (request,) = stub.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test-not-a-real-key"
    body = request["body"]
    assert (body["model"], body["temperature"], body["max_tokens"]) == ("stub-model", 0.2, 321)
    parts = body["messages"][0]["content"]
    assert "Book November 1" in parts[0]["text"] and '"success"' in parts[0]["text"]
    urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert len(urls) == len(screenshot_files)
    captions = [p["text"] for p in parts[1:] if p["type"] == "text"]
    assert captions[0] == "Step 0 screenshot:"
    header, encoded = urls[0].split(",", 1)
    assert header == "data:image/jpeg;base64"
    image = Image.open(io.BytesIO(base64.b64decode(encoded)))
    assert image.size[0] <= 512 and image.size[1] <= 332
    # the key never reaches the description that run records store
    assert "sk-test-not-a-real-key" not in json.dumps(judge.spec())


def test_openai_judge_mosaic_mode_states_the_reading_order(stub, screenshot_files, tmp_path):
    judge = fast_judge(stub, images="mosaic", cache_dir=str(tmp_path / "cache"))
    judge.judge(build_judge_input(make_row("Open it", screenshots=screenshot_files)))
    parts = stub.requests[0]["body"]["messages"][0]["content"]
    urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert len(urls) == 2  # 5 screenshots -> two 2x2 mosaics
    first = Image.open(io.BytesIO(base64.b64decode(urls[0].split(",", 1)[1])))
    assert first.size == (1024, 664)
    assert "2x2 grid" in parts[0]["text"] and "left to right, top to bottom" in parts[0]["text"]
    assert judge.spec()["images"]["mosaic"]["size"] == [1024, 664]


def test_openai_judge_text_only_mode_sends_a_plain_string(stub, screenshot_files):
    fast_judge(stub, images="none").judge(build_judge_input(make_row("Open it", screenshots=screenshot_files)))
    assert isinstance(stub.requests[0]["body"]["messages"][0]["content"], str)
    assert "Authorization" not in stub.requests[0]["headers"]  # no key set: a local vLLM needs none


def test_openai_judge_retries_429_and_500_honouring_retry_after(stub):
    stub.script = [
        (429, {"Retry-After": "0.4"}, {"error": {"message": "rate limited"}}, 0),
        (500, {}, {"error": {"message": "boom"}}, 0),
        (503, {}, "upstream unavailable", 0),
    ]
    output = fast_judge(stub, images="none", retries=4).judge(build_judge_input(make_row("x")))
    assert parse_verdict(output.text).is_valid
    assert output.attempts == 4 and len(stub.requests) == 4
    gaps = [b["time"] - a["time"] for a, b in zip(stub.requests, stub.requests[1:])]
    assert gaps[0] >= 0.4  # waited at least what Retry-After asked


def test_openai_judge_retries_timeouts(stub):
    stub.script = [(200, {}, StubServer.completion('{"success": true}'), 1.5)]
    output = fast_judge(stub, images="none", timeout=0.3, retries=2).judge(build_judge_input(make_row("x")))
    assert output.attempts == 2
    assert parse_verdict(output.text).success is False  # the canned answer of the second request


def test_openai_judge_gives_up_after_its_retries_and_does_not_retry_client_errors(stub):
    stub.script = [(500, {}, "err", 0)] * 3
    with pytest.raises(JudgeError, match="gave up after 3 attempts.*HTTP 500"):
        fast_judge(stub, images="none", retries=2).judge(build_judge_input(make_row("x")))
    assert len(stub.requests) == 3
    stub.script = [(400, {}, {"error": {"message": "bad model"}}, 0)]
    with pytest.raises(JudgeError, match="HTTP 400.*not retried"):
        fast_judge(stub, images="none", retries=5).judge(build_judge_input(make_row("x")))
    assert len(stub.requests) == 4


def test_a_key_the_server_quotes_back_never_reaches_result_files_or_messages(stub, monkeypatch, tmp_path, caplog):
    from agenthorizon.judging.runs.runner import run_judge

    secret = "sk-FAKE-KEY-quoted-back-0123456789"
    monkeypatch.setenv("AH_TEST_KEY", secret)
    stub.script = [(401, {}, {"error": {"message": f"Incorrect API key provided: {secret}"}}, 0),
                   (500, {}, f"upstream rejected Bearer {secret}", 0), (500, {}, f"again {secret}", 0)]
    judge = fast_judge(stub, images="none", retries=1)
    rows = [{k: v for k, v in make_row("x", trajectory_id=f"{TID[:-1]}{i}").items() if k not in ("label", "mistake_type")}
            for i in range(2)]
    summary = run_judge(judge, rows, tmp_path / "run", progress=False, concurrency=1)
    assert summary.counts.error == 2 and len(stub.requests) == 3
    assert all(r["headers"]["Authorization"] == f"Bearer {secret}" for r in stub.requests)  # it was sent
    assert all("[API key]" in message for message in summary.errors.values())
    written = [path.read_text() for path in (tmp_path / "run").iterdir()]
    assert len(written) == 3 and not any(secret in text for text in written)
    assert secret not in caplog.text and secret not in str(summary.record)


def test_openai_judge_retries_connection_errors():
    # Nothing listens on this port: every attempt is a connection error.
    judge = OpenAICompatibleJudge.from_options("m", base_url="http://127.0.0.1:9/v1", images="none", retries=2,
                                  backoff_base=0.01, timeout=2.0)
    with pytest.raises(JudgeError, match="gave up after 3 attempts.*Connect"):
        judge.judge(build_judge_input(make_row("x")))


def test_backoff_is_exponential_with_jitter_and_capped():
    judge = OpenAICompatibleJudge.from_options("m", base_url="http://h/v1", backoff_base=1.0, backoff_max=8.0, rng=random.Random(1))
    for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (6, 8.0)]:
        delays = [judge.retry.delay(attempt, None, rng=judge._rng) for _ in range(50)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(set(delays)) > 1  # jittered
    assert judge.retry.delay(1, 30.0, rng=judge._rng) == 30.0
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=0) > 1e9


def test_openai_judge_requires_a_key_for_the_hosted_api(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(JudgeError, match="OPENAI_API_KEY is not set"):
        OpenAICompatibleJudge.from_options("gpt-x", images="none").judge(build_judge_input(make_row("x")))


def test_openai_judge_under_concurrency_reuses_one_client_per_loop(stub):
    import asyncio

    judge = fast_judge(stub, images="none")

    async def many():
        inputs = [build_judge_input(make_row("x", trajectory_id=f"00000000-0000-4000-8000-{i:012d}")) for i in range(12)]
        try:
            return await asyncio.gather(*(judge.ajudge(i) for i in inputs))
        finally:
            await judge.aclose()

    outputs = asyncio.run(many())
    assert len(outputs) == 12 and len(stub.requests) == 12
    assert all(parse_verdict(o.text).is_valid for o in outputs)


# --- the command judge with real subprocesses -------------------------------------------

SCRIPT = r"""
import json, os, sys
prompt = sys.stdin.read()
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(".") for f in fs)
links = [f for f in files if os.path.islink(f)]
with open(os.environ["AH_LOG"], "w") as log:
    json.dump({"prompt": prompt, "files": files, "links": links, "cwd": os.getcwd()}, log)
print("Looking at the files...")
print(json.dumps({"success": True, "reasoning": "all there", "confidence": "medium", "mistake_type": None}))
"""


def test_command_judge_runs_in_a_sandbox_like_directory(tmp_path, screenshot_files):
    script = tmp_path / "judge.py"
    script.write_text(SCRIPT)
    # The log folder is passed into the sandbox the way a harness's config folder is.
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs").chmod(0o777)  # the agent runs as nobody when the tests run as root
    log = tmp_path / "logs" / "log.json"
    judge = CommandJudge([sys.executable, str(script)], env={"AH_LOG": str(log)}, workdir_root=str(tmp_path),
                         config_dirs=[str(tmp_path / "logs")])
    row = make_row("Book November 1", ["November 1"], screenshots=screenshot_files[:2])
    output = judge.judge(build_judge_input(row))

    verdict = parse_verdict(output.text)
    assert verdict.is_valid and verdict.success is True
    seen = json.loads(log.read_text())
    assert TID in seen["prompt"]
    assert seen["files"] == [
        f"./data/jsons/{TID}.json",
        f"./data/markdowns/{TID}.md",
        f"./data/media/images/{TID}/step_1.png",
        f"./data/media/images/{TID}/step_2.png",
    ]
    assert seen["links"] == []
    assert not Path(seen["cwd"]).exists()  # cleaned up
    assert "AH_LOG" in judge.spec()["env"] and str(log) not in json.dumps(judge.spec())


def test_command_that_edits_a_screenshot_cannot_change_the_release(tmp_path, screenshot_files):
    # Agentic CLIs can write files; by default the working directory holds
    # copies, so an edit there never reaches the release's own screenshot (and
    # in the sandbox the item's files are bound in read-only: the edit is refused).
    originals = [Path(path).read_bytes() for path in screenshot_files[:2]]
    vandal = (
        "import glob, json\n"
        "for path in glob.glob('data/media/images/*/*.png'):\n"
        "    try:\n"
        "        open(path, 'ab').write(b'tampered')\n"
        "    except OSError:\n"
        "        pass\n"
        "print(json.dumps({'success': True, 'reasoning': 'edited the screenshots'}))\n"
    )
    judge = CommandJudge([sys.executable, "-c", vandal], workdir_root=str(tmp_path))
    row = make_row("Book November 1", ["November 1"], screenshots=screenshot_files[:2])
    assert parse_verdict(judge.judge(build_judge_input(row)).text).success is True
    assert [Path(path).read_bytes() for path in screenshot_files[:2]] == originals


def test_command_judge_markdown_template_and_failures(tmp_path):
    judge_input = build_judge_input(make_row("Do the thing", ["thing"]))
    echo = CommandJudge([sys.executable, "-c", "import sys; print(sys.stdin.read())"], prompt="<<{{MARKDOWN}}>>")
    assert echo.judge(judge_input).text.strip() == f"<<{judge_input.markdown}>>"

    failing = CommandJudge([sys.executable, "-c", "import sys; sys.stderr.write('no quota'); sys.exit(3)"])
    with pytest.raises(JudgeError, match="status 3.*no quota"):
        failing.judge(judge_input)

    slow = CommandJudge([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    started = time.monotonic()
    with pytest.raises(TransientJudgeError, match="timed out"):
        slow.judge(judge_input)
    assert time.monotonic() - started < 10

    with pytest.raises(JudgeError, match="cannot run"):
        CommandJudge("definitely-not-a-command-xyz").judge(judge_input)
    with pytest.raises(ValueError, match="TRAJECTORY_ID"):
        CommandJudge("cat", prompt="no placeholder")


def test_make_judge_command_spec_is_split_like_a_shell():
    judge = make_judge("command:claude -p --model 'opus 4'")
    assert judge.argv == ["claude", "-p", "--model", "opus 4"]
    assert judge.spec()["spec"] == "command:claude -p --model 'opus 4'"


# --- screenshot merging, structured output, extra body (the protocol against a vLLM-like stub) ----


def sent_images(request):
    parts = request["body"]["messages"][0]["content"]
    return [Image.open(io.BytesIO(base64.b64decode(p["image_url"]["url"].split(",", 1)[1])))
            for p in parts if p["type"] == "image_url"]


def test_auto_images_are_per_step_under_the_limit_and_mosaics_over_it(stub, screenshot_files, tmp_path):
    judge_input = build_judge_input(make_row("Open it", screenshots=screenshot_files))
    under = fast_judge(stub, max_images=5, cache_dir=str(tmp_path / "cache")).judge(judge_input)
    over = fast_judge(stub, max_images=4, cache_dir=str(tmp_path / "cache")).judge(judge_input)

    per_step, mosaics = (sent_images(r) for r in stub.requests)
    assert len(per_step) == 5 and all(i.size[0] <= 512 and i.size[1] <= 332 for i in per_step)
    assert len(mosaics) == 2 and all(i.size == (1024, 664) for i in mosaics)  # 5 screenshots -> 2 mosaics
    prompt = stub.requests[1]["body"]["messages"][0]["content"][0]["text"]
    assert "2x2 grid" in prompt and "left to right, top to bottom" in prompt
    assert {k: under.extra[k] for k in ("images_mode_used", "merged", "merge_reason", "n_images")} == {
        "images_mode_used": "per-step", "merged": False, "merge_reason": None, "n_images": 5}
    assert {k: over.extra[k] for k in ("images_mode_used", "merged", "merge_reason", "n_images")} == {
        "images_mode_used": "mosaic", "merged": True, "merge_reason": "count", "n_images": 2}
    assert over.telemetry()["merged"] is True  # extra lands in the result file's telemetry
    spec_images = fast_judge(stub, max_images=4).spec()["images"]
    assert spec_images["mode"] == "auto" and spec_images["max_images"] == 4
    assert spec_images["mosaic"]["size"] == [1024, 664] and "2x2" in spec_images["reading_order"]
    assert OpenAICompatibleJudge.from_options("m", base_url="http://h/v1").image_options.mode == "auto"  # the protocol is the default


def test_a_server_image_limit_answer_is_retried_as_mosaics(screenshot_files, tmp_path):
    server = StubServer(image_limit=3)  # vLLM started with --limit-mm-per-prompt '{"image": 3}'
    try:
        # The judge does not know the limit: the server's answer teaches it.
        output = fast_judge(server, cache_dir=str(tmp_path / "cache")).judge(
            build_judge_input(make_row("Open it", screenshots=screenshot_files)))
    finally:
        server.close()
    assert [len(sent_images(r)) for r in server.requests] == [5, 2]
    assert parse_verdict(output.text).is_valid
    assert output.extra["merged"] is True and output.extra["merge_reason"] == "server_limit"
    assert output.extra["images_mode_used"] == "mosaic" and output.extra["n_images"] == 2
    assert output.attempts == 2 and output.extra["server_limit_retries"] == 1


def test_still_too_long_mosaics_are_halved_once_then_the_item_fails(stub, screenshot_files, tmp_path):
    judge_input = build_judge_input(make_row("Open it", screenshots=screenshot_files))
    too_long = (400, {}, StubServer.vllm_error("This model's maximum context length is 8192 tokens. However, you "
                                               "requested 9000 tokens. Please reduce the length of the messages."), 0)
    stub.script = [too_long, too_long]
    output = fast_judge(stub, cache_dir=str(tmp_path / "cache")).judge(judge_input)
    assert [len(sent_images(r)) for r in stub.requests] == [5, 2, 1]
    assert output.extra["n_images"] == 1 and output.extra["server_limit_retries"] == 2
    assert output.extra["merge_reason"] == "server_limit"

    stub.requests.clear()
    stub.script = [too_long] * 3
    with pytest.raises(JudgeError, match="maximum context length.*not retried"):
        fast_judge(stub, cache_dir=str(tmp_path / "cache")).judge(judge_input)
    assert len(stub.requests) == 3

    # Asked for per-step explicitly: never merged behind the user's back, and the error says what to do.
    stub.requests.clear()
    stub.script = [too_long]
    with pytest.raises(JudgeError, match="not retried; --images auto merges"):
        fast_judge(stub, images="per-step", cache_dir=str(tmp_path / "cache")).judge(judge_input)
    assert len(stub.requests) == 1


def test_a_400_that_is_not_a_serving_limit_is_not_retried_in_auto_mode(stub, screenshot_files, tmp_path):
    stub.script = [(400, {}, StubServer.vllm_error("The model `stub-model` does not exist."), 0)]
    with pytest.raises(JudgeError, match="does not exist.*not retried"):
        fast_judge(stub, retries=3, cache_dir=str(tmp_path / "cache")).judge(
            build_judge_input(make_row("Open it", screenshots=screenshot_files)))
    assert len(stub.requests) == 1


def test_structured_output_sends_the_verdict_schema(stub):
    from agenthorizon.judging.judges.prompts import verdict_json_schema
    from agenthorizon.schema import CONFIDENCE_VALUES, MISTAKE_TYPES

    judge = fast_judge(stub, images="none", structured_output=True)
    judge.judge(build_judge_input(make_row("x")))
    response_format = stub.requests[0]["body"]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "verdict" and response_format["json_schema"]["strict"] is True
    schema = response_format["json_schema"]["schema"]
    assert schema == verdict_json_schema()
    assert schema["properties"]["success"] == {"type": "boolean"} and "success" in schema["required"]
    assert schema["properties"]["confidence"]["enum"] == list(CONFIDENCE_VALUES)
    assert schema["properties"]["mistake_type"]["anyOf"] == [{"type": "string", "enum": list(MISTAKE_TYPES)},
                                                             {"type": "null"}]
    assert judge.spec()["sampling"]["response_format"] == response_format
    # Off by default: the request carries no response_format.
    fast_judge(stub, images="none").judge(build_judge_input(make_row("x")))
    assert "response_format" not in stub.requests[1]["body"]
    with pytest.raises(ValueError, match="response_format"):
        fast_judge(stub, structured_output=True, extra_body={"response_format": {"type": "json_object"}})


def test_extra_body_reaches_the_server_and_thinking_stays_out_of_the_verdict(stub):
    extra = {"top_p": 0.95, "seed": 0, "chat_template_kwargs": {"enable_thinking": False}}
    thinking = "Let me compare the dates step by step... " * 10
    answer = StubServer.completion('{"success": true, "reasoning": "dates match"}')
    answer["choices"][0]["message"]["reasoning_content"] = thinking
    stub.script = [(200, {}, answer, 0)]
    judge = fast_judge(stub, images="none", extra_body=extra)
    output = judge.judge(build_judge_input(make_row("x")))
    body = stub.requests[0]["body"]
    assert {k: body[k] for k in extra} == extra
    assert judge.spec()["sampling"] == {"temperature": 0.0, "max_tokens": 2048, **extra}
    assert output.text == '{"success": true, "reasoning": "dates match"}'
    assert output.extra["reasoning_chars"] == len(thinking) and "step by step" not in json.dumps(output.telemetry())
    with pytest.raises(ValueError, match="may not set messages"):
        fast_judge(stub, extra_body={"messages": []})


def test_cli_judge_against_a_vllm_like_server_records_merging_in_run_json(tiny_root, tmp_path, capsys):
    import agenthorizon
    from agenthorizon.cli import main
    from agenthorizon.judging.runs.folder import read_results

    server = StubServer(image_limit=8)
    out = tmp_path / "run"
    argv = ["judge", "--data", str(tiny_root), "--config", "all", "--judge", "openai:stub-model",
            "--base-url", server.base_url, "--max-images", "8", "--structured-output",
            "--extra-body", '{"seed": 0, "top_p": 0.95}', "--limit", "6", "--bootstrap", "0",
            "--no-progress", "--out", str(out)]
    try:
        code = main(argv)
    finally:
        server.close()
    assert code == 0
    assert all(r["body"]["seed"] == 0 and r["body"]["response_format"]["type"] == "json_schema"
               for r in server.requests)
    assert len(server.requests) == 6  # --max-images told the judge the limit: no request was refused
    record = json.loads((out / "run.json").read_text())
    assert record["sampling"]["seed"] == 0 and record["sampling"]["response_format"]["json_schema"]["strict"]
    assert record["images"]["mode"] == "auto" and record["images"]["max_images"] == 8

    dataset = agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths")
    shown = {row["trajectory_id"]: sum(s["screenshot"] is not None for s in row["steps"]) for row in dataset}
    results = read_results([out]).records
    over = [tid for tid in results if shown[tid] > 8]
    assert over and len(over) < len(results)  # the tiny corpus has items on both sides of the limit
    for tid, result in results.items():
        assert result.telemetry.merged is (tid in over)
    assert record["merging"] == {"merged_items": len(over), "by_reason": {"count": len(over)}}
    # A resumed run judges nothing and still counts the merged items it finds.
    assert main(argv) == 0
    assert json.loads((out / "run.json").read_text())["merging"] == record["merging"]


def test_cli_extra_body_must_be_a_json_object(capsys):
    from agenthorizon.cli import main

    for value, message in (("{top_p: 1}", "--extra-body: not valid JSON"), ("[1, 2]", "expected a JSON object")):
        with pytest.raises(SystemExit) as raised:
            main(["judge", "--data", "x", "--judge", "openai:m", "--out", "y", "--extra-body", value])
        assert raised.value.code == 2
        assert message in capsys.readouterr().err
    assert main(["judge", "--data", "x", "--judge", "openai:m", "--out", "y", "--max-images", "0"]) == 2
    assert "max_images must be a positive integer" in capsys.readouterr().err
    assert main(["judge", "--data", "x", "--judge", "lexical", "--out", "y", "--structured-output"]) == 2
    assert "--structured-output: options of openai:MODEL judges only" in capsys.readouterr().err
