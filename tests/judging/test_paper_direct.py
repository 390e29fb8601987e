"""The direct judge sends what the benchmark authors' direct judge sends (issue 33, SPEC section 5).

The authors' payload is rebuilt here from SPEC section 5's rules alone
(``authors_*`` below, written without the project's code), and the project's
request -- captured at a real OpenAI-compatible server on loopback -- must
equal it part for part: text parts byte for byte, image sizes exactly. The
items are three trajectories of 7, 13 and 15 steps with 1710x1112
screenshots, whose texts are built so that a budget of 8,000 gives the
sizes the issue measured (497x323, 346x225, 317x206).
"""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image

from agenthorizon.judging.inputs import build_judge_input
from agenthorizon.judging.judges import make_judge
from agenthorizon.judging.runs.folder import read_results
from loopback import StubServer
from test_direct_judge import cli, judge_argv
from test_judges import stub  # noqa: F401 (fixture)

BUDGET = 8000
SYSTEM = ("You review recordings of a person using a desktop computer and decide whether the recording "
          "accomplishes the goal stated above it. Work in three passes and answer in JSON.\n") * 8
TYPED = "quarterly report final"
WORKED_EXAMPLE = {7: (497, 323), 13: (346, 225), 15: (317, 206)}
# Characters of system prompt + goal + step texts that put each item in the middle of its size's range.
TARGET_CHARS = {7: 2355, 13: 2933, 15: 3020}


# --- the authors' rules, from SPEC section 5 (independent of the project's code) ---------------------


def authors_action(step: dict) -> str:
    # Only the two action types these items use: a left click and typing.
    if step["type"] == "click":
        return f"left-click ({step['x']}, {step['y']})"
    return f'type "{step["text"]}"'


def authors_texts(instruction: str, steps: list[dict]) -> tuple[str, list[str]]:
    goal = f"## Goal\n\n{instruction.strip()}\n\n## Steps\n\nTotal steps: **{len(steps)}**"
    texts = []
    for index, step in enumerate(steps):
        milliseconds = format(int(step["timestamp_us"]) / 1000, ".0f")
        texts.append(f"### Step {index}\n\n**Action:** `{authors_action(step)}`\n\n**Timestamp:** {milliseconds} ms")
    return goal, texts


def authors_size(budget: int, chars: int, images: int) -> tuple[int, int]:
    share = (budget - chars // 4 - 200) / images
    for width in range(512, 63, -1):
        height = int(width * 1112 / 1710)
        if 85 + width * height / 170 <= share:
            return width, height
    return 64, int(64 * 1112 / 1710)


def authors_payload(system: str, instruction: str, steps: list[dict], budget: int) -> list:
    goal, texts = authors_texts(instruction, steps)
    size = authors_size(budget, len(system) + len(goal) + sum(map(len, texts)), len(steps))
    parts = [("text", goal)]
    for text in texts:
        parts += [("text", text), ("image", size)]
    return parts


# --- items --------------------------------------------------------------------------------------------


def steps_of(count: int) -> list[dict]:
    steps = []
    for index in range(count):
        time = 1_718_000_000_000_000 + 1_500_250 * index  # microseconds; 1500.25 ms apart
        if index % 4 == 3:
            steps.append({"type": "type", "text": TYPED, "timestamp_us": time})
        else:
            steps.append({"type": "click", "x": 100 + index, "y": 200 + 3 * index, "timestamp_us": time})
    return steps


def item_for(count: int) -> tuple[str, list[dict]]:
    """An instruction and steps whose text (with SYSTEM) has TARGET_CHARS[count] characters."""
    steps = steps_of(count)
    goal, texts = authors_texts("", steps)
    missing = TARGET_CHARS[count] - len(SYSTEM) - len(goal) - sum(map(len, texts))
    words = "Export the spreadsheet of the second quarter as a PDF into the Reports folder and name it after the team. "
    instruction = (words * (missing // len(words) + 1))[:missing - 1] + "."
    return instruction, steps


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shots")
    paths = []
    for index in range(15):
        path = folder / f"step_{index + 1}.png"
        Image.new("RGB", (1710, 1112), (10 * index, 90, 160)).save(path)
        paths.append(path)
    return paths


def row_for(instruction: str, steps: list[dict], shots, trajectory_id: str) -> dict:
    rows = []
    for index, step in enumerate(steps):
        parameters = {k: v for k, v in step.items() if k not in ("type", "timestamp_us")}
        rows.append({"step_id": index, "action_type": step["type"], "parameters": json.dumps(parameters),
                     "timestamp_us": step["timestamp_us"], "screenshot": str(shots[index])})
    return {"trajectory_id": trajectory_id, "instruction": instruction, "steps": rows, "markdown": "",
            "steps_id": "000000001-000001-0000-000000000001", "os": "macos", "screen_resolution": [1710, 1112],
            "applications": [], "category": None, "subcategory": None, "task_type": None}


def sent(request) -> list:
    content = request["body"]["messages"][-1]["content"]
    if isinstance(content, str):  # text only
        return [("text", content)]
    parts = []
    for part in content:
        if part["type"] == "text":
            parts.append(("text", part["text"]))
        else:
            data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
            parts.append(("image", Image.open(io.BytesIO(data)).size))
    return parts


def preset_judge(stub, system_file, **options):
    return make_judge("openai:stub-model", preset="paper-direct", base_url=stub.base_url, api_key_env="AH_TEST_UNSET",
                      system_prompt=str(system_file), cache_dir=None, retries=0, **options)


@pytest.fixture()
def system_file(tmp_path):
    path = tmp_path / "system.txt"
    path.write_text(SYSTEM, encoding="utf-8")
    return path


# --- the payload, part for part ----------------------------------------------------------------------


def test_the_preset_sends_the_authors_payload_part_for_part(stub, shots, system_file):
    judge = preset_judge(stub, system_file, image_token_budget=BUDGET)
    for number, count in enumerate((7, 13, 15)):
        instruction, steps = item_for(count)
        output = judge.judge(build_judge_input(row_for(instruction, steps, shots, f"00000000-0000-4000-8000-{number:012d}")))
        request = stub.requests[number]
        expected = authors_payload(SYSTEM, instruction, steps, BUDGET)
        assert expected[2] == ("image", WORKED_EXAMPLE[count])  # the sizes arise from these texts
        assert sent(request) == expected
        assert request["body"]["messages"][0] == {"role": "system", "content": SYSTEM}
        assert len(request["body"]["messages"]) == 2
        assert (request["body"]["temperature"], request["body"]["max_tokens"]) == (0.0, 2048)
        assert output.extra["image_size"] == list(WORKED_EXAMPLE[count])  # recorded per item
        assert output.extra["text_tokens"] == TARGET_CHARS[count] // 4


def test_a_budget_smaller_than_the_text_still_sends_thumbnails(stub, shots, system_file):
    instruction, steps = item_for(7)
    judge = preset_judge(stub, system_file, image_token_budget=300)  # the text alone is about 590 tokens
    output = judge.judge(build_judge_input(row_for(instruction, steps, shots, "00000000-0000-4000-8000-000000000009")))
    assert [size for kind, size in sent(stub.requests[0]) if kind == "image"] == [(64, 41)] * 7
    assert output.extra["image_size"] == [64, 41]
    assert sent(stub.requests[0]) == authors_payload(SYSTEM, instruction, steps, 300)


def test_the_images_only_budget_gives_other_sizes_than_the_whole_input_one(stub, shots, system_file):
    # Same items, the budget over the images alone: no single budget gives the authors' sizes,
    # because the text's share differs per item (the sizes the issue measured for the project).
    judge = preset_judge(stub, system_file, image_token_budget=BUDGET, budget_covers="images")
    for number, count in enumerate((7, 13, 15)):
        instruction, steps = item_for(count)
        judge.judge(build_judge_input(row_for(instruction, steps, shots, f"00000000-0000-4000-8000-{number:012d}")))
    sizes = [{size for kind, size in sent(request) if kind == "image"} for request in stub.requests]
    assert sizes == [{(511, 332)}, {(372, 242)}, {(341, 222)}]
    assert judge.spec()["images"].get("budget_covers") is None


# --- the run record and the judge key ------------------------------------------------------------


def test_cli_preset_records_itself_and_the_effective_values_and_flags_override_it(tiny_root, tmp_path, system_file, capsys):
    server = StubServer()
    prose = StubServer.completion('I checked every step. {"success": true, "reasoning": "fine"}')
    server.script = [(200, {}, prose, 0)] * 3
    out = tmp_path / "run"
    try:
        code, printed = cli(judge_argv(tiny_root, server, out, "--preset", "paper-direct", "--system-prompt",
                                       str(system_file), "--image-token-budget", str(BUDGET), "--temperature", "0.5"),
                            capsys)
    finally:
        server.close()
    assert code == 0, printed.err
    # The authors' rule asks again after prose around the JSON: 3 attempts in all, each kept.
    assert len(server.requests) == 3
    (result,) = read_results([out]).records.values()
    assert [answer.parse_status for answer in result.answers] == ["ok", "ok", "ok"]
    assert result.telemetry.answers == 3
    body = server.requests[0]["body"]
    assert body["temperature"] == 0.5 and body["max_tokens"] == 2048  # the flag won, the preset gave the rest
    first = body["messages"][1]["content"]
    assert first[0]["text"].startswith("## Goal\n\n") and "\n\n## Steps\n\nTotal steps: **" in first[0]["text"]
    assert first[1]["text"].startswith("### Step 0\n\n**Action:** `") and "**Timestamp:** " in first[1]["text"]
    record = json.loads((out / "run.json").read_text())
    judge = record["judge"]
    assert judge["preset"]["name"] == "paper-direct" and judge["preset"]["overridden"] == ["temperature"]
    assert judge["preset"]["values"]["image_quality"] == 60 and judge["preset"]["values"]["reask"] == 2
    assert (judge["layout"], judge["timestamps"], judge["reask"], judge["reask_when"]) == ("paper", True, 2, "no-success-key")
    assert record["sampling"]["temperature"] == 0.5
    images = record["images"]
    assert (images["budget_covers"], images["token_budget"], images["quality"], images["mode"]) == ("input", BUDGET, 60, "per-step")
    assert images["resize"] == "exact"
    html = tmp_path / "report.html"
    code, printed = cli(["report", str(out), "--data", str(tiny_root), "--out", str(html), "--bootstrap", "0",
                         "--thumbnails", "0"], capsys)
    assert code == 0, printed.err
    size = result.telemetry.extra["image_size"]
    assert f"as per-step at {size[0]}x{size[1]} (token budget over the input, {result.telemetry.extra['text_tokens']} of text)" in html.read_text(encoding="utf-8")


def test_cli_reask_when_is_recorded_and_part_of_the_judge_key(tiny_root, tmp_path, capsys):
    server = StubServer()
    server.script = [(200, {}, StubServer.completion('{"success": "yes"}'), 0),
                     (200, {}, StubServer.completion('Looks right. {"success": true}'), 0)]
    out = tmp_path / "authors"
    try:
        code, printed = cli(judge_argv(tiny_root, server, out, "--images", "none", "--reask", "2", "--reask-when",
                                       "no-success-key"), capsys)
        assert code == 0, printed.err
        # {"success": "yes"} loads as JSON holding success: the authors do not ask again (the score calls it invalid).
        assert len(server.requests) == 1
        (result,) = read_results([out]).records.values()
        assert result.parse_status == "non_boolean" and result.telemetry.answers == 1
        server.script = [(200, {}, StubServer.completion('{"success": "yes"}'), 0)]
        own = tmp_path / "project"
        code, printed = cli(judge_argv(tiny_root, server, own, "--images", "none", "--reask", "2"), capsys)
        assert code == 0, printed.err
        # The project's rule asks again after the non-Boolean; the prose-wrapped verdict after it ends the item.
        assert len(server.requests) == 3
        (result,) = read_results([own]).records.values()
        assert [a.parse_status for a in result.answers] == ["non_boolean", "ok"]
    finally:
        server.close()
    authors, project = (json.loads((folder / "run.json").read_text()) for folder in (out, own))
    assert authors["judge"]["reask_when"] == "no-success-key" and "reask_when" not in project["judge"]
    assert authors["judge_key"] != project["judge_key"]


# --- every layout takes every ablation -----------------------------------------------------------


@pytest.mark.parametrize("layout", ["markdown", "interleaved", "paper"])
@pytest.mark.parametrize("ablate", ["instruction", "actions", "screenshots"])
def test_every_layout_withholds_every_ablated_part(stub, shots, layout, ablate):
    instruction, steps = item_for(7)
    row = row_for(instruction, steps, shots, "00000000-0000-4000-8000-000000000007")
    options = {"timestamps": True} if layout != "markdown" else {}
    judge = make_judge("openai:stub-model", base_url=stub.base_url, api_key_env="AH_TEST_UNSET", cache_dir=None,
                       layout=layout, images="per-step", retries=0, **options)
    judge.judge(build_judge_input(row, ablate=ablate))
    parts = sent(stub.requests[0])
    text = "\n".join(part for kind, part in parts if kind == "text")
    images = [part for kind, part in parts if kind == "image"]
    assert (len(images) == 0) == (ablate == "screenshots")
    assert ("Export the spreadsheet" in text) == (ablate != "instruction")
    assert ("left-click (100, 200)" in text) == (ablate != "actions")
    assert ("type \"quarterly report final\"" in text) == (ablate != "actions")
    assert "1718000000000 ms" in text  # the steps' times stay with every ablation


def test_preset_flags_that_change_its_meaning_still_make_a_consistent_judge(tmp_path, system_file, capsys):
    # --layout markdown under the preset: the Markdown has the times already, so the preset's timestamps go.
    judge = make_judge("openai:m", preset="paper-direct", layout="markdown", base_url="http://127.0.0.1:9/v1")
    assert judge.layout == "markdown" and judge.timestamps is False and judge.preset["overridden"] == ["layout"]
    # Without a budget the preset sends fixed-size screenshots; the whole-input mode needs one.
    assert "budget_covers" not in make_judge("openai:m", preset="paper-direct", base_url="http://127.0.0.1:9/v1").spec()["images"]
    with pytest.raises(ValueError, match=r"budget_covers='input' sizes screenshots from a token budget.*--image-token-budget"):
        make_judge("openai:m", budget_covers="input", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValueError, match="unknown preset 'paper'; expected one of paper-direct"):
        make_judge("openai:m", preset="paper", base_url="http://127.0.0.1:9/v1")
    code, printed = cli(["judge", "--data", str(tmp_path), "--config", "all", "--judge", "openai:m", "--out",
                         str(tmp_path / "run"), "--layout", "markdown", "--timestamps"], capsys)
    assert code == 2 and "timestamps are for the interleaved and paper layouts" in printed.err


def test_cli_vllm_thinking_recipe_under_the_preset(tiny_root, tmp_path, system_file, capsys):
    # The authors' vLLM thinking setting: chat_template_kwargs.enable_thinking and 16,384 tokens. The loopback
    # server answers as vLLM does with a reasoning parser (the thinking in reasoning_content).
    thinking = "Step 3 opened the wrong folder, so... " * 20
    answer = StubServer.completion('{"success": false, "reasoning": "wrong folder"}')
    answer["choices"][0]["message"]["reasoning_content"] = thinking
    server = StubServer([(200, {}, answer, 0)])
    out = tmp_path / "run"
    try:
        code, printed = cli(judge_argv(tiny_root, server, out, "--preset", "paper-direct", "--system-prompt",
                                       str(system_file), "--extra-body",
                                       '{"chat_template_kwargs": {"enable_thinking": true}}', "--max-tokens", "16384"),
                            capsys)
    finally:
        server.close()
    assert code == 0, printed.err
    body = server.requests[0]["body"]
    assert body["chat_template_kwargs"] == {"enable_thinking": True} and body["max_tokens"] == 16384
    assert len(server.requests) == 1  # a JSON answer: the authors' rule does not ask again
    record = json.loads((out / "run.json").read_text())
    assert record["sampling"] == {"temperature": 0.0, "max_tokens": 16384, "chat_template_kwargs": {"enable_thinking": True}}
    assert record["judge"]["preset"]["overridden"] == ["max_tokens"]
    (result,) = read_results([out]).records.values()
    assert result.verdict["success"] is False and result.telemetry.extra["reasoning_chars"] == len(thinking)
