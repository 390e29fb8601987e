"""Cost of the stat fingerprint that keys the Arrow cache, on the ``full`` sample.

``load_dataset`` keys its Arrow cache by, among others,
``agenthorizon.release.files.stat_fingerprint``: one ``os.stat`` (size and
mtime_ns) of every trajectory json, Markdown and screenshot folder the build
of a config reads, so a file changed in place never serves a stale cache.
Every load pays for it, cached or not. Measured in the same run, best of
``--repeats``:

- the fingerprint of config ``all`` (1,373 items: 4,119 stats);
- a warm ``load_dataset`` of ``all`` (the cache exists, so the fingerprint is
  part of it): what a user waits for on every load;
- reading and json-parsing every file the builder reads (the baseline of the
  loading benchmark): what a cache build costs at least.

    .venv/bin/agenthorizon sample /tmp/ah-full-noimg --preset full --no-images
    .venv/bin/python benchmarks/bench_fingerprint.py --root /tmp/ah-full-noimg
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import warnings
from pathlib import Path

import agenthorizon
from agenthorizon.release.files import load_references, stat_fingerprint
from agenthorizon.schema import json_relpath, markdown_relpath


def best(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="a release root (the full preset)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows = load_references(args.root, "all")
    cache = Path(tempfile.mkdtemp(prefix="agenthorizon-bench-fingerprint-"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agenthorizon.load_dataset(args.root, "all", split="test", cache_dir=cache, images="paths")  # build once

        def warm_load() -> None:
            agenthorizon.load_dataset(args.root, "all", split="test", cache_dir=cache, images="paths")

        def parse_all() -> None:
            for row in rows:
                json.loads((args.root / json_relpath(row["trajectory_id"])).read_bytes())
                path = args.root / markdown_relpath(row["trajectory_id"])
                if path.exists():
                    path.read_text(encoding="utf-8")

        fingerprint = best(lambda: stat_fingerprint(args.root, rows), args.repeats)
        warm = best(warm_load, args.repeats)
        parse = best(parse_all, args.repeats)
    print(f"items {len(rows)}, files and folders stat'ed {3 * len(rows)}")
    print(f"stat fingerprint of all:       {fingerprint * 1000:8.1f} ms")
    print(f"warm load_dataset of all:      {warm * 1000:8.1f} ms  (fingerprint = {fingerprint / warm:.1%} of it)")
    print(f"read + parse every build file: {parse * 1000:8.1f} ms  (fingerprint = {fingerprint / parse:.1%} of it)")


if __name__ == "__main__":
    main()
