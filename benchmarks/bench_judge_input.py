"""``build_judge_input`` on real rows, per item, against floors measured in the same run.

The runner builds one blind input per item on its event loop, so its cost per
item bounds how fast a run can go when the judge is fast. Measured on the rows
a user passes: ``agenthorizon.load_dataset(root, config, split="test")`` with its
default lazy screenshots (``--root``: e.g. the ``full`` sample preset), all rows
read first and held (their objects frozen out of the garbage collector, as
the runner holds one row at a time), then, alternating, best of ``--repeats``:

* ``build_judge_input(row)`` for every row (what the runner calls);
* the floor: a plain copy of what an input is made of, without any checking,
  filtering or decoding: the row dict and each of its step records copied
  (``{**row, "steps": list(map(dict, row["steps"]))}``);
* a second floor, the work no blind input can skip: the same copy, plus
  decoding every step's parameters (one ``json.loads`` of them joined as a
  JSON array) and one ``str.replace`` of the steps-id folder in the Markdown;
* for context, reading the row itself (``ds[i]``), which the runner also pays.

Reading ``JudgeInput.steps`` (assembled on first access) is printed apart, and
so is ``build_judge_input`` on the same items' blind rows
(``load_dataset(..., blind=True)``: no hidden fields, image references
already re-pointed).

    .venv/bin/agenthorizon sample /tmp/ah-full --preset full --image-size 160x100
    .venv/bin/python benchmarks/bench_judge_input.py --root /tmp/ah-full --repeats 7
"""

from __future__ import annotations

import argparse
import gc
import json
import tempfile
import time
from pathlib import Path

TARGET_MS = 0.2


def _per_item(function, items) -> float:
    """Seconds per item of ``function`` over ``items`` (results dropped as they come)."""
    started = time.perf_counter()
    for item in items:
        function(item)
    return (time.perf_counter() - started) / len(items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", required=True, help="a release root, e.g. `agenthorizon sample DIR --preset full`")
    parser.add_argument("--config", default="all")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--cache-dir", default=str(Path(tempfile.gettempdir()) / "agenthorizon-bench-lazy"))
    args = parser.parse_args()

    import datasets

    from agenthorizon.data.load import load_dataset
    from agenthorizon.judging.inputs import build_judge_input
    from agenthorizon.schema import HIDDEN_FIELDS

    datasets.disable_progress_bars()
    ds = load_dataset(args.root, args.config, split="test", cache_dir=args.cache_dir)
    rows = list(ds)
    blind_rows = list(load_dataset(args.root, args.config, split="test", cache_dir=args.cache_dir, blind=True))
    indices = range(len(ds))
    for judge_input in map(build_judge_input, rows[:20]):  # warm-up, and what is measured is a blind input
        assert not any(hasattr(judge_input, name) for name in HIDDEN_FIELDS)
    gc.collect()
    gc.freeze()  # 1,373 held rows are ~2 million objects a full collection would walk

    def floor(row) -> dict:
        return {**row, "steps": list(map(dict, row["steps"]))}

    def required_work(row) -> tuple:
        copied = floor(row)
        parameters = json.loads("[" + ",".join(step["parameters"] for step in copied["steps"]) + "]")
        markdown = row["markdown"].replace(f"images/{row['steps_id']}/", f"images/{row['trajectory_id']}/")
        return copied, parameters, markdown

    def steps(judge_input) -> None:
        judge_input.__dict__.pop("steps", None)  # the cached_property: assemble again
        judge_input.steps

    inputs = [build_judge_input(row) for row in rows]
    best = dict.fromkeys(("build", "floor", "work", "read", "steps", "blind"), float("inf"))
    for _ in range(args.repeats):  # alternate, so that load from other jobs hits each alike
        best["floor"] = min(best["floor"], _per_item(floor, rows))
        best["work"] = min(best["work"], _per_item(required_work, rows))
        best["build"] = min(best["build"], _per_item(build_judge_input, rows))
        best["read"] = min(best["read"], _per_item(ds.__getitem__, indices))
        best["steps"] = min(best["steps"], _per_item(steps, inputs))
        best["blind"] = min(best["blind"], _per_item(build_judge_input, blind_rows))
    gc.unfreeze()

    steps_total = sum(ds.data.table.column("num_steps").to_pylist())
    print(f"config {args.config} of {args.root}: {len(rows)} rows, {steps_total} steps; best of {args.repeats}")
    print(f"floor (copy of the row and its step records):   {1000 * best['floor']:.3f} ms per item")
    print(
        f"build_judge_input:                               {1000 * best['build']:.3f} ms per item  "
        f"ratio {best['build'] / best['floor']:.2f}  (target < {TARGET_MS} ms: "
        f"{'met' if 1000 * best['build'] < TARGET_MS else 'missed'})"
    )
    print(
        f"floor 2 (copy + parameters decoded + Markdown re-pointed): {1000 * best['work']:.3f} ms per item; "
        f"build_judge_input / floor 2: {best['build'] / best['work']:.2f}"
    )
    print(f"JudgeInput.steps, assembled on first access:    {1000 * best['steps']:.3f} ms per item more")
    print(f"build_judge_input of the blind rows:             {1000 * best['blind']:.3f} ms per item")
    print(f"reading the row (ds[i]), for context:           {1000 * best['read']:.3f} ms per item")


if __name__ == "__main__":
    main()
