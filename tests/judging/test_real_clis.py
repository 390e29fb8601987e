"""The harness presets of npm CLIs run the real CLIs, installed from npm at their tested versions
(tests/agent_clis.py), through the real runner and the default sandbox (bubblewrap, as root
here and in CI), each pointed at a model server on 127.0.0.1 that speaks the CLI's own wire
protocol (tests/agent_servers.py).

The server plays a model that, in the tool scenario, first runs a shell command -- list the
work folder, read the release's label file by its absolute path, list the CLI's own folders
in its home, search everything it can read for the other item's id -- and then answers; the
command reaches the CLI base64-encoded, the way a model would get around a CLI that screens
the paths in a command, so what stops it is the sandbox. Each test checks what a user would
notice: the verdicts, the run record, what reached the model, and what the agent could see.

How each CLI is pointed at the server (``USER_CONFIG``) is what docs/judges.md shows users.
"""

from __future__ import annotations

import base64
import json
import os
import shlex
import stat
from pathlib import Path

import pytest

import agenthorizon
from agent_servers import AgentModelServer, Script, USAGE
from agenthorizon.judging.judges import make_judge
from agenthorizon.judging.judges.presets import HARNESSES
from agenthorizon.judging.runs.folder import read_results
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.schema import CRITICAL_MISTAKE, FRAMEWORK_FILES

VERDICT = {"success": False, "reasoning": "the typed date differs from the goal's", "confidence": "high",
           "mistake_type": CRITICAL_MISTAKE}
ANSWER = "Verdict:\n```json\n" + json.dumps(VERDICT) + "\n```"
PROTOCOLS = {"codex": "responses", "claude": "messages", "gemini": "gemini", "opencode": "chat", "pi": "chat"}
MODELS = {"codex": "judge-model", "claude": "judge-model", "gemini": "judge-model", "opencode": "loopback/judge-model",
          "pi": "loopback/judge-model"}
# The presets whose real CLI the suite installs (OpenHands needs a Python 3.12 this machine cannot have:
# tests/judging/test_openhands_preset.py).
REAL = [name for name, harness in HARNESSES.items() if harness.installer == "npm"]
# Where each CLI keeps its state in a home: listed by the agent, so any earlier item's files would show.
OWN_FOLDERS = {"codex": "~/.codex", "claude": "~/.claude ~/.claude.json", "gemini": "~/.gemini",
               "opencode": "~/.config/opencode ~/.local/share/opencode", "pi": "~/.pi ~/.pi/agent"}
LEAK = "LEAK: "
SEARCHED = "SEARCH-DONE"


def user_config(name: str, url: str, home: Path, reasoning: bool = False) -> dict[str, str]:
    """Point the CLI ``name`` at ``url`` the way a user would: its config files under ``home``
    (the user's home) and the environment variables it returns. docs/judges.md shows these."""
    if name == "codex":
        (home / ".codex").mkdir(parents=True)
        (home / ".codex" / "config.toml").write_text(
            'model_provider = "loopback"\n\n'
            "[model_providers.loopback]\n"
            'name = "loopback"\n'
            f'base_url = "{url}/v1"\n'
            'wire_api = "responses"\n'
            'env_key = "LOOPBACK_API_KEY"\n',
            encoding="utf-8",
        )
        return {"LOOPBACK_API_KEY": "sk-loopback"}
    if name == "claude":
        return {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-loopback"}
    if name == "gemini":
        (home / ".gemini").mkdir(parents=True)
        (home / ".gemini" / "settings.json").write_text(
            json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}), encoding="utf-8")
        return {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "sk-loopback"}
    if name == "pi":
        (home / ".pi" / "agent").mkdir(parents=True)
        provider = {"baseUrl": f"{url}/v1", "api": "openai-completions", "apiKey": "LOOPBACK_API_KEY",
                    "models": [{"id": "judge-model", "reasoning": reasoning}]}
        (home / ".pi" / "agent" / "models.json").write_text(json.dumps({"providers": {"loopback": provider}}),
                                                            encoding="utf-8")
        return {"LOOPBACK_API_KEY": "sk-loopback"}
    (home / ".config" / "opencode").mkdir(parents=True)
    provider = {"npm": "@ai-sdk/openai-compatible", "name": "loopback",
                "options": {"baseURL": f"{url}/v1", "apiKey": "{env:LOOPBACK_API_KEY}"},
                "models": {"judge-model": {"name": "judge model"}}}
    (home / ".config" / "opencode" / "opencode.json").write_text(
        json.dumps({"$schema": "https://opencode.ai/config.json", "provider": {"loopback": provider}}), encoding="utf-8")
    # No machine here reaches models.dev (OpenCode's model catalogue); it would wait for it at every start.
    return {"LOOPBACK_API_KEY": "sk-loopback", "OPENCODE_DISABLE_MODELS_FETCH": "1"}


@pytest.fixture(scope="module")
def dataset(tiny_root, tmp_path_factory):
    return agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths",
                                     cache_dir=tmp_path_factory.mktemp("cache"))


@pytest.fixture()
def user_home(tmp_path, monkeypatch):
    """A home of the user's own, holding the CLIs' config; never the machine's ``~/.codex``..."""
    home = tmp_path / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "CODEX_HOME",
                     "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(variable, raising=False)
    return home


@pytest.fixture()
def on_path(agent_clis, bubblewrap, monkeypatch):
    monkeypatch.setenv("PATH", f"{agent_clis}{os.pathsep}{os.environ['PATH']}")
    return agent_clis


def look_around(name: str, label_file: Path, others: list[str], prefix: Path) -> str:
    """The agent's shell command: what a curious or hostile agent would try, base64-wrapped."""
    needles = " ".join(f"-e {shlex.quote(needle)}" for needle in others)
    script = "\n".join([
        "ls -la . data/markdowns",
        f"cat '{label_file}' 2>&1 | head -c 300",
        f"ls -la {OWN_FOLDERS[name]} 2>&1 | head -40",
        f"grep -rlaF {needles} / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev --exclude-dir=usr --exclude-dir=opt "
        f"--exclude-dir=etc --exclude-dir={prefix.name} 2>/dev/null | sed 's/^/{LEAK}/' | head -20",
        f"echo {SEARCHED}",
    ])
    encoded = base64.b64encode(script.encode()).decode()
    return f"echo {encoded} | base64 -d | bash"


def items_named(text: str, rows: list[dict]) -> list[str]:
    return [row["trajectory_id"] for row in rows if row["trajectory_id"] in text]


@pytest.mark.parametrize("name", REAL)
def test_real_cli_judges_each_item_blind_to_the_labels_and_to_the_other_items(
    name, on_path, user_home, dataset, tiny_root, tmp_path
):
    rows = [dict(row) for row in dataset.select(range(2))]
    label_file = tiny_root / "AgentHorizon.jsonl"
    first_label_line = label_file.read_text(encoding="utf-8").splitlines()[0]

    def script(text: str) -> Script:
        named = items_named(text, rows)
        if len(named) != 1:  # a side request (a title), or one that names two items: answer only
            return Script(ANSWER)
        own = next(row for row in rows if row["trajectory_id"] == named[0])
        others = [row["trajectory_id"] for row in rows if row is not own]
        others += [row["instruction"] for row in rows if row is not own and row["instruction"] != own["instruction"]]
        return Script(ANSWER, look_around(name, label_file, others, on_path.parent), read_path=str(label_file))

    server = AgentModelServer(PROTOCOLS[name], script)
    try:
        env = user_config(name, server.url, user_home)
        work = tmp_path / "items"
        work.mkdir()
        judge = make_judge(f"{name}:{MODELS[name]}", env=env, workdir_root=str(work), keep_workdir=True, timeout=300)
        summary = run_judge(judge, dataset.select(range(2)), tmp_path / "run", data_root=tiny_root, progress=False,
                            concurrency=1)
    finally:
        server.close()
    assert summary.counts.ok == 2 and not summary.errors, summary.errors

    # Verdicts parsed from each CLI's final message, with its own telemetry.
    results = read_results([tmp_path / "run"]).records
    for result in results.values():
        assert result.verdict["success"] is False and result.verdict["mistake_type"] == CRITICAL_MISTAKE
        telemetry = result.telemetry
        assert telemetry.extra["harness"] == name and telemetry.extra["agent_tools"] == "paper"
        assert telemetry.input_tokens >= 2 * USAGE["input"] and telemetry.output_tokens >= 2 * USAGE["output"]
        if name == "claude":  # Claude Code prices any model at its own table: its estimate, labelled so
            assert telemetry.cost_source == "cli_estimate" and telemetry.cost_usd > 0
        else:  # no cost reported (Codex, Gemini), or 0 for a model without a price (OpenCode): unknown, not $0
            assert telemetry.cost_source == "unknown" and telemetry.cost_usd is None
        assert telemetry.cache_read_input_tokens >= 2 * USAGE["cached"]
        if name not in ("claude", "pi"):  # the Messages protocol has no reasoning count, pi passes on none
            assert telemetry.reasoning_tokens >= 2 * USAGE["reasoning"]
        if name == "pi":  # one tool call, two model turns, as the script plays them
            assert telemetry.turns == 2 and telemetry.tool_calls == 1

    # The run record: the CLI's version as it reports it, the argv template, the tools setting.
    record = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    harness = HARNESSES[name]
    assert harness.tested_version in record["judge"]["harness"]["version"]
    assert record["judge"]["harness"]["executable"] == str(on_path / name)
    assert record["judge"]["harness"]["argv"] == list(harness.argv)
    assert record["judge"]["agent_tools"] == "paper" and record["judge"]["spec"].endswith("--agent-tools paper")
    # A network of its own, the model server its one endpoint (found in the CLI's variables or config).
    network = record["judge"]["network"]
    assert network["namespace"] is True and record["judge"]["exposure"]["network_namespace"] is True
    assert [(endpoint["url"].startswith(server.url), endpoint["via"]) for endpoint in network["endpoints"]] == [
        (True, "forwarded")]

    framework = (tiny_root / FRAMEWORK_FILES[0]).read_text(encoding="utf-8")
    framework_line = "A clean, coherent run of a"
    assert framework_line in framework
    main = [request for request in server.requests if request.reply == "tool"]
    assert sorted(items_named(request.texts(), rows)[0] for request in main) == sorted(r["trajectory_id"] for r in rows)
    for request in main:
        assert framework_line in request.texts(), f"{name}: the framework file did not reach the model"
    results_seen = [request for request in server.requests if request.tool_results]
    assert len(results_seen) >= 2
    for request in server.requests:
        # No request carries two items: nothing of one item reached the other's conversation.
        assert len(items_named(request.texts(), rows)) <= 1, f"{name}: a request named both items"
        assert first_label_line not in request.texts()
    for request in results_seen:
        output = "\n".join(request.tool_results)
        assert f"{label_file}: No such file or directory" in output, output[-2000:]
        assert SEARCHED in output and LEAK not in output, output[-2000:]

    # The private homes: the user's config copied read-only, and nothing fetched at run time.
    homes = sorted(work.glob("*/home"))
    assert len(homes) == 2 and all(home.parent.joinpath("work").is_dir() for home in homes)
    for home in homes:
        for copied in {"codex": [".codex/config.toml"], "gemini": [".gemini/settings.json"],
                       "opencode": [".config/opencode/opencode.json"], "claude": [],
                       "pi": [".pi/agent/models.json"]}[name]:
            assert (home / copied).read_bytes() == (user_home / copied).read_bytes()
            assert not (home / copied).stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
        assert not (home / ".npm").exists() and not list(home.rglob("node_modules"))
    assert sorted(path.name for path in user_home.iterdir()) == sorted(
        {"codex": [".codex"], "gemini": [".gemini"], "opencode": [".config"], "claude": [], "pi": [".pi"]}[name]
    ), "a CLI wrote into the user's own home"


SHELLS = {"exec_command", "shell", "Bash", "run_shell_command", "bash"}


@pytest.mark.parametrize("name", REAL)
def test_real_cli_with_read_only_tools_gets_no_shell_and_cannot_read_the_labels(
    name, on_path, user_home, dataset, tiny_root, tmp_path
):
    label_file = tiny_root / "AgentHorizon.jsonl"
    tid = dataset[0]["trajectory_id"]

    def script(text: str) -> Script:
        if tid not in text:
            return Script(ANSWER)
        return Script(ANSWER, look_around(name, label_file, ["no-such-needle"], on_path.parent), read_path=str(label_file))

    server = AgentModelServer(PROTOCOLS[name], script)
    try:
        judge = make_judge(f"{name}:{MODELS[name]}", env=user_config(name, server.url, user_home),
                           agent_tools="read-only", timeout=300)
        summary = run_judge(judge, dataset.select(range(1)), tmp_path / "run", data_root=tiny_root, progress=False)
    finally:
        server.close()
    assert summary.counts.ok == 1 and not summary.errors, summary.errors
    record = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert record["judge"]["agent_tools"] == "read-only" and record["judge"]["spec"].endswith("--agent-tools read-only")
    calls = [request for request in server.requests if request.reply == "tool"]
    assert len(calls) == 1, [request.path for request in server.requests]
    results = [request for request in server.requests if request.tool_results]
    output = "\n".join(text for request in results for text in request.tool_results)
    print(name, calls[0].tool, output[-1500:])
    label_text = label_file.read_text(encoding="utf-8").splitlines()[0]
    assert label_text not in output
    if name == "codex":  # Codex keeps its shell, in its own read-only sandbox inside ours
        assert calls[0].tool == "exec_command" and f"{label_file}: No such file or directory" in output
    else:  # the others offer no shell at all: the model's only way in is a file read, refused
        offered = {name for request in calls for name in server.protocol.tools(request.body)}
        assert not offered & SHELLS, offered
        assert calls[0].tool in ("Read", "read_file", "read") and results


@pytest.mark.parametrize("name", REAL)
def test_real_cli_answering_at_once_through_agenthorizon_judge(name, on_path, user_home, tiny_root, tmp_path, monkeypatch):
    from agenthorizon.cli import main

    server = AgentModelServer(PROTOCOLS[name], lambda text: Script(ANSWER))
    try:
        for variable, value in user_config(name, server.url, user_home).items():
            monkeypatch.setenv(variable, value)  # as a user exports them before running the command
        code = main(["judge", "--data", str(tiny_root), "--config", "all", "--judge", f"{name}:{MODELS[name]}",
                     "--limit", "1", "--no-progress", "--out", str(tmp_path / "run")])
    finally:
        server.close()
    assert code == 0
    results = read_results([tmp_path / "run"]).records
    assert [result.verdict["success"] for result in results.values()] == [False]
    assert not any(request.tool_results for request in server.requests)
    record = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert record["judge"]["agent_tools"] == "paper"
    # The prompt is prompt.md stripped, the trajectory id filled in, and it reached the model whole.
    prompt = (tiny_root / "sandbox" / "prompt.md").read_text(encoding="utf-8").strip()
    assert record["prompt"]["text"] == prompt
    tid = next(iter(results))
    assert any(prompt.replace("{{TRAJECTORY_ID}}", tid) in request.texts() for request in server.requests)
    if name == "codex":  # the report names the harness, its version and the tools setting
        html = tmp_path / "report.html"
        assert main(["report", str(tmp_path / "run"), "--data", str(tiny_root), "--out", str(html),
                     "--bootstrap", "0", "--thumbnails", "0"]) == 0
        page = html.read_text(encoding="utf-8")
        assert f"harness codex {record['judge']['harness']['version']}" in page and "--agent-tools paper" in page


@pytest.mark.parametrize("name", REAL)
def test_a_model_servers_refusal_is_an_item_error_with_its_message(name, on_path, user_home, dataset, tiny_root, tmp_path):
    refusal = "model judge-model is not served by this endpoint"
    server = AgentModelServer(PROTOCOLS[name], lambda text: Script(ANSWER, error=refusal))
    try:
        judge = make_judge(f"{name}:{MODELS[name]}", env=user_config(name, server.url, user_home), timeout=300)
        summary = run_judge(judge, dataset.select(range(1)), tmp_path / "run", data_root=tiny_root, progress=False)
    finally:
        server.close()
    assert summary.counts.error == 1
    assert refusal in next(iter(summary.errors.values()))


@pytest.mark.parametrize("name", REAL)
def test_real_cli_under_an_ablation_finds_nothing_withheld_in_its_folder(name, on_path, user_home, dataset, tiny_root,
                                                                         tmp_path):
    """``--ablate instruction,actions,screenshots``: the agent lists its folder and reads the item's files,
    and neither what it reads nor anything else that reaches the model holds the withheld parts."""
    row = dict(dataset[0])
    listing = "\n".join(["find . -type f | sort", "cat data/markdowns/*.md data/jsons/*.json", f"echo {SEARCHED}"])
    command = f"echo {base64.b64encode(listing.encode()).decode()} | base64 -d | bash"
    server = AgentModelServer(PROTOCOLS[name], lambda text: Script(ANSWER, command, read_path="data"))
    try:
        judge = make_judge(f"{name}:{MODELS[name]}", env=user_config(name, server.url, user_home), timeout=300)
        summary = run_judge(judge, dataset.select(range(1)), tmp_path / "run", data_root=tiny_root, progress=False,
                            ablate="instruction,actions,screenshots")
    finally:
        server.close()
    assert summary.counts.ok == 1 and not summary.errors, summary.errors
    assert summary.record.ablation == ("instruction", "actions", "screenshots")
    output = "\n".join(text for request in server.requests for text in request.tool_results)
    assert SEARCHED in output and f"data/markdowns/{row['trajectory_id']}.md" in output, output[-2000:]
    assert "### Step 0" in output and f"Total steps: **{row['num_steps']}**" in output  # what stays
    assert ".png" not in output and "**Action:**" not in output and '"action"' not in output, output[-2000:]
    for request in server.requests:
        assert row["instruction"].strip() not in request.texts(), f"{name}: the instruction reached the model"


def test_pi_sends_the_judges_reasoning_effort_as_its_thinking_level(on_path, user_home, dataset, tiny_root, tmp_path):
    """``reasoning_effort`` (``--reasoning-effort``) reaches the model as pi's ``--thinking`` sends it."""
    server = AgentModelServer("chat", lambda text: Script(ANSWER))
    try:
        judge = make_judge("pi:loopback/judge-model", env=user_config("pi", server.url, user_home, reasoning=True),
                           reasoning_effort="high", timeout=300)
        summary = run_judge(judge, dataset.select(range(1)), tmp_path / "run", data_root=tiny_root, progress=False)
    finally:
        server.close()
    assert summary.counts.ok == 1 and not summary.errors, summary.errors
    asked = [request.body for request in server.requests if request.reply == "answer"]
    assert asked and all(body.get("reasoning_effort") == "high" for body in asked), asked
    record = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert record["judge"]["reasoning_effort"] == "high"
    assert record["judge"]["spec"] == "pi:loopback/judge-model --agent-tools paper --reasoning-effort high"


# pi 0.73.1 failed this test: it did not ask the namespace's proxy for a remote endpoint. Until it does,
# pi reaches loopback (forwarded) endpoints only; docs/judges.md says so.
@pytest.mark.parametrize("name", [name for name in REAL if name != "pi"])
def test_real_cli_reaches_a_remote_endpoint_through_the_proxy(name, on_path, user_home, dataset, tiny_root, tmp_path):
    """A remote (https) endpoint is reached through the namespace's CONNECT proxy: each CLI honours
    HTTPS_PROXY and asks it for its endpoint's host, which the harness then tries (no such host here:
    the item fails, and its error says which endpoint could not be reached)."""
    # The CLIs retry an unreachable endpoint until killed, so the timeout is the test's length: each asked
    # the proxy within 6 s here (all four passed at timeout=6); 20 s leaves room for a loaded machine.
    judge = make_judge(f"{name}:{MODELS[name]}", env=user_config(name, "https://api.allowed.invalid", user_home),
                       timeout=20)
    network = judge.spec()["network"]
    assert [(e["url"].startswith("https://api.allowed.invalid"), e["via"]) for e in network["endpoints"]] == [
        (True, "CONNECT proxy")]
    summary = run_judge(judge, dataset.select(range(1)), tmp_path / "run", data_root=tiny_root, progress=False,
                        retries=0)
    assert summary.counts.error == 1
    assert "the harness could not reach its endpoint api.allowed.invalid:443" in next(iter(summary.errors.values()))


# What each CLI's own output shows of its tool calls (agenthorizon/judging/judges/evidence_readers.py):
# Claude Code's and Gemini CLI's JSON output holds no tool call, so their evidence is unknown.
EVIDENCE_SHOWN = {"codex": True, "claude": False, "gemini": False, "opencode": True, "pi": True}


@pytest.mark.parametrize("name", REAL)
def test_real_cli_records_which_files_of_the_item_it_opened(name, on_path, user_home, dataset, tiny_root, tmp_path):
    """The model opens a known set of the item's files in one shell command (the Markdown, the JSON and the
    screenshots of steps 1 and 4), and the result's evidence is exactly that set, read from the CLI's events."""
    row = dict(dataset[0])
    tid = row["trajectory_id"]
    assert row["num_steps"] >= 5
    opened = [f"data/markdowns/{tid}.md", f"data/jsons/{tid}.json", f"data/media/images/{tid}/step_2.png",
              f"data/media/images/{tid}/step_5.png"]
    command = f"wc -c {' '.join(opened)}; echo {SEARCHED}"
    server = AgentModelServer(PROTOCOLS[name], lambda text: Script(ANSWER, command) if tid in text else Script(ANSWER))
    try:
        judge = make_judge(f"{name}:{MODELS[name]}", env=user_config(name, server.url, user_home), timeout=300)
        summary = run_judge(judge, dataset.select(range(1)), tmp_path / "run", data_root=tiny_root, progress=False)
    finally:
        server.close()
    assert summary.counts.ok == 1 and not summary.errors, summary.errors
    output = "\n".join(text for request in server.requests for text in request.tool_results)
    assert SEARCHED in output and "No such file" not in output, output[-2000:]  # the files were there and read
    result = read_results([tmp_path / "run"]).records[tid]
    evidence = result.telemetry.extra.get("evidence")
    if not EVIDENCE_SHOWN[name]:
        assert evidence is None
        return
    assert evidence == {"screenshots": {"1": 1, "4": 1}, "markdown": 1, "json": 1, "tool_calls": 1}, evidence
