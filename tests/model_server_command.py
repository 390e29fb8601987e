"""An OpenAI-compatible server on 127.0.0.1 run as a command: what a sweep cell's ``server`` starts in the tests.

``python tests/model_server_command.py --port N [--model NAME] [--delay S] [--startup S]``
serves ``/v1/models`` (after ``--startup`` seconds, as a loading model
server) and ``/v1/chat/completions``, whose verdict is a function of the
request's text alone (a sha256 bit), so two runs of the same judge agree item
for item. It stops on SIGTERM.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loopback import send_json  # noqa: E402


def verdict(body: dict) -> bool:
    """The answer's ``success``: one bit of the sha256 of the request's messages."""
    text = json.dumps(body.get("messages"), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).digest()[0] % 2 == 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--model", default="sweep-model", help="the model /v1/models lists")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds per answer")
    parser.add_argument("--startup", type=float, default=0.0, help="seconds before /v1/models answers")
    args = parser.parse_args()
    ready_at = time.monotonic() + args.startup

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *words):
            print("request", self.path, flush=True)

        def do_GET(self):
            if self.path.rstrip("/") == "/v1/models" and time.monotonic() >= ready_at:
                send_json(self, 200, {"object": "list", "data": [{"id": args.model, "object": "model"}]})
            else:
                send_json(self, 503, {"error": {"message": "loading"}})

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            time.sleep(args.delay)
            answer = json.dumps({"success": verdict(body), "reasoning": "checked the final screenshot"})
            send_json(self, 200, {
                "id": "x", "object": "chat.completion", "model": body.get("model"),
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": answer}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
            })

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"listening on 127.0.0.1:{args.port}, pid {os.getpid()}", flush=True)
    try:
        server.serve_forever(poll_interval=0.05)
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
