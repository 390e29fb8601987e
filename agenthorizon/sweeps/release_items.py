"""The items of a sweep's configs, read once from the release's label files: sorted ids and label manifest sha256."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

from agenthorizon.release.files import read_config_rows
from agenthorizon.release.item_selection import Selection
from agenthorizon.release.labels import manifest_sha256

__all__ = ["ConfigItems", "config_items"]


@dataclass(frozen=True)
class ConfigItems:
    """One config's trajectory ids (sorted) and the sha256 of its label manifest (what its runs record)."""

    config: str
    ids: tuple[str, ...]
    label_manifest_sha256: str


def config_items(data: str, configs: Sequence[str]) -> dict[str, ConfigItems]:
    """Each config's items in the release ``data``: a local root, or a Hub repo id of which only the label files are fetched."""
    found = {}
    for config in configs:
        root = data
        if not os.path.isdir(data):
            from agenthorizon.release.hub import resolve_release

            root = resolve_release(data, config, images=None, labels_only=True)
        rows = read_config_rows(root, Selection(config)).references()
        found[config] = ConfigItems(config, tuple(sorted(row["trajectory_id"] for row in rows)), manifest_sha256(rows))
    return found
