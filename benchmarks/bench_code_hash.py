"""Cost of the builder's code hash, derived from its imports, against a warm load.

The Arrow cache's code hash covers ``agenthorizon.data.builder.code_modules()``:
the builder and every package module it imports, transitively, found by
scanning their import statements. It is computed once per process, on the
first ``load_dataset``. Measured in the same run, best of ``--repeats``:

- the scan and hash, from cold (its per-process caches cleared);
- hashing the same files without the scan: what a hand-kept list of the
  modules cost;
- a warm ``load_dataset`` of ``all`` (the cache exists): what a user waits
  for on every load.

    .venv/bin/agenthorizon sample /tmp/ah-full-noimg --preset full --no-images
    .venv/bin/python benchmarks/bench_code_hash.py --root /tmp/ah-full-noimg
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
import warnings
from pathlib import Path

import agenthorizon
from agenthorizon.data import builder, code_identity


def best(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="a release root")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="agenthorizon-bench-code-hash-"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agenthorizon.load_dataset(args.root, "all", split="test", cache_dir=cache, images="paths")  # build once

        def warm_load() -> None:
            agenthorizon.load_dataset(args.root, "all", split="test", cache_dir=cache, images="paths")

        def cold_hash() -> None:
            code_identity._module_file.cache_clear()
            builder.code_modules.cache_clear()
            builder._code_hash.cache_clear()
            builder._code_hash()

        files = builder.code_modules()

        def listed_hash() -> None:
            digest = hashlib.sha256()
            for path in files:
                digest.update(path.read_bytes())

        hashed = best(cold_hash, args.repeats)
        listed = best(listed_hash, args.repeats)
        load = best(warm_load, args.repeats)
    print(f"modules hashed:                 {len(builder.code_modules())}")
    print(f"code hash from cold (per process): {1000 * hashed:7.1f} ms")
    print(f"same files hashed, no scan:        {1000 * listed:7.1f} ms")
    print(f"warm load_dataset of all:          {1000 * load:7.1f} ms")
    print(f"ratio:                             {hashed / load:7.1%} of a warm load, once per process")


if __name__ == "__main__":
    main()
