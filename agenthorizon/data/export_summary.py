"""What an export wrote: per-config files and counts (:class:`ConfigExport`) and the whole (:class:`ExportSummary`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["ConfigExport", "ExportSummary"]


@dataclass
class ConfigExport:
    """What was written for one config."""

    config: str
    n_rows: int
    files: list[str]
    counts: dict[str, Any]
    num_bytes: int
    skipped_screenshots: list[str] = field(default_factory=list)
    """One line per screenshot exported as null because it does not decode as an image."""


@dataclass
class ExportSummary:
    """What :func:`agenthorizon.data.export.export_release` wrote: per-config files and counts, and the card."""

    out: Path
    images: str
    configs: dict[str, ConfigExport] = field(default_factory=dict)
    card: Path | None = None
    eval_yaml: Path | None = None
    """The proposed ``eval.yaml`` (Hub Eval Results), when a leaderboard config (AH, AH-S, AH-D) was exported."""
    synthetic: bool = False
    """The release was a generated sample corpus (:func:`agenthorizon.release.sample.marker.is_sample_corpus`)."""

    @property
    def files(self) -> list[Path]:
        return [self.out / name for export in self.configs.values() for name in export.files]
