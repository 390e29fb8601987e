"""Which of its item's files an agentic CLI opened, read from the CLI's own event stream.

Each reader (:data:`CALL_READERS`) returns the arguments of every tool call in a
CLI's stdout, never the tools' output (a listing that prints a file name is not
an opening): Codex ``item.completed`` tool items, OpenCode ``tool_use`` inputs, pi
``toolCall`` arguments, OpenHands agent ``ActionEvent`` actions but ``finish``.
Claude Code's and Gemini CLI's output shows no tool call: their evidence is
unknown (``None``). :func:`read_evidence` counts the item's files the calls name.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from agenthorizon.judging.judges.harness_readers import _events, _json_blocks
from agenthorizon.scoring.evidence import ItemEvidence

__all__ = ["CALL_READERS", "files_named", "read_evidence"]

_SCREENSHOT = re.compile(r"step_(\d+)\.png")
# Codex items that are the model talking, not calling a tool.
_CODEX_NOT_CALLS = {"agent_message", "reasoning", "todo_list", "error"}
# Codex item fields that are a tool's output, not its arguments.
_CODEX_OUTPUTS = {"aggregated_output", "output", "result", "exit_code", "status", "id", "type"}


def _codex_calls(stdout: str) -> list[str]:
    calls = []
    for event in _events(stdout):
        item = event.get("item")
        if event.get("type") != "item.completed" or not isinstance(item, dict) or item.get("type") in _CODEX_NOT_CALLS:
            continue
        calls.append(json.dumps({key: value for key, value in item.items() if key not in _CODEX_OUTPUTS}))
    return calls


def _opencode_calls(stdout: str) -> list[str]:
    calls = []
    for event in _events(stdout):
        part = event.get("part") if isinstance(event.get("part"), dict) else {}
        if event.get("type") == "tool_use":
            state = part.get("state") if isinstance(part.get("state"), dict) else {}
            calls.append(json.dumps(state.get("input", {})))
    return calls


def _pi_calls(stdout: str) -> list[str]:
    events = _events(stdout)
    ends = [event["messages"] for event in events if event.get("type") == "agent_end" and isinstance(event.get("messages"), list)]
    messages = ends[-1] if ends else [event.get("message") for event in events if event.get("type") == "message_end"]
    calls = []
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "assistant" and isinstance(message.get("content"), list):
            calls += [json.dumps(part.get("arguments", {})) for part in message["content"]
                      if isinstance(part, dict) and part.get("type") == "toolCall"]
    return calls


def _openhands_calls(stdout: str) -> list[str]:
    return [json.dumps({key: value for key, value in (event.get("action") or {}).items() if key != "kind"})
            for event in _json_blocks(stdout)
            if event.get("kind") == "ActionEvent" and event.get("source") == "agent" and event.get("tool_name") != "finish"
            and isinstance(event.get("action") or {}, dict)]


CALL_READERS: dict[str, Callable[[str], list[str]]] = {
    "codex_events": _codex_calls,
    "opencode_events": _opencode_calls,
    "pi_events": _pi_calls,
    "openhands_events": _openhands_calls,
}
"""Output rule -> the arguments of each tool call in that CLI's stdout; rules not here show none."""


def files_named(call: str, trajectory_id: str) -> tuple[set[int], bool, bool]:
    """The item files one call's arguments name: screenshot step ids, the Markdown, the JSON.

    >>> files_named('{"cmd": "cat data/markdowns/t1.md; file media/images/t1/step_3.png step_1.png"}', "t1")
    ({0, 2}, True, False)
    """
    steps = {int(number) - 1 for number in _SCREENSHOT.findall(call) if int(number) >= 1}
    tid = re.escape(trajectory_id)
    return steps, re.search(tid + r"\.md\b", call) is not None, re.search(tid + r"\.json\b", call) is not None


def read_evidence(reader: str, stdout: str, trajectory_id: str) -> ItemEvidence | None:
    """The files of ``trajectory_id`` the CLI's tool calls named, or ``None`` when its output shows no calls.

    >>> out = json.dumps({"type": "item.completed", "item": {"type": "command_execution",
    ...     "command": "cat data/jsons/t1.json media/images/t1/step_2.png", "aggregated_output": "step_9.png"}})
    >>> read_evidence("codex_events", out, "t1")
    ItemEvidence(screenshots={1: 1}, markdown=0, json=1, tool_calls=1)
    >>> read_evidence("claude_json", "{}", "t1") is None
    True
    """
    calls_of = CALL_READERS.get(reader)
    if calls_of is None:
        return None
    screenshots: dict[int, int] = {}
    markdown = json_count = 0
    calls = calls_of(stdout)
    for call in calls:
        steps, named_markdown, named_json = files_named(call, trajectory_id)
        for step in steps:
            screenshots[step] = screenshots.get(step, 0) + 1
        markdown += named_markdown
        json_count += named_json
    return ItemEvidence(dict(sorted(screenshots.items())), markdown=markdown, json=json_count, tool_calls=len(calls))


def evidence_extra(reader: str, stdout: str, trajectory_id: str) -> dict[str, Any]:
    """The telemetry entry of an item's evidence: ``{"evidence": {...}}``, or nothing when unknown."""
    evidence = read_evidence(reader, stdout, trajectory_id)
    return {} if evidence is None else {"evidence": evidence.to_dict()}
