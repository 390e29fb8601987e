"""Step selection (B) and screenshot summaries (C): a helper model before the direct judge.

Judges a few items twice with each approach, changing only the final model,
and shows that the second run pays for no helper call (the selections and
summaries come from the cache), then loads the summaries as a dataset.

    AGENTHORIZON_BASE_URL=http://localhost:8000/v1 FINAL_MODELS=Qwen/Qwen3-VL-8B-Instruct,Qwen/Qwen3-VL-32B-Instruct \\
    HELPER_MODEL=Qwen/Qwen3-VL-8B-Instruct python examples/helper_models.py

Without AGENTHORIZON_BASE_URL it starts a stand-in server on 127.0.0.1 that
answers with fixed texts (a verdict, the last two steps with a screenshot, a
one-line description), only to show the mechanics; point it at a real
OpenAI-compatible server (vLLM, SGLang, a hosted API) for real answers.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import agenthorizon
from agenthorizon.judging.judges import make_judge
from agenthorizon.judging.runs.folder import read_results
from agenthorizon.judging.summaries_dataset import load_summaries


class StandIn(BaseHTTPRequestHandler):
    """Fixed answers in the chat-completions shape: not a model, only to run the example anywhere."""

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        content = body["messages"][-1]["content"]
        if isinstance(content, list):  # a summary request: one screenshot
            text = "A desktop application window."
        elif "[screenshot]" in content:  # a selection request
            marked = re.findall(r"^Step (\d+)\b.*\[screenshot\]$", content, re.MULTILINE)
            text = json.dumps({"steps": [int(step) for step in marked[-2:]]})
        else:
            text = json.dumps({"success": False, "reasoning": "stand-in answer"})
        data = json.dumps({"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                           "usage": {"prompt_tokens": 100, "completion_tokens": 10}}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # /v1/models, for the preflight
        data = json.dumps({"data": [{"id": model} for model in (*FINALS, HELPER)]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


FINALS = os.environ.get("FINAL_MODELS", "final-a,final-b").split(",")
HELPER = os.environ.get("HELPER_MODEL", "helper")


def main() -> None:
    base_url = os.environ.get("AGENTHORIZON_BASE_URL")
    server = None
    if base_url is None:
        server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        with tempfile.TemporaryDirectory(prefix="agenthorizon-example-") as work:
            run_both(Path(work), base_url)
    finally:
        if server is not None:
            server.shutdown()
            server.server_close()


def run_both(work: Path, base_url: str) -> None:
    root = Path(os.environ["AGENTHORIZON_DATA"]) if os.environ.get("AGENTHORIZON_DATA") else work / "release"
    if not root.exists():
        agenthorizon.generate_sample(root, preset="tiny", seed=0)
    items = agenthorizon.load_dataset(root, "all", split="test", images="paths").select(range(3))
    cache = work / "model-calls"  # selections and summaries, kept across runs
    approaches = {
        "selection": {"select_steps": 2, "step_selector": f"model:{HELPER}", "layout": "interleaved"},
        "summaries": {"summarise_with": HELPER},
    }
    for approach, options in approaches.items():
        for final in FINALS:
            judge = make_judge(f"openai:{final}", base_url=base_url, model_cache_dir=str(cache), cache_dir=str(work / "images"),
                               **options)
            summary = agenthorizon.run_judge(judge, items, work / f"{approach}-{final.replace('/', '_')}", config="all",
                                             data_root=root, progress=False, bootstrap=0)
            results = read_results([summary.out_dir]).records.values()
            helper_calls = sum(r.telemetry.extra.get("selector_calls", r.telemetry.extra.get("summariser_calls", 0))
                               for r in results)
            print(f"{approach} with final model {final}: {summary.judged} items judged, {helper_calls} helper calls, "
                  f"input tokens over every call {sum(r.telemetry.input_tokens or 0 for r in results)}")
            if approach == "selection":
                print("  steps sent:", {r.trajectory_id[:8]: r.telemetry.extra["selected_steps"] for r in results})
    table = load_summaries(cache)
    print(f"{table.num_rows} screenshot summaries, e.g. step {table[0]['step_id']} of {table[0]['trajectory_id'][:8]}: "
          f"{table[0]['summary']}")


if __name__ == "__main__":
    main()
