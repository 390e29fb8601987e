"""``agenthorizon export`` against its floors, measured in the same run.

* ``--images none``: ``export_release`` of the chosen configs against the
  floor of writing the same rows with ``pyarrow.parquet``: each config's
  builder table without its ``screenshots`` column (already loaded, the cache
  built beforehand for both) written with one ``pq.write_table``.
* ``--images thumbnails``: against decoding each distinct screenshot once: one
  thumbnail (``prepare_images``, the same size and JPEG settings, no cache) of
  every distinct screenshot file the chosen configs refer to.

The datasets cache is built before timing (both the export and the floor read
it). Export and floor alternate, best of ``--repeats``.

    .venv/bin/python benchmarks/bench_export.py --root /tmp/ah-full --images none
    .venv/bin/python benchmarks/bench_export.py --root /tmp/ah-small-1080p --images thumbnails --repeats 1
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from agenthorizon.schema import CONFIG_NAMES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--images", choices=["none", "thumbnails"], default="none")
    parser.add_argument("--configs", nargs="+", default=list(CONFIG_NAMES))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import datasets
    import pyarrow.parquet as pq

    from agenthorizon.data.export import export_release
    from agenthorizon.data.images import DEFAULT_SIZE, prepare_images
    from agenthorizon.data.load import load_dataset

    datasets.disable_progress_bars()
    tables = {config: load_dataset(args.root, config, split="test", images="paths") for config in args.configs}
    work = Path(tempfile.mkdtemp(prefix="bench-export-"))

    def export() -> None:
        out = work / f"out-{time.time_ns()}"
        try:
            export_release(args.root, out, configs=args.configs, images=args.images)
        finally:
            shutil.rmtree(out, ignore_errors=True)

    if args.images == "none":
        floor_name = "pyarrow.parquet write of the same rows"

        def floor() -> None:
            out = work / f"floor-{time.time_ns()}"
            out.mkdir()
            try:
                for config, dataset in tables.items():
                    table = dataset.data.table
                    pq.write_table(table.drop_columns(["screenshots"]), out / f"{config}.parquet")
            finally:
                shutil.rmtree(out, ignore_errors=True)
    else:
        distinct = sorted({p for ds in tables.values() for shots in ds["screenshots"] for p in shots if p is not None})
        floor_name = f"one thumbnail of each of the {len(distinct)} distinct screenshots"

        def floor() -> None:
            prepare_images(distinct, mode="per-step", size=DEFAULT_SIZE, format="jpeg", use_cache=False)

    export()  # warm-up: imports, page cache
    best_export = best_floor = float("inf")
    for _ in range(args.repeats):
        started = time.perf_counter()
        floor()
        best_floor = min(best_floor, time.perf_counter() - started)
        started = time.perf_counter()
        export()
        best_export = min(best_export, time.perf_counter() - started)
    shutil.rmtree(work, ignore_errors=True)
    rows = sum(len(ds) for ds in tables.values())
    print(f"configs {' '.join(args.configs)} of {args.root}: {rows} rows; --images {args.images}; best of {args.repeats}")
    print(f"floor ({floor_name}): {best_floor:.2f} s")
    print(f"export_release:   {best_export:.2f} s  ratio {best_export / best_floor:.2f}")


if __name__ == "__main__":
    main()
