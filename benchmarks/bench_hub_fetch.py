"""Hub fetch planning benchmark: deciding which files of a Hub release to fetch.

A config of the release (Hub dataset repo ``ServiceNow/AgentHorizon``, about
110,000 files) used to be fetched with ``huggingface_hub.snapshot_download``
and ``allow_patterns``: one exact pattern per item json and markdown, one
``<images>/<steps_id>/*`` pattern per screenshot folder. snapshot_download
lists the whole repo tree (paginated API calls, not measured here) and then
tests every file against the patterns with ``filter_repo_objects`` (fnmatch).
:func:`agenthorizon.resolve_release` now builds the exact file list instead
(:func:`agenthorizon.release.hub.item_files`, then the screenshots the fetched
jsons reference, :func:`agenthorizon.release.hub.screenshot_files`) and checks each
file against the snapshot folder and huggingface_hub's cache of 404s.

Both are measured on one synthetic release shaped like the real one, written
to ``--workdir``: AH 550 items and AH-S 250 (``all`` 800), one screenshot
folder per item, 135 steps per item of which 9 in 10 have a screenshot
(about 97,000 screenshot files and 1,600 json/markdown files, about 99,000 in
the tree). Trajectory jsons are on disk, screenshots and markdowns are not
(a cold cache: every file the new plan wants takes the stat and the 404-cache
look-up). The old matching is timed on a uniform random sample of the tree
(``--sample`` files) and extrapolated linearly to the whole tree, since each
file's match cost does not depend on the other files; a run with
``--sample 0`` times the whole tree (minutes).

Usage::

    .venv/bin/python benchmarks/bench_hub_fetch.py [--workdir DIR] [--sample N] [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
import tempfile
import time
from pathlib import Path

from huggingface_hub.utils import filter_repo_objects

from agenthorizon.schema import FRAMEWORK_FILES, IMAGES_DIR, LABEL_FILES, PROMPT_FILE, json_relpath, markdown_relpath
from agenthorizon.release.hub import item_files, plan_fetch, screenshot_files

ITEMS = {"AH": 550, "AH-S": 250}
STEPS = 135
COMMIT = "0" * 40


def synthetic_release(workdir: Path) -> tuple[Path, dict[str, list[dict[str, str]]], list[str]]:
    """A snapshot folder with the trajectory jsons; the rows of each config; the repo tree."""
    root = workdir / "hub" / "datasets--ServiceNow--AgentHorizon" / "snapshots" / COMMIT
    (root / "sandbox" / "data" / "jsons").mkdir(parents=True, exist_ok=True)
    configs: dict[str, list[dict[str, str]]] = {}
    tree = [*LABEL_FILES, PROMPT_FILE, *FRAMEWORK_FILES]
    number = 0
    random.seed(0)  # the same ids every run, so a rerun reuses the jsons already written
    for config, count in ITEMS.items():
        rows = []
        for index in range(count):
            number += 1
            # Release-shaped ids: a UUID per item, deliverable ids like 000234004-234004-0000-000000234004.
            trajectory_id = str(uuid.UUID(int=random.getrandbits(128), version=4))
            steps_id = f"{number:09d}-{number % 1_000_000:06d}-0000-{number:012d}"
            label_file = LABEL_FILES[0] if config == "AH" else LABEL_FILES[1]
            rows.append({"trajectory_id": trajectory_id, "steps_id": steps_id, "location": f"{label_file}:{index + 1}"})
            steps = []
            for k in range(1, STEPS + 1):
                step = {"step_id": k - 1, "action": {"type": "click", "parameters": {"x": 10 * k, "y": 7}}}
                if k % 10:
                    step["screenshot"] = f"../media/images/{steps_id}/step_{k}.png"
                    tree.append(f"{IMAGES_DIR}/{steps_id}/step_{k}.png")
                steps.append(step)
            path = root / json_relpath(trajectory_id)
            if not path.exists():
                path.write_text(json.dumps({"task": {"instruction": "do it"}, "steps": steps}))
            tree += [json_relpath(trajectory_id), markdown_relpath(trajectory_id)]
        configs[config] = rows
    configs["all"] = configs["AH"] + configs["AH-S"]
    return root, configs, tree


def old_patterns(rows: list[dict[str, str]]) -> list[str]:
    """The allow_patterns the previous fetch passed to snapshot_download."""
    patterns = [PROMPT_FILE, *FRAMEWORK_FILES]
    for row in rows:
        patterns += [json_relpath(row["trajectory_id"]), markdown_relpath(row["trajectory_id"])]
    patterns += [f"{IMAGES_DIR}/{steps_id}/*" for steps_id in dict.fromkeys(row["steps_id"] for row in rows)]
    return patterns


def new_plan(root: Path, rows: list[dict[str, str]]) -> int:
    """What resolve_release decides before requesting anything: items, then screenshots."""
    wanted, _ = plan_fetch(root, item_files(rows), COMMIT)
    shots, _ = plan_fetch(root, screenshot_files(root, rows), COMMIT)
    return len(wanted) + len(shots)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "agenthorizon-bench-hub")
    parser.add_argument("--sample", type=int, default=3000, help="tree files timed for the old matching (0: all)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    root, configs, tree = synthetic_release(args.workdir)
    sample = tree if args.sample <= 0 else random.Random(0).sample(tree, args.sample)
    print(f"tree: {len(tree):,} files; old matching timed on {len(sample):,} of them, best of {args.repeats}")
    results = {}
    for config in ("AH", "all"):
        rows = configs[config]
        patterns = old_patterns(rows)
        old = min(_timed(lambda: list(filter_repo_objects(sample, allow_patterns=patterns)))
                  for _ in range(args.repeats))
        old_total = old * len(tree) / len(sample)
        matched = len(list(filter_repo_objects(sample, allow_patterns=patterns)))
        new = min(_timed(lambda: new_plan(root, rows)) for _ in range(args.repeats))
        files = new_plan(root, rows)
        results[config] = {
            "items": len(rows),
            "patterns": len(patterns),
            "old_seconds_sample": round(old, 3),
            "old_seconds_whole_tree": round(old_total, 1),
            "old_matched_in_sample": matched,
            "new_seconds": round(new, 3),
            "new_files_to_request": files,
            "ratio_old_over_new": round(old_total / new),
        }
        print(config, json.dumps(results[config]))


def _timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
