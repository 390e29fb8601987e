"""How long the sample corpus takes to generate, against the cost of just writing its files.

For each preset, the generation time is compared with a baseline measured in
the same run: writing the very same bytes (read back into memory first) to the
same number of files in a fresh directory. The ratio is how much drawing,
encoding, rendering and planning add on top of the file system's floor.
It also reports the speed-up of drawing screenshots in worker processes.

    .venv/bin/python benchmarks/bench_sample.py            # tiny, small, full without images
    .venv/bin/python benchmarks/bench_sample.py --full     # also full with 320x200 screenshots (minutes)
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from agenthorizon.release.sample import generate


def _disk_usage(root: Path) -> int:
    return sum(os.stat(path).st_blocks * 512 for path in root.rglob("*") if path.is_file())


def _raw_write(root: Path, target: Path) -> tuple[float, int]:
    files = [(path.relative_to(root), path.read_bytes()) for path in root.rglob("*") if path.is_file()]
    started = time.perf_counter()
    for relative, data in files:
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return time.perf_counter() - started, len(files)


def _case(work: Path, label: str, preset: str, **options) -> None:
    root = work / f"{label}-gen"
    started = time.perf_counter()
    summary = generate(root, preset=preset, **options)
    generation = time.perf_counter() - started
    baseline, n_files = _raw_write(root, work / f"{label}-raw")
    usage = _disk_usage(root)
    print(
        f"| {label} | {n_files:,} | {summary.n_images:,} | {usage / 2**20:,.0f} MiB | "
        f"{generation:.2f} s | {baseline:.2f} s | {generation / baseline:.1f} |"
    )
    shutil.rmtree(root)
    shutil.rmtree(work / f"{label}-raw")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also generate full with screenshots")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-sample-") as directory:
        work = Path(directory)
        print("| corpus | files | screenshots | disk | generate | write same bytes | ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        _case(work, "tiny", "tiny")
        _case(work, "small, 1 worker", "small", workers=1)
        _case(work, "small, 2 workers", "small", workers=2)
        _case(work, "full, images=False", "full", images=False)
        if args.full:
            _case(work, "full, 320x200, 2 workers", "full", workers=2)


if __name__ == "__main__":
    main()
