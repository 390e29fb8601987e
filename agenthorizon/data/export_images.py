"""The screenshots an export embeds: which files a row shows, thumbnails, original bytes.

Only files that decode as images leave the release: a screenshot over the
pixel budget, truncated or not an image is left out (null) and reported with
its reason.
"""

from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

from agenthorizon.data.export_paths import SCREENSHOTS
from agenthorizon.release.confine import NotRegularFileError, open_regular

__all__ = ["full_images", "screenshot_paths", "thumbnails"]


def screenshot_paths(row: Mapping[str, Any]) -> list[str | None]:
    screens = row.get(SCREENSHOTS)
    if screens is None:
        return [step.get("screenshot") for step in row["steps"]]
    paths = getattr(screens, "paths", screens)  # LazyScreenshots or plain strings
    return [None if p is None else os.fspath(p) for p in paths]


def thumbnails(
    paths: Sequence[str | None], bad: dict[int, str], cache_dir: str | os.PathLike[str] | None = None
) -> dict[int, bytes]:
    """Step index -> JPEG bytes of the screenshot downscaled to fit 512x332.

    With ``cache_dir`` (the export's own temporary cache), a screenshot already
    thumbnailed is read back; without it nothing is cached (not even in the
    user's image cache). A screenshot that does not decode gets no thumbnail;
    its index and reason go to ``bad``.
    """
    from agenthorizon.data.images import DEFAULT_SIZE, ScreenshotError, prepare_images

    def prepare(wanted: list[str | None]) -> dict[int, bytes]:
        prepared = prepare_images(
            wanted, mode="per-step", size=DEFAULT_SIZE, format="jpeg",
            cache_dir=cache_dir, use_cache=cache_dir is not None,
        )
        return {image.steps[0]: image.data for image in prepared}

    try:
        return prepare(list(paths))
    except ScreenshotError:
        pass  # find which ones, one at a time (only items with a bad screenshot pay for it)
    encoded: dict[int, bytes] = {}
    for index, path in enumerate(paths):
        if path is None:
            continue
        try:
            encoded.update(prepare([None] * index + [path]))
        except ScreenshotError as error:
            bad[index] = str(error)
    return encoded


def full_images(paths: Sequence[str | None], bad: dict[int, str]) -> dict[int, bytes]:
    """Step index -> the screenshot file's bytes, for files that decode as images (others go to ``bad``)."""
    from agenthorizon.data.images import ScreenshotError, check_image

    encoded = {}
    for index, path in enumerate(paths):
        if path is None:
            continue
        try:
            with open_regular(path, "screenshot") as handle:
                data = handle.read()
        except NotRegularFileError as error:  # a FIFO, a socket, a device: not exported, and said so
            bad[index] = str(error)
            continue
        except OSError as error:
            raise FileNotFoundError(f"{path}: screenshot cannot be read ({error.strerror}); expected an image file") from None
        try:
            check_image(data, name=path)
        except ScreenshotError as error:
            bad[index] = str(error)
            continue
        encoded[index] = data
    return encoded
