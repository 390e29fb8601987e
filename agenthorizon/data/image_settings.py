"""What a run asks of screenshots (:class:`ImageSettings`) and what it gets (:class:`PreparedImages`).

The pixels are made by :func:`agenthorizon.data.images.prepare_images`.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from agenthorizon.data.step_selection import SELECTION_STRATEGIES, STRATEGY_ALL
from agenthorizon.schema import IMAGE_MODE_MOSAIC, IMAGE_MODE_PER_STEP, MODEL_IMAGE_MODES

__all__ = ["ImageSettings", "PreparedImage", "PreparedImages", "reading_order_sentence"]

FORMATS = {"jpeg": "image/jpeg", "png": "image/png"}
DEFAULT_SIZE = (512, 332)
DEFAULT_QUALITY = 85
MOSAIC_GRID = (2, 2)  # columns, rows
TILES_PER_MOSAIC = MOSAIC_GRID[0] * MOSAIC_GRID[1]
_CELL_NAMES = ("top-left", "top-right", "bottom-left", "bottom-right")
BLANK_COLOR = (0, 0, 0)
RESIZE_FIT = "fit"
RESIZE_EXACT = "exact"
RESIZE_MODES = (RESIZE_FIT, RESIZE_EXACT)

# --- settings ------------------------------------------------------------------


@dataclass(frozen=True)
class ImageSettings:
    """How screenshots are prepared for a model; stored in the run record.

    Attributes
    ----------
    mode : {"per-step", "mosaic", "none"}
        One image per selected step; 2x2 mosaics of four consecutive selected
        steps; or no images.
    size : (int, int)
        Box each screenshot is downscaled to fit, aspect ratio kept (never
        upscaled). A mosaic is twice as wide and twice as high: 1024x664 for
        the default 512x332.
    format : {"jpeg", "png"}
    quality : int
        JPEG quality, 1-100 (ignored for PNG).
    budget : int or None
        Most images sent per trajectory (per-step: screenshots; mosaic:
        mosaics, so at most ``4 * budget`` steps). ``None`` means no limit.
    strategy : {"all", "every-k", "even"}
        Which steps to show, see :func:`select_steps`.
    every : int
        ``k`` of the ``every-k`` strategy.
    resize : {"fit", "exact"}
        ``fit`` (the default) downscales each screenshot to fit ``size``,
        aspect kept; ``exact`` resizes it to exactly ``size`` (the benchmark
        authors' preprocessing, whose sizes come from a fixed aspect).

    >>> ImageSettings(mode="mosaic").to_dict()["mosaic"]
    {'grid': [2, 2], 'order': 'row-major', 'size': [1024, 664]}
    """

    mode: str = IMAGE_MODE_PER_STEP
    size: tuple[int, int] = DEFAULT_SIZE
    format: str = "jpeg"
    quality: int = DEFAULT_QUALITY
    budget: int | None = None
    strategy: str = STRATEGY_ALL
    every: int = 1
    resize: str = RESIZE_FIT

    def __post_init__(self) -> None:
        if self.mode not in MODEL_IMAGE_MODES:
            raise ValueError(f"image mode {self.mode!r} is not one of {MODEL_IMAGE_MODES}")
        size = tuple(self.size)
        if len(size) != 2 or not all(isinstance(v, int) and v > 0 for v in size):
            raise ValueError(f"image size must be two positive integers (width, height), got {self.size!r}")
        object.__setattr__(self, "size", size)
        fmt = str(self.format).lower()
        fmt = "jpeg" if fmt == "jpg" else fmt
        if fmt not in FORMATS:
            raise ValueError(f"image format {self.format!r} is not one of {tuple(FORMATS)}")
        object.__setattr__(self, "format", fmt)
        if not isinstance(self.quality, int) or not 1 <= self.quality <= 100:
            raise ValueError(f"JPEG quality must be an integer from 1 to 100, got {self.quality!r}")
        if self.budget is not None and (not isinstance(self.budget, int) or self.budget < 1):
            raise ValueError(f"image budget must be a positive integer or None, got {self.budget!r}")
        if self.strategy not in SELECTION_STRATEGIES:
            raise ValueError(f"selection strategy {self.strategy!r} is not one of {SELECTION_STRATEGIES}")
        if not isinstance(self.every, int) or self.every < 1:
            raise ValueError(f"'every' (k of every-k) must be a positive integer, got {self.every!r}")
        if self.resize not in RESIZE_MODES:
            raise ValueError(f"resize {self.resize!r} is not one of {RESIZE_MODES}")

    @property
    def mime_type(self) -> str:
        return FORMATS[self.format]

    @property
    def mosaic_size(self) -> tuple[int, int]:
        return (self.size[0] * MOSAIC_GRID[0], self.size[1] * MOSAIC_GRID[1])

    @property
    def step_budget(self) -> int | None:
        """Most steps that may be shown: the image budget, times four for mosaics."""
        if self.budget is None:
            return None
        return self.budget * (TILES_PER_MOSAIC if self.mode == IMAGE_MODE_MOSAIC else 1)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description for the run record (``images`` key)."""
        record = {
            "mode": self.mode,
            "size": list(self.size),
            "format": self.format,
            "quality": self.quality if self.format == "jpeg" else None,
            "budget": self.budget,
            "strategy": self.strategy,
            "every": self.every,
            "mosaic": (
                {"grid": list(MOSAIC_GRID), "order": "row-major", "size": list(self.mosaic_size)}
                if self.mode == IMAGE_MODE_MOSAIC
                else None
            ),
            "reading_order": reading_order_sentence() if self.mode == IMAGE_MODE_MOSAIC else None,
        }
        if self.resize != RESIZE_FIT:  # only when set: records and judge keys of default runs stay unchanged
            record["resize"] = self.resize
        return record


# --- prepared images -------------------------------------------------------------


@dataclass(frozen=True)
class PreparedImage:
    """One encoded image for the model.

    ``steps`` are the step ids it shows, in reading order (one for a per-step
    image, up to four for a mosaic: top-left, top-right, bottom-left,
    bottom-right). ``size`` is (width, height) of the encoded image.
    """

    steps: tuple[int, ...]
    data: bytes = field(repr=False)
    mime_type: str
    size: tuple[int, int]
    kind: str = "step"  # "step" or "mosaic"

    def data_url(self) -> str:
        """The image as a base64 data URL, as OpenAI-compatible servers take it."""
        return f"data:{self.mime_type};base64,{base64.b64encode(self.data).decode('ascii')}"

    def content_part(self) -> dict[str, Any]:
        """The image as an OpenAI chat ``content`` part."""
        return {"type": "image_url", "image_url": {"url": self.data_url()}}

    def caption(self) -> str:
        """Text to place before the image in the prompt.

        >>> PreparedImage((7,), b"", "image/jpeg", (1, 1)).caption()
        'Step 7 screenshot:'
        """
        if self.kind == "mosaic":
            return reading_order_sentence(self.steps)
        return f"Step {self.steps[0]} screenshot:"


class PreparedImages(list):
    """A list of :class:`PreparedImage` with what happened while preparing it.

    Attributes: ``settings`` (:class:`ImageSettings`), ``selected_steps`` (step
    ids shown), ``skipped_steps`` (step ids without a screenshot), ``encoded``
    (images encoded by this call) and ``cache_hits`` (images read from cache).
    """

    def __init__(
        self,
        images: Iterable[PreparedImage] = (),
        *,
        settings: ImageSettings | None = None,
        selected_steps: Sequence[int] = (),
        skipped_steps: Sequence[int] = (),
        encoded: int = 0,
        cache_hits: int = 0,
    ) -> None:
        super().__init__(images)
        self.settings = settings or ImageSettings()
        self.selected_steps = tuple(selected_steps)
        self.skipped_steps = tuple(skipped_steps)
        self.encoded = encoded
        self.cache_hits = cache_hits


def reading_order_sentence(steps: Sequence[int] | None = None) -> str:
    """The reading order of a 2x2 mosaic, as the prompt must state it.

    Without ``steps``, the general sentence for the prompt's instructions; with
    the step ids of one mosaic, the caption of that image (empty cells of a
    final partial mosaic are named as blank).

    >>> reading_order_sentence([4, 5, 6])
    'Steps 4-6 as a 2x2 grid, read left to right, top to bottom: top-left = step 4, top-right = step 5, bottom-left = step 6, bottom-right = blank.'
    """
    if steps is None:
        return (
            "Each image is a 2x2 grid of four consecutive steps, read left to right, top to bottom: "
            "top-left = step N, top-right = step N+1, bottom-left = step N+2, bottom-right = step N+3; "
            "each image is preceded by the step numbers it shows, and cells after the last step are blank."
        )
    steps = list(steps)
    if not 1 <= len(steps) <= TILES_PER_MOSAIC:
        raise ValueError(f"a mosaic shows 1 to {TILES_PER_MOSAIC} steps, got {len(steps)}")
    cells = [
        f"{name} = step {steps[i]}" if i < len(steps) else f"{name} = blank"
        for i, name in enumerate(_CELL_NAMES)
    ]
    span = f"Steps {steps[0]}-{steps[-1]}" if len(steps) > 1 else f"Step {steps[0]}"
    return f"{span} as a 2x2 grid, read left to right, top to bottom: {', '.join(cells)}."
