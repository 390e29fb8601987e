"""Start-up of the command line against its floors, measured in the same run.

* ``agenthorizon --help`` against a bare interpreter (``python -c pass``, the
  same virtual environment, so ``site`` costs both the same);
* ``agenthorizon score RUN --data ROOT`` of a finished run against a **plain
  script doing the same scoring**: read the config's label rows from the
  label file(s), read every result file of the run, and compute balanced,
  positive and negative accuracy with invalid answers counted wrong, as
  numpy arrays (the library the scorer computes with), printing the three
  numbers. The same script without numpy (``json`` and the standard library
  alone) is printed beside it for context. (The command also validates every
  record, hashes the label manifest, checks the items against the release,
  lists notes and renders its table.)

Every measurement is a fresh interpreter (``subprocess``), as a user's shell
runs it; the command and its floor alternate, best of ``--repeats``.

    .venv/bin/python benchmarks/bench_startup.py --run /tmp/runs/lexical-ah --root /tmp/ah-full
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

_READ_LABELS = """
import json, os, sys
run, root, files = sys.argv[1], sys.argv[2], sys.argv[3:]
ids, positive = [], []
for name in files:
    with open(os.path.join(root, name), encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                ids.append(row["trajectory_id"])
                positive.append(row["label"] == "positive")
def verdict(trajectory_id):
    try:
        with open(os.path.join(run, trajectory_id + ".json"), encoding="utf-8") as handle:
            result = json.load(handle)
    except (OSError, ValueError):
        return None
    success = (result.get("verdict") or {}).get("success") if result.get("parse_status") == "ok" else None
    return success if isinstance(success, bool) else None
"""

PLAIN_SCORE = _READ_LABELS + """
right = {True: 0, False: 0}
for trajectory_id, label in zip(ids, positive):
    if verdict(trajectory_id) == label:
        right[label] += 1
n_pos = sum(positive)
pos, neg = right[True] / n_pos, right[False] / (len(ids) - n_pos)
print(f"balanced {0.5 * (pos + neg):.4f} positive {pos:.4f} negative {neg:.4f}")
"""

PLAIN_SCORE_NUMPY = _READ_LABELS + """
import numpy as np
verdicts = [verdict(trajectory_id) for trajectory_id in ids]
valid = np.array([v is not None for v in verdicts])
predicted = np.array([bool(v) for v in verdicts])
positive = np.array(positive)
correct = valid & (predicted == positive)
pos, neg = correct[positive].mean(), correct[~positive].mean()
print(f"balanced {0.5 * (pos + neg):.4f} positive {pos:.4f} negative {neg:.4f}")
"""


def _best(argv: list[str], repeats: int, env: dict[str, str]) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        completed = subprocess.run(argv, capture_output=True, text=True, env=env)
        best = min(best, time.perf_counter() - started)
        if completed.returncode not in (0, 1):
            raise SystemExit(f"{argv[:4]} exited {completed.returncode}:\n{completed.stderr[-3000:]}")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, help="a finished run folder (one config)")
    parser.add_argument("--root", required=True, help="the release the run was made on")
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()

    from agenthorizon.judging.runs.folder import read_run_record
    from agenthorizon.schema import CONFIG_AH, CONFIG_AH_S, LABEL_FILES

    record = read_run_record(args.run)
    config = record.config
    if config not in (CONFIG_AH, CONFIG_AH_S, "all"):
        raise SystemExit(f"{args.run}: a run on AH, AH-S or all is needed (one or both label files), not {config}")
    files = {CONFIG_AH: LABEL_FILES[:1], CONFIG_AH_S: LABEL_FILES[1:], "all": LABEL_FILES}[config]
    # As a user's interpreter runs: bytecode cached (a warm-up writes it), no progress bars.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["TQDM_DISABLE"] = "1"
    python = sys.executable
    rows = [
        ("bare interpreter (python -c pass)", [python, "-c", "pass"]),
        ("agenthorizon --help", [python, "-m", "agenthorizon", "--help"]),
        ("plain scoring script (json, standard library)", [python, "-c", PLAIN_SCORE, args.run, args.root, *files]),
        ("plain scoring script (json, numpy)", [python, "-c", PLAIN_SCORE_NUMPY, args.run, args.root, *files]),
        (f"agenthorizon score (a finished {config} run)", [python, "-m", "agenthorizon", "score", args.run, "--data", args.root]),
    ]
    for _, argv in rows:
        _best(argv, 1, env)  # warm-up: page cache, .pyc files
    times = {name: float("inf") for name, _ in rows}
    for _ in range(args.repeats):  # alternate, so a burst of load hits every row alike
        for name, argv in rows:
            times[name] = min(times[name], _best(argv, 1, env))
    bare, help_, stdlib, plain, score = (times[name] for name, _ in rows)
    print(f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; best of {args.repeats}")
    print(f"{rows[0][0]}: {1000 * bare:.0f} ms")
    print(f"{rows[1][0]}: {1000 * help_:.0f} ms  ratio {help_ / bare:.2f} to the bare interpreter")
    print(f"{rows[2][0]}: {1000 * stdlib:.0f} ms")
    print(f"{rows[3][0]}: {1000 * plain:.0f} ms")
    print(f"{rows[4][0]}: {1000 * score:.0f} ms  ratio {score / plain:.2f} to the numpy script "
          f"({score / stdlib:.2f} to the standard-library one)")


if __name__ == "__main__":
    main()
