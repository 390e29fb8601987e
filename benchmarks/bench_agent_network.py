"""What an agent's own network namespace costs: round trips and bulk bytes through the forwarder.

An agent (a Python script run as ``command:``) makes ``--round-trips`` small
request/answer exchanges on fresh connections (as an HTTP client without
keep-alive does), then downloads ``--megabytes`` MB on one connection, from an
endpoint on the host's ``127.0.0.1``, timing both itself. ``agenthorizon
judge`` runs it under bubblewrap once with ``--agent-network host`` (the
baseline: the host's loopback, as before) and once isolated (through the
in-namespace listener, the item's unix socket and the harness's relay), in the
same run, each best of ``--repeats``. The ratios are the claim.

    .venv/bin/agenthorizon sample /tmp/ah-tiny --preset tiny
    .venv/bin/python benchmarks/bench_agent_network.py --root /tmp/ah-tiny
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

AGENT = r"""
import json, os, socket, sys, time
sys.stdin.read()
port, trips, size = (int(os.environ[name]) for name in ("AH_PORT", "AH_TRIPS", "AH_BYTES"))
started = time.perf_counter()
for _ in range(trips):
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.sendall(b"ping\n")
        connection.recv(16)
round_trip = (time.perf_counter() - started) / trips
started = time.perf_counter()
with socket.create_connection(("127.0.0.1", port)) as connection:
    connection.sendall(b"bulk\n")
    got = 0
    while got < size:
        chunk = connection.recv(1 << 20)
        if not chunk:
            break
        got += len(chunk)
bulk = time.perf_counter() - started
print(json.dumps({"success": True, "reasoning": json.dumps({"round_trip_s": round_trip, "bulk_s": bulk, "got": got})}))
"""


def serve(size: int) -> socket.socket:
    """A host endpoint: ``ping`` gets ``pong``, ``bulk`` gets ``size`` bytes."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=128)
    block = b"x" * (1 << 20)

    def answer(connection: socket.socket) -> None:
        with connection:
            if connection.recv(16).startswith(b"bulk"):
                left = size
                while left > 0:
                    connection.sendall(block[:left])
                    left -= len(block)
            else:
                connection.sendall(b"pong\n")

    def loop() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=answer, args=(connection,), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
    return listener


def judge_once(root: Path, scratch: Path, name: str, network: str, port: int, trips: int, size: int) -> dict:
    script = scratch / "agent.py"
    script.write_text(AGENT)
    out = scratch / name
    done = subprocess.run(
        [sys.executable, "-m", "agenthorizon", "judge", "--data", str(root), "--config", "AH", "--judge",
         f"command:{sys.executable} {script}", "--out", str(out), "--limit", "1", "--no-progress", "--bootstrap",
         "0", "--sandbox", "bwrap", "--agent-network", network, "--agent-endpoint", f"http://127.0.0.1:{port}",
         "--env", "AH_PORT", "--env", "AH_TRIPS", "--env", "AH_BYTES"],
        capture_output=True, text=True, check=False,
        env={**os.environ, "AH_PORT": str(port), "AH_TRIPS": str(trips), "AH_BYTES": str(size)},
    )
    if done.returncode != 0:
        raise RuntimeError(f"{name}: agenthorizon judge failed: {done.stderr[-1000:]}")
    (result,) = [p for p in out.glob("*.json") if p.name != "run.json"]
    timing = json.loads(json.loads(result.read_text())["verdict"]["reasoning"])
    if timing["got"] != size:
        raise RuntimeError(f"{name}: the agent got {timing['got']} of {size} bytes")
    return timing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="a sample release (agenthorizon sample)")
    parser.add_argument("--round-trips", type=int, default=300, help="small exchanges, one connection each")
    parser.add_argument("--megabytes", type=int, default=200, help="bytes downloaded on one connection (MB)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per setting; the best is kept")
    args = parser.parse_args()
    size = args.megabytes * 10**6
    listener = serve(size)
    port = listener.getsockname()[1]
    best: dict[str, dict] = {}
    try:
        with tempfile.TemporaryDirectory() as scratch:
            for repeat in range(args.repeats):
                for network in ("host", "isolated"):  # alternated, so that the load hits both alike
                    timing = judge_once(args.root, Path(scratch), f"{network}{repeat}", network, port,
                                        args.round_trips, size)
                    kept = best.setdefault(network, timing)
                    kept["round_trip_s"] = min(kept["round_trip_s"], timing["round_trip_s"])
                    kept["bulk_s"] = min(kept["bulk_s"], timing["bulk_s"])
    finally:
        listener.close()
    host, isolated = best["host"], best["isolated"]
    rows = {network: {"round_trip_ms": round(t["round_trip_s"] * 1000, 3),
                      "bulk_mb_per_s": round(args.megabytes / t["bulk_s"], 1)} for network, t in best.items()}
    print(json.dumps({
        "round_trips": args.round_trips, "megabytes": args.megabytes, "runs": rows,
        "round_trip_vs_host": round(isolated["round_trip_s"] / host["round_trip_s"], 2),
        "throughput_vs_host": round(host["bulk_s"] / isolated["bulk_s"], 2),
    }, indent=2))


if __name__ == "__main__":
    main()
