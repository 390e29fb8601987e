"""The harness presets without their CLIs: specs, options, argv
templates, private homes, and the failures the real CLIs cannot be made to show.

The presets' normal runs -- and a CLI's own error report -- are tested against the real CLIs
in tests/judging/test_real_clis.py. The fake programs here stand in only for what no real CLI
does on request: a CLI missing from PATH, one whose ``--version`` fails, one that prints
something that is not its output format (a crash mid-write)."""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.judging.judges import make_judge
from agenthorizon.judging.judges.agent_home import ConfigFolder, make_agent_home
from agenthorizon.judging.judges.presets import AGENT_TOOLS, HARNESSES, HarnessJudge, install_command
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.schema import FRAMEWORK_FILES, PROMPT_FILE

MODELS = {"codex": "gpt-5.5", "claude": "claude-opus-4-7", "gemini": "gemini-3.1-pro", "opencode": "vllm/Qwen3.6-27B",
          "pi": "vllm/Qwen3.6-27B", "openhands": "openai/Qwen3.6-27B"}


@pytest.fixture(scope="module")
def dataset(tiny_root, tmp_path_factory):
    return agenthorizon.load_dataset(
        tiny_root, "all", split="test", images="paths", cache_dir=tmp_path_factory.mktemp("cache")
    )


def _fake(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def test_a_missing_cli_fails_the_preflight_with_its_install_command(dataset, tiny_root, tmp_path, monkeypatch, capsys):
    from agenthorizon.cli import main

    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    for name, harness in HARNESSES.items():
        with pytest.raises(FileNotFoundError, match=re.escape(harness.install)):
            run_judge(f"{name}:{MODELS[name]}", dataset.select(range(1)), tmp_path / name, data_root=tiny_root, progress=False)
        assert not list((tmp_path / name).glob("*.json"))  # nothing judged, no record of a run that never started
    code = main(["judge", "--data", str(tiny_root), "--config", "all", "--judge", "claude:claude-opus-4-7",
                 "--limit", "1", "--no-progress", "--out", str(tmp_path / "cli")])
    assert code == 2
    assert "npm install -g @anthropic-ai/claude-code@" in capsys.readouterr().err


def test_a_cli_printing_something_else_than_its_format_is_an_item_error(dataset, tiny_root, tmp_path, monkeypatch):
    """A fake: no real CLI prints a truncated JSON object on request (a crash mid-write does)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake(bin_dir, "claude", "if sys.argv[1:] == ['--version']: print('2.1.197 (Claude Code)'); sys.exit(0)\n"
                             "print('{\"type\": \"result\", \"result\": \"half')")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    summary = run_judge("claude:claude-opus-4-7", dataset.select(range(1)), tmp_path / "run", data_root=tiny_root,
                        progress=False)
    assert summary.counts.error == 1
    assert "expected one JSON object on stdout" in next(iter(summary.errors.values()))


def test_a_cli_whose_version_check_fails_stops_the_run_before_any_item(dataset, tiny_root, tmp_path, monkeypatch):
    """A fake: a broken install is what makes ``--version`` fail."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake(bin_dir, "gemini", "sys.stderr.write('Error: Cannot find module bundle/gemini.js'); sys.exit(1)")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(Exception, match="Cannot find module"):
        run_judge("gemini:gemini-3.1-pro", dataset.select(range(1)), tmp_path / "run", data_root=tiny_root, progress=False)
    assert not list((tmp_path / "run").glob("*.json"))


def test_preset_specs_and_options():
    judge = make_judge("opencode:vllm/Qwen3.6-27B", timeout=60, prompt="project")
    assert judge.model == "vllm/Qwen3.6-27B" and judge.timeout == 60
    assert judge.spec()["prompt"]["source"] == "project"
    with pytest.raises(ValueError, match="expected codex:MODEL"):
        make_judge("codex:")
    with pytest.raises(ValueError, match="does not take option"):
        make_judge("gemini:gemini-3.1-pro", base_url="http://x")
    with pytest.raises(ValueError, match="agent_tools must be one of paper, read-only"):
        make_judge("claude:claude-opus-4-7", agent_tools="everything")
    with pytest.raises(ValueError, match="does not take option"):
        make_judge("command:cat", agent_tools="paper")
    # The tools setting is part of the judge's identity: two settings, two leaderboard rows.
    from agenthorizon.judging.runs.records import judge_key

    keys = {mode: judge_key(make_judge("claude:claude-opus-4-7", agent_tools=mode).spec()) for mode in AGENT_TOOLS}
    assert len(set(keys.values())) == len(AGENT_TOOLS)


@pytest.mark.parametrize("name", list(HARNESSES))
def test_the_argv_of_each_tools_setting(name, tmp_path):
    """What each preset runs: the authors' flags for ``paper`` (SPEC section 5), session persistence off."""
    expected = {
        ("codex", "paper"): ["codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral", "-m", "M", "--", "P"],
        ("codex", "read-only"): ["codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral", "--sandbox",
                                 "read-only", "-m", "M", "--", "P"],
        ("claude", "paper"): ["claude", "-p", "--dangerously-skip-permissions", "--model", "M", "--output-format", "json",
                              "--no-session-persistence", "--", "P"],
        ("claude", "read-only"): ["claude", "-p", "--tools", "Read,Glob,Grep", "--model", "M", "--output-format", "json",
                                  "--no-session-persistence", "--", "P"],
        ("gemini", "paper"): ["gemini", "--approval-mode", "yolo", "--include-directories", "SHOTS", "-m", "M",
                              "--output-format", "json", "-p", "Carry out the request above."],
        ("gemini", "read-only"): ["gemini", "--approval-mode", "default", "--include-directories", "SHOTS", "-m", "M",
                                  "--output-format", "json", "-p", "Carry out the request above."],
        ("opencode", "paper"): ["opencode", "run", "--format", "json", "-m", "M", "--", "P"],
        ("opencode", "read-only"): ["opencode", "run", "--format", "json", "-m", "M", "--", "P"],
        ("pi", "paper"): ["pi", "--mode", "json", "--print", "--no-extensions", "--no-skills", "--no-prompt-templates",
                          "--no-themes", "--no-session", "--model", "M"],
        ("pi", "read-only"): ["pi", "--mode", "json", "--print", "--no-extensions", "--no-skills",
                              "--no-prompt-templates", "--no-themes", "--no-session", "--tools", "read,grep,find,ls",
                              "--model", "M"],
        ("openhands", "paper"): ["openhands", "--headless", "--override-with-envs", "--json", "--task=P"],
    }
    assert {name for name, _ in expected} == set(HARNESSES)
    for mode in HARNESSES[name].tools:
        judge = HarnessJudge(name, "M", agent_tools=mode)
        work = tmp_path / "work"
        argv, stdin = judge.command_line("P", tmp_path / "out", work, "TID")
        shots = str(work / "data" / "media" / "images" / "TID")
        assert argv == [shots if part == "SHOTS" else part for part in expected[name, mode]]
        assert stdin == ("P" if name in ("gemini", "pi") else None)  # pi has no "--": see the preset
        env = judge._harness_env()
        assert ("GEMINI_CLI_TRUST_WORKSPACE" in env) == (name == "gemini")
        assert (env.get("OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX") == "65536") == (name == "opencode")
        assert (env.get("LLM_MODEL") == "M") == (name == "openhands")  # OpenHands reads its model from there
        assert (env.get("PI_OFFLINE") == "1") == (name == "pi")


def test_the_install_command_of_the_docs_is_the_tested_versions():
    text = (Path(__file__).parents[2] / "docs" / "judges.md").read_text(encoding="utf-8")
    assert install_command() in text
    assert "@mariozechner/pi-coding-agent@0.73.1" in install_command()
    assert HARNESSES["openhands"].install in text  # from PyPI, into a Python 3.12 of its own


def test_a_private_home_copies_only_the_named_files_read_only(tmp_path):
    user = tmp_path / "user"
    (user / ".codex" / "sessions").mkdir(parents=True)
    (user / ".codex" / "config.toml").write_text('model_provider = "x"')
    (user / ".codex" / "AGENTS.md").write_text("the user's own instructions")
    (user / ".codex" / "sessions" / "rollout.jsonl").write_text("another item's transcript")
    moved = tmp_path / "elsewhere"
    (moved / "opencode").mkdir(parents=True)
    (moved / "opencode" / "opencode.json").write_text("{}")
    folders = (*HARNESSES["codex"].home, *HARNESSES["opencode"].home)
    (tmp_path / "item").mkdir()
    home = make_agent_home(tmp_path / "item" / "home", folders, {"XDG_CONFIG_HOME": str(moved)}, user)
    assert sorted(home.copied) == [".codex/config.toml", ".config/opencode/opencode.json"]
    assert home.env["HOME"] == str(home.path) and home.env["CODEX_HOME"] == str(home.path / ".codex")
    assert home.env["XDG_CONFIG_HOME"] == str(home.path / ".config")
    files = sorted(str(p.relative_to(home.path)) for p in home.path.rglob("*") if p.is_file())
    assert files == [".codex/config.toml", ".config/opencode/.gitignore", ".config/opencode/opencode.json"]
    assert not (home.path / ".codex/config.toml").stat().st_mode & 0o222
    # The copies, and OpenCode's whole config folder, go on top read-only in the sandbox.
    assert home.read_only == [home.path / ".codex/config.toml", home.path / ".config/opencode"]
    with pytest.raises(ValueError, match="expected a regular file"):
        make_agent_home(tmp_path / "other", (ConfigFolder(".codex", ("sessions",)),), {}, user)


@pytest.mark.slow
def test_a_preset_on_a_hub_repo_reads_the_texts_from_the_snapshot(hub, tiny_copy, tmp_path):
    """Against a real Hub-compatible server (tests/hub_server.py): the loader and the run
    run in a subprocess pointed at it; a command judge records the working folder it was given."""
    marker = "Framework as published on the Hub."
    (tiny_copy / FRAMEWORK_FILES[0]).write_text(marker, encoding="utf-8")
    repo_id = "agenthorizon-tests/AgentHorizon-presets"
    commit = hub.add_repo(repo_id, tiny_copy)
    since = hub.mark()
    log = tmp_path / "log"
    log.mkdir()
    log.chmod(0o777)  # writable by the agent, which runs as nobody when the tests run as root
    recorder = tmp_path / "record.py"
    recorder.write_text(
        "import json, os, sys\n"
        "sys.stdin.read()\n"
        f"json.dump({{n: open(n).read() for n in ('AGENTS.md', 'GEMINI.md', 'prompt.md')}}, open({str(log / 'seen.json')!r}, 'w'))\n"
        "print('{\"success\": true}')\n"
    )
    out = hub.python(
        f"""
        import agenthorizon
        from agenthorizon.judging.runs.runner import run_judge
        dataset = agenthorizon.load_dataset({repo_id!r}, "AH", split="test", images="paths")
        judge = agenthorizon.make_judge("command:{sys.executable} {recorder}", prompt="release",
                                        config_dirs=[{str(log)!r}])
        summary = run_judge(judge, dataset.select(range(1)), {str(tmp_path / "run")!r},
                            data_root={repo_id!r}, progress=False)
        result = summary.counts.ok
        """,
        tmp_path / "hf",
    )
    assert out["result"] == 1, out
    asked = {r.path.rsplit(f"/{commit}/", 1)[-1] for r in hub.requests(since) if f"/{repo_id}/resolve/" in r.path}
    assert {PROMPT_FILE, FRAMEWORK_FILES[0]} <= asked  # fetched with the config's files
    seen = json.loads((log / "seen.json").read_text())
    assert seen["AGENTS.md"] == marker == seen["GEMINI.md"]
    assert seen["prompt.md"] == (tiny_copy / PROMPT_FILE).read_text(encoding="utf-8")  # as the release's sandbox has it
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    snapshot = tmp_path / "hf" / "hub" / f"datasets--{repo_id.replace('/', '--')}" / "snapshots" / commit
    assert record["prompt"]["root"] == str(snapshot)
    assert (snapshot / PROMPT_FILE).is_file() and (snapshot / FRAMEWORK_FILES[0]).read_text() == marker


def test_a_reasoning_effort_becomes_pis_thinking_level_and_the_judges_identity(tmp_path):
    from agenthorizon.judging.runs.records import judge_key

    judge = make_judge("pi:vllm/Qwen3.6-27B", reasoning_effort="high")
    argv, _ = judge.command_line("P", tmp_path / "out", tmp_path / "work", "TID")
    assert argv[-4:] == ["--model", "vllm/Qwen3.6-27B", "--thinking", "high"]
    assert judge.spec()["spec"] == "pi:vllm/Qwen3.6-27B --agent-tools paper --reasoning-effort high"
    assert judge.spec()["reasoning_effort"] == "high"
    keys = {judge_key(make_judge("pi:m", reasoning_effort=level).spec()) for level in ("low", "high")}
    assert len(keys | {judge_key(make_judge("pi:m").spec())}) == 3  # each effort its own leaderboard row
    with pytest.raises(ValueError, match="reasoning_effort must be one of off, minimal, low, medium, high, xhigh"):
        make_judge("pi:m", reasoning_effort="max")
    with pytest.raises(ValueError, match="the Codex CLI has no reasoning-effort setting"):
        make_judge("codex:gpt-5.5", reasoning_effort="high")
    with pytest.raises(ValueError, match="agent_tools must be one of paper .the settings the OpenHands CLI has., got 'read-only'"):
        make_judge("openhands:openai/m", agent_tools="read-only")


@pytest.mark.parametrize("spec", ["pi:vllm/m", "openhands:openai/m"])
def test_the_dry_run_plan_of_pi_and_openhands(spec, bubblewrap, tiny_root, tmp_path, capsys):
    """``--dry-run`` prints what the agent would get -- and runs nothing, so no CLI need be installed."""
    from agenthorizon.cli import main

    effort = ["--reasoning-effort", "low"] if spec.startswith("pi") else []
    code = main(["judge", "--data", str(tiny_root), "--config", "all", "--judge", spec, *effort,
                 "--program", str(tmp_path / "bin" / "agent"), "--dry-run", "--out", str(tmp_path / "run")])
    assert code == 0
    plan = capsys.readouterr().out.splitlines()
    assert plan[0] == f"judge {spec} --agent-tools paper" + (" --reasoning-effort low" if effort else "")
    assert plan[1].startswith("sandbox: bwrap -- the agent runs as nobody")
    # The agent's own folders: private per item, on its disk budget.
    private = plan[plan.index("private per item, on the disk budget:") + 1:]
    private = private[:next(i for i, line in enumerate(private) if not line.startswith("  "))]
    assert "  <item>/home" in private and "  <item>/work" in private, plan
    assert str(tiny_root) not in "\n".join(plan)  # the release is not exposed
    assert not (tmp_path / "run").exists()


def test_harness_options_are_refused_for_other_judges(tiny_root, tmp_path, capsys):
    from agenthorizon.cli import main

    code = main(["judge", "--data", str(tiny_root), "--config", "all", "--judge", "openai:m", "--reasoning-effort",
                 "low", "--out", str(tmp_path / "run")])
    assert code == 2
    assert "--reasoning-effort: options of harness preset (codex:MODEL...) judges only" in capsys.readouterr().err


def test_a_program_path_that_is_no_executable_fails_the_preflight_with_the_install_command(dataset, tiny_root, tmp_path):
    missing = tmp_path / "venv" / "bin" / "openhands"
    with pytest.raises(FileNotFoundError, match=re.escape(f"{str(missing)!r} is not an executable file")) as caught:
        run_judge(make_judge("openhands:openai/m", program=str(missing)), dataset.select(range(1)), tmp_path / "run",
                  data_root=tiny_root, progress=False)
    assert "uv tool install --python 3.12 openhands==1.16.0" in str(caught.value)


def test_pis_reader_counts_the_whole_conversation_from_a_stdout_cut_to_its_tail():
    """pi prints every partial message in full, so a long answer's stdout outgrows the output cap; the
    kept tail still ends with ``agent_end``, the whole conversation, which the reader counts from."""
    from agenthorizon.judging.judges.harness_readers import read_pi_events

    usage = {"input": 600, "output": 50, "cacheRead": 400, "cacheWrite": 10, "cost": {"total": 0.002}}
    messages = [{"role": "user", "content": [{"type": "text", "text": "judge"}]},
                {"role": "assistant", "usage": usage, "content": [{"type": "toolCall", "name": "bash"}]},
                {"role": "toolResult", "content": [{"type": "text", "text": "x" * 50}]},
                {"role": "assistant", "usage": usage, "model": "m", "stopReason": "stop",
                 "content": [{"type": "text", "text": '{"success": true}'}]}]
    stdout = "\n".join([json.dumps({"type": "message_update", "message": messages[3]}) * 3,
                        json.dumps({"type": "agent_end", "messages": messages})])
    tail = stdout[len(stdout) // 3:]  # the cap keeps the end: the first events are gone, a line starts mid-way
    reading = read_pi_events(tail, None, "pi")
    assert reading.text == '{"success": true}' and reading.extra["turns"] == 2 and reading.extra["tool_calls"] == 1
    assert reading.input_tokens == 2 * 1010 and reading.output_tokens == 100
    assert reading.cost_usd == 0.004 and reading.extra["cost_source"] == "cli_estimate"  # a price in models.json


def test_a_pi_model_error_with_exit_status_0_is_the_items_error():
    """pi exits 0 when the model's server refuses; its last assistant message says why (the real CLI's
    refusal is in test_real_clis.py; here an ``aborted`` one, which no server can be made to cause)."""
    from agenthorizon.judging.judges.base import JudgeError
    from agenthorizon.judging.judges.harness_readers import read_pi_events

    aborted = {"type": "message_end", "message": {"role": "assistant", "content": [], "stopReason": "aborted"}}
    with pytest.raises(JudgeError, match="pi: pi reported an error: aborted"):
        read_pi_events(json.dumps(aborted), None, "pi")

LONG_ANSWER_FILE = r"""
import json, sys
if sys.argv[1:] == ["--version"]:
    print("1.0")
    sys.exit(0)
with open(sys.argv[1], "w") as handle:
    handle.write("thinking aloud\n" * 20_000)  # 300,000 bytes before the verdict
    handle.write(json.dumps({"success": True, "reasoning": "long file"}) + "\n")
print("x" * 10_000)  # stdout past the cap too: both cuts are counted
"""


def test_bytes_cut_from_an_answer_file_are_counted_in_telemetry(dataset, tiny_root, tmp_path):
    """A fake CLI: it writes its answer file past --max-output-bytes (no real CLI's answer is that long).

    Before the fix only stdout's cut reached ``truncated_bytes``; the answer file's 300 KB went uncounted.
    """
    from agenthorizon.judging.judges.presets import Harness
    from agenthorizon.judging.runs.folder import read_results

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake(bin_dir, "longfile", LONG_ANSWER_FILE)
    harness = Harness(name="longfile", title="Long file", package="longfile", tested_version="1.0",
                      argv=(str(bin_dir / "longfile"), "{answer_file}"), stdin="{prompt}", reader="text",
                      tools={"paper": (), "read-only": ()}, answer_file=True)
    # sandbox none: the fake writes only its own answer file, in the item's folder.
    judge = HarnessJudge(harness, "m", sandbox="none", max_output_bytes=4096, workdir_root=tmp_path)
    summary = run_judge(judge, dataset.select(range(1)), tmp_path / "run", data_root=tiny_root, progress=False)
    assert summary.counts.error == 0, summary.errors
    (result,) = read_results([tmp_path / "run"]).records.values()
    assert result.verdict["reasoning"] == "long file"
    answer_file = 20_000 * len("thinking aloud\n") + len('{"success": true, "reasoning": "long file"}\n')
    stdout = 10_001
    # At most 4096 bytes of each were kept: the rest of both is counted (before: stdout's cut alone, <= 10,001).
    assert answer_file - 4096 + stdout - 4096 <= result.telemetry.truncated_bytes <= answer_file + stdout


def test_every_table_of_harnesses_is_made_from_the_one_entry_of_each(capsys):
    """Help texts, the judges' docstring table, the spec list and the spec error all come from HARNESSES."""
    import agenthorizon.judging.judges as judges
    from agenthorizon.cli import build_parser
    from agenthorizon.judging.judges.factory import JUDGE_SPECS

    with pytest.raises(SystemExit):
        build_parser("judge").parse_args(["judge", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines; the usage comes first, then each option
    for name, harness in HARNESSES.items():
        assert harness.spec_form in JUDGE_SPECS
        assert f"``{harness.spec_form}``" in judges.__doc__ and f"running {harness.title}\n" in judges.__doc__
        assert harness.spec_form in help_text.rsplit("--judge SPEC", 1)[1].split("--prompt", 1)[0]
        with pytest.raises(ValueError, match=f"expected {re.escape(harness.spec_form)}, e.g. {name}:{re.escape(harness.example_model)}"):
            make_judge(f"{name}:")
        for effort in harness.efforts:
            assert effort in help_text.rsplit("--reasoning-effort LEVEL", 1)[1].split("--program", 1)[0]
    assert "HARNESS_ROWS" not in judges.__doc__
