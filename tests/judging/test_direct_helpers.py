"""Step selection (B) and screenshot summaries (C): what every model call of an item receives (issue 33 section 3).

A real OpenAI-compatible server on loopback (tests/loopback.py's ModelServer,
answering by model) records every request; the tests check each call's
content exactly, that no label or pairing field and nothing of another
item reaches any call, that tokens and cost add up over every call (summed
here from the server's own usage, independently of the judge), that the
cache spares the helper's calls when the final model changes, and that the
judge key follows the helper's settings.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re

import pytest
from PIL import Image

from agenthorizon.judging.inputs import build_judge_input
from agenthorizon.judging.judges import make_judge
from agenthorizon.judging.judges.direct_summaries import SUMMARY_LABEL, SUMMARY_PROMPT
from agenthorizon.judging.judges.step_choice import SELECTOR_PROMPT
from agenthorizon.judging.runs.records import judge_key
from agenthorizon.judging.summaries_dataset import load_summaries
from loopback import ModelServer

VERDICT = '{"success": true, "reasoning": "the file was saved"}'
USAGE = (1000, 50)  # ModelServer's usage of every answer: prompt, completion tokens
LABEL_FIELDS = {"label": "negative", "mistake_type": "Bad Side Effect", "instruction_id": "000111222-111222-0000-000111222333",
                "steps_id": "000999888-999888-0000-000999888777", "instruction_source": "child", "steps_source": "parent"}


def shots(folder, count, *, same=()):
    """``count`` 1710x1112 PNGs, distinct colours (steps in ``same`` repeat the first one's pixels)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        colour = (0, 90, 160) if index in same else (12 * index, 90, 160)
        path = folder / f"step_{index + 1}.png"
        Image.new("RGB", (1710, 1112), colour).save(path)
        paths.append(path)
    return paths


def row(trajectory_id, instruction, paths, actions=None):
    steps = []
    for index, path in enumerate(paths):
        kind, parameters = (actions or {}).get(index, ("click", {"x": 10 + index, "y": 20}))
        steps.append({"step_id": index, "action_type": kind, "parameters": json.dumps(parameters),
                      "timestamp_us": 1_000_000 * index, "screenshot": str(path)})
    return {"trajectory_id": trajectory_id, "instruction": instruction, "steps": steps, "markdown": "", "os": "linux",
            **LABEL_FIELDS}


def texts_and_images(body):
    """A request's user content as (kind, value): text verbatim, images as (width, height)."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return [("text", content)]
    out = []
    for part in content:
        if part["type"] == "text":
            out.append(("text", part["text"]))
        else:
            data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
            out.append(("image", Image.open(io.BytesIO(data)).size))
    return out


def image_digests(body):
    content = body["messages"][-1]["content"]
    return [hashlib.sha256(part["image_url"]["url"].encode()).hexdigest() for part in content if part["type"] == "image_url"]


def assert_blind(body, own_instruction, other_instructions):
    text = json.dumps(body)
    # The pairing ids never; the label's words only where no prompt of the judge's names the mistake types.
    helper = body["model"] in ("cheap", "vision", "vision-2")
    for name, value in LABEL_FIELDS.items():
        if helper or name.endswith("_id"):
            assert value not in text, name
    for other in other_instructions:
        assert other not in text
    assert own_instruction in text or "[screenshot]" not in text


def cost(tokens, price_in, price_out):
    return (tokens[0] * price_in + tokens[1] * price_out) / 1e6


@pytest.fixture()
def server():
    def selector(body):
        text = body["messages"][-1]["content"]
        # The cheap model's choice: the screenshots of steps 2, 5 and 9, as a fenced JSON block.
        assert isinstance(text, str)
        return '```json\n{"steps": [9, 2, 5]}\n```'

    served = ModelServer({"cheap": selector, "final-a": lambda body: VERDICT, "final-b": lambda body: VERDICT,
                          "vision": lambda body: f"A window; image {image_digests(body)[0][:8]}.\nNothing else.",
                          "vision-2": lambda body: "Another description."})
    yield served
    served.close()


def by_model(server, model):
    return [body for body in server.requests if body["model"] == model]


# --- B: step selection --------------------------------------------------------------------------------------------


def test_a_heuristic_sends_only_its_k_screenshots_after_their_steps(server, tmp_path):
    paths = shots(tmp_path / "a", 10)
    edits = {1: ("type", {"text": "Q3 totals"}), 4: ("hotkey", {"keys": ["ctrl", "s"]}), 6: ("press", {"keys": ["enter"]})}
    judge = make_judge("openai:final-a", base_url=server.base_url, api_key_env="AH_TEST_UNSET", layout="interleaved",
                       cache_dir=None, select_steps=3, step_selector="edits", model_cache_dir=str(tmp_path / "cache"))
    output = judge.judge(build_judge_input(row("t-edits", "Save the totals", paths, edits)))
    (body,) = server.requests
    parts = texts_and_images(body)
    # After each chosen step's text comes its image, and after no other step's: the last step, then the latest edits.
    after = [parts[i - 1][1].split(":")[0] for i, (kind, _) in enumerate(parts) if kind == "image"]
    assert after == ["Step 4", "Step 6", "Step 9"]
    assert all(f"Step {i}:" in "".join(t for k, t in parts if k == "text") for i in range(10))  # every step's text stays
    assert output.extra["selected_steps"] == [4, 6, 9] and output.extra["selection_rule"] == "edits"
    assert output.extra["selector_answer"] is None and output.extra["selector_calls"] == 0
    assert (output.input_tokens, output.output_tokens) == USAGE


def test_a_selecting_model_reads_the_step_texts_alone_and_its_choice_is_cached_across_final_models(server, tmp_path):
    paths = shots(tmp_path / "b", 10)
    other = "Rename the folder to Archive"
    cache = str(tmp_path / "cache")
    prices = dict(price_input_per_1m=2.0, price_output_per_1m=8.0, helper_price_input_per_1m=0.1,
                  helper_price_output_per_1m=0.4)

    def judge_for(final):
        return make_judge(f"openai:{final}", base_url=server.base_url, api_key_env="AH_TEST_UNSET", layout="interleaved",
                          cache_dir=None, select_steps=3, step_selector="model:cheap", model_cache_dir=cache, **prices)

    item = build_judge_input(row("t-model", "Export the report as PDF", paths))
    first = judge_for("final-a").judge(item)
    selector_request, final_request = server.requests
    assert selector_request["model"] == "cheap" and final_request["model"] == "final-a"
    # What the selector got, rebuilt from the prompt's rules: goal, then every step, marked where a screenshot is.
    lines = ["Goal: Export the report as PDF", ""] + [f"Step {i}: left-click ({10 + i}, 20) [screenshot]" for i in range(10)]
    expected = SELECTOR_PROMPT.format(K=3, N=10, STEPS="\n".join(lines))
    assert selector_request["messages"] == [{"role": "user", "content": expected}]
    assert (selector_request["temperature"], selector_request["max_tokens"]) == (0.0, 256)
    parts = texts_and_images(final_request)
    after = [parts[i - 1][1].split(":")[0] for i, (kind, _) in enumerate(parts) if kind == "image"]
    assert after == ["Step 2", "Step 5", "Step 9"]
    for body in server.requests:
        assert_blind(body, "Export the report as PDF", [other])
    # Recorded per item: the choice, the selector's raw answer; tokens and cost over both calls.
    assert first.extra["selected_steps"] == [2, 5, 9]
    assert first.extra["selector_answer"] == '```json\n{"steps": [9, 2, 5]}\n```'
    assert first.extra["selection_cached"] is False
    assert (first.input_tokens, first.output_tokens) == (2 * USAGE[0], 2 * USAGE[1])
    assert first.cost_usd == pytest.approx(cost(USAGE, 2.0, 8.0) + cost(USAGE, 0.1, 0.4))
    assert first.extra["selector_cost_usd"] == pytest.approx(cost(USAGE, 0.1, 0.4))
    assert first.attempts == 2

    second = judge_for("final-b").judge(item)  # another final model: the selection is not paid again
    assert len(by_model(server, "cheap")) == 1 and len(by_model(server, "final-b")) == 1
    assert second.extra["selected_steps"] == [2, 5, 9] and second.extra["selection_cached"] is True
    assert second.extra["selector_answer"] == first.extra["selector_answer"] and second.extra["selector_calls"] == 0
    assert (second.input_tokens, second.cost_usd) == (USAGE[0], pytest.approx(cost(USAGE, 2.0, 8.0)))
    assert image_digests(by_model(server, "final-b")[0]) == image_digests(final_request)

    # Another item is asked about afresh: the cache is per item.
    judge_for("final-a").judge(build_judge_input(row("t-other", other, paths)))
    assert len(by_model(server, "cheap")) == 2
    assert_blind(by_model(server, "cheap")[1], other, ["Export the report as PDF"])


def test_a_selectors_bad_answer_fails_the_item_and_is_not_cached(tmp_path):
    served = ModelServer({"cheap": lambda body: '{"steps": [1, 2, 3, 4]}', "final-a": lambda body: VERDICT})
    try:
        judge = make_judge("openai:final-a", base_url=served.base_url, api_key_env="AH_TEST_UNSET", cache_dir=None,
                           select_steps=3, step_selector="model:cheap", model_cache_dir=str(tmp_path / "cache"))
        item = build_judge_input(row("t-bad", "Do it", shots(tmp_path / "c", 6)))
        with pytest.raises(Exception, match=r"trajectory t-bad: the selector named 4 steps; expected at most 3"):
            judge.judge(item)
        with pytest.raises(Exception, match="named 4 steps"):
            judge.judge(item)
        assert [body["model"] for body in served.requests] == ["cheap", "cheap"]  # asked again: nothing cached
    finally:
        served.close()


def test_the_judge_key_follows_the_selection_settings(tmp_path):
    def key(**options):
        return judge_key(make_judge("openai:final-a", api_key_env="AH_TEST_UNSET", **options).spec())

    plain = key()
    keys = {plain, key(select_steps=3), key(select_steps=4), key(select_steps=3, step_selector="last"),
            key(select_steps=3, step_selector="model:cheap"), key(select_steps=3, step_selector="model:other"),
            key(summarise_with="vision"), key(summarise_with="vision-2")}
    assert len(keys) == 8
    # The helper's server is operational, as the final judge's is: the key stays.
    assert key(select_steps=3, step_selector="model:cheap") == key(
        select_steps=3, step_selector="model:cheap", helper_base_url="http://127.0.0.1:9/v1")


@pytest.mark.parametrize("options, message", [
    ({"select_steps": 3, "summarise_with": "vision"}, "not both"),
    ({"step_selector": "last"}, "give K with --select-steps"),
    ({"select_steps": 3, "step_selector": "model:"}, "expected one of last, even, edits or model:MODEL"),
    ({"select_steps": 0}, "positive integer"),
    ({"helper_base_url": "http://127.0.0.1:9/v1"}, "neither is asked for"),
    ({"summarise_with": "vision", "layout": "paper"}, "leave --layout at markdown"),
])
def test_helper_options_that_do_not_fit_say_what_is_expected(options, message):
    with pytest.raises(ValueError, match=message):
        make_judge("openai:final-a", api_key_env="AH_TEST_UNSET", **options)


# --- C: screenshot summaries --------------------------------------------------------------------------------------


def test_each_screenshot_is_summarised_alone_once_and_the_text_judge_reads_the_summaries(server, tmp_path):
    paths = shots(tmp_path / "d", 4, same=(0, 3))  # step 3 repeats step 0's pixels: one summary for both
    cache = str(tmp_path / "cache")
    options = dict(base_url=server.base_url, api_key_env="AH_TEST_UNSET", cache_dir=None, summarise_with="vision",
                   model_cache_dir=cache, price_input_per_1m=1.0, price_output_per_1m=2.0,
                   helper_price_input_per_1m=0.5, helper_price_output_per_1m=0.5)
    item = build_judge_input(row("t-sum", "Crop the photo", paths))
    output = make_judge("openai:final-a", **options).judge(item)
    summaries = by_model(server, "vision")
    assert len(summaries) == 3  # four screenshots, three distinct
    for body in summaries:
        parts = texts_and_images(body)
        # The prompt and one screenshot, nothing else; 1710x1112 fitted into 1024x664: the height binds.
        assert parts == [("text", SUMMARY_PROMPT), ("image", (round(664 * 1710 / 1112), 664))]
        assert_blind(body, "", ["Crop the photo"])
        assert "t-sum" not in json.dumps(body)
    (final,) = by_model(server, "final-a")
    (kind, text), = texts_and_images(final)
    assert kind == "text" and "image_url" not in json.dumps(final)
    answers = {digest[:8] for body in summaries for digest in image_digests(body)}
    described = [line for line in text.split("\n") if line.startswith(SUMMARY_LABEL)]
    assert len(described) == 4 and "![Step" not in text
    assert [line.split("image ")[1][:8] for line in described][0] == [line.split("image ")[1][:8] for line in described][3]
    assert {line.split("image ")[1][:8] for line in described} == answers
    assert all(line.endswith(". Nothing else.") for line in described)  # white space collapsed to one line
    assert "Crop the photo" in text and "**Action:** `left-click (12, 20)`" in text
    assert_blind(final, "Crop the photo", [])
    # Tokens and cost: three summaries and the final answer, from the server's usage.
    assert (output.input_tokens, output.output_tokens) == (4 * USAGE[0], 4 * USAGE[1])
    assert output.cost_usd == pytest.approx(cost(USAGE, 1.0, 2.0) + 3 * cost(USAGE, 0.5, 0.5))
    assert (output.extra["summaries_made"], output.extra["summaries_cached"], output.extra["n_summaries"]) == (3, 0, 4)
    assert output.attempts == 4

    again = make_judge("openai:final-b", **options).judge(item)  # another final model: no summary is made again
    assert len(by_model(server, "vision")) == 3
    assert (again.extra["summaries_made"], again.extra["summaries_cached"]) == (0, 4)
    assert again.input_tokens == USAGE[0] and again.cost_usd == pytest.approx(cost(USAGE, 1.0, 2.0))
    assert texts_and_images(by_model(server, "final-b")[0]) == [("text", text)]

    # The summaries as a dataset: a row per step, the summary the final judge read.
    table = load_summaries(cache)
    assert table.num_rows == 4 and table["trajectory_id"] == ["t-sum"] * 4 and table["step_id"] == [0, 1, 2, 3]
    assert [" ".join(s.split()) for s in table["summary"]] == [line[len(SUMMARY_LABEL) + 1:] for line in described]
    assert table["screenshot_sha256"][0] == table["screenshot_sha256"][3] == hashlib.sha256(paths[0].read_bytes()).hexdigest()
    assert set(table["model"]) == {"vision"} and table["input_tokens"] == [USAGE[0]] * 4
    table.to_parquet(str(tmp_path / "summaries.parquet"))
    assert load_summaries(cache, summariser_key="0" * 64).num_rows == 0


def test_another_summariser_summarises_again(server, tmp_path):
    paths = shots(tmp_path / "e", 2)
    item = build_judge_input(row("t-two", "Open it", paths))
    for model in ("vision", "vision-2"):
        make_judge("openai:final-a", base_url=server.base_url, api_key_env="AH_TEST_UNSET", cache_dir=None,
                   summarise_with=model, model_cache_dir=str(tmp_path / "cache")).judge(item)
    assert len(by_model(server, "vision")) == 2 and len(by_model(server, "vision-2")) == 2
    table = load_summaries(str(tmp_path / "cache"))
    assert table.num_rows == 4 and len(set(table["summariser_key"])) == 2


# --- the command line, on a release -------------------------------------------------------------------------------


def label_rows(root):
    rows = []
    for name in ("AgentHorizon.jsonl", "AgentHorizon-Simple.jsonl"):
        path = root / name
        if path.exists():
            rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return rows


def test_cli_step_selection_records_the_choice_and_a_second_final_model_asks_no_selector(tiny_root, tmp_path, capsys):
    import re

    from agenthorizon.cli import main
    from agenthorizon.judging.runs.folder import read_results

    def last_two(body):
        marked = re.findall(r"^Step (\d+)\b.*\[screenshot\]$", body["messages"][-1]["content"], re.MULTILINE)
        return json.dumps({"steps": [int(step) for step in marked[-2:]]})

    served = ModelServer({"cheap": last_two, "final-a": lambda body: VERDICT, "final-b": lambda body: VERDICT})
    cache = tmp_path / "cache"
    try:
        for final in ("final-a", "final-b"):
            argv = ["judge", "--data", str(tiny_root), "--config", "all", "--judge", f"openai:{final}", "--base-url",
                    served.base_url, "--api-key-env", "AH_TEST_UNSET", "--limit", "3", "--concurrency", "1",
                    "--bootstrap", "0", "--no-progress", "--out", str(tmp_path / final), "--layout", "interleaved",
                    "--select-steps", "2", "--step-selector", "model:cheap", "--model-cache", str(cache)]
            assert main(argv) == 0, capsys.readouterr().err
    finally:
        served.close()
    # Three selections, all in the first run; besides them each run's preflight asks every model for one token.
    selections = [body for body in by_model(served, "cheap") if body["messages"][-1]["content"] != "ping"]
    assert len(selections) == 3 and len(by_model(served, "cheap")) == 3 + 2
    runs = {final: json.loads((tmp_path / final / "run.json").read_text()) for final in ("final-a", "final-b")}
    assert runs["final-a"]["images"]["step_selection"]["selector"]["model"] == "cheap"
    assert runs["final-a"]["judge"]["step_selection"]["k"] == 2
    for final in ("final-a", "final-b"):
        for result in read_results([tmp_path / final]).records.values():
            extra = result.telemetry.extra
            assert len(extra["selected_steps"]) == 2 and extra["selector_answer"].startswith('{"steps": [')
            assert extra["selection_cached"] is (final == "final-b")
            assert result.telemetry.input_tokens == USAGE[0] * (2 if final == "final-a" else 1)
    # No label or pairing field of any item reaches any call.
    bodies = json.dumps(served.requests)
    for label in label_rows(tiny_root):
        for field in ("instruction_id", "steps_id"):
            assert label[field] not in bodies


def test_in_the_markdown_layout_the_markdown_keeps_only_the_chosen_steps_image_lines(server, tmp_path):
    paths = shots(tmp_path / "f", 6)
    judge = make_judge("openai:final-a", base_url=server.base_url, api_key_env="AH_TEST_UNSET", cache_dir=None,
                       select_steps=2, step_selector="last")
    judge.judge(build_judge_input(row("t-md", "Close the window", paths)))
    (body,) = server.requests
    parts = texts_and_images(body)
    prompt = parts[0][1]
    assert re.findall(r"!\[Step (\d+) screenshot\]", prompt) == ["4", "5"]
    assert [value for kind, value in parts if kind == "text"][1:] == ["Step 4 screenshot:", "Step 5 screenshot:"]
    assert sum(kind == "image" for kind, _ in parts) == 2
