"""What confining every read to the release adds to building the Arrow table of ``all``.

A build reads each trajectory json and Markdown through
``agenthorizon.release.files.open_confined`` (the kernel says where the
opened file lies: one ``readlink`` of ``/proc/self/fd/N``) and checks each
trajectory's screenshot folder for links out of the release
(``escaping_screenshots``: the folder opened and listed once). This bench
builds the rows of config ``all`` with ``agenthorizon.data.table.build_table``
twice in the same run, alternating, best of ``--repeats``: as shipped, and with
both checks replaced by a plain ``open`` and no folder listing. The ratio is
the claim. It then reads every json and Markdown of ``all`` through
``open_regular`` (a ``stat``, an ``O_NONBLOCK`` open and an ``fstat``: the
regular-file check every release read makes) and through a plain ``open``,
alternating, best of ``--repeats``.

The corpus must hold its screenshot files (their content does not matter:
nothing is decoded), e.g. the ``full`` preset without images, then one empty
file per referenced screenshot:

    .venv/bin/agenthorizon sample /tmp/ah-full --preset full --no-images
    .venv/bin/python benchmarks/bench_confinement.py --root /tmp/ah-full --touch
"""

from __future__ import annotations

import argparse
import builtins
import json
import os
import time
from pathlib import Path

from agenthorizon.data import table
from agenthorizon.data.features import features
from agenthorizon.release import files
from agenthorizon.release.files import read_config_rows
from agenthorizon.release.item_selection import Selection
from agenthorizon.schema import json_relpath


def touch_screenshots(root: Path, rows: list[dict]) -> int:
    made = 0
    for row in rows:
        json_path = root / json_relpath(row["trajectory_id"])
        for step in json.loads(json_path.read_bytes())["steps"]:
            reference = step.get("screenshot")
            if reference:
                path = Path(os.path.normpath(json_path.parent / reference))
                if not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.touch()
                    made += 1
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--touch", action="store_true", help="first create an empty file for each referenced screenshot")
    args = parser.parse_args()
    items = read_config_rows(args.root, Selection("all")).rows
    if args.touch:
        print(f"created {touch_screenshots(args.root, items)} empty screenshot files")
    schema = features("lazy").arrow_schema

    def build() -> float:
        # As the builder does: 128 items a table, one folder-listing cache for the whole build.
        start = time.perf_counter()
        listings: dict = {}
        for offset in range(0, len(items), 128):
            table.build_table(str(args.root), items[offset : offset + 128], schema, folder_listings=listings)
        return time.perf_counter() - start

    shipped = {"open_confined": files.open_confined, "escaping_screenshots": table.escaping_screenshots}

    def unconfined_open(root, path, what, mode="rb", **kwargs):
        return builtins.open(path, mode, **kwargs)

    with_checks, without = [], []
    for _ in range(args.repeats):
        with_checks.append(build())
        files.open_confined = unconfined_open
        table.escaping_screenshots = lambda root, paths, listings=None: []
        try:
            without.append(build())
        finally:
            files.open_confined = shipped["open_confined"]
            table.escaping_screenshots = shipped["escaping_screenshots"]
    best_with, best_without = min(with_checks), min(without)
    print(f"items {len(items)}; best of {args.repeats}")
    print(f"build rows of all, confined:      {best_with:7.2f} s")
    print(f"build rows of all, no checks:     {best_without:7.2f} s")
    print(f"confinement adds {best_with / best_without - 1:+.1%}")
    regular_file_check(args.root, items, args.repeats)


def regular_file_check(root: Path, items: list[dict], repeats: int) -> None:
    """Reading every json and Markdown of ``items`` with ``open_regular`` (stat, O_NONBLOCK open, fstat) against ``open``."""
    from agenthorizon.release.confine import open_regular
    from agenthorizon.schema import markdown_relpath

    paths = [str(root / relpath(row["trajectory_id"])) for row in items for relpath in (json_relpath, markdown_relpath)]

    def read_all(opener) -> float:
        start = time.perf_counter()
        for path in paths:
            with opener(path) as handle:
                handle.read()
        return time.perf_counter() - start

    checked, plain = [], []
    for _ in range(repeats):
        checked.append(read_all(lambda path: open_regular(path, "file")))
        plain.append(read_all(lambda path: builtins.open(path, "rb")))
    best_checked, best_plain = min(checked), min(plain)
    print(f"read {len(paths)} json/Markdown files, open_regular: {best_checked * 1e3:7.1f} ms")
    print(f"read {len(paths)} json/Markdown files, plain open:   {best_plain * 1e3:7.1f} ms")
    print(f"the regular-file check adds {best_checked / best_plain - 1:+.1%} "
          f"({(best_checked - best_plain) / len(paths) * 1e6:.1f} us a file)")


if __name__ == "__main__":
    main()
