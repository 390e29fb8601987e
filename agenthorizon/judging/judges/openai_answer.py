"""Reading a chat-completions answer under the output cap: a JSON body (:func:`completion_from_body`)
or a server-sent event stream (:class:`EventStream`).

Either way only the last ``max_output_bytes`` are kept, and :class:`Completion`
says how many bytes were dropped. No I/O: the caller feeds bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from agenthorizon.judging.judges.output_cap import TailBuffer

__all__ = ["Completion", "EventStream", "completion_from_body", "NotACompletion"]


class NotACompletion(ValueError):
    """The server's answer is not a chat completion (the message shows its start, escaped)."""


@dataclass
class Completion:
    """What one answer of the server holds, as far as the judge uses it.

    ``text`` is the answer (the end of it when it was cut), ``truncated_bytes``
    how many bytes of the body (JSON) or of the answer text (stream) the cap
    dropped; token counts are ``None`` when the server did not say.
    """

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    model: str | None = None
    finish_reason: str | None = None
    reasoning_chars: int = 0
    truncated_bytes: int = 0


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def completion_from_body(body: TailBuffer) -> Completion:
    """The completion in a JSON body read into ``body``.

    A body that fitted is parsed whole. From a cut body (only its end kept),
    the answer is the last ``content`` string, or the string the kept end
    starts inside, and the usage is read from what follows it. Raises :class:`NotACompletion` for a whole
    body that is not a chat completion. ``body`` is emptied: at most two
    copies of what was kept are alive at once.

    >>> def read(data, limit=10**6):
    ...     body = TailBuffer(limit)
    ...     body.add(data)
    ...     return completion_from_body(body)
    >>> read(b'{"choices": [{"message": {"content": "ok"}}], "usage": {"prompt_tokens": 3}}').text
    'ok'
    >>> end = (b'a long answer {\\\\"success\\\\": true}", "role": "assistant"}}], '
    ...        b'"usage": {"prompt_tokens": 9, "completion_tokens": 4}}')
    >>> cut = read(b'{"choices": [{"message": {"content": "' + b'x' * 100 + end, limit=len(end))
    >>> cut.text, cut.input_tokens, cut.truncated_bytes
    ('long answer {"success": true}', 9, 138)
    """
    dropped = body.dropped
    text = body.take_text()
    if dropped:
        answer, rest = _split_tail(text)
        del text  # the tail is no longer needed once the answer is out of it
        return _with_usage(answer, rest, dropped)
    try:
        payload = json.loads(text)
        choice = payload["choices"][0]
        message = choice["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise NotACompletion(f"is not a chat completion: {text[:300]!r}") from None
    content = message.get("content")
    if isinstance(content, list):  # some servers return content parts
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
    # vLLM's reasoning parsers put the thinking here; only its length is kept (the verdict is the answer alone).
    thinking = message.get("reasoning_content") or message.get("reasoning")
    return Completion(
        text="" if content is None else str(content),
        input_tokens=_int_or_none(usage.get("prompt_tokens")),
        output_tokens=_int_or_none(usage.get("completion_tokens")),
        model=payload.get("model") if isinstance(payload.get("model"), str) else None,
        finish_reason=choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None,
        reasoning_chars=len(thinking) if isinstance(thinking, str) else 0,
    )


_CONTENT_KEY = re.compile(r'"content"\s*:\s*"')
# After one of these a JSON string is between two characters (never inside an
# escape such as \n or \u00e9), so decoding can start there.
_INSIDE_ESCAPE = frozenset("\\0123456789abcdefABCDEFu")
_USAGE = {name: re.compile(rf'"{name}"\s*:\s*(\d+)') for name in ("prompt_tokens", "completion_tokens")}
_FINISH = re.compile(r'"finish_reason"\s*:\s*"([A-Za-z_]+)"')


def _split_tail(tail: str) -> tuple[str, str]:
    """(the answer text, what follows it) recovered from the end of a body that was cut."""
    found = None
    for found in _CONTENT_KEY.finditer(tail):
        pass
    start = found.end() if found is not None else next(
        (index for index in range(1, len(tail)) if tail[index - 1] not in _INSIDE_ESCAPE), len(tail)
    )
    try:
        text, end = json.decoder.scanstring(tail, start)
    except ValueError:  # the tail was not inside a JSON string: keep it as it is
        return tail, ""
    return text, tail[end:]


def _with_usage(text: str, rest: str, dropped: int) -> Completion:
    """The completion of a cut body: its answer ``text``, and the usage and finish reason in ``rest``."""
    tokens = {name: int(m.group(1)) if (m := pattern.search(rest)) else None for name, pattern in _USAGE.items()}
    finish = _FINISH.search(rest)
    return Completion(
        text=text, input_tokens=tokens["prompt_tokens"], output_tokens=tokens["completion_tokens"],
        finish_reason=finish.group(1) if finish else None, truncated_bytes=dropped,
    )


class EventStream:
    """A chat-completions event stream, fed as raw chunks; the answer text capped at ``limit`` bytes.

    The answer is the ``delta.content`` pieces joined (the end kept). Lines
    are split here, not by the HTTP client, so that one endless line cannot
    grow without bound: a line longer than ``limit`` is skipped and counted
    as dropped.

    >>> stream = EventStream(limit=1000)
    >>> stream.feed(b'data: {"choices": [{"delta": {"content": "{\\\\"success\\\\""}}]}\\n\\n')
    >>> stream.feed(b'data: {"choices": [{"delta": {"content": ": true}"}, "finish_reason": "stop"}]}\\n')
    >>> stream.feed(b'data: {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 2}}\\ndata: [DONE]\\n')
    >>> done = stream.completion()
    >>> done.text, done.input_tokens, done.finish_reason, done.truncated_bytes
    ('{"success": true}', 7, 'stop', 0)
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.answer = TailBuffer(limit)
        self._line = bytearray()
        self._skipping = False  # inside a line longer than the limit
        self.skipped_bytes = 0
        self.done = False
        self.result = Completion(text="")
        self.error: str | None = None

    def feed(self, chunk: bytes) -> None:
        """Take the next bytes of the stream."""
        start = 0
        while start < len(chunk):
            newline = chunk.find(b"\n", start)
            piece = chunk[start:] if newline < 0 else chunk[start:newline]
            if self._skipping:
                self.skipped_bytes += len(piece)
            elif len(self._line) + len(piece) > self.limit:
                self.skipped_bytes += len(self._line) + len(piece)
                self._line.clear()
                self._skipping = True
            else:
                self._line += piece
            if newline < 0:
                return
            if not self._skipping:
                self._event_line(bytes(self._line).rstrip(b"\r"))
            self._line.clear()
            self._skipping = False
            start = newline + 1

    def _event_line(self, line: bytes) -> None:
        if not line.startswith(b"data:"):
            return  # comments, event names, ids, blank separators
        data = line[5:].strip()
        if data == b"[DONE]":
            self.done = True
            return
        try:
            event = json.loads(data)
        except ValueError:
            self.error = self.error or f"an event is not JSON: {data[:200]!r}"
            return
        if not isinstance(event, dict):
            return
        if isinstance(event.get("error"), (dict, str)):
            self.error = f"the server reported an error in the stream: {json.dumps(event['error'])[:300]}"
        if isinstance(event.get("model"), str):
            self.result.model = event["model"]
        usage = event.get("usage")
        if isinstance(usage, dict):
            self.result.input_tokens = _int_or_none(usage.get("prompt_tokens"))
            self.result.output_tokens = _int_or_none(usage.get("completion_tokens"))
        for choice in event.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                self.answer.add(delta["content"].encode("utf-8"))
            thinking = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(thinking, str):
                self.result.reasoning_chars += len(thinking)
            if isinstance(choice.get("finish_reason"), str):
                self.result.finish_reason = choice["finish_reason"]

    def completion(self) -> Completion:
        """The answer read so far (the end of it when cut), with the bytes dropped."""
        if self._line and not self._skipping:  # a last line without its newline
            self._event_line(bytes(self._line).rstrip(b"\r"))
            self._line.clear()
        self.result.truncated_bytes = self.answer.dropped + self.skipped_bytes
        self.result.text = self.answer.take_text()
        return self.result
