"""``--prompt release``: the direct judge's prompt is built from the release's own
sandbox/prompt.md and sandbox/AGENTS.md, read at run time, and the run record says so."""

from __future__ import annotations

import hashlib
import json

import pytest
from test_judges import StubServer  # the loopback OpenAI-compatible server of the judge tests

import agenthorizon
from agenthorizon.judging.inputs import build_judge_input
from agenthorizon.judging.judges import DIRECT_PROMPT, JudgeError, make_judge
from agenthorizon.judging.judges.prompts import RUBRIC
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.schema import FRAMEWORK_FILES, PROMPT_FILE

MARK_PROMPT = "Release marker P-7f3a: judge strictly."
MARK_FRAMEWORK = "Release marker F-91c2: the framework of this very release."


def _first_text(request) -> str:
    content = request["body"]["messages"][0]["content"]
    return content if isinstance(content, str) else content[0]["text"]


def test_cli_prompt_release_sends_the_releases_own_texts(tiny_copy, tmp_path):
    from agenthorizon.cli import main

    # Texts that exist nowhere but in this release's files: what reaches the
    # server can only have been read from them at run time.
    prompt_path, framework_path = tiny_copy / PROMPT_FILE, tiny_copy / FRAMEWORK_FILES[0]
    prompt_path.write_text(prompt_path.read_text(encoding="utf-8") + "\n" + MARK_PROMPT + "\n", encoding="utf-8")
    framework_path.write_text(MARK_FRAMEWORK + "\n\n" + framework_path.read_text(encoding="utf-8"), encoding="utf-8")
    release_prompt = prompt_path.read_text(encoding="utf-8")
    framework = framework_path.read_text(encoding="utf-8")

    server = StubServer()
    out = tmp_path / "run"
    argv = ["judge", "--data", str(tiny_copy), "--config", "all", "--judge", "openai:stub-model",
            "--base-url", server.base_url, "--prompt", "release", "--jpeg-quality", "60", "--max-images", "8",
            "--limit", "6", "--bootstrap", "0", "--no-progress", "--out", str(out)]
    try:
        assert main(argv) == 0
    finally:
        server.close()
    assert len(server.requests) == 6
    dataset = agenthorizon.load_dataset(tiny_copy, "all", split="test", images="paths", cache_dir=tmp_path / "cache")
    by_id = {row["trajectory_id"]: row for row in dataset.select(range(6))}
    for request in server.requests:
        text = _first_text(request)
        tid = next(t for t in by_id if t in text)
        assert text.startswith(framework.rstrip("\n"))
        assert release_prompt.replace("{{TRAJECTORY_ID}}", tid).rstrip("\n") in text
        assert build_judge_input(by_id[tid]).markdown in text  # a direct judge gets the file inline
        assert RUBRIC.splitlines()[0] not in text  # not the project's prompt
        assert "{{" not in text

    record = json.loads((out / "run.json").read_text())
    prompt = record["prompt"]
    assert prompt["source"] == "release"
    assert prompt["sha256"] == hashlib.sha256(prompt["text"].encode()).hexdigest()
    assert prompt["files"] == {
        PROMPT_FILE: hashlib.sha256(prompt_path.read_bytes()).hexdigest(),
        FRAMEWORK_FILES[0]: hashlib.sha256(framework_path.read_bytes()).hexdigest(),
        FRAMEWORK_FILES[1]: hashlib.sha256((tiny_copy / FRAMEWORK_FILES[1]).read_bytes()).hexdigest(),
    }
    assert record["images"]["quality"] == 60 and record["images"]["format"] == "jpeg"

    # The report shows, per item, how its screenshots were sent and whether they were merged.
    results = {path.stem: json.loads(path.read_text()) for path in out.glob("*-*-*-*-*.json")}
    merged = {tid for tid, result in results.items() if result["telemetry"]["merged"]}
    assert merged and len(merged) < len(results)  # items on both sides of --max-images
    html = tmp_path / "report.html"
    assert main(["report", str(out), "--data", str(tiny_copy), "--out", str(html), "--bootstrap", "0",
                 "--thumbnails", "0"]) == 0
    page = html.read_text(encoding="utf-8")
    assert page.count("as 2x2 mosaics (merged: count)") == len(merged)
    assert page.count("as per-step (not merged)") == len(results) - len(merged)
    assert f"prompt release (sha256 {prompt['sha256'][:12]})" in page and "JPEG quality 60" in page

    # Another prompt into the same run directory is another experiment: refused.
    server = StubServer()
    try:
        assert main([*argv[:argv.index("--prompt")], *argv[argv.index("--prompt") + 2:]]) == 2
    finally:
        server.close()
    assert not server.requests


def test_the_default_stays_the_projects_prompt_and_release_needs_a_release(tiny_root, tmp_path):
    assert make_judge("openai:m").spec()["prompt"] == {
        "sha256": hashlib.sha256(DIRECT_PROMPT.encode()).hexdigest(), "text": DIRECT_PROMPT, "source": "project",
    }
    assert make_judge("command:cat", prompt="Judge {{TRAJECTORY_ID}}").spec()["prompt"]["source"] == "custom"
    dataset = agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths", cache_dir=tmp_path / "cache")
    judge = make_judge("openai:m", prompt="release", base_url="http://127.0.0.1:9/v1", retries=0)
    with pytest.raises(JudgeError, match="bind_release"):
        judge.judge(build_judge_input(dataset[0]))
    with pytest.raises(ValueError, match="pass data_root="):
        run_judge(judge, dataset.select(range(1)), tmp_path / "run", progress=False)
    judge.bind_release(tiny_root)
    assert (tiny_root / PROMPT_FILE).read_text(encoding="utf-8") in judge.spec()["prompt"]["text"]


def test_a_release_without_its_judge_texts_is_a_clear_error(tiny_copy, tmp_path):
    (tiny_copy / PROMPT_FILE).unlink()
    with pytest.raises(FileNotFoundError, match="prompt.md not found"):
        make_judge("openai:m", prompt="release").bind_release(tiny_copy)
    (tiny_copy / PROMPT_FILE).write_text("Judge the trajectory.", encoding="utf-8")
    with pytest.raises(ValueError, match="expected the {{TRAJECTORY_ID}} placeholder"):
        make_judge("codex:gpt-5.5").bind_release(tiny_copy)


def test_cli_prompt_and_jpeg_quality_are_checked(tmp_path, capsys):
    from agenthorizon.cli import main

    for extra, message in (
        (["--judge", "lexical", "--prompt", "release"], "--prompt: an option of model and command judges"),
        (["--judge", "codex:gpt-5.5", "--jpeg-quality", "60"], "--jpeg-quality: options of openai:MODEL or gemini-direct:MODEL or codex-direct:MODEL judges only"),
        (["--judge", "openai:m", "--prompt", str(tmp_path / "nofile.md")], "expected project or release, or a template file"),
        (["--judge", "openai:m", "--jpeg-quality", "0"], "JPEG quality must be an integer from 1 to 100"),
    ):
        assert main(["judge", "--data", str(tmp_path), "--out", str(tmp_path / "run"), *extra]) == 2
        assert message in capsys.readouterr().err
    template = tmp_path / "mine.md"
    template.write_text("Judge {{TRAJECTORY_ID}} and answer with JSON.", encoding="utf-8")
    from agenthorizon.cli import build_parser
    from agenthorizon.cli.judge import judge_options

    args = build_parser().parse_args(["judge", "--data", "x", "--out", "y", "--judge", "claude:opus", "--prompt", str(template)])
    assert judge_options(args) == {"prompt": "Judge {{TRAJECTORY_ID}} and answer with JSON."}
