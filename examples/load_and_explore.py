"""Load AgentHorizon as a `datasets` dataset and look around.

Runs on the embedded sample corpus (generated into a temporary directory, removed at the end), so
it needs no download; pass a release root or a Hub repo id to use real data::

    python examples/load_and_explore.py                 # sample corpus
    python examples/load_and_explore.py /data/AgentHorizon
    python examples/load_and_explore.py ServiceNow/AgentHorizon
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

import agenthorizon


def main(path: str | None = None) -> None:
    if path is not None:
        explore(path)
        return
    with tempfile.TemporaryDirectory(prefix="agenthorizon-example-") as work:  # removed at the end
        path = str(Path(work) / "release")
        agenthorizon.generate_sample(path, preset="small", seed=0)
        print(f"sample corpus written to {path}")
        explore(path)


def explore(path: str) -> None:
    # The four configs; AH-D is derived by the authors' algorithm (50 pair groups).
    for name in ("AH", "AH-S", "AH-D", "all"):
        ds = agenthorizon.load_dataset(path, name, split="test")
        print(f"{name:5s} {len(ds):5d} items  {dict(Counter(ds['label']))}")

    # Evaluation pools without the development set.
    ah = agenthorizon.load_dataset(path, "AH", split="test", exclude_dev=True)
    print(f"AH without AH-D: {len(ah)} items")

    # Rows are cheap: screenshots are decoded only when indexed.
    row = ah[0]
    print(row["instruction"])
    print(f"{row['num_steps']} steps, label {row['label']}, mistake type {row['mistake_type'] or '-'}")
    print(row["screenshots"])  # LazyScreenshots(N steps, M with a screenshot): nothing decoded yet
    first = next(k for k, p in enumerate(row["screenshots"].paths) if p is not None)
    image = row["screenshots"][first]  # decodes this one screenshot
    print(f"step {first}: {image.size[0]}x{image.size[1]} screenshot, action {row['steps'][first]['action_type']}")

    # Actions are queryable columns.
    clicks = sum(step["action_type"] == "click" for step in row["steps"])
    print(f"{clicks} clicks in this trajectory")

    # What a judge may see: no label, pairing or difficulty field.
    blind = agenthorizon.load_dataset(path, "AH", split="test", blind=True)
    print("blind columns:", ", ".join(blind.column_names))
    # Its screenshots show no path (the release's folder would name the steps id):
    # they decode on access, and name the item and step in errors.
    screens = blind[0]["screenshots"]
    image = screens[screens.present[0]]
    print(f"{screens}: first decoded {image.size[0]}x{image.size[1]}, file name {image.filename!r}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
