"""Readers of what an agentic CLI printed: the answer and telemetry in one vocabulary.

Each reader of :data:`READERS` returns a :class:`Reading`: the answer as the
authors' harness read it (SPEC section 5), ``input_tokens`` (cached included),
``output_tokens`` (reasoning included), ``cost_usd`` (an unknown cost is
``None``, never 0, so a spending limit cannot take it for free) with
``cost_source`` (``"cli_estimate"``: the CLI's price table, not a bill), and
``turns`` and ``tool_calls`` where shown. Per CLI: docs/judges.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from agenthorizon.judging.judges.base import JudgeError

__all__ = ["COST_ESTIMATE", "COST_UNKNOWN", "READERS", "Reading"]

COST_ESTIMATE = "cli_estimate"
"""``cost_source`` of a cost the CLI computed from its own price table."""
COST_UNKNOWN = "unknown"
"""``cost_source`` when the CLI cannot know the cost (``cost_usd`` is ``None``)."""


@dataclass(frozen=True)
class Reading:
    """What a reader found in a CLI's output: the answer text, tokens, cost (USD), more telemetry."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _json_object(stdout: str, where: str) -> dict[str, Any]:
    """The JSON object a CLI printed (text before its first ``{``, such as a notice, is skipped)."""
    start = stdout.find("{")
    try:
        value, _ = json.JSONDecoder().raw_decode(stdout[start:]) if start >= 0 else (None, 0)
    except json.JSONDecodeError as error:
        raise JudgeError(f"{where}: expected one JSON object on stdout, got invalid JSON ({error.msg}): {stdout[:300]!r}") from None
    if not isinstance(value, dict):
        raise JudgeError(f"{where}: expected one JSON object on stdout, got {stdout[:300]!r}")
    return value


def _events(stdout: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL stream; lines that are not JSON objects are skipped."""
    events = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _cost(reported: float | None, tokens: int) -> tuple[float | None, str]:
    """A CLI's reported cost and its source: 0 for tokens actually used means no price was known."""
    if reported is None or (reported == 0 and tokens > 0):
        return None, COST_UNKNOWN
    return reported, COST_ESTIMATE


def read_codex_events(stdout: str, answer: str | None, where: str) -> Reading:
    """Codex (``codex exec --json``): the last agent message; tokens summed over ``turn.completed`` events.

    Codex reports no cost. Its ``input_tokens`` include the cached ones and
    its ``output_tokens`` the reasoning ones, as the Responses API counts them.

    >>> out = "\\n".join(json.dumps(e) for e in [
    ...     {"type": "item.completed", "item": {"type": "agent_message", "text": "draft"}},
    ...     {"type": "item.completed", "item": {"type": "agent_message", "text": '{"success": true}'}},
    ...     {"type": "turn.completed", "usage": {"input_tokens": 10, "cached_input_tokens": 4,
    ...      "cache_write_input_tokens": 2, "output_tokens": 3, "reasoning_output_tokens": 1}}])
    >>> reading = read_codex_events(out, None, "codex")
    >>> reading.text, reading.input_tokens, reading.output_tokens, reading.cost_usd
    ('{"success": true}', 10, 3, None)
    >>> reading.extra["cache_read_input_tokens"], reading.extra["cache_write_input_tokens"], reading.extra["reasoning_tokens"]
    (4, 2, 1)
    """
    events = _events(stdout)
    messages = [event["item"].get("text") for event in events
                if event.get("type") == "item.completed" and isinstance(event.get("item"), dict)
                and event["item"].get("type") == "agent_message" and isinstance(event["item"].get("text"), str)]
    failures = [event for event in events if event.get("type") in ("turn.failed", "error")]
    text = messages[-1] if messages else answer
    if text is None:
        detail = json.dumps(failures[-1])[:300] if failures else repr(stdout[-300:])
        raise JudgeError(f"{where}: Codex gave no agent message: {detail}")
    turns = [event for event in events if event.get("type") == "turn.completed"]
    usages = [event["usage"] for event in turns if isinstance(event.get("usage"), dict)]
    extra: dict[str, Any] = {"turns": len(turns), "cost_source": COST_UNKNOWN}
    if not usages:
        return Reading(text, extra=extra)
    total = {key: sum(_int(usage.get(key)) for usage in usages) for key in (
        "input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_output_tokens")}
    extra.update(cache_read_input_tokens=total["cached_input_tokens"],
                 cache_write_input_tokens=total["cache_write_input_tokens"],
                 reasoning_tokens=total["reasoning_output_tokens"])
    return Reading(text, input_tokens=total["input_tokens"], output_tokens=total["output_tokens"], extra=extra)


def read_claude_json(stdout: str, answer: str | None, where: str) -> Reading:
    """Claude Code (``--output-format json``): ``result``; input tokens include cache reads and writes.

    ``total_cost_usd`` is Claude Code's own estimate (``cost_source``
    ``"cli_estimate"``); ``modelUsage`` names the models that answered
    (recorded as ``models``).

    >>> out = json.dumps({"type": "result", "is_error": False, "result": "ok", "total_cost_usd": 0.25, "num_turns": 4,
    ...                   "usage": {"input_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 10,
    ...                             "output_tokens": 7},
    ...                   "modelUsage": {"claude-opus-4-7": {"inputTokens": 5}}})
    >>> reading = read_claude_json(out, None, "claude")
    >>> reading.text, reading.input_tokens, reading.output_tokens, reading.cost_usd, reading.extra["cost_source"]
    ('ok', 115, 7, 0.25, 'cli_estimate')
    >>> reading.extra["models"], reading.extra["cache_write_input_tokens"]
    (['claude-opus-4-7'], 10)
    """
    payload = _json_object(stdout, where)
    if payload.get("is_error"):
        raise JudgeError(f"{where}: Claude Code reported an error: {str(payload.get('result'))[:300]}")
    usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
    read, write = _int(usage.get("cache_read_input_tokens")), _int(usage.get("cache_creation_input_tokens"))
    input_tokens = _int(usage.get("input_tokens")) + read + write if usage else None
    output_tokens = _int(usage.get("output_tokens")) if usage else None
    cost, source = _cost(_number(payload.get("total_cost_usd")), (input_tokens or 0) + (output_tokens or 0))
    return Reading(
        str(payload.get("result") or ""),
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cost_usd=cost,
        extra={
            "turns": payload.get("num_turns") if isinstance(payload.get("num_turns"), int) else None,
            "cache_read_input_tokens": read,
            "cache_write_input_tokens": write,
            "cost_source": source,
            "models": sorted(payload["modelUsage"]) if isinstance(payload.get("modelUsage"), dict) else None,
        },
    )


def read_gemini_json(stdout: str, answer: str | None, where: str) -> Reading:
    """Gemini CLI (``--output-format json``): ``response``; tokens summed over ``stats.models``.

    Gemini counts thinking apart from the answer (``thoughts``), so output
    tokens are ``candidates + thoughts``; ``prompt`` includes the cached
    tokens. Gemini CLI reports no cost.

    >>> out = json.dumps({"response": "ok", "stats": {"models": {"gemini-x": {"tokens": {
    ...     "prompt": 50, "candidates": 6, "cached": 20, "thoughts": 9}}}}})
    >>> reading = read_gemini_json(out, None, "gemini")
    >>> reading.text, reading.input_tokens, reading.output_tokens, reading.extra["reasoning_tokens"], reading.extra["models"]
    ('ok', 50, 15, 9, ['gemini-x'])
    """
    payload = _json_object(stdout, where)
    error = payload.get("error")
    if error:
        message = error.get("message") if isinstance(error, dict) else error
        raise JudgeError(f"{where}: Gemini CLI reported an error: {str(message)[:300]}")
    stats = payload.get("stats") if isinstance(payload.get("stats"), dict) else {}
    models = stats.get("models") if isinstance(stats.get("models"), dict) else {}
    tokens = [m.get("tokens") for m in models.values() if isinstance(m, dict) and isinstance(m.get("tokens"), dict)]
    text = str(payload.get("response") or "")
    if not tokens:
        return Reading(text, extra={"cost_source": COST_UNKNOWN})
    thoughts = sum(_int(t.get("thoughts")) for t in tokens)
    requests = [m.get("api", {}).get("totalRequests") for m in models.values() if isinstance(m, dict)]
    return Reading(
        text,
        input_tokens=sum(_int(t.get("prompt")) for t in tokens),
        output_tokens=sum(_int(t.get("candidates")) for t in tokens) + thoughts,
        extra={
            "reasoning_tokens": thoughts,
            "cache_read_input_tokens": sum(_int(t.get("cached")) for t in tokens),
            "turns": sum(_int(r) for r in requests),
            "cost_source": COST_UNKNOWN,
            "models": sorted(models),
        },
    )


def read_opencode_events(stdout: str, answer: str | None, where: str) -> Reading:
    """OpenCode (``run --format json``): its last ``text`` part; tokens and cost summed over ``step_finish`` parts.

    OpenCode's ``input`` leaves out cache reads and writes and its ``output``
    the reasoning, so they are added back. A total cost of 0 for tokens used
    means OpenCode had no price for the model: the cost is unknown.

    >>> out = "\\n".join(json.dumps(e) for e in [
    ...     {"type": "text", "part": {"type": "text", "text": '{"success": false}'}},
    ...     {"type": "text", "part": {"type": "text", "text": "Verdict given above."}},
    ...     {"type": "step_finish", "part": {"cost": 0, "tokens": {"input": 30, "output": 4, "reasoning": 2,
    ...                                                              "cache": {"read": 10, "write": 0}}}}])
    >>> reading = read_opencode_events(out, None, "opencode")
    >>> reading.text, reading.input_tokens, reading.output_tokens, reading.cost_usd, reading.extra["cost_source"]
    ('Verdict given above.', 40, 6, None, 'unknown')
    """
    texts, steps = [], []
    for event in _events(stdout):
        part = event.get("part") if isinstance(event.get("part"), dict) else {}
        kind = event.get("type")
        if kind == "error":
            raise JudgeError(f"{where}: OpenCode reported an error: {json.dumps(event.get('error', event))[:300]}")
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "step_finish":
            steps.append(part)
    tokens = [step.get("tokens") for step in steps if isinstance(step.get("tokens"), dict)]
    caches = [t.get("cache") if isinstance(t.get("cache"), dict) else {} for t in tokens]
    read, write = sum(_int(c.get("read")) for c in caches), sum(_int(c.get("write")) for c in caches)
    reasoning = sum(_int(t.get("reasoning")) for t in tokens)
    input_tokens = sum(_int(t.get("input")) for t in tokens) + read + write if tokens else None
    output_tokens = sum(_int(t.get("output")) for t in tokens) + reasoning if tokens else None
    costs = [c for c in (_number(step.get("cost")) for step in steps) if c is not None]
    cost, source = _cost(sum(costs) if costs else None, (input_tokens or 0) + (output_tokens or 0))
    return Reading(
        texts[-1] if texts else "",
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cost_usd=cost,
        extra={"turns": len(steps), "text_parts": len(texts), "reasoning_tokens": reasoning,
               "cache_read_input_tokens": read, "cache_write_input_tokens": write, "cost_source": source},
    )


def _pi_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    parts = [part.get("text") for part in content if isinstance(part, dict) and part.get("type") == "text"] \
        if isinstance(content, list) else []
    return "".join(part for part in parts if isinstance(part, str))


def read_pi_events(stdout: str, answer: str | None, where: str) -> Reading:
    """pi (``--mode json``): the last assistant text; tokens and cost summed over the assistant messages' usage.

    The messages are those of the closing ``agent_end`` event (the whole
    conversation, complete even when the output cap cut stdout), else of the
    ``message_end`` events. Cache reads and writes are added to ``input``.
    A ``cost.total`` of 0 for tokens used (no price in ``models.json``) is an
    unknown cost. ``turns`` counts assistant messages, ``tool_calls`` tool
    results. A last assistant message stopped with ``error`` or ``aborted``
    (pi exits 0 then) raises ``JudgeError``.

    >>> usage = {"input": 600, "output": 50, "cacheRead": 400, "cacheWrite": 0, "cost": {"total": 0}}
    >>> out = "\\n".join(json.dumps(e) for e in [
    ...     {"type": "message_end", "message": {"role": "assistant", "usage": usage,
    ...      "content": [{"type": "toolCall", "name": "bash"}], "stopReason": "toolUse"}},
    ...     {"type": "message_end", "message": {"role": "toolResult", "content": []}},
    ...     {"type": "message_end", "message": {"role": "assistant", "usage": usage,
    ...      "content": [{"type": "text", "text": '{"success": true}'}], "stopReason": "stop"}}])
    >>> reading = read_pi_events(out, None, "pi")
    >>> reading.text, reading.input_tokens, reading.output_tokens, reading.cost_usd, reading.extra["cost_source"]
    ('{"success": true}', 2000, 100, None, 'unknown')
    >>> reading.extra["turns"], reading.extra["tool_calls"], reading.extra["cache_read_input_tokens"]
    (2, 1, 800)
    """
    events = _events(stdout)
    ends = [event["messages"] for event in events if event.get("type") == "agent_end" and isinstance(event.get("messages"), list)]
    messages = ends[-1] if ends else [event["message"] for event in events if event.get("type") == "message_end"]
    messages = [message for message in messages if isinstance(message, dict)]
    assistant = [message for message in messages if message.get("role") == "assistant"]
    if assistant and assistant[-1].get("stopReason") in ("error", "aborted"):
        detail = assistant[-1].get("errorMessage") or assistant[-1].get("stopReason")
        raise JudgeError(f"{where}: pi reported an error: {str(detail)[:300]}")
    texts = [text for text in map(_pi_text, assistant) if text]
    usages = [message["usage"] for message in assistant if isinstance(message.get("usage"), dict)]
    read, write = sum(_int(u.get("cacheRead")) for u in usages), sum(_int(u.get("cacheWrite")) for u in usages)
    input_tokens = sum(_int(u.get("input")) for u in usages) + read + write if usages else None
    output_tokens = sum(_int(u.get("output")) for u in usages) if usages else None
    costs = [c for c in (_number(u["cost"].get("total")) for u in usages if isinstance(u.get("cost"), dict)) if c is not None]
    cost, source = _cost(sum(costs) if costs else None, (input_tokens or 0) + (output_tokens or 0))
    models = sorted({str(m["model"]) for m in assistant if isinstance(m.get("model"), str)})
    return Reading(
        texts[-1] if texts else "",
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cost_usd=cost,
        extra={"turns": len(assistant), "tool_calls": sum(1 for m in messages if m.get("role") == "toolResult"),
               "cache_read_input_tokens": read, "cache_write_input_tokens": write, "cost_source": source,
               "models": models or None},
    )


def _json_blocks(stdout: str) -> list[dict[str, Any]]:
    """The JSON objects of a stream of events, one per line or in multi-line blocks; other text is skipped."""
    # The marker holds no "{": looking for each object's start skips it with any other text.
    decoder, found, position, text = json.JSONDecoder(), [], 0, stdout
    while True:
        start = text.find("{", position)
        if start < 0:
            return found
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            position = text.find("\n", start)  # not an object's start: go on with the next line
            if position < 0:
                return found
            continue
        if isinstance(value, dict):
            found.append(value)
        position = end


def _openhands_text(event: dict[str, Any]) -> str | None:
    """The text an OpenHands event says to the user: an agent ``MessageEvent``'s text, a ``finish`` action's message."""
    if event.get("source") != "agent":
        return None
    if event.get("kind") == "MessageEvent":
        message = event.get("llm_message") if isinstance(event.get("llm_message"), dict) else {}
        content = message.get("content")
        if isinstance(content, str):
            return content
        parts = [part.get("text") for part in content if isinstance(part, dict) and part.get("type") == "text"] \
            if isinstance(content, list) else []
        return "".join(part for part in parts if isinstance(part, str)) or None
    if event.get("kind") == "ActionEvent" and event.get("tool_name") == "finish":
        action = event.get("action") if isinstance(event.get("action"), dict) else {}
        return action.get("message") if isinstance(action.get("message"), str) else None
    return None


def read_openhands_events(stdout: str, answer: str | None, where: str) -> Reading:
    """OpenHands (``--headless --json``): the final agent message; turns, tool calls and tokens from the events.

    The answer is the last agent ``MessageEvent`` text or ``finish`` message.
    ``turns`` counts distinct ``llm_response_id`` of agent events,
    ``tool_calls`` the actions other than ``finish``. Tokens come from the last
    ``stats`` state update, if any. The cost is always unknown (OpenHands
    reports none the run can trust). A ``ConversationErrorEvent`` raises ``JudgeError``.

    >>> out = "\\n".join(["--JSON Event--", json.dumps({"kind": "ActionEvent", "source": "agent", "tool_name": "terminal",
    ...     "llm_response_id": "r1", "action": {"command": "ls"}}),
    ...     "--JSON Event--", json.dumps({"kind": "ActionEvent", "source": "agent", "tool_name": "finish",
    ...     "llm_response_id": "r2", "action": {"message": '{"success": false}'}})])
    >>> reading = read_openhands_events(out, None, "openhands")
    >>> reading.text, reading.extra["turns"], reading.extra["tool_calls"], reading.cost_usd, reading.extra["cost_source"]
    ('{"success": false}', 2, 1, None, 'unknown')
    """
    events = _json_blocks(stdout)
    for event in events:
        if event.get("kind") == "ConversationErrorEvent":
            detail = f"{event.get('code', '')}: {event.get('detail', '')}".strip(": ")
            raise JudgeError(f"{where}: OpenHands reported an error: {detail[:300]}")
    texts = [text for text in map(_openhands_text, events) if text]
    agent = [event for event in events if event.get("source") == "agent" and event.get("kind") in ("ActionEvent", "MessageEvent")]
    responses = {event.get("llm_response_id") or event.get("id") for event in agent}
    tool_calls = sum(1 for event in agent if event.get("kind") == "ActionEvent" and event.get("tool_name") != "finish")
    extra: dict[str, Any] = {"turns": len(responses), "tool_calls": tool_calls, "cost_source": COST_UNKNOWN}
    stats = [event.get("value") for event in events
             if event.get("kind") == "ConversationStateUpdateEvent" and event.get("key") == "stats"]
    metrics = stats[-1].get("usage_to_metrics") if stats and isinstance(stats[-1], dict) else None
    usages = [m.get("accumulated_token_usage") for m in metrics.values() if isinstance(m, dict)] \
        if isinstance(metrics, dict) else []
    usages = [usage for usage in usages if isinstance(usage, dict)]
    if not usages:
        return Reading(texts[-1] if texts else "", extra=extra)
    extra.update(cache_read_input_tokens=sum(_int(u.get("cache_read_tokens")) for u in usages),
                 cache_write_input_tokens=sum(_int(u.get("cache_write_tokens")) for u in usages),
                 reasoning_tokens=sum(_int(u.get("reasoning_tokens")) for u in usages))
    return Reading(
        texts[-1] if texts else "",
        input_tokens=sum(_int(u.get("prompt_tokens")) for u in usages),
        output_tokens=sum(_int(u.get("completion_tokens")) for u in usages),
        extra=extra,
    )


def read_text(stdout: str, answer: str | None, where: str) -> Reading:
    """A CLI without a JSON mode: the answer file's text when there is one, else stdout; no usage.

    >>> read_text("Verdict: {'success': true}", None, "cli").text, read_text("log", "the answer", "cli").text
    ("Verdict: {'success': true}", 'the answer')
    """
    return Reading(stdout if answer is None else answer, extra={"cost_source": COST_UNKNOWN})


READERS: dict[str, Callable[[str, str | None, str], Reading]] = {
    "text": read_text,
    "codex_events": read_codex_events,
    "claude_json": read_claude_json,
    "gemini_json": read_gemini_json,
    "opencode_events": read_opencode_events,
    "pi_events": read_pi_events,
    "openhands_events": read_openhands_events,
}
"""Output rules: ``(stdout, answer file text or None, where) -> Reading``."""
