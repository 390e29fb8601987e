"""The items of a sweep's configs, read once from the release: sorted ids and label manifest sha256."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from agenthorizon.release.item_selection import Selection
from agenthorizon.report.references import load_run_references

__all__ = ["ConfigItems", "config_items"]


@dataclass(frozen=True)
class ConfigItems:
    """One config's trajectory ids (sorted) and the sha256 of its label manifest."""

    config: str
    ids: tuple[str, ...]
    label_manifest_sha256: str


def config_items(data: str, configs: Sequence[str]) -> dict[str, ConfigItems]:
    """Each config's items in the release ``data`` (a local root or Hub id: only its label files are read)."""
    found = {}
    for config in configs:
        references = load_run_references(data, Selection(config))
        found[config] = ConfigItems(config, tuple(sorted(references.ids())), references.manifest["sha256"])
    return found
