"""``gemini-direct:MODEL`` sends Gemini's native request shape (issue 33 section 2, SPEC section 5).

A loopback server of Gemini's ``generateContent`` protocol records every
request (path, headers, body); the tests check exactly what it received: one
``user`` content whose parts are the system prompt folded in first, then the
authors' texts and images (rebuilt from SPEC section 5 by
tests/judging/test_paper_direct.py, independently of the project's code), and
``generationConfig`` with temperature 0 and a cap of 1,024 tokens, 16,384
with thinking.
"""

from __future__ import annotations

import base64
import io
import json
from http.server import BaseHTTPRequestHandler

import pytest
from PIL import Image

from agenthorizon.judging.inputs import build_judge_input
from agenthorizon.judging.judges import make_judge
from agenthorizon.judging.judges.base import PreflightError
from agenthorizon.judging.runs.folder import read_results
from loopback import send_json, serve
from test_direct_judge import cli
from test_paper_direct import BUDGET, SYSTEM, WORKED_EXAMPLE, authors_payload, item_for, row_for, shots  # noqa: F401

VERDICT = {"success": False, "reasoning": "the file went to the wrong folder", "confidence": "high",
           "mistake_type": None}
KEY = "gm-loopback-key-0123456789"


class GeminiServer:
    """``POST /v1beta/models/MODEL:generateContent`` and ``GET /v1beta/models/MODEL`` on 127.0.0.1, each request recorded."""

    def __init__(self, answer=None, models=("judge-model",)):
        self.requests: list[dict] = []
        server = self
        answer = answer or {
            "candidates": [{"content": {"role": "model", "parts": [
                {"text": "Looking at step 3 first.", "thought": True}, {"text": json.dumps(VERDICT)}]},
                "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 4321, "candidatesTokenCount": 61, "thoughtsTokenCount": 40},
            "modelVersion": "judge-model-001",
        }

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _record(self, body):
                server.requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers),
                                        "body": body})

            def do_GET(self):
                self._record(None)
                name = self.path.rsplit("/", 1)[-1]
                if self.headers.get("x-goog-api-key") != KEY:
                    send_json(self, 403, {"error": {"code": 403, "message": "API key not valid", "status": "PERMISSION_DENIED"}})
                elif name in models:
                    send_json(self, 200, {"name": f"models/{name}"})
                else:
                    send_json(self, 404, {"error": {"code": 404, "message": f"models/{name} is not found", "status": "NOT_FOUND"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                self._record(body)
                send_json(self, 200, answer)

        self.server, self.thread = serve(Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1beta"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def gemini(monkeypatch):
    monkeypatch.setenv("AH_TEST_GEMINI_KEY", KEY)
    server = GeminiServer()
    yield server
    server.close()


@pytest.fixture()
def system_file(tmp_path):
    path = tmp_path / "system.txt"
    path.write_text(SYSTEM, encoding="utf-8")
    return path


def received(body: dict) -> list:
    """The parts of the one user content, images as their decoded sizes."""
    (content,) = body["contents"]
    assert content["role"] == "user"
    parts = []
    for part in content["parts"]:
        assert len(part) == 1, part
        if "text" in part:
            parts.append(("text", part["text"]))
        else:
            assert part["inlineData"]["mimeType"] == "image/jpeg"
            data = base64.b64decode(part["inlineData"]["data"])
            parts.append(("image", Image.open(io.BytesIO(data)).size))
    return parts


def gemini_judge(server, system_file, **options):
    return make_judge("gemini-direct:judge-model", preset="paper-direct", base_url=server.base_url,
                      api_key_env="AH_TEST_GEMINI_KEY", system_prompt=str(system_file), cache_dir=None, retries=0,
                      image_token_budget=BUDGET, **options)


def test_the_system_prompt_is_folded_into_the_user_parts_and_the_cap_is_1024(gemini, shots, system_file):
    judge = gemini_judge(gemini, system_file)
    for number, count in enumerate((7, 13, 15)):
        instruction, steps = item_for(count)
        output = judge.judge(build_judge_input(row_for(instruction, steps, shots, f"00000000-0000-4000-8000-{number:012d}")))
        request = gemini.requests[number]
        assert request["method"] == "POST" and request["path"] == "/v1beta/models/judge-model:generateContent"
        assert request["headers"]["x-goog-api-key"] == KEY and "Authorization" not in request["headers"]
        body = request["body"]
        assert set(body) == {"contents", "generationConfig"}  # no systemInstruction, no tools
        assert body["generationConfig"] == {"temperature": 0.0, "maxOutputTokens": 1024}
        # The system prompt first, then the authors' parts byte for byte, images at their sizes.
        assert received(body) == [("text", SYSTEM), *authors_payload(SYSTEM, instruction, steps, BUDGET)]
        assert output.extra["image_size"] == list(WORKED_EXAMPLE[count])
        # The answer: thought parts left out of the text, counted; thoughts billed as output.
        assert json.loads(output.text) == VERDICT
        assert (output.input_tokens, output.output_tokens) == (4321, 61 + 40)
        assert output.extra["reasoning_chars"] == len("Looking at step 3 first.")
        assert output.extra["model"] == "judge-model-001" and output.extra["finish_reason"] == "STOP"


def test_thinking_raises_the_cap_and_an_explicit_max_tokens_wins(gemini, shots, system_file):
    instruction, steps = item_for(7)
    row = row_for(instruction, steps, shots, "00000000-0000-4000-8000-000000000070")
    gemini_judge(gemini, system_file, thinking=True).judge(build_judge_input(row))
    gemini_judge(gemini, system_file, thinking=True, max_tokens=4000).judge(build_judge_input(row))
    caps = [request["body"]["generationConfig"]["maxOutputTokens"] for request in gemini.requests]
    assert caps == [16384, 4000]


def test_extra_body_generation_config_is_merged_and_other_fields_go_on_top(gemini, shots):
    instruction, steps = item_for(7)
    judge = make_judge("gemini-direct:judge-model", base_url=gemini.base_url, api_key_env="AH_TEST_GEMINI_KEY",
                       cache_dir=None, retries=0, images="none",
                       extra_body={"generationConfig": {"topK": 1}, "safetySettings": []})
    judge.judge(build_judge_input(row_for(instruction, steps, shots, "00000000-0000-4000-8000-000000000071"),
                                  ablate="screenshots"))
    body = gemini.requests[0]["body"]
    assert body["generationConfig"] == {"temperature": 0.0, "maxOutputTokens": 1024, "topK": 1}
    assert body["safetySettings"] == []
    assert all("inlineData" not in part for part in body["contents"][0]["parts"])


def test_preflight_names_a_refused_key_and_a_model_the_server_lacks(gemini, monkeypatch):
    import asyncio

    judge = make_judge("gemini-direct:judge-model", base_url=gemini.base_url, api_key_env="AH_TEST_GEMINI_KEY")
    asyncio.run(judge.apreflight())
    with pytest.raises(PreflightError, match=r"does not serve model 'other-model'"):
        asyncio.run(make_judge("gemini-direct:other-model", base_url=gemini.base_url,
                               api_key_env="AH_TEST_GEMINI_KEY").apreflight())
    monkeypatch.setenv("AH_TEST_GEMINI_KEY", "gm-wrong-key-0000000000")
    with pytest.raises(PreflightError, match=r"refused the key \(HTTP 403; AH_TEST_GEMINI_KEY sent\)"):
        asyncio.run(judge.apreflight())


def test_a_blocked_prompt_is_an_error_naming_the_reason(shots, monkeypatch):
    from agenthorizon.judging.judges.base import JudgeError

    monkeypatch.setenv("AH_TEST_GEMINI_KEY", KEY)
    server = GeminiServer(answer={"promptFeedback": {"blockReason": "SAFETY"}})
    try:
        judge = make_judge("gemini-direct:judge-model", base_url=server.base_url, api_key_env="AH_TEST_GEMINI_KEY",
                           cache_dir=None, retries=0)
        instruction, steps = item_for(7)
        with pytest.raises(JudgeError, match=r"holds no answer: the prompt was blocked \(SAFETY\)"):
            judge.judge(build_judge_input(row_for(instruction, steps, shots, "00000000-0000-4000-8000-000000000072")))
    finally:
        server.close()


def test_cli_gemini_direct_run_records_the_api_and_thinking(tiny_root, tmp_path, system_file, capsys, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    server = GeminiServer()
    out = tmp_path / "run"
    try:
        code, printed = cli(["judge", "--data", str(tiny_root), "--config", "all", "--judge", "gemini-direct:judge-model",
                             "--base-url", server.base_url, "--limit", "1", "--concurrency", "1", "--bootstrap", "0",
                             "--no-progress", "--out", str(out), "--preset", "paper-direct", "--system-prompt",
                             str(system_file), "--thinking"], capsys)
    finally:
        server.close()
    assert code == 0, printed.err
    posted = [request for request in server.requests if request["method"] == "POST"]
    assert len(posted) == 1 and posted[0]["body"]["generationConfig"]["maxOutputTokens"] == 16384
    record = json.loads((out / "run.json").read_text())
    assert record["judge"]["spec"] == "gemini-direct:judge-model" and record["judge"]["thinking"] is True
    assert record["judge"]["api"] == "generateContent"
    assert record["sampling"]["max_tokens"] == 16384 and record["judge"]["preset"]["name"] == "paper-direct"
    (result,) = read_results([out]).records.values()
    assert result.verdict["success"] is False and result.telemetry.input_tokens == 4321
    # The flag is the Gemini judge's only.
    code, printed = cli(["judge", "--data", str(tiny_root), "--config", "all", "--judge", "openai:m", "--out",
                         str(tmp_path / "other"), "--thinking"], capsys)
    assert code == 2 and "--thinking" in printed.err and "gemini-direct:MODEL" in printed.err


@pytest.mark.parametrize("layout", ["markdown", "interleaved", "paper"])
@pytest.mark.parametrize("ablate", ["instruction", "actions", "screenshots"])
def test_every_layout_withholds_every_ablated_part(gemini, shots, layout, ablate):
    instruction, steps = item_for(7)
    row = row_for(instruction, steps, shots, "00000000-0000-4000-8000-000000000073")
    options = {"timestamps": True} if layout != "markdown" else {}
    judge = make_judge("gemini-direct:judge-model", base_url=gemini.base_url, api_key_env="AH_TEST_GEMINI_KEY",
                       cache_dir=None, layout=layout, images="per-step", retries=0, **options)
    judge.judge(build_judge_input(row, ablate=ablate))
    parts = received(gemini.requests[0]["body"])
    text = "\n".join(part for kind, part in parts if kind == "text")
    assert (sum(kind == "image" for kind, _ in parts) == 0) == (ablate == "screenshots")
    assert ("Export the spreadsheet" in text) == (ablate != "instruction")
    assert ("left-click (100, 200)" in text) == (ablate != "actions")
