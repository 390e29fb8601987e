"""The content-addressed cache of encoded model images, on disk (keys: :mod:`agenthorizon.data.images`).

Entries are written to a temporary file and renamed, so concurrent runs
sharing the cache never read a half-written image.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["CACHE_ENV", "CACHE_VERSION", "ImageCache", "default_cache_dir"]

CACHE_ENV = "AGENTHORIZON_IMAGE_CACHE"
# Bump when the pixels produced for the same parameters change (resampling
# filter, letterboxing), so old cache entries are not served for new output.
CACHE_VERSION = 2


def default_cache_dir() -> Path:
    """Where encoded images are cached unless told otherwise.

    ``$AGENTHORIZON_IMAGE_CACHE`` when set, else ``<HF_HOME>/agenthorizon/images``
    (``HF_HOME`` defaults to ``$XDG_CACHE_HOME/huggingface`` or
    ``~/.cache/huggingface``, as for every Hugging Face library).
    """
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    from huggingface_hub import constants

    return Path(constants.HF_HOME) / "agenthorizon" / "images"


class ImageCache:
    """Encoded images under ``root`` by key (``<root>/<key[:2]>/<key>.<extension>``); ``root=None`` caches nothing."""

    def __init__(self, root: Path | None, extension: str) -> None:
        self.root = root
        self.extension = extension

    def path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / key[:2] / f"{key}.{self.extension}"

    def get(self, key: str) -> bytes | None:
        if self.root is None:
            return None
        try:
            return self.path(key).read_bytes()
        except FileNotFoundError:
            return None

    def put(self, key: str, data: bytes) -> None:
        if self.root is None:
            return
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        # Identical content makes a race between runs harmless.
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
