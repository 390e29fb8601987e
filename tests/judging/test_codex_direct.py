"""``codex-direct:MODEL`` runs the real Codex CLI (``codex exec --output-schema``, each screenshot as
``--image FILE``) in the project's sandbox, pointed at a loopback Responses API server, as the Codex
preset's tests do (tests/judging/test_real_clis.py); the tests check what the server received.

What reaches the model is compared with the authors' payload rebuilt from SPEC section 5 by
tests/judging/test_paper_direct.py (independently of the project's code): the texts joined by blank
lines, byte for byte, after the CLI's own context; one image per step, at the sizes of the whole-input
budget, in step order; the verdict schema as the response format; no shell, web, agent or goal tool.
"""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image, ImageStat

from agent_servers import AgentModelServer, Script
from agenthorizon.judging.inputs import build_judge_input
from agenthorizon.judging.judges import make_judge
from agenthorizon.judging.judges.prompts import verdict_json_schema
from test_paper_direct import BUDGET, SYSTEM, WORKED_EXAMPLE, authors_texts, item_for, row_for, shots  # noqa: F401
from test_real_clis import on_path, user_config, user_home  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.system, pytest.mark.slow]

VERDICT = {"success": False, "reasoning": "the report went to the wrong folder", "confidence": "high",
           "mistake_type": None}
# The tools Codex 0.171 declares whatever its settings: request_user_input (which fails in exec mode) and
# view_image (which can open only the item's own folder: the screenshots it was given).
UNREMOVABLE_TOOLS = ["request_user_input", "view_image"]


def user_parts(body: dict) -> list[tuple[str, object]]:
    """The user message's parts as the server got them: texts, and images as decoded (size, mean red)."""
    parts = []
    for item in body["input"]:
        if item.get("role") != "user":
            continue
        for part in item["content"]:
            if part["type"] == "input_text":
                parts.append(("text", part["text"]))
            elif part["type"] == "input_image":
                image = Image.open(io.BytesIO(base64.b64decode(part["image_url"].split(",", 1)[1]))).convert("RGB")
                parts.append(("image", (image.size, ImageStat.Stat(image).mean[0])))
    return parts


def codex_direct(server, home, root, system_file=None, **options):
    if not (home / ".codex").is_dir():
        user_config("codex", server.url, home)
    env = {"LOOPBACK_API_KEY": "sk-loopback"}
    if system_file is not None:
        options.update(preset="paper-direct", system_prompt=str(system_file), image_token_budget=BUDGET)
    judge = make_judge("codex-direct:judge-model", env=env, workdir_root=str(root), timeout=300, cache_dir=None,
                       **options)
    judge.preflight()
    return judge


def test_codex_exec_gets_the_joined_texts_one_image_per_step_and_no_tool(on_path, user_home, shots, tmp_path):
    system_file = tmp_path / "system.txt"
    system_file.write_text(SYSTEM, encoding="utf-8")
    server = AgentModelServer("responses", lambda text: Script(json.dumps(VERDICT)))
    try:
        (tmp_path / "items").mkdir()
        judge = codex_direct(server, user_home, tmp_path / "items", system_file, keep_workdir=True)
        # Confined as the Codex preset is: the sandbox, a network reaching the model server alone.
        assert judge.sandbox == "bwrap"
        assert [(endpoint["url"].startswith(server.url), endpoint["via"])
                for endpoint in judge.spec()["network"]["endpoints"]] == [(True, "forwarded")]
        for number, count in enumerate((7, 13)):
            instruction, steps = item_for(count)
            output = judge.judge(build_judge_input(row_for(instruction, steps, shots, f"00000000-0000-4000-8000-{number:012d}")))
            assert json.loads(output.text) == VERDICT
            assert output.extra["image_size"] == list(WORKED_EXAMPLE[count]) and output.extra["n_images"] == count
    finally:
        server.close()
    posted = [request for request in server.requests if request.reply != "404"]
    assert len(posted) == 2
    # Each item's folder held its images and the schema only: no release file, no AGENTS.md.
    folders = sorted((tmp_path / "items").glob("*/work"))
    assert len(folders) == 2
    for folder in folders:
        assert sorted(path.name for path in folder.iterdir()) == ["images", "verdict.schema.json"]
    for request, count in zip(posted, (7, 13)):
        instruction, steps = item_for(count)
        body = request.body
        assert sorted(tool.get("name") or tool.get("type") for tool in body["tools"]) == UNREMOVABLE_TOOLS
        assert body["text"]["format"]["type"] == "json_schema" and body["text"]["format"]["strict"] is True
        assert body["text"]["format"]["schema"] == verdict_json_schema()
        parts = user_parts(body)
        # The prompt is the last text: the system prompt and the authors' texts joined by blank lines.
        goal, texts = authors_texts(instruction, steps)
        assert parts[-1] == ("text", "\n\n".join([SYSTEM, goal, *texts]))
        images = [value for kind, value in parts if kind == "image"]
        assert [size for size, _ in images] == [WORKED_EXAMPLE[count]] * count
        reds = [red for _, red in images]  # the screenshots' red channel grows with the step: step order
        assert reds == sorted(reds) and reds[-1] - reds[0] > 10 * (count - 2)
        # The CLI names each attached file; nothing of the release is in the item's folder.
        captions = [value for kind, value in parts if kind == "text" and value.startswith("<image ")]
        assert len(captions) == count and all("/work/images/" in caption for caption in captions)


def test_ablations_reach_codex_direct_as_they_reach_the_direct_judge(on_path, user_home, shots, tmp_path):
    server = AgentModelServer("responses", lambda text: Script(json.dumps(VERDICT)))
    instruction, steps = item_for(7)
    row = row_for(instruction, steps, shots, "00000000-0000-4000-8000-000000000077")
    try:
        judge = codex_direct(server, user_home, tmp_path, layout="paper", timestamps=True)
        judge.judge(build_judge_input(row, ablate="instruction"))
        judge.judge(build_judge_input(row, ablate="actions"))
        blind = codex_direct(server, user_home, tmp_path, layout="paper", images="none")
        assert blind.ablation == ("screenshots",)
        blind.judge(build_judge_input(row, ablate="screenshots"))
    finally:
        server.close()
    posted = [user_parts(request.body) for request in server.requests if request.reply != "404"]
    assert len(posted) == 3
    prompts = [parts[-1][1] for parts in posted]
    assert "Export the spreadsheet" not in prompts[0] and "left-click (100, 200)" in prompts[0]
    assert "Export the spreadsheet" in prompts[1] and "left-click" not in prompts[1] and "type \"" not in prompts[1]
    assert "1718000000000 ms" in prompts[1]
    assert [sum(kind == "image" for kind, _ in parts) for parts in posted] == [7, 7, 0]


def test_cli_codex_direct_run_under_the_preset_records_the_judge(on_path, user_home, tiny_root, tmp_path, capsys):
    from agenthorizon.judging.runs.folder import read_results
    from test_direct_judge import cli

    system_file = tmp_path / "system.txt"
    system_file.write_text(SYSTEM, encoding="utf-8")
    server = AgentModelServer("responses", lambda text: Script("My verdict: " + json.dumps(VERDICT)))
    out = tmp_path / "run"
    try:
        user_config("codex", server.url, user_home)
        code, printed = cli(["judge", "--data", str(tiny_root), "--config", "all", "--judge", "codex-direct:judge-model",
                             "--preset", "paper-direct", "--system-prompt", str(system_file), "--image-token-budget",
                             "8000", "--env", "LOOPBACK_API_KEY=sk-loopback", "--timeout", "300", "--limit", "1",
                             "--concurrency", "1", "--bootstrap", "0", "--no-progress", "--out", str(out)], capsys)
    finally:
        server.close()
    assert code == 0, printed.err
    record = json.loads((out / "run.json").read_text())
    judge = record["judge"]
    assert judge["spec"] == "codex-direct:judge-model" and judge["layout"] == "paper" and judge["timestamps"] is True
    assert record["images"]["budget_covers"] == "input" and record["images"]["quality"] == 60
    assert record["sampling"] == {"output_schema": verdict_json_schema()}
    assert judge["preset"]["name"] == "paper-direct" and judge["system_prompt"]["path"] == str(system_file)
    assert "--output-schema" in judge["command"] and judge["harness"]["tested_version"] in judge["harness"]["version"]
    (result,) = read_results([out]).records.values()
    # Prose around the JSON: the authors' re-ask rule (the preset's) asks again, 3 attempts in all, each kept.
    posted = [request for request in server.requests if request.reply != "404"]
    assert len(posted) == 3 and len(result.answers) == 3 and result.telemetry.answers == 3
    assert result.telemetry.input_tokens >= 1000 and result.telemetry.extra["image_size"][0] <= 512
