"""``select_rows``, the one definition of a config's rows, against the definitions in docs/data.md.

The expected rows are computed here from the label files' bytes and the
written definitions (a config is a label file, both, or the AH-D items;
pair groups are connected components of deliverables; AH-D is the authors'
seeded draw of two-deliverable groups), not from the package's code.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from agenthorizon.release.files import read_config_rows, read_labels
from agenthorizon.release.item_selection import Selection
from agenthorizon.release.splits import select_rows
from agenthorizon.schema import LABEL_FILE_EASY, LABEL_FILE_HARD


def _file_rows(root: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (root / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def _groups(rows: list[dict]) -> dict[str, tuple[str, ...]]:
    """Each item's connected component of deliverables (an item links its instruction's and its steps' deliverable)."""
    neighbours: dict[str, set[str]] = {}
    for row in rows:
        a, b = row["instruction_id"], row["steps_id"]
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    component: dict[str, tuple[str, ...]] = {}
    for start in neighbours:
        if start in component:
            continue
        seen, frontier = {start}, [start]
        while frontier:
            for other in neighbours[frontier.pop()]:
                if other not in seen:
                    seen.add(other)
                    frontier.append(other)
        members = tuple(sorted(seen))
        for deliverable in seen:
            component[deliverable] = members
    return {row["trajectory_id"]: component[row["instruction_id"]] for row in rows}


def _expected(root: Path, config: str, *, n_groups: int = 50, exclude_dev: bool = False) -> list[tuple[str, str, bool]]:
    hard, easy = _file_rows(root, LABEL_FILE_HARD), _file_rows(root, LABEL_FILE_EASY)
    everything = hard + easy
    groups = _groups(everything)
    pairs = sorted({group for group in groups.values() if len(group) == 2}, key="::".join)
    random.Random(42).shuffle(pairs)
    dev_groups = set(pairs[:n_groups])
    dev = {tid for tid, group in groups.items() if group in dev_groups}
    chosen = {"AH": hard, "AH-S": easy, "all": everything, "AH-D": [r for r in everything if r["trajectory_id"] in dev]}[config]
    if exclude_dev:
        chosen = [row for row in chosen if row["trajectory_id"] not in dev]
    return [
        (
            row["trajectory_id"],
            hashlib.sha1("::".join(groups[row["trajectory_id"]]).encode()).hexdigest()[:12],
            row["trajectory_id"] in dev,
        )
        for row in chosen
    ]


def _got(rows) -> list[tuple[str, str, bool]]:
    return [(row["trajectory_id"], row["pair_group_id"], row["in_dev"]) for row in rows]


@pytest.mark.parametrize(
    "config, options",
    [("AH", {}), ("AH-S", {}), ("all", {}), ("AH-D", {}), ("all", {"exclude_dev": True}), ("AH-D", {"dev_groups": 7})],
)
def test_the_rows_of_a_selection_are_those_of_the_definitions(small_root, config, options):
    got = select_rows(read_labels(small_root), Selection(config, **options))
    expected = _expected(small_root, config, n_groups=options.get("dev_groups", 50), exclude_dev=options.get("exclude_dev", False))
    assert _got(got) == expected
    assert len(got) > 0


def test_rows_keep_their_label_fields_and_location_and_are_copies(tiny_root):
    labels = read_labels(tiny_root)
    rows = select_rows(labels, Selection("AH"))
    assert rows[0]["location"] == f"{LABEL_FILE_HARD}:1"
    assert {key: rows[0][key] for key in labels[0]} == labels[0]
    assert "pair_group_id" not in labels[0]  # the input is left as it was


def test_a_dev_manifest_selection_needs_its_ids_and_takes_exactly_them(tiny_root, tmp_path):
    labels = read_labels(tiny_root)
    ids = [row["trajectory_id"] for row in labels[:3]]
    selection = Selection("AH-D", dev_manifest=str(tmp_path / "dev.txt"))
    with pytest.raises(ValueError, match="names the dev manifest .*dev.txt; expected its trajectory ids"):
        select_rows(labels, selection)
    assert [row["trajectory_id"] for row in select_rows(labels, selection, dev_manifest_ids=ids)] == ids
    excluded = select_rows(labels, Selection("all", dev_manifest=str(tmp_path / "dev.txt"), exclude_dev=True), dev_manifest_ids=ids)
    assert [row["trajectory_id"] for row in excluded] == [row["trajectory_id"] for row in labels[3:]]


def test_a_dev_manifest_changed_since_the_run_is_refused(tiny_root, tmp_path):
    manifest = tmp_path / "dev.txt"
    ids = [row["trajectory_id"] for row in read_labels(tiny_root)[:2]]
    manifest.write_text("\n".join(ids) + "\n", encoding="utf-8")
    recorded = hashlib.sha256(manifest.read_bytes()).hexdigest()
    selection = Selection("AH-D", dev_manifest=str(manifest), dev_manifest_sha256=recorded)
    assert [row["trajectory_id"] for row in read_config_rows(tiny_root, selection).rows] == ids
    manifest.write_text(ids[0] + "\n", encoding="utf-8")  # another AH-D than the run's
    with pytest.raises(ValueError, match=rf"dev manifest {manifest} has sha256 [0-9a-f]{{64}}, but the selection records {recorded}"):
        read_config_rows(tiny_root, selection)
