"""What the output cap saves: the harness's peak memory and the result's size when an agent prints a lot.

An agent (a Python script run as ``command:``) prints ``--megabytes`` MB and
then its verdict. ``agenthorizon judge`` judges one item with it, in a child
process that reports its own peak resident memory (``ru_maxrss``; the agent is
another process), under each ``--max-output-bytes`` setting in the same run: a
quiet agent (1 KB) for the baseline, the default cap (16 MiB), a 4 MiB cap,
and a cap above the output, which keeps everything as the harness did before
the cap. The ratios to the last are the claim.

    .venv/bin/agenthorizon sample /tmp/ah-tiny --preset tiny
    .venv/bin/python benchmarks/bench_agent_output.py --root /tmp/ah-tiny
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

LOUD = r"""
import json, os, sys
left = int(os.environ["AH_LOUD_BYTES"])
line = b"x" * 1023 + b"\n"
while left > 0:
    sys.stdout.buffer.write(line[:left])
    left -= len(line)
sys.stdout.buffer.write(b"\n" + json.dumps({"success": False, "reasoning": "at the end"}).encode() + b"\n")
"""
MEASURED = (
    "import resource, runpy, sys\n"
    "sys.argv = ['agenthorizon', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('agenthorizon', run_name='__main__')\n"
    "finally:\n"
    "    print('PEAK_KIB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
)


def judge_once(root: Path, scratch: Path, name: str, size: int, cap: str) -> tuple[dict, float, int]:
    """One item whose agent prints ``size`` bytes, judged with ``--max-output-bytes cap``: its result file
    (as JSON), the harness's peak RSS (MiB) and the result file's size (bytes)."""
    script = scratch / "loud.py"
    script.write_text(LOUD)
    out = scratch / name
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, "judge", "--data", str(root), "--config", "AH", "--judge",
         f"command:{sys.executable} {script}", "--out", str(out), "--limit", "1", "--no-progress", "--bootstrap", "0",
         "--max-output-bytes", cap, "--env", "AH_LOUD_BYTES"],
        capture_output=True, text=True, env={**os.environ, "AH_LOUD_BYTES": str(size)}, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{name}: agenthorizon judge failed: {done.stderr[-1000:]}")
    peak = int(done.stderr.split("PEAK_KIB")[-1].split()[0]) / 1024
    (result,) = [p for p in out.glob("*.json") if p.name != "run.json"]
    return json.loads(result.read_text()), peak, result.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="a sample release (agenthorizon sample)")
    parser.add_argument("--megabytes", type=int, default=50, help="what the loud agent prints (default 50)")
    args = parser.parse_args()
    size = args.megabytes * 10**6
    runs = {"quiet (1 KB)": (1000, "16M"), "cap 16 MiB (default)": (size, "16M"), "cap 4 MiB": (size, "4M"),
            "no effective cap": (size, str(2 * size))}
    with tempfile.TemporaryDirectory() as scratch:
        measured = {name: judge_once(args.root, Path(scratch), f"run{i}", *setting)
                    for i, (name, setting) in enumerate(runs.items())}
    _, whole_peak, whole_size = measured["no effective cap"]
    rows = {name: {"peak_mib": round(peak, 1), "result_bytes": size, "peak_vs_uncapped": round(peak / whole_peak, 2),
                   "result_vs_uncapped": round(size / whole_size, 3)} for name, (_, peak, size) in measured.items()}
    print(json.dumps({"agent_output_mb": args.megabytes, "runs": rows}, indent=2))


if __name__ == "__main__":
    main()
