"""The report's thumbnails: each distinct screenshot decoded once, on every core, as a JPEG data URL.

Items share screenshots (a negative shows its sibling's recording), so the
first, middle and last screenshots of 1,373 items are about 2,500 distinct
files, not 4,119. :func:`thumbnail_urls` decodes each distinct file once,
through :func:`~agenthorizon.data.images.open_image` (the one way to open an
image under the pixel budget; it reads the header and the pixels in one
open), downscales it with the judges' own
:func:`~agenthorizon.data.images.downscale` and encodes it with
:func:`~agenthorizon.data.images.encode_image`, so a thumbnail is the
bytes ``prepare_images`` would make. Pillow releases the GIL while it
decodes, resizes and encodes, so a thread per CPU this process may use
(:func:`agenthorizon.util.system.available_cpus`) keeps them all busy, and at
most that many full-size images are in memory at once.
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

    Parameters
    ----------
    paths : iterable of str
        Screenshot files; repeats are decoded once.
    size : (int, int)
        The box a thumbnail fits in, aspect ratio kept.
    quality : int
        JPEG quality, 1-95.
    workers : int, optional
        Threads decoding at once; default: the CPUs this process may use.
    progress : bool, default False
        A progress bar of the files done (:func:`agenthorizon.util.progress.progress_bar`).

    Returns
    -------
    dict of str to str or Exception
        A ``data:image/jpeg;base64,...`` URL per file, or the
        :class:`~agenthorizon.data.images.ScreenshotError` that file raised
        (missing, over the pixel budget, truncated, not an image): one bad
        file never stops the others.

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
