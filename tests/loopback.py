"""OpenAI-compatible chat-completions servers on 127.0.0.1 for the tests.

- :class:`ModelServer` answers by model, to make real runs of several
  ``openai:MODEL`` judges with the real runner, so leaderboard, score and
  report tests read what users' runs hold;
- :class:`StubServer` replays scripted responses (statuses, headers, delays)
  and refuses too many images the way vLLM does, for the judge's HTTP tests;
  a scripted body may be :class:`Streamed`: written piece by piece (a slow
  server that dribbles bytes, a 50 MB answer never held whole, an SSE stream).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: object, headers: Mapping[str, str] = {}) -> None:
    """Answer ``handler``'s request with ``payload`` as JSON (a ``str`` is sent as it is)."""
    data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
    handler.send_response(status)
    for key, value in headers.items():
        handler.send_header(key, value)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


@dataclass
class Streamed:
    """A scripted body written piece by piece: ``pieces()`` yields bytes, ``pause`` seconds between pieces.

    No content length is sent (the connection closes at the end, as HTTP/1.0
    does); ``sent`` counts the bytes the client took before it hung up.
    """

    pieces: Callable[[], Iterable[bytes]]
    content_type: str = "application/json"
    pause: float = 0.0
    sent: int = 0

    def write(self, handler: BaseHTTPRequestHandler, status: int, headers: Mapping[str, str]) -> None:
        handler.send_response(status)
        for key, value in headers.items():
            handler.send_header(key, value)
        handler.send_header("content-type", self.content_type)
        handler.end_headers()
        handler.wfile.flush()
        for piece in self.pieces():
            handler.wfile.write(piece)
            handler.wfile.flush()
            self.sent += len(piece)
            if self.pause:
                time.sleep(self.pause)


def completion_pieces(text_pieces: Callable[[], Iterable[str]], usage: tuple[int, int] = (1200, 80)) -> Callable[[], Iterable[bytes]]:
    """A chat completion whose ``content`` is the concatenation of ``text_pieces()`` (JSON-escaped), as body pieces."""

    def pieces() -> Iterable[bytes]:
        yield b'{"id": "x", "object": "chat.completion", "model": "stub-model", "choices": [{"index": 0, ' \
              b'"message": {"role": "assistant", "content": "'
        for text in text_pieces():
            yield json.dumps(text)[1:-1].encode()
        yield ('"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": %d, "completion_tokens": %d}}' % usage).encode()

    return pieces


def event_pieces(text_pieces: Callable[[], Iterable[str]], usage: tuple[int, int] = (1200, 80)) -> Callable[[], Iterable[bytes]]:
    """The same answer as a chat-completions event stream (``data: {...}`` lines, usage last, then ``[DONE]``)."""

    def pieces() -> Iterable[bytes]:
        for text in text_pieces():
            event = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
            yield f"data: {json.dumps(event)}\n\n".encode()
        end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}}
        yield f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode()

    return pieces


def serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, threading.Thread]:
    """A threading server on a free port of 127.0.0.1, serving in a daemon thread."""

    class Server(ThreadingHTTPServer):
        request_queue_size = 128  # concurrent clients must not wait for a SYN retry
        daemon_threads = True

    server = Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    return server, thread


class ModelServer:
    """Serves ``/v1/chat/completions``; ``answers[model](request_body)`` is the reply text."""

    def __init__(self, answers: Mapping[str, Callable[[dict], str]]) -> None:
        self.answers = dict(answers)
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                server.requests.append(body)
                answer = server.answers.get(body.get("model"))
                if answer is None:
                    status, payload = 404, {"error": {"message": f"model {body.get('model')!r} not found"}}
                else:
                    status = 200
                    payload = {
                        "id": "x", "object": "chat.completion", "model": body["model"],
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": answer(body)}}],
                        "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050},
                    }
                send_json(self, status, payload)

        self.server, self.thread = serve(Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class StubServer:
    """An OpenAI-compatible server on 127.0.0.1 replaying scripted responses.

    Each script entry is (status, headers, body, delay_s); when the script runs
    out, every request gets a canned verdict. With ``image_limit`` a request
    carrying more images is refused the way vLLM refuses it (HTTP 400).
    ``GET /v1/models`` answers like vLLM with ``models`` (status ``models_status``),
    and is logged in ``gets``, apart from the scripted chat requests.
    """

    def __init__(self, script=(), image_limit=None):
        self.script = list(script)
        self.image_limit = image_limit
        self.requests = []
        self.gets = []
        self.models = ["stub-model"]
        self.models_status = 200
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                stub.gets.append({"path": self.path, "headers": dict(self.headers)})
                if self.path.rstrip("/").endswith("/models") and stub.models_status == 200:
                    status, payload = 200, {"object": "list", "data": [{"id": m, "object": "model"} for m in stub.models]}
                elif self.path.rstrip("/").endswith("/models"):
                    status, payload = stub.models_status, {"error": {"message": "Incorrect API key provided"}}
                else:
                    status, payload = 404, {"detail": "Not Found"}
                self.reply(status, {}, payload)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                with stub.lock:
                    stub.requests.append({"time": time.monotonic(), "path": self.path,
                                          "headers": dict(self.headers), "body": json.loads(body)})
                    entry = stub.script.pop(0) if stub.script else None
                if entry is None and stub.image_limit is not None and stub.count_images(body) > stub.image_limit:
                    entry = (400, {}, stub.vllm_error(f"At most {stub.image_limit} image(s) may be provided "
                                                      "in one request."), 0)
                if entry is None:
                    entry = (200, {}, stub.completion('{"success": false, "reasoning": "wrong date", '
                                                      '"confidence": "high", "mistake_type": "Critical Mistake"}'), 0)
                status, headers, payload, delay = entry
                time.sleep(delay)
                self.reply(status, headers, payload)

            def reply(self, status, headers, payload):
                try:
                    if isinstance(payload, Streamed):
                        payload.write(self, status, headers)
                    else:
                        send_json(self, status, payload, headers)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.server, self.thread = serve(Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @staticmethod
    def completion(text, prompt_tokens=1200, completion_tokens=80):
        return {"id": "x", "object": "chat.completion", "model": "stub-model",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens}}

    @staticmethod
    def count_images(body):
        content = json.loads(body)["messages"][-1]["content"]
        return 0 if isinstance(content, str) else sum(part["type"] == "image_url" for part in content)

    @staticmethod
    def vllm_error(message):
        """The body of vLLM's OpenAI server for a rejected request."""
        return {"object": "error", "message": message, "type": "BadRequestError", "param": None, "code": 400}

    def close(self):
        self.server.shutdown()
        self.server.server_close()
