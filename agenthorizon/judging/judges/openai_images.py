"""How the direct judge attaches screenshots: the image settings, the plan per item, the token budget.

:class:`ImageOptions` turns a direct judge's screenshot settings into an
:class:`ImagePlan` per item (mode, SPEC section 3; size under a token budget:
:func:`budget_size`, :func:`input_budget_size`). No I/O: the images are
prepared by :mod:`agenthorizon.data.images` through the blind screenshots.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from agenthorizon.judging.judges.base import JudgeError
from agenthorizon.judging.judges.knobs import knob
from agenthorizon.schema import IMAGE_MODE_AUTO, IMAGE_MODE_MOSAIC, IMAGE_MODE_NONE, IMAGE_MODE_PER_STEP, JUDGE_IMAGE_MODES

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = [
    "BUDGET_COVERS",
    "ImageOptions",
    "ImagePlan",
    "MERGE_REASONS",
    "budget_size",
    "image_tokens",
    "input_budget_size",
    "text_tokens",
]

MERGE_COUNT = "count"
MERGE_SERVER_LIMIT = "server_limit"
MERGE_REASONS = (MERGE_COUNT, MERGE_SERVER_LIMIT)
"""Why an item's screenshots were merged: more than ``max_images``, or the server refused the request."""

BUDGET_IMAGES = "images"
BUDGET_INPUT = "input"
BUDGET_COVERS = (BUDGET_IMAGES, BUDGET_INPUT)
"""What an image token budget covers: the images alone, or the whole input (the authors' rule)."""

_BASE_TOKENS = 85
_PIXELS_PER_TOKEN = 170
_CHARS_PER_TOKEN = 4
# The authors' whole-input rule (SPEC section 5): tokens kept back, the aspect, the smallest width.
_RESERVED_TOKENS = 200
_AUTHORS_ASPECT = (1710, 1112)
_MIN_WIDTH = 64


def image_tokens(width: int, height: int) -> int:
    """Estimated input tokens of one ``width`` x ``height`` image: ``85 + floor(w * h / 170)``.

    The benchmark authors' estimate for sizing screenshots from a token budget
    (a real model's count differs; this one only has to be the same for every run).

    >>> image_tokens(511, 332), image_tokens(512, 332)
    (1082, 1084)
    """
    return _BASE_TOKENS + (width * height) // _PIXELS_PER_TOKEN


def budget_size(images: int, token_budget: int, box: tuple[int, int] = (512, 332), *, scale: int = 1) -> tuple[int, int]:
    """The largest size with the aspect of ``box`` and at most ``box`` whose ``images`` images fit ``token_budget``.

    The default rule (``budget_covers="images"``): the budget covers the images
    alone, each costing :func:`image_tokens`. ``scale`` is how many screenshot
    widths one image spans: 2 for a 2x2 mosaic.

    Raises
    ------
    JudgeError
        When even the smallest size does not fit (``images`` times 85 tokens
        already pass the budget).

    >>> budget_size(4, 10_000)
    (512, 332)
    >>> budget_size(32, 10_000)  # a longer item: smaller screenshots
    (244, 158)
    >>> budget_size(8, 10_000, scale=2)
    (276, 179)
    """
    width, height = box
    fixed = images * _BASE_TOKENS
    if images <= 0 or images * image_tokens(width * scale, height * scale) <= token_budget:
        return box
    if fixed + images >= token_budget:  # not even a few pixels per image fit
        raise JudgeError(
            f"--image-token-budget {token_budget} cannot hold {images} image(s): each costs at least "
            f"{_BASE_TOKENS} tokens; raise the budget or send fewer images (--image-budget)"
        )
    # Largest w with images * (85 + (s*w * s*h(w)) // 170) <= budget, h(w) keeping the aspect.
    best = (1, 1)
    low, high = 1, width
    while low <= high:
        middle = (low + high) // 2
        size = (middle, max(1, round(middle * height / width)))
        if images * image_tokens(size[0] * scale, size[1] * scale) <= token_budget:
            best, low = size, middle + 1
        else:
            high = middle - 1
    return best


def text_tokens(chars: int) -> int:
    """Estimated tokens of ``chars`` characters of text: ``chars // 4`` (the authors' estimate).

    >>> text_tokens(2401)
    600
    """
    return chars // _CHARS_PER_TOKEN


def _authors_height(width: int) -> int:
    return width * _AUTHORS_ASPECT[1] // _AUTHORS_ASPECT[0]


def input_budget_size(
    images: int, token_budget: int, text_chars: int, *, max_width: int = 512, scale: int = 1
) -> tuple[int, int]:
    """The screenshot size when ``token_budget`` covers the whole input (the authors' rule, SPEC section 5).

    One image's share is ``(token_budget - text_chars // 4 - 200) / images``
    tokens; the size is the largest width ``w`` in [64, ``max_width``], height
    ``int(w * 1112 / 1710)``, whose ``85 + (scale*w) * (scale*h) / 170`` is at
    most that share (compared exactly). When none fits, 64x41: never an error.
    ``scale`` is 2 for a 2x2 mosaic. The screenshots are resized to exactly this size.

    Parameters
    ----------
    images : int
        Images the request attaches (screenshots, or mosaics).
    token_budget : int
        Tokens allowed for the whole input, text and images.
    text_chars : int
        Characters of the text sent (system prompt, goal, every step's text).

    >>> input_budget_size(7, 8000, 2360)   # 590 tokens of text: 7210 for 7 images
    (497, 323)
    >>> input_budget_size(15, 8000, 3000)  # a longer item: smaller screenshots
    (317, 206)
    >>> input_budget_size(15, 1000, 4000)  # nothing left after the text: thumbnails
    (64, 41)
    """
    smallest = (_MIN_WIDTH, _authors_height(_MIN_WIDTH))
    if images <= 0:
        return (max_width, _authors_height(max_width))
    left = token_budget - text_tokens(text_chars) - _RESERVED_TOKENS
    # 85 + (s*w)(s*h)/170 <= left/images, multiplied out so that no rounding decides a size.
    for width in range(max_width, _MIN_WIDTH - 1, -1):
        height = _authors_height(width)
        if images * (_BASE_TOKENS * _PIXELS_PER_TOKEN + scale * width * scale * height) <= _PIXELS_PER_TOKEN * left:
            return (width, height)
    return smallest


TextCounter = Callable[["ImagePlan"], int]
"""Characters of the text a request sends under a plan (the judge's messages, counted)."""


@dataclass(frozen=True)
class ImagePlan:
    """How one request attaches screenshots.

    ``mode`` is ``per-step``, ``mosaic`` or ``none``; ``budget`` the most images
    (``None``: no limit); ``merge_reason`` why screenshots are merged
    (:data:`MERGE_REASONS`, ``None`` when they are not or when mosaics were
    asked for); ``server_limit_retries`` how many times the server refused the
    item as too large before this plan; ``halved`` whether the mosaic budget
    was halved after such a refusal; ``size`` the screenshot size chosen for
    the item (``None``: the settings' size); ``text_tokens`` the text's
    estimate under a whole-input budget.
    """

    mode: str
    budget: int | None = None
    merge_reason: str | None = None
    server_limit_retries: int = 0
    halved: bool = False
    size: tuple[int, int] | None = None
    text_tokens: int | None = None

    def telemetry(self, prepared: list[Any]) -> dict[str, Any]:
        """What an item's result records about its images."""
        merged = self.mode == IMAGE_MODE_MOSAIC and bool(prepared)
        out = {
            "images_mode_used": self.mode,
            "merged": merged,
            "merge_reason": self.merge_reason if merged else None,
            "n_images": len(prepared),
            "server_limit_retries": self.server_limit_retries,
        }
        if self.size is not None:
            out["image_size"] = list(self.size)
        if self.text_tokens is not None:
            out["text_tokens"] = self.text_tokens
        return out


def _min_budget(*budgets: int | None) -> int | None:
    known = [b for b in budgets if b is not None]
    return min(known) if known else None


@dataclass(frozen=True)
class ImageOptions:
    """A direct judge's screenshot settings (the judge's ``images``, ``image_*`` and ``max_images`` options)."""

    mode: str = knob(
        IMAGE_MODE_AUTO, option="images", flag="--images", choices=JUDGE_IMAGE_MODES, inspect=True,
        record=("images", "mode"),
        help="screenshots: auto (default: per-step, 2x2 mosaics past --max-images or a server limit), "
        "per-step, mosaic, or none (the same run as --ablate screenshots)",
    )
    budget: int | None = knob(
        None, option="image_budget", flag="--image-budget", type=int, metavar="N", inspect=True,
        record=("images", "budget"), help="most images per request",
    )
    max_images: int | None = knob(
        None, flag="--max-images", type=int, metavar="N", inspect=True, record=("images", "max_images"),
        help="the server's image limit per request (vLLM --limit-mm-per-prompt); more screenshots are merged",
    )
    size: tuple[int, int] = knob((512, 332), option="image_size", record=("images", "size"))
    quality: int | None = knob(
        None, option="image_quality", flag="--jpeg-quality", type=int, metavar="Q", inspect=True,
        record=("images", "quality"),
        help="JPEG quality of the screenshots sent, 1-100 (default 85; the paper's preprocessing used 60)",
    )
    strategy: str | None = knob(None, option="image_strategy", record=("images", "strategy"))
    token_budget: int | None = knob(
        None, option="image_token_budget", flag="--image-token-budget", type=int, metavar="N", inspect=True,
        record=("images", "token_budget"),
        help="per item, screenshots sized to fit N estimated tokens (85 + w*h/170 per image); what N covers is "
        "--budget-covers; the size is recorded per item",
    )
    cache_dir: str | None = knob(None)  # where encoded screenshots are cached: not part of the run's identity
    budget_covers: str = knob(
        BUDGET_IMAGES, flag="--budget-covers", choices=BUDGET_COVERS, inspect=True, record=("images", "budget_covers"),
        help="images (default: N is for the images alone; the largest size, same aspect, at most 512x332) or "
        "input (the authors' rule: N is for the whole input; the text's chars // 4 and 200 come off first, the "
        "rest is split over the screenshots, width in [64, 512], 64x41 when nothing is left)",
    )

    def __post_init__(self) -> None:
        if self.mode not in JUDGE_IMAGE_MODES:
            raise ValueError(f"openai judge: images must be one of {JUDGE_IMAGE_MODES}, got {self.mode!r}")
        if self.budget is not None and self.budget < 1:
            raise ValueError(f"openai judge: image budget must be >= 1, got {self.budget}")
        if self.max_images is not None and (not isinstance(self.max_images, int) or self.max_images < 1):
            raise ValueError(f"openai judge: max_images must be a positive integer or None, got {self.max_images!r}")
        if self.token_budget is not None and (
            not isinstance(self.token_budget, int) or isinstance(self.token_budget, bool) or self.token_budget < 1
        ):
            raise ValueError(f"openai judge: image_token_budget must be a positive integer (tokens), got {self.token_budget!r}")
        if self.budget_covers not in BUDGET_COVERS:
            raise ValueError(f"openai judge: budget_covers must be one of {BUDGET_COVERS}, got {self.budget_covers!r}")
        if self.covers_input and self.token_budget is None:
            raise ValueError(
                "openai judge: budget_covers='input' sizes screenshots from a token budget; "
                "give one (image_token_budget, --image-token-budget N)"
            )
        if self.covers_input and not _MIN_WIDTH <= self.size[0]:
            raise ValueError(f"openai judge: with budget_covers='input' the width bound must be >= {_MIN_WIDTH}, got {self.size!r}")
        object.__setattr__(self, "size", tuple(self.size))
        self.settings()  # bad image settings fail here, not on the first item

    @property
    def covers_input(self) -> bool:
        """Whether the token budget covers the whole input (the authors' rule), not the images alone."""
        return self.budget_covers == BUDGET_INPUT

    def settings(self, mode: str | None = None) -> Any:
        """The :class:`agenthorizon.data.images.ImageSettings` for ``mode`` (default: these options').

        ``None`` for text only. In ``auto`` mode the default is the per-step
        settings (what an item gets while its screenshots fit ``max_images``).
        """
        mode = self.mode if mode is None else mode
        if mode == IMAGE_MODE_NONE:
            return None
        from agenthorizon.data.images import ImageSettings

        kwargs: dict[str, Any] = {
            "mode": IMAGE_MODE_PER_STEP if mode == IMAGE_MODE_AUTO else mode, "size": self.size, "budget": self.budget,
        }
        if self.quality is not None:
            kwargs["quality"] = self.quality
        if self.strategy is not None:
            kwargs["strategy"] = self.strategy
        if self.covers_input:  # the authors' sizes follow a fixed aspect: resized to exactly them
            kwargs["resize"] = "exact"
        return ImageSettings(**kwargs)

    def record(self) -> dict[str, Any]:
        """The ``images`` settings a run records (and the judge key counts)."""
        if self.mode == IMAGE_MODE_NONE:
            return {"mode": IMAGE_MODE_NONE}
        record = self.settings().to_dict()
        record["max_images"] = self.max_images
        if self.mode == IMAGE_MODE_AUTO:
            # The per-step settings, plus the mosaics an item falls back to.
            mosaic = self.settings(IMAGE_MODE_MOSAIC).to_dict()
            record.update(
                mode=IMAGE_MODE_AUTO,
                mosaic=mosaic["mosaic"],
                reading_order=mosaic["reading_order"],
                merging=(
                    "per-step images while an item's selected screenshots number at most max_images, "
                    "else 2x2 mosaics of them (at most max_images); after an HTTP 400 for too many "
                    "images or tokens, once more as mosaics, then as mosaics under half the image budget"
                ),
            )
        if self.token_budget is not None:  # only when set: keys of runs without it stay as they were
            record["token_budget"] = self.token_budget
            record["token_estimate"] = "85 + w*h/170 per image; size per item, at most size, same aspect"
        if self.covers_input:  # only when set, as above
            record["budget_covers"] = BUDGET_INPUT
            record["token_estimate"] = (
                "whole input: budget - text chars // 4 - 200, split over the images; largest width in "
                f"[{_MIN_WIDTH}, {self.size[0]}] with height int(w*1112/1710) whose 85 + w*h/170 fits; else 64x41"
            )
        return record

    # --- planning -------------------------------------------------------------------------

    def plan(self, judge_input: JudgeInput, count_text: TextCounter | None = None) -> ImagePlan:
        """The first image plan for an item.

        ``auto`` merges into 2x2 mosaics when the per-step selection would send
        more than ``max_images``. With a token budget the size is chosen for the
        images sent (and, for a whole-input budget, for ``count_text(plan)``
        characters of text).
        """
        if self.mode == IMAGE_MODE_NONE or not judge_input.screenshots.present:
            return ImagePlan(IMAGE_MODE_NONE)  # text only (an item without screenshots, or withheld)
        if self.mode == IMAGE_MODE_MOSAIC:
            plan = ImagePlan(IMAGE_MODE_MOSAIC, _min_budget(self.budget, self.max_images))
        else:
            plan = ImagePlan(IMAGE_MODE_PER_STEP, _min_budget(self.budget, self.max_images))
            if self.mode == IMAGE_MODE_AUTO and self.max_images is not None:
                count = self._per_step_count(judge_input)
                if count > self.max_images:
                    plan = ImagePlan(IMAGE_MODE_MOSAIC, self._mosaics_for(count), MERGE_COUNT)
        return self.sized(plan, judge_input, count_text)

    def sized(self, plan: ImagePlan, judge_input: JudgeInput, count_text: TextCounter | None = None) -> ImagePlan:
        """``plan`` with the screenshot size its images fit in under the token budget (unchanged without one)."""
        if self.token_budget is None or plan.mode == IMAGE_MODE_NONE:
            return plan
        count = self._per_step_count(judge_input, budget=None)
        if plan.mode == IMAGE_MODE_MOSAIC:
            images, scale = math.ceil(count / 4), 2
        else:
            images, scale = count, 1
        if plan.budget is not None:
            images = min(images, plan.budget)
        if self.covers_input:
            chars = 0 if count_text is None else count_text(plan)
            size = input_budget_size(images, self.token_budget, chars, max_width=self.size[0], scale=scale)
            return dataclasses.replace(plan, size=size, text_tokens=text_tokens(chars))
        return dataclasses.replace(plan, size=budget_size(images, self.token_budget, self.size, scale=scale))

    def _per_step_count(self, judge_input: JudgeInput, budget: Any = "settings") -> int:
        from agenthorizon.data.images import select_steps

        settings = self.settings(IMAGE_MODE_PER_STEP)
        step_ids = judge_input.step_columns.step_ids
        available = [step_ids[index] for index in judge_input.screenshots.present]
        limit = settings.budget if budget == "settings" else budget
        return len(select_steps(available, settings.strategy, budget=limit, every=settings.every))

    def _mosaics_for(self, screenshots: int) -> int:
        # Enough mosaics for the same screenshots (four per mosaic), within the serving limit.
        return max(1, _min_budget(math.ceil(screenshots / 4), self.max_images))

    def fallback(
        self, plan: ImagePlan, images_sent: int, judge_input: JudgeInput, count_text: TextCounter | None = None
    ) -> ImagePlan | None:
        """The plan after the server refused ``plan`` as too large; ``None`` when nothing is left to try.

        Only in mode ``auto``: per-step images become mosaics, then the mosaic budget is halved once.
        """
        if self.mode != IMAGE_MODE_AUTO or images_sent == 0:
            return None
        retries = plan.server_limit_retries + 1
        if plan.mode == IMAGE_MODE_PER_STEP:
            following = ImagePlan(IMAGE_MODE_MOSAIC, self._mosaics_for(images_sent), MERGE_SERVER_LIMIT, retries)
        elif plan.mode == IMAGE_MODE_MOSAIC and not plan.halved and images_sent > 1:
            # Halved once only: a server that refuses even that needs other settings (--max-model-len, --max-images).
            reason = plan.merge_reason or MERGE_SERVER_LIMIT
            following = ImagePlan(IMAGE_MODE_MOSAIC, images_sent // 2, reason, retries, halved=True)
        else:
            return None
        return self.sized(following, judge_input, count_text)

    def stand_ins(self, judge_input: JudgeInput, plan: ImagePlan) -> list[Any]:
        """The images ``plan`` attaches, without pixels (their steps and kind): to count the request's text."""
        from agenthorizon.data.images import PreparedImage, select_steps

        settings = self.settings(plan.mode)
        if settings is None:
            return []
        settings = dataclasses.replace(settings, budget=plan.budget)
        step_ids = judge_input.step_columns.step_ids
        available = [step_ids[index] for index in judge_input.screenshots.present]
        chosen = select_steps(available, settings.strategy, budget=settings.step_budget, every=settings.every)
        mosaic = plan.mode == IMAGE_MODE_MOSAIC
        per_image = 4 if mosaic else 1
        return [
            PreparedImage(tuple(chosen[start:start + per_image]), b"", settings.mime_type, (0, 0), "mosaic" if mosaic else "step")
            for start in range(0, len(chosen), per_image)
        ]

    def prepare(self, judge_input: JudgeInput, plan: ImagePlan) -> list[Any]:
        """The item's images under ``plan`` (:class:`agenthorizon.data.images.PreparedImages`; empty for none)."""
        settings = self.settings(plan.mode)
        if settings is None:
            return []
        changes: dict[str, Any] = {"budget": plan.budget}
        if plan.size is not None:
            changes["size"] = plan.size
        settings = dataclasses.replace(settings, **changes)
        extra = {"cache_dir": self.cache_dir} if self.cache_dir is not None else {}
        return judge_input.screenshots.prepare(settings=settings, step_ids=judge_input.step_columns.step_ids, **extra)
