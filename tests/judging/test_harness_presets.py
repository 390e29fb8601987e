"""The codex / claude / gemini / opencode presets, run by the real runner against fake
CLIs on PATH: each fake answers ``--version``, records its argv, stdin and working
directory, and answers in its CLI's documented output format."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.judging.judges import make_judge
from agenthorizon.judging.judges.presets import HARNESSES
from agenthorizon.judging.runs.folder import read_results
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.schema import CRITICAL_MISTAKE, FRAMEWORK_FILES, LABEL_FILES, PROMPT_FILE

VERDICT = {"success": False, "reasoning": "the date typed differs", "confidence": "high", "mistake_type": CRITICAL_MISTAKE}

# One fake per CLI: the same recorder, then the CLI's own output format.
FAKE = r'''#!{python}
import json, os, sys
NAME = {name!r}
if sys.argv[1:] == ["--version"]:
    print({version!r})
    sys.exit(0)
stdin = sys.stdin.read()
files = {{}}
for folder, _, names in os.walk("."):
    for n in names:
        path = os.path.join(folder, n)[2:]
        files[path] = open(path, "rb").read().decode("latin-1")
tid = os.path.splitext(os.listdir("data/markdowns")[0])[0]
with open(os.path.join(os.environ["FAKE_LOG"], NAME + "-" + tid + ".json"), "w") as log:
    json.dump({{"argv": sys.argv, "stdin": stdin, "cwd": os.getcwd(), "files": files}}, log)
verdict = json.dumps({verdict!r})
if NAME == "codex":
    answer = sys.argv[sys.argv.index("--output-last-message") + 1]
    open(answer, "w").write(verdict)
    print(json.dumps({{"type": "thread.started", "thread_id": "t"}}))
    for used in (100, 250):
        print(json.dumps({{"type": "turn.completed", "usage": {{"input_tokens": used, "cached_input_tokens": 40, "output_tokens": 9}}}}))
elif NAME == "claude":
    print(json.dumps({{"type": "result", "subtype": "success", "is_error": False, "num_turns": 3,
                      "result": "Verdict:\n```json\n" + verdict + "\n```", "total_cost_usd": 0.125,
                      "usage": {{"input_tokens": 20, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 1000, "output_tokens": 50}},
                      "modelUsage": {{"claude-opus-4-7": {{"inputTokens": 20, "outputTokens": 50}}}}}}))
elif NAME == "gemini":
    print(json.dumps({{"response": verdict, "stats": {{"models": {{"gemini-3.1-pro": {{"tokens": {{
        "prompt": 700, "candidates": 30, "total": 760, "cached": 200, "thoughts": 30}}}}}}}}}}))
elif NAME == "opencode":
    print(json.dumps({{"type": "step_start", "part": {{"type": "step-start"}}}}))
    print(json.dumps({{"type": "text", "part": {{"type": "text", "text": verdict}}}}))
    print(json.dumps({{"type": "step_finish", "part": {{"type": "step-finish", "cost": 0.02, "tokens": {{"input": 400, "output": 25}}}}}}))
'''

VERSIONS = {"codex": "codex-cli 0.171.0", "claude": "2.1.332 (Claude Code)", "gemini": "0.61.0", "opencode": "1.18.33"}
MODELS = {"codex": "gpt-5.5", "claude": "claude-opus-4-7", "gemini": "gemini-3.1-pro", "opencode": "vllm/Qwen3.6-27B"}
# What each fake printed, as the run must record it: input tokens, output tokens, cost.
TELEMETRY = {"codex": (350, 18, None), "claude": (1320, 50, 0.125), "gemini": (700, 30, None), "opencode": (400, 25, 0.02)}


@pytest.fixture()
def fake_clis(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in HARNESSES:
        path = bin_dir / name
        path.write_text(FAKE.format(python=sys.executable, name=name, version=VERSIONS[name], verdict=VERDICT))
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    log = tmp_path / "log"
    log.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_LOG", str(log))
    return bin_dir, log


@pytest.fixture(scope="module")
def dataset(tiny_root, tmp_path_factory):
    return agenthorizon.load_dataset(
        tiny_root, "all", split="test", images="paths", cache_dir=tmp_path_factory.mktemp("cache")
    )


def _hidden_values(row):
    """Values that would give the label or the pairing away."""
    return {row["instruction_id"], row["steps_id"], row["pair_group_id"]} - {""}


@pytest.mark.parametrize("name", list(HARNESSES))
def test_preset_runs_its_cli_non_interactively_in_a_sandbox_like_directory(name, fake_clis, dataset, tiny_root, tmp_path):
    bin_dir, log = fake_clis
    rows = {row["trajectory_id"]: row for row in dataset.select(range(3))}
    work = tmp_path / "work"
    work.mkdir()
    # The log folder goes into the sandbox the way a harness's login folder does.
    judge = make_judge(f"{name}:{MODELS[name]}", workdir_root=str(work), config_dirs=[str(log)])
    summary = run_judge(judge, dataset.select(range(3)), tmp_path / "run", data_root=tiny_root, progress=False,
                        concurrency=2)
    assert summary.counts.ok == 3 and not summary.errors
    assert not list(work.iterdir())  # working directories and answer files are cleaned up

    framework = (tiny_root / FRAMEWORK_FILES[0]).read_text(encoding="utf-8")
    claude_md = (tiny_root / FRAMEWORK_FILES[1]).read_text(encoding="utf-8")
    release_prompt = (tiny_root / PROMPT_FILE).read_text(encoding="utf-8")
    harness = HARNESSES[name]
    for tid, row in rows.items():
        seen = json.loads((log / f"{name}-{tid}.json").read_text())
        prompt = release_prompt.replace("{{TRAJECTORY_ID}}", tid)
        # The argv: the preset's template with the model, the prompt (for CLIs that take it as an
        # argument) and an answer file outside the working directory.
        expected = [part.replace("{model}", MODELS[name]).replace("{prompt}", prompt) for part in harness.argv]
        expected[0] = str(bin_dir / name)
        if harness.answer_file:
            position = harness.argv.index("{answer_file}")
            answer = Path(seen["argv"][position])
            assert answer.is_absolute() and seen["cwd"] not in str(answer)
            expected[position] = str(answer)
        assert seen["argv"] == expected
        assert seen["stdin"] == (prompt if harness.prompt_on_stdin else "")
        # The working directory: the framework under the names each CLI reads, and this item's files only.
        files = seen["files"]
        assert files["AGENTS.md"] == framework and files["GEMINI.md"] == framework and files["CLAUDE.md"] == claude_md
        data_files = sorted(path for path in files if path.startswith("data/"))
        assert data_files[:2] == [f"data/jsons/{tid}.json", f"data/markdowns/{tid}.md"]
        assert all(path.startswith(f"data/media/images/{tid}/step_") for path in data_files[2:]) and data_files[2:]
        assert set(files) == {"AGENTS.md", "CLAUDE.md", "GEMINI.md", *data_files}
        assert not any(Path(path).name in LABEL_FILES for path in files)
        everything = json.dumps(seen)
        for value in _hidden_values(row):
            assert value not in everything, f"{name}: {value} reached the working directory or argv"

    # Parsed verdicts and each CLI's token and cost report, per item.
    results = read_results([tmp_path / "run"]).records
    tokens_in, tokens_out, cost = TELEMETRY[name]
    for result in results.values():
        assert result.verdict["success"] is False and result.verdict["mistake_type"] == CRITICAL_MISTAKE
        telemetry = result.telemetry
        assert (telemetry.input_tokens, telemetry.output_tokens, telemetry.cost_usd) == (tokens_in, tokens_out, cost)
        assert telemetry.extra["harness"] == name
        if name in ("claude", "gemini"):  # the CLIs that name the model that answered
            assert telemetry.extra["models"] == [MODELS[name]]
    # The run record: harness, version, argv template, the release prompt's provenance.
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["model"] == MODELS[name]
    assert record["judge"]["harness"]["version"] == VERSIONS[name]
    assert record["judge"]["harness"]["executable"] == str(bin_dir / name)
    assert record["judge"]["harness"]["argv"] == list(harness.argv)
    assert record["judge"]["command"] == [part.replace("{model}", MODELS[name]) for part in harness.argv]
    assert record["prompt"]["source"] == "release" and record["prompt"]["text"] == release_prompt
    if name == "codex":  # the report names the harness and its version
        from agenthorizon.cli import main

        html = tmp_path / "report.html"
        assert main(["report", str(tmp_path / "run"), "--data", str(tiny_root), "--out", str(html),
                     "--bootstrap", "0", "--thumbnails", "0"]) == 0
        assert f"harness codex {VERSIONS['codex']}" in html.read_text(encoding="utf-8")


def test_a_missing_cli_fails_the_preflight_with_its_install_command(dataset, tiny_root, tmp_path, monkeypatch, capsys):
    from agenthorizon.cli import main

    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    for name, harness in HARNESSES.items():
        with pytest.raises(FileNotFoundError, match=f"npm install -g {harness.package}"):
            run_judge(f"{name}:{MODELS[name]}", dataset.select(range(1)), tmp_path / name, data_root=tiny_root, progress=False)
        assert not list((tmp_path / name).glob("*.json"))  # nothing judged, no record of a run that never started
    code = main(["judge", "--data", str(tiny_root), "--config", "all", "--judge", "claude:claude-opus-4-7",
                 "--limit", "1", "--no-progress", "--out", str(tmp_path / "cli")])
    assert code == 2
    assert "npm install -g @anthropic-ai/claude-code" in capsys.readouterr().err


def test_preset_cli_errors_are_item_errors_with_the_clis_message(fake_clis, dataset, tiny_root, tmp_path):
    bin_dir, _ = fake_clis
    (bin_dir / "claude").write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        "if sys.argv[1:] == ['--version']: print('2.1.332'); sys.exit(0)\n"
        "print(json.dumps({'type': 'result', 'is_error': True, 'result': 'Credit balance is too low'}))\n"
    )
    summary = run_judge("claude:claude-opus-4-7", dataset.select(range(1)), tmp_path / "run", data_root=tiny_root,
                        progress=False)
    assert summary.counts.error == 1
    assert "Credit balance is too low" in next(iter(summary.errors.values()))


def test_preset_specs_and_options():
    judge = make_judge("opencode:vllm/Qwen3.6-27B", timeout=60, prompt="project")
    assert judge.model == "vllm/Qwen3.6-27B" and judge.timeout == 60
    assert judge.spec()["prompt"]["source"] == "project"
    with pytest.raises(ValueError, match="expected codex:MODEL"):
        make_judge("codex:")
    with pytest.raises(ValueError, match="does not take option"):
        make_judge("gemini:gemini-3.1-pro", base_url="http://x")


def test_a_preset_on_a_hub_repo_reads_the_texts_from_the_snapshot(fake_clis, hub, tiny_copy, tmp_path):
    """Against a real Hub-compatible server (tests/hub_server.py): the loader and the run
    run in a subprocess pointed at it, with the fake CLIs on its PATH."""
    marker = "Framework as published on the Hub."
    (tiny_copy / FRAMEWORK_FILES[0]).write_text(marker, encoding="utf-8")
    repo_id = "agenthorizon-tests/AgentHorizon-presets"
    commit = hub.add_repo(repo_id, tiny_copy)
    since = hub.mark()
    _, log = fake_clis
    out = hub.python(
        f"""
        import agenthorizon
        from agenthorizon.judging.runs.runner import run_judge
        dataset = agenthorizon.load_dataset({repo_id!r}, "AH", split="test", images="paths")
        # the fake CLIs' log folder joins the sandbox, so they can report what they saw
        judge = agenthorizon.make_judge("gemini:gemini-3.1-pro", config_dirs=[{str(log)!r}])
        summary = run_judge(judge, dataset.select(range(1)), {str(tmp_path / "run")!r},
                            data_root={repo_id!r}, progress=False)
        result = summary.counts.ok
        """,
        tmp_path / "hf",
    )
    assert out["result"] == 1, out
    asked = {r.path.rsplit(f"/{commit}/", 1)[-1] for r in hub.requests(since) if f"/{repo_id}/resolve/" in r.path}
    assert {PROMPT_FILE, FRAMEWORK_FILES[0]} <= asked  # fetched with the config's files
    seen = json.loads(next(log.glob("gemini-*.json")).read_text())
    assert seen["files"]["AGENTS.md"] == marker == seen["files"]["GEMINI.md"]
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    snapshot = tmp_path / "hf" / "hub" / f"datasets--{repo_id.replace('/', '--')}" / "snapshots" / commit
    assert record["prompt"]["root"] == str(snapshot)
    assert (snapshot / PROMPT_FILE).is_file() and (snapshot / FRAMEWORK_FILES[0]).read_text() == marker
