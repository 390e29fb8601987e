"""Model servers on 127.0.0.1 that speak each agentic CLI's own wire protocol.

The real CLIs (tests/agent_clis.py installs them) are pointed at an
:class:`AgentModelServer`, which answers in one of four protocols:

- ``responses``: OpenAI Responses API, server-sent events (Codex, through a
  ``config.toml`` model provider with ``wire_api = "responses"``);
- ``messages``: Anthropic Messages, server-sent events (Claude Code, through
  ``ANTHROPIC_BASE_URL``);
- ``gemini``: Gemini ``streamGenerateContent?alt=sse`` (Gemini CLI, through
  ``GOOGLE_GEMINI_BASE_URL``);
- ``chat``: OpenAI Chat Completions, server-sent events (OpenCode, through an
  ``@ai-sdk/openai-compatible`` provider's ``baseURL``; pi, through an
  ``openai-completions`` provider of its ``models.json``).

What the server says does not depend on the protocol: a :class:`Script`
decides, from the conversation a request carries, whether to answer at once or
first to call a tool (a shell command, or a file read where the CLI offers no
shell), and what the final answer is. Each protocol is one small
:class:`Protocol` subclass that knows how its requests hold tools, tool
results and messages, and how its streams are framed. Every request is
recorded (:attr:`AgentModelServer.requests`) so that tests can check what
reached the model: the framework file, the prompt, the tool results the CLI
sent back.
"""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Iterator

from loopback import send_json, serve

# Token counts every answer reports: distinct numbers, so that a test can tell
# which of them a CLI's own report passed on.
USAGE = {"input": 1000, "cached": 400, "cache_write": 100, "output": 50, "reasoning": 20}

# Tools by the name each CLI gives them, with the arguments a command or a
# path goes into. The shell tools come first: a CLI that offers one runs the
# whole command; one that offers only file tools gets a read of the path.
SHELL_TOOLS = {
    # Codex returns "Process running" after yield_time_ms (10 s unless asked, at most 30 s):
    # a search of the sandbox's whole tree can take longer than 10 s on a loaded machine.
    "exec_command": lambda command: {"cmd": command, "yield_time_ms": 30_000},  # Codex
    "shell": lambda command: {"command": ["bash", "-lc", command]},  # older Codex
    "Bash": lambda command: {"command": command, "description": "look around"},  # Claude Code
    "run_shell_command": lambda command: {"command": command, "description": "look around"},  # Gemini CLI
    "bash": lambda command: {"command": command, "description": "look around"},  # OpenCode, pi
}
READ_TOOLS = {
    "Read": lambda path: {"file_path": path},  # Claude Code
    "read_file": lambda path: {"file_path": path, "absolute_path": path},  # Gemini CLI
    # OpenCode's read takes filePath, pi's path: each gets the one its tool declares (Protocol.parameters).
    "read": lambda path: {"filePath": path, "path": path},
}


@dataclass
class Script:
    """What the model does in one conversation.

    ``answer``: the final text. ``command``: a shell command to run before
    answering (``None``: answer at once), and ``read_path``: the file read
    instead when the CLI offers no shell tool. The tool is called once per
    conversation: a request that already holds a tool result gets the answer.
    """

    answer: str
    command: str | None = None
    read_path: str | None = None
    error: str | None = None  # answer with HTTP 400 and this message instead

    def tool_call(self, tools: set[str]) -> tuple[str, dict[str, Any]] | None:
        if self.command is None:
            return None
        for name, arguments in SHELL_TOOLS.items():
            if name in tools:
                return name, arguments(self.command)
        for name, arguments in READ_TOOLS.items():
            if name in tools and self.read_path is not None:
                return name, arguments(self.read_path)
        return None


@dataclass
class Recorded:
    """One request: its path, body, and what the server answered (``tool`` or ``answer``)."""

    path: str
    body: dict[str, Any]
    reply: str
    tool: str | None = None
    tool_results: list[str] = field(default_factory=list)

    def texts(self) -> str:
        """Every string in the request body, joined: what reached the model, unescaped."""
        return "\n".join(_strings(self.body))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _tool_result_text(content: Any) -> str:
    """A tool result's text, whatever shape the protocol gives it (string, parts, object)."""
    return "\n".join(_strings(content))


class Protocol:
    """One wire protocol: where requests go, what they hold, how answers are streamed."""

    name = ""

    def serves(self, path: str) -> bool:
        raise NotImplementedError

    def tools(self, body: dict) -> set[str]:
        raise NotImplementedError

    def tool_results(self, body: dict) -> list[str]:
        raise NotImplementedError

    def streamed(self, path: str, body: dict) -> bool:
        return bool(body.get("stream"))

    def parameters(self, body: dict, name: str) -> set[str] | None:
        """The argument names the request declares for its tool ``name`` (``None``: not known)."""
        return None

    def text_events(self, model: str, text: str) -> list[Any]:
        raise NotImplementedError

    def tool_events(self, model: str, name: str, arguments: dict) -> list[Any]:
        raise NotImplementedError

    def whole(self, model: str, text: str) -> dict:
        """The answer of a request that did not ask for a stream."""
        raise NotImplementedError

    def frame(self, event: Any) -> bytes:
        """One server-sent event: ``(event name, data)`` or data alone."""
        if isinstance(event, tuple):
            name, data = event
            return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
        if isinstance(event, str):
            return f"data: {event}\n\n".encode()
        return f"data: {json.dumps(event)}\n\n".encode()


class ResponsesProtocol(Protocol):
    """OpenAI Responses API: ``POST /v1/responses``; ``function_call`` output items, ``function_call_output`` inputs."""

    name = "responses"

    def serves(self, path):
        return path.split("?")[0].endswith("/responses")

    def tools(self, body):
        return {tool.get("name") for tool in body.get("tools") or [] if isinstance(tool, dict)}

    def tool_results(self, body):
        return [_tool_result_text(item.get("output")) for item in body.get("input") or []
                if isinstance(item, dict) and item.get("type") == "function_call_output"]

    def _usage(self):
        return {
            "input_tokens": USAGE["input"], "input_tokens_details": {"cached_tokens": USAGE["cached"]},
            "output_tokens": USAGE["output"], "output_tokens_details": {"reasoning_tokens": USAGE["reasoning"]},
            "total_tokens": USAGE["input"] + USAGE["output"],
        }

    def _stream(self, model, item, deltas=()):
        response = {"id": f"resp_{uuid.uuid4().hex[:12]}", "object": "response", "model": model, "status": "in_progress",
                    "output": []}
        events = [("response.created", {"type": "response.created", "response": response})]
        events.append(("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                                        "item": {**item, "status": "in_progress"}}))
        events += deltas
        events.append(("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}))
        done = {**response, "status": "completed", "output": [item], "usage": self._usage()}
        events.append(("response.completed", {"type": "response.completed", "response": done}))
        return events

    def text_events(self, model, text):
        item_id = f"msg_{uuid.uuid4().hex[:12]}"
        item = {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
        delta = ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item_id,
                                                "output_index": 0, "content_index": 0, "delta": text})
        return self._stream(model, item, [delta])

    def tool_events(self, model, name, arguments):
        item = {"type": "function_call", "id": f"fc_{uuid.uuid4().hex[:12]}", "call_id": f"call_{uuid.uuid4().hex[:12]}",
                "name": name, "arguments": json.dumps(arguments), "status": "completed"}
        return self._stream(model, item)


class MessagesProtocol(Protocol):
    """Anthropic Messages: ``POST /v1/messages``; ``tool_use`` content blocks, ``tool_result`` blocks back."""

    name = "messages"

    def serves(self, path):
        return path.split("?")[0].endswith("/v1/messages")

    def tools(self, body):
        return {tool.get("name") for tool in body.get("tools") or [] if isinstance(tool, dict)}

    def tool_results(self, body):
        found = []
        for message in body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found.append(_tool_result_text(block.get("content")))
        return found

    def _stream(self, model, block, delta, stop_reason):
        usage = {"input_tokens": USAGE["input"] - USAGE["cached"] - USAGE["cache_write"],
                 "cache_creation_input_tokens": USAGE["cache_write"], "cache_read_input_tokens": USAGE["cached"],
                 "output_tokens": 1}
        message = {"id": f"msg_{uuid.uuid4().hex[:12]}", "type": "message", "role": "assistant", "model": model,
                   "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
        return [
            ("message_start", {"type": "message_start", "message": message}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                               "usage": {"output_tokens": USAGE["output"]}}),
            ("message_stop", {"type": "message_stop"}),
        ]

    def text_events(self, model, text):
        return self._stream(model, {"type": "text", "text": ""}, {"type": "text_delta", "text": text}, "end_turn")

    def tool_events(self, model, name, arguments):
        block = {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:12]}", "name": name, "input": {}}
        return self._stream(model, block, {"type": "input_json_delta", "partial_json": json.dumps(arguments)}, "tool_use")

    def whole(self, model, text):
        return {"id": f"msg_{uuid.uuid4().hex[:12]}", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": USAGE["input"], "output_tokens": USAGE["output"]}}


class GeminiProtocol(Protocol):
    """Gemini API: ``POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`` (and ``:generateContent``);
    ``functionCall`` parts, ``functionResponse`` parts back."""

    name = "gemini"

    def serves(self, path):
        return ":streamGenerateContent" in path or ":generateContent" in path

    def streamed(self, path, body):
        return ":streamGenerateContent" in path

    def tools(self, body):
        names = set()
        for tool in body.get("tools") or []:
            for declaration in tool.get("functionDeclarations") or [] if isinstance(tool, dict) else []:
                names.add(declaration.get("name"))
        return names

    def tool_results(self, body):
        found = []
        for content in body.get("contents") or []:
            for part in content.get("parts") or [] if isinstance(content, dict) else []:
                if isinstance(part, dict) and "functionResponse" in part:
                    found.append(_tool_result_text(part["functionResponse"].get("response")))
        return found

    def _chunk(self, model, parts):
        usage = {"promptTokenCount": USAGE["input"], "cachedContentTokenCount": USAGE["cached"],
                 "candidatesTokenCount": USAGE["output"], "thoughtsTokenCount": USAGE["reasoning"],
                 "totalTokenCount": USAGE["input"] + USAGE["output"] + USAGE["reasoning"]}
        return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": usage, "modelVersion": model}

    def text_events(self, model, text):
        return [self._chunk(model, [{"text": text}])]

    def tool_events(self, model, name, arguments):
        return [self._chunk(model, [{"functionCall": {"name": name, "args": arguments}}])]

    def whole(self, model, text):
        return self._chunk(model, [{"text": text}])

    def frame(self, event):
        return f"data: {json.dumps(event)}\r\n\r\n".encode()


class ChatProtocol(Protocol):
    """OpenAI Chat Completions: ``POST /v1/chat/completions``; ``tool_calls`` deltas, ``role: tool`` messages back."""

    name = "chat"

    def serves(self, path):
        return path.split("?")[0].endswith("/chat/completions")

    def tools(self, body):
        return {tool.get("function", {}).get("name") for tool in body.get("tools") or [] if isinstance(tool, dict)}

    def parameters(self, body, name):
        for tool in body.get("tools") or []:
            function = tool.get("function", {}) if isinstance(tool, dict) else {}
            if function.get("name") == name:
                return set((function.get("parameters") or {}).get("properties") or {})
        return None

    def tool_results(self, body):
        return [_tool_result_text(message.get("content")) for message in body.get("messages") or []
                if isinstance(message, dict) and message.get("role") == "tool"]

    def _chunk(self, model, delta, finish=None):
        return {"id": "chatcmpl-loopback", "object": "chat.completion.chunk", "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    def _end(self, model, finish):
        usage = {"prompt_tokens": USAGE["input"], "completion_tokens": USAGE["output"],
                 "total_tokens": USAGE["input"] + USAGE["output"],
                 "prompt_tokens_details": {"cached_tokens": USAGE["cached"]},
                 "completion_tokens_details": {"reasoning_tokens": USAGE["reasoning"]}}
        return [self._chunk(model, {}, finish), {**self._chunk(model, {}), "choices": [], "usage": usage}, "[DONE]"]

    def text_events(self, model, text):
        return [self._chunk(model, {"role": "assistant", "content": text}), *self._end(model, "stop")]

    def tool_events(self, model, name, arguments):
        call = {"index": 0, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)}}
        return [self._chunk(model, {"role": "assistant", "tool_calls": [call]}), *self._end(model, "tool_calls")]

    def whole(self, model, text):
        return {"id": "chatcmpl-loopback", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": USAGE["input"], "completion_tokens": USAGE["output"]}}


PROTOCOLS: dict[str, Callable[[], Protocol]] = {
    cls.name: cls for cls in (ResponsesProtocol, MessagesProtocol, GeminiProtocol, ChatProtocol)
}


class AgentModelServer:
    """A model on ``127.0.0.1`` in one wire protocol, following ``script(request_texts)``.

    ``script`` maps the text of a request (every string in it) to the
    :class:`Script` of that conversation, so one server can hold several
    items' conversations: a test keys the script on the trajectory id the
    prompt names. Requests to paths the protocol does not serve get 404 and
    are recorded too (``reply="404"``).
    """

    def __init__(self, protocol: str, script: Callable[[str], Script]) -> None:
        self.protocol = PROTOCOLS[protocol]()
        self.script = script
        self.requests: list[Recorded] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                with server.lock:
                    server.requests.append(Recorded(self.path, {}, "404"))
                send_json(self, 404, {"error": {"message": f"no such endpoint {self.path}"}})

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"unparsed": raw.decode("utf-8", "replace")}
                server.answer(self, body)

        self.server, self.thread = serve(Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, handler: BaseHTTPRequestHandler, body: dict) -> None:
        protocol = self.protocol
        if not protocol.serves(handler.path):
            with self.lock:
                self.requests.append(Recorded(handler.path, body, "404"))
            send_json(handler, 404, {"error": {"message": f"no such endpoint {handler.path}"}})
            return
        record = Recorded(handler.path, body, "answer", tool_results=protocol.tool_results(body))
        model = str(body.get("model") or handler.path.split("/models/")[-1].split(":")[0])
        script = self.script(record.texts())
        if script.error is not None:
            record.reply = "error"
            with self.lock:
                self.requests.append(record)
            # One body every protocol's clients read a message from (Anthropic's shape, with "message" inside).
            send_json(handler, 400, {"type": "error", "error": {"type": "invalid_request_error", "code": 400,
                                                              "status": "INVALID_ARGUMENT", "message": script.error}})
            return
        call = None if record.tool_results else script.tool_call(protocol.tools(body))
        declared = None if call is None else protocol.parameters(body, call[0])
        if declared is not None:  # the arguments this CLI's tool of that name takes
            call = (call[0], {key: value for key, value in call[1].items() if key in declared})
        if call is not None:
            record.reply, record.tool = "tool", call[0]
        with self.lock:
            self.requests.append(record)
        if not protocol.streamed(handler.path, body):
            send_json(handler, 200, protocol.whole(model, script.answer))
            return
        events = protocol.tool_events(model, *call) if call else protocol.text_events(model, script.answer)
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        handler.send_header("connection", "close")
        handler.end_headers()
        for event in events:
            handler.wfile.write(protocol.frame(event))
        handler.wfile.flush()
        handler.close_connection = True

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
