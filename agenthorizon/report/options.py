"""The knobs of the HTML report (:class:`ReportOptions`), in their own module so ``html`` and ``items`` both import them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

__all__ = ["ReportOptions"]


@dataclass(frozen=True)
class ReportOptions:
    """Knobs of the report.

    ``bootstrap``: resamples for intervals and the comparison (0: none).
    ``thumbnails``: screenshots per item (first, middle, last for 3; 0: none).
    ``thumbnail_size``: box each thumbnail is downscaled to fit.
    ``thumbnail_quality``: JPEG quality of thumbnails.
    ``model_aliases``: recorded model name -> the model it counts as, for the
    harness comparison (:mod:`agenthorizon.report.harnesses`).
    """

    bootstrap: int = 1000
    seed: int = 0
    thumbnails: int = 3
    thumbnail_size: tuple[int, int] = (384, 249)
    thumbnail_quality: int = 70
    title: str = "AgentHorizon judge report"
    model_aliases: Mapping[str, str] = field(default_factory=dict)
