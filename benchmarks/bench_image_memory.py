"""Peak memory of ``judge`` on largest-allowed screenshots, at concurrency 1, 2 and 4.

A release may hold screenshots of any size its header declares; the package
refuses anything over the pixel budget (``agenthorizon.release.image_files``,
50 MP by default) before decoding, and decodes at most one full-size image
per CPU at a time (``agenthorizon.data.images``). So the memory ``judge``
needs for pixels should stay under budget x bytes per pixel x CPUs, however
many items are in flight.

The corpus is the tiny sample with every screenshot replaced by one PNG of
``--side`` x ``--side`` pixels (default 7071: 49.998 MP, just under the
budget; a solid colour, so the file is small but decodes to 150 MB of RGB).
The first item's screenshots (and so those of every item sharing its steps
folder) are instead a header declaring 13000 x 13000 pixels (a bomb: 169 MP,
under Pillow's own limit), which must be refused, not decoded: those items
end as error results naming the file. Each measurement is ``agenthorizon.judge`` semantics in a fresh
process: ``run_judge`` with the OpenAI-compatible judge (per-step images) against
a stub server on 127.0.0.1, then ``ru_maxrss`` of that process. A text-only
run (``images="none"``) of the same items gives the baseline; the figure of
interest is peak minus baseline, compared with the bound.

    .venv/bin/python benchmarks/bench_image_memory.py
    .venv/bin/python benchmarks/bench_image_memory.py --items 4 --side 5000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from agenthorizon.util.system import available_cpus
from agenthorizon.release.files import read_labels
from agenthorizon.release.image_files import DEFAULT_MAX_PIXELS
from agenthorizon.release.sample import generate

VERDICT = json.dumps({"success": True, "reasoning": "stub", "confidence": "high", "mistake_type": None})

CHILD = r"""
import json, os, resource, sys, threading, warnings
warnings.simplefilter("ignore")
import agenthorizon
import agenthorizon.data.images
if os.environ.get("BENCH_UNBOUNDED_DECODES"):  # diagnostic: what the decode slots save
    agenthorizon.data.images._DECODE_SLOTS = threading.BoundedSemaphore(1000)
from agenthorizon.judging.judges import make_judge
from agenthorizon.judging.runs.runner import run_judge

root, out, cache, base_url, images, concurrency, items = sys.argv[1:8]
ds = agenthorizon.load_dataset(root, "all", split="test", cache_dir=cache)
ds = ds.select(range(int(items)))
judge = make_judge("openai:stub", base_url=base_url, images=images, retries=0)
summary = run_judge(judge, ds, out, concurrency=int(concurrency), progress=False, retries=0, data_root=root)
errors = [e for e in summary.errors.values()] if hasattr(summary, "errors") else []
print(json.dumps({"peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "errors": [str(e)[:160] for e in errors]}))
"""


class Stub:
    """An OpenAI-compatible server on 127.0.0.1 that answers every request with one verdict."""

    def __init__(self) -> None:
        body = json.dumps(
            {
                "id": "x",
                "object": "chat.completion",
                "model": "stub",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": VERDICT}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1},
            }
        ).encode()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def png_header(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


def make_corpus(workdir: Path, side: int) -> tuple[Path, int]:
    from PIL import Image

    root = generate(workdir / "release", preset="tiny").root
    big = workdir / "big.png"
    Image.new("RGB", (side, side), (40, 90, 160)).save(big, compress_level=1)
    shots = sorted((root / "sandbox/data/media/images").rglob("*.png"))
    bomb_folder = root / "sandbox/data/media/images" / read_labels(root)[0]["steps_id"]  # the first item's
    bombs = 0
    for shot in shots:
        shot.unlink()
        if shot.parent == bomb_folder:
            shot.write_bytes(png_header(13000, 13000))
            bombs += 1
        else:
            os.link(big, shot)  # one file's bytes, many screenshots: the corpus stays small on disk
    return root, bombs


def measure(
    root: Path, workdir: Path, base_url: str, images: str, concurrency: int, items: int, unbounded: bool = False
) -> dict:
    tag = f"{images}-{concurrency}{'-unbounded' if unbounded else ''}"
    out = workdir / f"run-{tag}"
    shutil.rmtree(out, ignore_errors=True)
    # A fresh image cache per run: a cache hit would skip the decoding being measured.
    env = dict(os.environ, AGENTHORIZON_IMAGE_CACHE=str(workdir / f"image-cache-{tag}"))
    if unbounded:
        env["BENCH_UNBOUNDED_DECODES"] = "1"
    completed = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(out), str(workdir / "cache"), base_url, images, str(concurrency), str(items)],
        capture_output=True,
        text=True,
        env=env,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"judge run failed:\n{completed.stderr}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", type=int, default=7071, help="width and height of every screenshot (default 7071)")
    parser.add_argument("--items", type=int, default=6, help="items judged per run (default 6)")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--compare-unbounded", action="store_true",
        help="also run each concurrency with the decode slots lifted (a diagnostic of what they save)",
    )
    args = parser.parse_args()
    if args.side * args.side > DEFAULT_MAX_PIXELS:
        parser.error(f"--side {args.side} is over the default pixel budget of {DEFAULT_MAX_PIXELS:,}")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="agenthorizon-bench-memory-"))
    root, bombs = make_corpus(workdir, args.side)
    stub = Stub()
    cpus = available_cpus()
    bound_mib = args.side * args.side * 3 * cpus / 2**20
    print(f"screenshots {args.side}x{args.side} ({args.side * args.side / 1e6:.1f} MP, RGB: "
          f"{args.side * args.side * 3 / 2**20:.0f} MiB decoded); {bombs} bomb headers (13000x13000); "
          f"{cpus} CPUs -> bound {bound_mib:.0f} MiB of full-size pixels")
    baseline = measure(root, workdir, stub.base_url, "none", 1, args.items)["peak_kib"] / 1024
    print(f"baseline (images none, concurrency 1): peak RSS {baseline:.0f} MiB")
    print("concurrency  peak RSS MiB  above baseline MiB  above / bound  item errors")
    for unbounded in (False, True) if args.compare_unbounded else (False,):
        if unbounded:
            print("decode slots lifted (diagnostic):")
        for concurrency in (1, 2, 4):
            result = measure(root, workdir, stub.base_url, "per-step", concurrency, args.items, unbounded)
            peak = result["peak_kib"] / 1024
            print(f"{concurrency:>11}  {peak:>12.0f}  {peak - baseline:>18.0f}  {(peak - baseline) / bound_mib:>13.2f}"
                  f"  {len(result['errors'])}")
            for error in result["errors"][:1]:
                print(f"             e.g. {error[:110]}")


if __name__ == "__main__":
    main()
