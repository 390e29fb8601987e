"""The evidence readers on each stream shape, including what must not count: a tool's output naming a
file, another item's file, a glob. The real CLIs' streams are tested in tests/judging/test_real_clis.py
(Codex, OpenCode, pi); OpenHands cannot run on this machine (tests/judging/test_openhands_preset.py), so
its shape here is the one its reader documents, written by hand."""

from __future__ import annotations

import json

from agenthorizon.judging.judges.evidence_readers import read_evidence
from agenthorizon.scoring.evidence import ItemEvidence

TID = "23a42504-9602-474d-ad41-987eb92ceea3"


def lines(*events):
    return "\n".join(json.dumps(event) for event in events)


def test_codex_counts_commands_not_their_output():
    out = lines(
        {"type": "item.started", "item": {"type": "command_execution", "command": f"cat data/jsons/{TID}.json"}},
        {"type": "item.completed", "item": {"type": "command_execution", "command": f"cat data/jsons/{TID}.json",
                                             "aggregated_output": f"{TID}.md step_7.png"}},
        {"type": "item.completed", "item": {"type": "command_execution", "command": "ls data/media/images/*/"}},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "I looked at step_3.png"}},
    )
    assert read_evidence("codex_events", out, TID) == ItemEvidence({}, markdown=0, json=1, tool_calls=2)


def test_opencode_reads_tool_inputs():
    out = lines(
        {"type": "tool_use", "part": {"state": {"input": {"filePath": f"/w/data/media/images/{TID}/step_1.png"},
                                                "output": "step_2.png"}}},
        {"type": "tool_use", "part": {"state": {"input": {"filePath": f"/w/data/media/images/{TID}/step_1.png"}}}},
        {"type": "tool_use", "part": {"state": {"input": {"command": f"head data/markdowns/{TID}.md"}}}},
    )
    assert read_evidence("opencode_events", out, TID) == ItemEvidence({0: 2}, markdown=1, json=0, tool_calls=3)


def test_pi_reads_the_closing_conversation_once():
    call = {"role": "assistant", "content": [{"type": "toolCall", "arguments": {"path": f"data/jsons/{TID}.json"}}]}
    result = {"role": "toolResult", "content": [{"type": "text", "text": "step_4.png"}]}
    out = lines({"type": "message_end", "message": call}, {"type": "agent_end", "messages": [call, result]})
    assert read_evidence("pi_events", out, TID) == ItemEvidence({}, markdown=0, json=1, tool_calls=1)


def test_openhands_reads_actions_but_not_finish():
    out = "\n".join([
        "--JSON Event--", json.dumps({"kind": "ActionEvent", "source": "agent", "tool_name": "file_editor",
                                      "action": {"kind": "FileEditorAction", "command": "view",
                                                 "path": f"/w/data/media/images/{TID}/step_12.png"}}),
        "--JSON Event--", json.dumps({"kind": "ActionEvent", "source": "agent", "tool_name": "finish",
                                      "action": {"message": "step_1.png shows it"}}),
    ])
    assert read_evidence("openhands_events", out, TID) == ItemEvidence({11: 1}, markdown=0, json=0, tool_calls=1)


def test_another_items_files_and_harnesses_without_calls_give_nothing():
    out = lines({"type": "item.completed", "item": {"type": "command_execution", "command": "cat data/jsons/other.json"}})
    assert read_evidence("codex_events", out, TID) == ItemEvidence({}, 0, 0, 1)
    assert read_evidence("claude_json", "{}", TID) is None and read_evidence("gemini_json", "{}", TID) is None
