"""Column and row reads on a dataset from the default ``load_dataset`` (lazy screenshots).

Every read is timed on three views of the same Arrow cache, in one process,
alternating, best of ``--repeats``:

* ``lazy``: what ``agenthorizon.load_dataset(..., images="lazy")`` returns (the
  ``"agenthorizon"`` format: rows are ``datasets``' Python rows with
  ``screenshots`` as ``LazyScreenshots``);
* ``plain``: the same dataset with no format at all (``with_format(None)``:
  screenshots come back as ``{"bytes", "path"}`` dicts): the peer, "what the
  read costs without laziness";
* ``transform``: the previous way, ``set_transform(lazy_screenshots_transform)``,
  for the before/after comparison.

and the file-parse floor: reading the config's label file(s) and json-parsing
every trajectory json (what a reader of the release files pays at least).

Reads of a few milliseconds are looped (each timing spans about 0.1 s).
Reads: ``list(ds["label"])``; ``ds.filter`` on the label (a row function, and
with ``input_columns="label"``); the reads ``run_judge`` makes (a list of each
label column, ``select_columns(...).to_list()`` of them, and ``ds[i]`` for every
item); iterating the rows touching only ``label`` and ``num_steps``.

    .venv/bin/python benchmarks/bench_lazy_reads.py --root /tmp/ah-full --config AH --repeats 3
"""

from __future__ import annotations

import argparse
import gc
import json
import tempfile
import time
from pathlib import Path

from agenthorizon.schema import CONFIG_AH_S, LABEL_FIELDS, LABEL_FILES, json_relpath


def _best(function, repeats: int, loops: int = 1) -> float:
    """Best over ``repeats`` of the mean time of ``loops`` back-to-back calls."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        started = time.perf_counter()
        for _ in range(loops):
            function()
        best = min(best, (time.perf_counter() - started) / loops)
    return best


def file_parse(root: Path, config: str) -> None:
    """Read the config's label file(s) and json-parse every trajectory json: the floor."""
    names = LABEL_FILES if config == "all" else [LABEL_FILES[1] if config == CONFIG_AH_S else LABEL_FILES[0]]
    for name in names:
        for line in (root / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                json.loads((root / json_relpath(json.loads(line)["trajectory_id"])).read_bytes())


def reads(ds) -> dict:
    """The timed reads, as functions of nothing."""

    def column():
        return list(ds["label"])

    def filter_row():
        return ds.filter(lambda row: row["label"] == "positive", keep_in_memory=True)

    def filter_column():
        return ds.filter(lambda label: label == "positive", input_columns="label", keep_in_memory=True)

    def runner_reads():
        names = [name for name in ("trajectory_id", *LABEL_FIELDS, "pair_group_id") if name in ds.column_names]
        for name in names:
            list(ds[name])
        ds.select_columns(names).to_list()
        for index in range(len(ds)):
            ds[index]

    def iterate_rows():
        total = 0
        for row in ds:
            total += row["num_steps"] + (row["label"] == "positive")
        return total

    return {
        'list(ds["label"])': column,
        "ds.filter(row function on label)": filter_row,
        'ds.filter(input_columns="label")': filter_column,
        "run_judge's reads (columns + ds[i] for all i)": runner_reads,
        "iterate rows, touch label + num_steps": iterate_rows,
    }


def lazy_screenshots_transform(batch: dict) -> dict:
    """The previous way (a ``set_transform``), kept here only as this benchmark's baseline.

    ``datasets`` calls a transform on whole rows, so even a one-column read
    goes through it; that is what the registered ``"agenthorizon"`` format fixed.
    """
    from agenthorizon.data.screenshots import LazyScreenshots

    column = batch.get("screenshots")
    if column is not None:
        batch["screenshots"] = [
            None if shots is None else LazyScreenshots(None if s is None else s["path"] for s in shots)
            for shots in column
        ]
    return batch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", required=True, help="a release root, e.g. `agenthorizon sample DIR --preset full`")
    parser.add_argument("--config", default="AH")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cache-dir", default=str(Path(tempfile.gettempdir()) / "agenthorizon-bench-lazy"))
    args = parser.parse_args()

    import datasets

    from agenthorizon.data.load import load_dataset
    from agenthorizon.data.screenshots import LazyScreenshots

    datasets.disable_progress_bars()
    root = Path(args.root)
    lazy = load_dataset(str(root), args.config, split="test", cache_dir=args.cache_dir)
    assert isinstance(lazy[0]["screenshots"], LazyScreenshots)
    plain = lazy.with_format(None)
    transform = lazy.with_format(None)
    transform.set_transform(lazy_screenshots_transform)
    views = {"lazy": lazy, "plain": plain, "transform": transform}
    per_view = {name: reads(ds) for name, ds in views.items()}

    floor = min(_best(lambda: file_parse(root, args.config), 1) for _ in range(args.repeats))
    times: dict[str, dict[str, float]] = {op: {} for op in per_view["lazy"]}
    for op in times:
        for name in views:  # warm-up: page cache, first-call imports
            per_view[name][op]()
        # reads of a few milliseconds are looped so that each timing spans about 0.1 s
        loops = max(1, min(50, round(0.1 / max(_best(per_view["plain"][op], 1), 1e-4))))
        for _ in range(args.repeats):  # alternate the views so that load hits them alike
            for name in views:
                seconds = _best(per_view[name][op], 1, loops if name != "transform" else 1)
                times[op][name] = min(times[op].get(name, float("inf")), seconds)
    floor = min(floor, _best(lambda: file_parse(root, args.config), args.repeats))

    print(f"config {args.config}: {len(lazy)} items, {sum(lazy['num_steps'])} steps; best of {args.repeats}")
    print(f"file-parse floor (label file + every trajectory json): {floor:.3f} s")
    print(f"{'read':48s} {'lazy':>8s} {'plain':>8s} {'transform':>9s}  lazy/plain  lazy/floor  transform/plain")
    for op, by_view in times.items():
        print(
            f"{op:48s} {by_view['lazy']:8.3f} {by_view['plain']:8.3f} {by_view['transform']:9.3f}  "
            f"{by_view['lazy'] / by_view['plain']:10.2f}  {by_view['lazy'] / floor:10.2f}  "
            f"{by_view['transform'] / by_view['plain']:15.2f}"
        )


if __name__ == "__main__":
    main()
