"""Peak memory of the direct judge reading a 50 MB answer, as a multiple of the output cap.

A server on 127.0.0.1 (a thread of this process) answers one request with a
chat completion whose ``content`` is ``--megabytes`` MB of text and then a
verdict, written 1 MB at a time and never held whole, as a JSON body and as
an event stream (``"stream": true``). The OpenAI-compatible judge reads it
under ``max_output_bytes`` = each ``--caps`` value (MiB); ``tracemalloc``
gives the peak of Python allocations during ``judge.judge`` (the server
thread's 1 MB pieces included), after one unmeasured warm-up call. The figure of interest is peak / cap: it
must not grow with the answer.

    .venv/bin/python benchmarks/bench_answer_cap.py
    .venv/bin/python benchmarks/bench_answer_cap.py --megabytes 200 --caps 4 16
"""

from __future__ import annotations

import argparse
import json
import threading
import tracemalloc
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agenthorizon.judging.inputs import build_judge_input
from agenthorizon.judging.judges import OpenAICompatibleJudge
from agenthorizon.scoring.verdicts import parse_verdict

VERDICT = '{"success": false, "reasoning": "the end of a long answer"}'


def pieces(megabytes: int, stream: bool):
    block = "x" * 10**6
    texts = [block] * megabytes + [VERDICT]
    if stream:
        for text in texts:
            yield f"data: {json.dumps({'choices': [{'delta': {'content': text}}]})}\n\n".encode()
        yield b'data: {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}\n\ndata: [DONE]\n\n'
        return
    yield b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "'
    for text in texts:
        yield json.dumps(text)[1:-1].encode()
    yield b'"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}'


def serve(megabytes: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            stream = bool(json.loads(self.rfile.read(int(self.headers["content-length"]))).get("stream"))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream" if stream else "application/json")
            self.end_headers()
            for piece in pieces(megabytes, stream):
                self.wfile.write(piece)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=50)
    parser.add_argument("--caps", type=int, nargs="+", default=[4, 16], metavar="MIB")
    args = parser.parse_args()
    server = serve(args.megabytes)
    item = build_judge_input({"trajectory_id": "t", "instruction": "x", "steps": [], "markdown": ""})
    print(f"answer: {args.megabytes} MB of text, then the verdict")
    print("| body | cap (MiB) | peak (MiB) | peak / cap | truncated bytes | verdict |")
    print("|---|---:|---:|---:|---:|---|")
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    # Warm-up, unmeasured: the first call imports httpx and builds its client (a few MiB that are not the answer's).
    OpenAICompatibleJudge.from_options("m", base_url=base_url, images="none", api_key_env="BENCH_NO_KEY", max_output_bytes=2**20).judge(item)
    for stream in (False, True):
        for cap in args.caps:
            judge = OpenAICompatibleJudge.from_options(
                "m", base_url=base_url, images="none",
                api_key_env="BENCH_NO_KEY", max_output_bytes=cap * 2**20, extra_body={"stream": True} if stream else None,
            )
            tracemalloc.start()
            output = judge.judge(item)
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            status = parse_verdict(output.text).status
            print(f"| {'event stream' if stream else 'JSON'} | {cap} | {peak:.1f} | {peak / cap:.2f} | "
                  f"{output.extra['truncated_bytes']} | {status} |")
    server.shutdown()


if __name__ == "__main__":
    main()
