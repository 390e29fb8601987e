"""An OpenAI-compatible chat-completions server on 127.0.0.1 whose answer depends on the model.

Used to make real runs of several ``openai:MODEL`` judges with the real
runner, so leaderboard, score and report tests read what users' runs hold.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Mapping


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
                        "usage": {"prompt_tokens": 1000, "completion_tokens": 50},
                    }
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            request_queue_size = 128
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
