"""The report's thumbnails: :func:`thumbnail_urls`, each distinct screenshot as a JPEG data URL.

A thumbnail is opened under the pixel budget and downscaled as the judges'
images are. Pillow releases the GIL while it works, so one thread per
available CPU keeps the cores busy, with at most that many full-size images
in memory at once.
"""

from __future__ import annotations

import base64
from concurrent.futures import ThreadPoolExecutor
from typing import Iterable

from agenthorizon.util.progress import progress_bar
from agenthorizon.util.system import available_cpus

__all__ = ["thumbnail_urls"]


def _thumbnail(path: str, size: tuple[int, int], quality: int) -> str | Exception:
    from agenthorizon.data.images import ScreenshotError, downscale, encode_image, open_image

    try:
        image = open_image(path, reduce_to=size)
        data = encode_image(downscale(image, size), "jpeg", quality)
    except ScreenshotError as error:  # a ScreenshotNotFoundError too
        return error
    return "data:image/jpeg;base64," + base64.b64encode(data).decode("ascii")


def thumbnail_urls(
    paths: Iterable[str],
    size: tuple[int, int],
    quality: int,
    *,
    workers: int | None = None,
    progress: bool = False,
) -> dict[str, str | Exception]:
    """Each distinct path of ``paths`` -> its JPEG thumbnail as a data URL, or the error it raised.

    ``size`` is the box a thumbnail fits in (aspect ratio kept), ``quality`` the
    JPEG quality (1-95), ``workers`` the threads (default: the CPUs this process
    may use). A file that raises :class:`~agenthorizon.data.images.ScreenshotError`
    (missing, over the pixel budget, truncated, not an image) maps to that error:
    one bad file never stops the others.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> path = tempfile.mkdtemp() + "/step_1.png"
    >>> Image.new("RGB", (640, 400), "white").save(path)
    >>> urls = thumbnail_urls([path, path, "/nonexistent.png"], (64, 40), 70)
    >>> len(urls), urls[path].startswith("data:image/jpeg;base64,"), type(urls["/nonexistent.png"]).__name__
    (2, True, 'ScreenshotNotFoundError')
    """
    distinct = list(dict.fromkeys(paths))
    workers = max(1, min(workers or available_cpus(), len(distinct) or 1))
    urls: dict[str, str | Exception] = {}
    with progress_bar(len(distinct), "thumbnails", "image", **({} if progress else {"disable": True})) as bar:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for path, url in zip(distinct, pool.map(lambda p: _thumbnail(p, size, quality), distinct)):
                urls[path] = url
                bar.update(1)
    return urls
