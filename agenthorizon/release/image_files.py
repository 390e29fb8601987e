"""Open an image file from a release, safely: the one way the package decodes a screenshot.

:func:`open_image` decodes within a pixel budget checked on the header, before
any pixel is decoded; :func:`check_image` checks a file without decoding it.
:mod:`agenthorizon.data.images` re-exports both.
"""

from __future__ import annotations

import io
import os
import warnings
from typing import Any, BinaryIO

from agenthorizon.release.confine import NotRegularFileError, open_regular

__all__ = [
    "DEFAULT_MAX_PIXELS",
    "MAX_PIXELS_ENV",
    "ScreenshotError",
    "ScreenshotNotFoundError",
    "check_image",
    "max_pixels_budget",
    "open_image",
]

DEFAULT_MAX_PIXELS = 50_000_000
"""Pixel budget of one image: 50 MP, six times an 8K (7680x4320) screen; at most 200 MB decoded (RGBA).

Pillow's own hard limit (about 179 MP) stays in force above it."""

MAX_PIXELS_ENV = "AGENTHORIZON_MAX_PIXELS"
"""Environment variable that sets the pixel budget for every command and API call."""


class ScreenshotError(ValueError):
    """An image file that cannot be used: over the pixel budget, truncated, or not an image.

    The message names the file (or, for an image handed over as bytes, the
    name given for it) and what was expected.
    """


class ScreenshotNotFoundError(ScreenshotError, FileNotFoundError):
    """An image file that does not exist (or is not a regular file)."""


def max_pixels_budget(max_pixels: int | None = None) -> int:
    """The pixel budget in force: ``max_pixels``, else ``$AGENTHORIZON_MAX_PIXELS``, else the default.

    >>> max_pixels_budget(1000)
    1000
    >>> max_pixels_budget() == int(os.environ.get(MAX_PIXELS_ENV, DEFAULT_MAX_PIXELS))
    True
    """
    if max_pixels is None:
        text = os.environ.get(MAX_PIXELS_ENV, "").strip()
        if not text:
            return DEFAULT_MAX_PIXELS
        try:
            max_pixels = int(text.replace("_", ""))
        except ValueError:
            raise ValueError(f"${MAX_PIXELS_ENV}={text!r}: expected a positive whole number of pixels") from None
    if isinstance(max_pixels, bool) or not isinstance(max_pixels, int) or max_pixels < 1:
        raise ValueError(f"max_pixels must be a positive integer, got {max_pixels!r}")
    return max_pixels


def _describe(source: str | os.PathLike[str] | bytes | BinaryIO, name: str | None) -> str:
    if name is not None:
        return name
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return "in-memory image"


def _opened(source: str | os.PathLike[str], label: str) -> BinaryIO:
    """The image file at ``source`` opened for reading: a regular file, or a :class:`ScreenshotError` at once."""
    path = os.fspath(source)
    try:
        return open_regular(path, "screenshot")
    except (FileNotFoundError, NotADirectoryError):
        raise ScreenshotNotFoundError(f"{label}: screenshot file not found (no such file); expected an image file") from None
    except IsADirectoryError:
        raise ScreenshotNotFoundError(f"{label}: screenshot file not found (a directory); expected an image file") from None
    except NotRegularFileError as error:  # a FIFO, a socket, a device: reading could block
        raise ScreenshotError(f"{label}: screenshot is {error.kind}, not a regular file; expected an image file") from None
    except OSError as error:
        raise ScreenshotError(f"{label}: screenshot cannot be read ({error.strerror}); expected an image file") from None


def _header(source: Any, label: str, budget: int) -> tuple[Any, BinaryIO | None]:
    """The image opened lazily (header only), checked against the budget, and the file this opened.

    The caller closes that file once done with the image (Pillow leaves a file
    it was handed open); it is ``None`` for bytes or a file of the caller's.
    """
    opened = None
    if isinstance(source, (str, os.PathLike)):
        source = opened = _opened(source, label)
    elif isinstance(source, (bytes, bytearray, memoryview)):
        source = io.BytesIO(source)
    try:
        return _identified(source, label, budget), opened
    except BaseException:
        if opened is not None:
            opened.close()
        raise


def _identified(source: Any, label: str, budget: int) -> Any:
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            # Our budget is the check; Pillow's warning (above ~89 MP) would only repeat it.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(source)
    except Image.DecompressionBombError as error:
        raise ScreenshotError(
            f"{label}: image is a decompression bomb ({error}); expected at most {budget:,} pixels"
        ) from None
    except UnidentifiedImageError:
        raise ScreenshotError(
            f"{label}: image header does not read (not an image format Pillow can identify); "
            "expected a PNG or JPEG screenshot"
        ) from None
    except (OSError, SyntaxError, ValueError) as error:
        raise ScreenshotError(f"{label}: image header does not read ({error}); expected a PNG or JPEG screenshot") from None
    width, height = image.size
    if width * height > budget:
        image.close()
        raise ScreenshotError(
            f"{label}: image of {width}x{height} = {width * height:,} pixels is over the pixel budget of "
            f"{budget:,} (a decompression bomb, or set ${MAX_PIXELS_ENV} / max_pixels higher)"
        )
    return image


def open_image(
    source: str | os.PathLike[str] | bytes | BinaryIO,
    *,
    max_pixels: int | None = None,
    reduce_to: tuple[int, int] | None = None,
    name: str | None = None,
) -> Any:
    """Decode an image (path, bytes or binary file) into a loaded ``PIL.Image.Image`` in its own mode, within a pixel budget.

    ``max_pixels`` defaults to :func:`max_pixels_budget`. ``reduce_to`` is the box
    the caller will downscale to: JPEG then decodes at 1/2, 1/4 or 1/8, never below
    it. ``name`` replaces the path in errors (blind screenshots are named by
    step). Raises :class:`ScreenshotNotFoundError` or :class:`ScreenshotError`.

    >>> from PIL import Image
    >>> buffer = io.BytesIO()
    >>> Image.new("RGB", (4000, 3000)).save(buffer, format="JPEG")
    >>> open_image(buffer.getvalue(), reduce_to=(512, 332)).size
    (1000, 750)
    >>> open_image(buffer.getvalue(), max_pixels=1_000_000, name="step 3")
    Traceback (most recent call last):
    ...
    agenthorizon.release.image_files.ScreenshotError: step 3: image of 4000x3000 = 12,000,000 pixels is over the pixel budget of 1,000,000 (a decompression bomb, or set $AGENTHORIZON_MAX_PIXELS / max_pixels higher)
    """
    label = _describe(source, name)
    budget = max_pixels_budget(max_pixels)
    image, handle = _header(source, label, budget)
    try:
        if reduce_to is not None and image.format == "JPEG":
            image.draft(image.mode, tuple(reduce_to))
        image.load()  # reads the pixels
    except (OSError, SyntaxError, ValueError, EOFError) as error:
        image.close()
        raise ScreenshotError(
            f"{label}: image data does not decode ({error}); expected a complete PNG or JPEG screenshot"
        ) from None
    finally:
        if handle is not None:
            handle.close()  # the file _header opened: the pixels are in memory now
    return image


def check_image(
    source: str | os.PathLike[str] | bytes,
    *,
    max_pixels: int | None = None,
    name: str | None = None,
) -> None:
    """Check an image without decoding its pixels: it exists, its header reads, it fits the budget.

    Also runs Pillow's ``verify()`` (PNG: every chunk's checksum, so a
    truncated file is caught); :func:`open_image` refuses the same files.
    ``source`` is a path or the file's bytes (then ``name`` names it in
    errors). Raises the errors of :func:`open_image`.

    >>> check_image(b"GIF89a", name="step 2")
    Traceback (most recent call last):
    ...
    agenthorizon.release.image_files.ScreenshotError: step 2: image header does not read (not an image format Pillow can identify); expected a PNG or JPEG screenshot
    """
    label = _describe(source, name)
    image, handle = _header(source, label, max_pixels_budget(max_pixels))
    try:
        with image:
            image.verify()
    except Exception as error:  # Pillow raises many types for a corrupt file; all mean "unreadable"
        raise ScreenshotError(
            f"{label}: image data does not read ({type(error).__name__}: {error}); "
            "expected a complete PNG or JPEG screenshot"
        ) from None
    finally:
        if handle is not None:
            handle.close()
