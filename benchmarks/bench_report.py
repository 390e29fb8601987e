"""``agenthorizon report`` of one run against its floor, measured in the same run.

The report is the command a user runs (a fresh interpreter: imports,
loading the run and the rows, scoring, thumbnails, the page). Its **floor**
is a plain script, also a fresh interpreter, doing only what the page cannot
do without: decode each distinct screenshot the page shows once (the first,
middle and last of every item, as the report picks them), downscale it to
the report's thumbnail box, encode it as JPEG at the report's quality,
base64 it, and write one page holding them, in one thread, with Pillow
alone. The list of files is computed before timing (the report computes it
too, inside its time). Report and floor alternate, best of ``--repeats``.

    .venv/bin/python benchmarks/bench_report.py --run /tmp/runs/lexical-all --root /tmp/ah-full
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLOOR = """
import base64, io, json, sys
from PIL import Image
paths, box, quality, out = json.load(open(sys.argv[1]))
parts = []
for path in paths:
    with Image.open(path) as image:
        image = image.convert("RGB")
    image.thumbnail(tuple(box), Image.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    parts.append('<img src="data:image/jpeg;base64,' + base64.b64encode(buffer.getvalue()).decode("ascii") + '">')
open(out, "w").write("<html><body>" + "".join(parts) + "</body></html>")
"""


def _timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    completed = subprocess.run(argv, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed:\n{completed.stderr[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, help="a run folder (judge --config all on the full corpus)")
    parser.add_argument("--root", required=True)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from agenthorizon.report.items import _picks
    from agenthorizon.report.options import ReportOptions
    from agenthorizon.report.html import REPORT_FIELDS
    from agenthorizon.report.runs import load_runs

    options = ReportOptions()
    run_set = load_runs([args.run], args.root, fields=REPORT_FIELDS)
    picks = [path for row in run_set.rows for _, path in _picks(row, options)]
    distinct = list(dict.fromkeys(picks))
    work = Path(tempfile.mkdtemp(prefix="bench-report-"))
    spec = work / "floor.json"
    spec.write_text(json.dumps([distinct, list(options.thumbnail_size), options.thumbnail_quality, str(work / "floor.html")]))
    # As a user's interpreter runs: bytecode cached (a warm-up writes it), no progress bars.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["TQDM_DISABLE"] = "1"
    report = [sys.executable, "-m", "agenthorizon", "report", args.run, "--data", args.root,
              "--out", str(work / "report.html"), "--bootstrap", "0"]
    floor = [sys.executable, "-c", FLOOR, str(spec)]
    _timed(report, env)  # warm-up: page cache, the datasets cache of the config
    best_report = best_floor = float("inf")
    for _ in range(args.repeats):
        best_floor = min(best_floor, _timed(floor, env))
        best_report = min(best_report, _timed(report, env))
    load = os.getloadavg()[0]
    print(f"{len(run_set.rows)} items, {len(picks)} thumbnails, {len(distinct)} distinct screenshots; "
          f"{os.cpu_count()} CPUs, load {load:.1f}; best of {args.repeats}")
    print(f"floor (decode each distinct screenshot once, thumbnail, write the page; one thread): {best_floor:.2f} s")
    print(f"agenthorizon report: {best_report:.2f} s  ratio {best_report / best_floor:.2f}")
    for name in ("report.html", "floor.html", "floor.json"):
        (work / name).unlink(missing_ok=True)
    work.rmdir()


if __name__ == "__main__":
    main()
