"""The screenshots a judge gets (:func:`screenshot_sources`), from whatever form a row holds them in.

:class:`~agenthorizon.data.screenshots.BlindScreenshots` (decoded on access,
never showing a path) is re-exported from :mod:`agenthorizon.data.screenshots`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agenthorizon.data.screenshots import BlindScreenshots

__all__ = ["BlindScreenshots", "screenshot_sources"]


def screenshot_sources(row: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> Sequence[Any]:
    """Per-step screenshot sources (path, PIL image or None) from whatever form the row has.

    A blind row's :class:`BlindScreenshots` is returned as it is: it already
    shows no path, and its blind names are what a judge's copy must hold too.
    """
    images = row.get("screenshots")
    if isinstance(images, BlindScreenshots):
        return images
    if images is not None and not isinstance(images, (str, bytes)):
        paths = getattr(images, "paths", None)
        if paths is not None:  # a LazyScreenshots: use its paths, decode ourselves
            return list(paths)
        images = list(images)
        if len(images) == len(steps):
            return [str(x) if hasattr(x, "__fspath__") else x for x in images]
    return [step.get("screenshot") for step in steps]
