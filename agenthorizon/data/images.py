"""Screenshots prepared for a model (:func:`prepare_images`): downscale, encode, 2x2 mosaics, within bounded memory.

The one import for screenshot pixels: the settings, step selection and image
opening of sibling modules are re-exported here. See docs/preprocessing.md.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import io
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from PIL import Image

from agenthorizon.util.system import available_cpus
from agenthorizon.data.image_cache import CACHE_ENV, CACHE_VERSION, ImageCache, default_cache_dir
from agenthorizon.data.image_settings import (
    BLANK_COLOR,
    DEFAULT_QUALITY,
    DEFAULT_SIZE,
    FORMATS,
    MOSAIC_GRID,
    RESIZE_EXACT,
    RESIZE_FIT,
    TILES_PER_MOSAIC,
    ImageSettings,
    PreparedImage,
    PreparedImages,
    reading_order_sentence,
)
from agenthorizon.data.step_selection import SELECTION_STRATEGIES, evenly_spaced, select_steps
from agenthorizon.release.confine import NotRegularFileError, open_regular
from agenthorizon.release.image_files import (
    DEFAULT_MAX_PIXELS,
    ScreenshotError,
    ScreenshotNotFoundError,
    check_image,
    open_image,
)
from agenthorizon.schema import IMAGE_MODE_MOSAIC, IMAGE_MODE_NONE, MODEL_IMAGE_MODES

__all__ = [
    "CACHE_ENV",
    "DEFAULT_MAX_PIXELS",
    "MODEL_IMAGE_MODES",
    "SELECTION_STRATEGIES",
    "ImageSettings",
    "PreparedImage",
    "PreparedImages",
    "ScreenshotError",
    "ScreenshotNotFoundError",
    "check_image",
    "default_cache_dir",
    "downscale",
    "encode_image",
    "evenly_spaced",
    "fit_size",
    "make_mosaic",
    "open_image",
    "prepare_images",
    "reading_order_sentence",
    "select_steps",
]

_RESAMPLE = Image.Resampling.LANCZOS
# Box-reduce by an integer factor first (an exact area average), then Lanczos the rest.
_REDUCING_GAP = 1.5


# --- pixels --------------------------------------------------------------------------


def fit_size(size: tuple[int, int], box: tuple[int, int]) -> tuple[int, int]:
    """Largest (width, height) with ``size``'s aspect ratio that fits ``box``; never larger.

    >>> fit_size((1920, 1080), (512, 332))
    (512, 288)
    """
    width, height = size
    scale = min(box[0] / width, box[1] / height, 1.0)
    return (max(1, min(box[0], round(width * scale))), max(1, min(box[1], round(height * scale))))


# Modes resized before conversion to RGB, saving a full-size RGB copy: only
# modes whose conversion copies channels and that Pillow resizes with a real
# filter, without a full-size copy (not I/F/CMYK, P/1, RGBA/LA).
_RESIZE_BEFORE_CONVERT = frozenset({"L", "RGBX"})


def downscale(image: Image.Image, box: tuple[int, int] = DEFAULT_SIZE) -> Image.Image:
    """An RGB copy of ``image`` downscaled to fit ``box``, aspect ratio kept.

    Extra memory: a full-size RGB copy for modes other than RGB, L and RGBX.
    """
    target = fit_size(image.size, box)
    if target != image.size and image.mode in _RESIZE_BEFORE_CONVERT:
        return image.resize(target, _RESAMPLE, reducing_gap=_REDUCING_GAP).convert("RGB")
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    if target == rgb.size:
        return rgb.copy() if rgb is image else rgb
    return rgb.resize(target, _RESAMPLE, reducing_gap=_REDUCING_GAP)


def make_mosaic(tiles: Sequence[Image.Image], cell: tuple[int, int] = DEFAULT_SIZE) -> Image.Image:
    """A 2x2 row-major grid of up to four images, each letterboxed in its cell.

    The canvas is ``2 * cell`` (1024x664 by default); tiles are downscaled to
    fit a cell and centred in it; cells without a tile stay blank.
    """
    if not 1 <= len(tiles) <= TILES_PER_MOSAIC:
        raise ValueError(f"a mosaic takes 1 to {TILES_PER_MOSAIC} images, got {len(tiles)}")
    columns = MOSAIC_GRID[0]
    canvas = Image.new("RGB", (cell[0] * columns, cell[1] * MOSAIC_GRID[1]), BLANK_COLOR)
    for index, tile in enumerate(tiles):
        tile = downscale(tile, cell)
        row, column = divmod(index, columns)
        left = column * cell[0] + (cell[0] - tile.width) // 2
        top = row * cell[1] + (cell[1] - tile.height) // 2
        canvas.paste(tile, (left, top))
    return canvas


def encode_image(image: Image.Image, format: str = "jpeg", quality: int = DEFAULT_QUALITY) -> bytes:
    """Encode an RGB image as JPEG (at ``quality``) or PNG bytes."""
    buffer = io.BytesIO()
    if format == "jpeg":
        image.save(buffer, format="JPEG", quality=quality)
    elif format == "png":
        image.save(buffer, format="PNG")
    else:
        raise ValueError(f"image format {format!r} is not one of {tuple(FORMATS)}")
    return buffer.getvalue()


# --- sources ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Source:
    step: int
    path: str | None = None
    image: Image.Image | None = None

    def describe(self) -> str:
        return self.path if self.path is not None else f"in-memory image of step {self.step}"


def _as_sources(screenshots: Any, step_ids: Sequence[int] | None) -> tuple[list[_Source], list[int]]:
    # Prefer file paths: a lazy sequence would decode every image just to be hashed.
    items = list(screenshots.paths) if hasattr(screenshots, "paths") else list(screenshots)
    if step_ids is None:
        step_ids = range(len(items))
    step_ids = list(step_ids)
    if len(step_ids) != len(items):
        raise ValueError(
            f"step_ids has {len(step_ids)} entries but there are {len(items)} screenshots; "
            "expected one step id per screenshot"
        )
    sources: list[_Source] = []
    skipped: list[int] = []
    for step, item in zip(step_ids, items):
        if item is None:
            skipped.append(step)
        elif isinstance(item, Image.Image):
            sources.append(_Source(step, image=item))
        elif isinstance(item, (str, os.PathLike)):
            sources.append(_Source(step, path=os.fspath(item)))
        else:
            raise ValueError(
                f"screenshot of step {step} is a {type(item).__name__}; "
                "expected a file path, a PIL image or None"
            )
    return sources, skipped


def _file_digest(path: str) -> str:
    try:
        with open_regular(path, "screenshot") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except (FileNotFoundError, IsADirectoryError):
        raise ScreenshotNotFoundError(f"{path}: screenshot file not found; expected an image file") from None
    except NotRegularFileError as error:  # a FIFO, a socket, a device: refused unread
        raise ScreenshotError(str(error)) from None


def _source_digest(source: _Source) -> str:
    if source.path is not None:
        return _file_digest(source.path)
    image = source.image
    digest = hashlib.sha256(f"{image.mode}:{image.size}:".encode())
    digest.update(image.tobytes())
    return digest.hexdigest()


def _load(source: _Source, box: tuple[int, int]) -> Image.Image:
    if source.image is not None:
        return source.image
    return open_image(source.path, reduce_to=box)


# --- encoding jobs (module level, so a process pool can pickle them) -------------------


@dataclass(frozen=True, eq=False)
class _Job:
    key: str
    sources: tuple[_Source, ...]
    kind: str
    size: tuple[int, int]
    format: str
    quality: int
    exact: bool = False


# Full-size decodes in flight in this process, at most: more than CPUs gains no
# speed, and this bounds full-size pixels to (pixel budget) x (CPUs).
_DECODE_SLOTS = threading.BoundedSemaphore(available_cpus())


def _load_small(source: _Source, box: tuple[int, int], exact: bool = False) -> Image.Image:
    """``source`` decoded and downscaled to fit ``box`` (``exact``: resized to ``box``): the full-size pixels live only inside a decode slot."""
    with _DECODE_SLOTS:
        image = _load(source, box)
        if not exact:
            return downscale(image, box)
        # The authors' preprocessing: exactly this size, whatever the screenshot's aspect.
        rgb = image if image.mode == "RGB" else image.convert("RGB")
        return rgb.copy() if rgb.size == box and rgb is image else rgb.resize(box, _RESAMPLE, reducing_gap=_REDUCING_GAP)


def _run_job(job: _Job) -> tuple[bytes, tuple[int, int]]:
    # Each source downscaled before the next is decoded: never four full-size screenshots.
    images = [_load_small(source, job.size, job.exact) for source in job.sources]
    picture = make_mosaic(images, job.size) if job.kind == "mosaic" else images[0]
    return encode_image(picture, job.format, job.quality), picture.size


def _job_key(kind: str, digests: Sequence[str], settings: ImageSettings) -> str:
    params = {
        "v": CACHE_VERSION,
        "kind": kind,
        "sources": list(digests),
        "size": list(settings.size),
        "format": settings.format,
        "quality": settings.quality if settings.format == "jpeg" else None,
    }
    if settings.resize != RESIZE_FIT:  # only when set: cached images of the default keep their keys
        params["resize"] = settings.resize
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()


def _encoded_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:  # reads the header only
        return image.size


# --- the entry point ----------------------------------------------------------------------------


def prepare_images(
    screenshots: Any,
    settings: ImageSettings | None = None,
    *,
    mode: str | None = None,
    size: tuple[int, int] | None = None,
    format: str | None = None,
    quality: int | None = None,
    budget: int | None = None,
    strategy: str | None = None,
    every: int | None = None,
    step_ids: Sequence[int] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
    workers: int | None = None,
    executor: str = "thread",
) -> PreparedImages:
    """Prepare a trajectory's screenshots as model-ready images.

    Selects the steps to show (:func:`select_steps`), downscales each
    screenshot to fit ``size`` (default 512x332, aspect ratio kept, never
    upscaled), optionally combines four consecutive selected screenshots into
    a 2x2 row-major mosaic (twice the size each way; a last mosaic with fewer
    tiles is padded with black cells), and encodes the images as JPEG or PNG.
    Encoded images are cached on disk, keyed by the sha256 of the source
    bytes and the settings, so the same screenshots with the same settings are
    encoded once, and a file rewritten in place is encoded again.

    Parameters
    ----------
    screenshots : sequence
        One entry per step: a file path, a PIL image, or ``None`` for a step
        without a screenshot (skipped, and listed in ``skipped_steps``). An
        object with a ``.paths`` attribute (such as ``LazyScreenshots``) is
        read through its paths, so no image is decoded twice.
    settings : ImageSettings, optional
        Base settings (default ``ImageSettings()``: per-step JPEG at quality
        85, 512x332, all steps); the keyword arguments ``mode``, ``size``,
        ``format``, ``quality``, ``budget``, ``strategy`` and ``every``
        override its fields when given (see :class:`ImageSettings`).
    step_ids : sequence of int, optional
        Step id of each entry (default ``0..n-1``), used in captions.
    cache_dir : path, optional
        Cache directory (default :func:`default_cache_dir`); ``use_cache=False``
        disables the cache.
    workers : int, optional
        Parallel encoders for cache misses (default: the CPUs available).
    executor : {"thread", "process"}
        Threads suffice: Pillow releases the GIL while decoding, resizing and
        encoding. Processes are used only when every source is a file path.

    Returns
    -------
    PreparedImages
        A list of :class:`PreparedImage` in step order; empty for mode
        ``"none"``. Its ``selected_steps``, ``skipped_steps``, ``encoded``
        (images encoded by this call) and ``cache_hits`` say what happened.

    Raises
    ------
    ScreenshotNotFoundError
        A screenshot file does not exist (a ``FileNotFoundError`` naming the path).
    ScreenshotError
        A file over the pixel budget, truncated or not an image (a
        ``ValueError`` naming the path; see :func:`open_image`).
    ValueError
        Bad settings (mode, size, format, quality, budget, strategy, every,
        workers, executor).

    See Also
    --------
    ImageSettings : the settings and their ranges.
    select_steps : which steps get an image under a budget.
    PreparedImage.data_url : an image as OpenAI-compatible servers take it.

    Examples
    --------
    >>> from PIL import Image
    >>> shots = [Image.new("RGB", (1920, 1080), "white") for _ in range(5)] + [None]
    >>> images = prepare_images(shots, use_cache=False)
    >>> len(images), images[0].size, images[0].mime_type, images.skipped_steps
    (5, (512, 288), 'image/jpeg', (5,))
    >>> mosaics = prepare_images(shots, mode="mosaic", use_cache=False)
    >>> [(image.steps, image.size) for image in mosaics]
    [((0, 1, 2, 3), (1024, 664)), ((4,), (1024, 664))]
    >>> mosaics[0].caption()  # doctest: +ELLIPSIS
    'Steps 0-3 as a 2x2 grid, read left to right, top to bottom: top-left = step 0, ...'
    """
    overrides = {
        name: value
        for name, value in (
            ("mode", mode),
            ("size", size),
            ("format", format),
            ("quality", quality),
            ("budget", budget),
            ("strategy", strategy),
            ("every", every),
        )
        if value is not None
    }
    settings = dataclasses.replace(settings or ImageSettings(), **overrides)
    if executor not in ("thread", "process"):
        raise ValueError(f"executor must be 'thread' or 'process', got {executor!r}")

    sources, skipped = _as_sources(screenshots, step_ids)
    if settings.mode == IMAGE_MODE_NONE:
        return PreparedImages(settings=settings, skipped_steps=skipped)

    by_step = {source.step: source for source in sources}
    selected = select_steps(
        list(by_step), settings.strategy, budget=settings.step_budget, every=settings.every
    )
    n_workers = workers if workers is not None else available_cpus()
    if n_workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    root = None if not use_cache else Path(cache_dir) if cache_dir is not None else default_cache_dir()
    cache = ImageCache(root, "jpg" if settings.format == "jpeg" else "png")
    jobs = _plan_jobs([by_step[step] for step in selected], settings, cache, n_workers)
    results, encoded, hits = _encode_all(jobs, cache, n_workers, executor)
    images = [
        PreparedImage(
            steps=tuple(source.step for source in job.sources),
            data=results[job.key][0],
            mime_type=settings.mime_type,
            size=results[job.key][1],
            kind=job.kind,
        )
        for job in jobs
    ]
    return PreparedImages(
        images,
        settings=settings,
        selected_steps=selected,
        skipped_steps=skipped,
        encoded=encoded,
        cache_hits=hits,
    )


def _plan_jobs(chosen: list[_Source], settings: ImageSettings, cache: ImageCache, workers: int) -> list[_Job]:
    """One job per image to send: a step, or four consecutive chosen steps for a mosaic, keyed by content."""
    per_image = TILES_PER_MOSAIC if settings.mode == IMAGE_MODE_MOSAIC else 1
    kind = "mosaic" if settings.mode == IMAGE_MODE_MOSAIC else "step"
    groups = [range(i, min(i + per_image, len(chosen))) for i in range(0, len(chosen), per_image)]
    if cache.root is None:
        # Content addresses only serve the cache: skip hashing without one.
        digests = [str(position) for position in range(len(chosen))]
    else:
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            digests = list(pool.map(_source_digest, chosen))
    return [
        _Job(
            key=_job_key(kind, [digests[i] for i in group], settings),
            sources=tuple(chosen[i] for i in group),
            kind=kind,
            size=settings.size,
            format=settings.format,
            quality=settings.quality,
            exact=settings.resize == RESIZE_EXACT,
        )
        for group in groups
    ]


def _encode_all(
    jobs: list[_Job], cache: ImageCache, workers: int, executor: str
) -> tuple[dict[str, tuple[bytes, tuple[int, int]]], int, int]:
    """Encoded bytes and size per job key: cache hits read, misses encoded (in parallel) and cached.

    Returns the results, the number of images encoded and the number of cache hits.
    """
    results: dict[str, tuple[bytes, tuple[int, int]]] = {}
    hits = 0
    misses: dict[str, _Job] = {}
    for job in jobs:
        if job.key in results or job.key in misses:
            continue
        data = cache.get(job.key)
        if data is not None:
            results[job.key] = (data, _encoded_size(data))
            hits += 1
        else:
            misses[job.key] = job
    if misses:
        for key, result in zip(misses, _run_jobs(list(misses.values()), workers, executor)):
            results[key] = result
            cache.put(key, result[0])
    return results, len(misses), hits


def _run_jobs(jobs: list[_Job], workers: int, executor: str) -> list[tuple[bytes, tuple[int, int]]]:
    if workers == 1 or len(jobs) == 1:
        return [_run_job(job) for job in jobs]
    if executor == "process" and all(source.path is not None for job in jobs for source in job.sources):
        pool_class: type[concurrent.futures.Executor] = concurrent.futures.ProcessPoolExecutor
    else:
        pool_class = concurrent.futures.ThreadPoolExecutor
    with pool_class(max_workers=min(workers, len(jobs))) as pool:
        return list(pool.map(_run_job, jobs, chunksize=1 if pool_class is concurrent.futures.ThreadPoolExecutor else 4))
