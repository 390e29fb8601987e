"""Cost of the stat fingerprint and the code hash that key the Arrow cache, on the ``full`` sample.

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
  loading benchmark): what a cache build costs at least;
- the builder's code hash from cold (its per-process caches cleared): the
  package modules the builder imports, found from their import statements
  (``agenthorizon.data.builder.code_modules()``) and hashed, once per
  process, on its first load; and the same files hashed without the scan,
  what a hand-kept list of them cost.

    .venv/bin/agenthorizon sample /tmp/ah-full-noimg --preset full --no-images
    .venv/bin/python benchmarks/bench_fingerprint.py --root /tmp/ah-full-noimg
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
import warnings
from pathlib import Path

import agenthorizon
from agenthorizon.data import builder, code_identity
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

        def cold_code_hash() -> None:
            code_identity._module_file.cache_clear()
            builder.code_modules.cache_clear()
            builder._code_hash.cache_clear()
            builder._code_hash()

        def listed_code_hash() -> None:
            digest = hashlib.sha256()
            for path in builder.code_modules():
                digest.update(path.read_bytes())

        fingerprint = best(lambda: stat_fingerprint(args.root, rows), args.repeats)
        warm = best(warm_load, args.repeats)
        parse = best(parse_all, args.repeats)
        code_hash = best(cold_code_hash, args.repeats)
        listed = best(listed_code_hash, args.repeats)
    print(f"items {len(rows)}, files and folders stat'ed {3 * len(rows)}")
    print(f"stat fingerprint of all:       {fingerprint * 1000:8.1f} ms")
    print(f"warm load_dataset of all:      {warm * 1000:8.1f} ms  (fingerprint = {fingerprint / warm:.1%} of it)")
    print(f"read + parse every build file: {parse * 1000:8.1f} ms  (fingerprint = {fingerprint / parse:.1%} of it)")
    print(f"code hash of {len(builder.code_modules())} modules, cold: {code_hash * 1000:8.1f} ms  "
          f"({code_hash / warm:.1%} of a warm load, once per process)")
    print(f"same files hashed, no scan:    {listed * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
