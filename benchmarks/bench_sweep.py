"""``sweep plan`` and ``sweep collect`` against their baselines, measured in the same run.

plan: the grid of 66 judges x 3 configs (AH, AH-S, all) x 16 shards = 3,168
cells, as ``agenthorizon sweep plan`` builds and prints it (sweep file read and
checked by the judge parser, label files read, a judge key per judge, every
cell), against the same plan of 33 judges (1,584 cells; linear: ratio 2) and
of 17 judges (816 cells), in-process, best of ``--repeats``; and the command
itself in a fresh interpreter, wall time.

collect: ``sweep collect``'s library call (the merge rules and the
leaderboard) over 66 judges x AH and AH-S x 2 shards (1,373 results per
judge), against its floor: opening, reading and ``json.loads`` of those
result files, and nothing else. The runs are made first with the real runner
(``random:SEED`` judges, 66 keys), outside the timing.

    .venv/bin/python benchmarks/bench_sweep.py --root /tmp/ah-full
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _sweep(folder: Path, root: str, judges: int, configs: str, shards: int) -> Path:
    tables = []
    for index in range(judges):
        kind = index % 3
        if kind == 0:
            tables.append(f'[[judge]]\nspec = "random:{index}"\n')
        elif kind == 1:
            tables.append(f'[[judge]]\nspec = "openai:model-{index}"\n'
                          f'options = {{ base-url = "http://127.0.0.1:{{port}}/v1", temperature = 0.{index % 10} }}\n'
                          f'server = "vllm serve model-{index} --port {{port}}"\n')
        else:
            tables.append(f'[[judge]]\nspec = "constant:{"true" if index % 2 else "false"}"\nname = "constant-{index}"\n')
    path = folder / f"sweep-{judges}.toml"
    path.write_text(f'data = "{root}"\nout = "runs"\nconfigs = {configs}\nshards = {shards}\n' + "".join(tables))
    return path


def _plan_seconds(path: Path, repeats: int) -> tuple[float, int]:
    from agenthorizon.cli.sweep import _grid
    from agenthorizon.sweeps.grid import describe_plan

    best, cells = float("inf"), 0
    for _ in range(repeats):
        started = time.perf_counter()
        grid, _, _ = _grid(str(path))
        describe_plan(grid)
        best = min(best, time.perf_counter() - started)
        cells = len(grid.cells)
    return best, cells


def _plan(root: str, work: Path, repeats: int) -> None:
    _plan_seconds(_sweep(work, root, 3, '["AH"]', 1), 1)  # warm-up: imports, page cache
    rows = []
    for judges in (17, 33, 66):
        rows.append((judges, *_plan_seconds(_sweep(work, root, judges, '["AH", "AH-S", "all"]', 16), repeats)))
    base = rows[0][1]
    print("| judges | cells | plan (s) | vs. 17 judges |\n|---:|---:|---:|---:|")
    for judges, seconds, cells in rows:
        print(f"| {judges} | {cells} | {seconds:.3f} | {seconds / base:.2f} |")
    env = {**os.environ, "TQDM_DISABLE": "1"}
    command = [sys.executable, "-m", "agenthorizon", "sweep", "plan", str(work / "sweep-66.toml")]
    startup = [sys.executable, "-m", "agenthorizon", "sweep", "plan", "--help"]
    subprocess.run(command, capture_output=True, env=env, check=True)  # warm-up: bytecode, page cache
    best_plan = best_startup = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(startup, capture_output=True, env=env, check=True)
        best_startup = min(best_startup, time.perf_counter() - started)
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, env=env, check=True)
        best_plan = min(best_plan, time.perf_counter() - started)
    print("\n| fresh interpreter | seconds | vs. `--help` |\n|---|---:|---:|")
    print(f"| `agenthorizon sweep plan --help` | {best_startup:.2f} | 1.00 |")
    print(f"| `agenthorizon sweep plan` (3,168 cells) | {best_plan:.2f} | {best_plan / best_startup:.2f} |")


def _collect(root: str, work: Path, repeats: int) -> None:
    from agenthorizon.cli.sweep import _grid
    from agenthorizon.judging.runs.folder import is_result_name
    from agenthorizon.sweeps.collect import collect

    path = work / "collect.toml"
    path.write_text(f'data = "{root}"\nout = "collect-runs"\nconfigs = ["AH", "AH-S"]\nshards = 2\n'
                    + "".join(f'[[judge]]\nspec = "random:{seed}"\n' for seed in range(66)))
    grid, items, command = _grid(str(path))
    with contextlib.redirect_stdout(io.StringIO()):
        for cell in grid.cells:
            if not (cell.folder / f"run-shard-{cell.shard[0]}-of-{cell.shard[1]}.json").exists():
                from agenthorizon.sweeps.cell_run import run_cell

                run_cell(cell, items[cell.config], command.run)
    files = [p for cell_folder in {c.folder for c in grid.cells} for p in cell_folder.iterdir() if is_result_name(p)]
    assert len(files) == 66 * sum(len(found.ids) for found in items.values()), len(files)

    def floor() -> None:
        for file in files:
            with open(file, encoding="utf-8") as handle:
                json.loads(handle.read())

    from agenthorizon.judging.runs.folder import read_results
    from agenthorizon.sweeps.collect import check_shards

    folders = list(dict.fromkeys(cell.folder for cell in grid.cells))
    steps = {
        "floor: open, read, json.loads": floor,
        "the merge rules alone (check_shards)": lambda: check_shards(grid, items),
        "the runs' typed reader alone (read_results per judge)":
            lambda: [read_results(folders[index:index + 2]) for index in range(0, len(folders), 2)],
        "sweep collect (merge rules + leaderboard)": lambda: collect(grid, items),
    }
    best = {name: float("inf") for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            started = time.perf_counter()
            step()
            best[name] = min(best[name], time.perf_counter() - started)
    floor_s = best["floor: open, read, json.loads"]
    print(f"\n| 66 judges x 1,373 results ({len(files)} files) | seconds | vs. floor |\n|---|---:|---:|")
    for name, seconds in best.items():
        print(f"| {name} | {seconds:.2f} | {seconds / floor_s:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", required=True, help="a release root (the full sample: 1,373 items)")
    parser.add_argument("--work", help="folder for the sweep files and runs (default: a new temporary folder)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=("plan", "collect"))
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="bench-sweep-"))
    work.mkdir(parents=True, exist_ok=True)
    root = str(Path(args.root).resolve())
    if args.only != "collect":
        _plan(root, work, args.repeats)
    if args.only != "plan":
        _collect(root, work, args.repeats)


if __name__ == "__main__":
    main()
