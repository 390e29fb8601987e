"""Lazy screenshot sequences: decode a screenshot only when it is indexed.

A trajectory of the release has one screenshot per step (median 121 steps, up
to 358), each a full-resolution desktop capture. Decoding a whole row's
screenshots to look at one of them, or at none (reading the instruction),
costs seconds and hundreds of megabytes; :class:`LazyScreenshots` makes a row
cheap to access and pays for exactly the screenshots that are indexed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Iterable, overload

from agenthorizon.release.image_files import open_image

__all__ = ["LazyScreenshots", "decode_screenshot"]


def decode_screenshot(path: str, *, blind: bool = False) -> Any:
    """Decode the image file at ``path`` to a fully loaded ``PIL.Image.Image``.

    This is the only place that decodes screenshots for :class:`LazyScreenshots`,
    so counting (or monkeypatching) it counts decodes. It decodes through
    :func:`agenthorizon.release.image_files.open_image`, within the pixel budget.

    Raises ``ScreenshotNotFoundError`` (a ``FileNotFoundError``) naming ``path``
    when the file does not exist, and ``ScreenshotError`` (a ``ValueError``)
    naming it when the file is over the pixel budget, truncated or not an image.

    With ``blind=True`` the image is decoded from the file's bytes, so its
    ``filename`` (whose folder is the steps id, a pairing field) stays empty.
    """
    if not blind:
        return open_image(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return open_image(path)  # raises the error that names the file
    return open_image(data, name=path)


class LazyScreenshots(Sequence):
    """The screenshots of one trajectory, aligned with its steps, decoded on access.

    ``screens[k]`` decodes the screenshot of step ``k`` (through
    :func:`decode_screenshot`) and returns a ``PIL.Image.Image``, or ``None``
    when step ``k`` has no screenshot. Nothing is cached: indexing twice decodes
    twice, so a loop over a long trajectory holds one image at a time.
    Slicing returns another lazy sequence and decodes nothing; :attr:`paths`
    gives the file paths without touching the files.

    A missing file raises ``FileNotFoundError`` naming its path, only when that
    screenshot is indexed. ``blind=True`` (rows of ``load_dataset(blind=True)``)
    decodes images that carry no file name; :attr:`paths` still gives the
    real file locations, which a program needs to read the files but which
    must not be shown to a model (their folder is the steps id).

    >>> screens = LazyScreenshots(["/data/step_1.png", None, "/data/step_3.png"])
    >>> len(screens), screens[1]
    (3, None)
    >>> screens[::2].paths
    ('/data/step_1.png', '/data/step_3.png')
    >>> screens
    LazyScreenshots(3 steps, 2 with a screenshot)
    """

    __slots__ = ("_paths", "_blind")

    def __init__(self, paths: Iterable[str | os.PathLike[str] | None], *, blind: bool = False) -> None:
        self._paths: tuple[str | None, ...] = tuple(None if p is None else os.fspath(p) for p in paths)
        self._blind = blind

    @classmethod
    def of_paths(cls, paths: tuple[str | None, ...], *, blind: bool = False) -> LazyScreenshots:
        """A sequence over ``paths``, already a tuple of ``str`` or ``None`` (no per-path conversion).

        >>> LazyScreenshots.of_paths(("/data/step_1.png", None))
        LazyScreenshots(2 steps, 1 with a screenshot)
        """
        screens = cls.__new__(cls)
        screens._paths = paths
        screens._blind = blind
        return screens

    @property
    def paths(self) -> tuple[str | None, ...]:
        """The screenshot file path of every step (``None`` where a step has none)."""
        return self._paths

    def __len__(self) -> int:
        return len(self._paths)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> LazyScreenshots: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return LazyScreenshots(self._paths[index], blind=self._blind)
        path = self._paths[index]
        return None if path is None else self._decode(path)

    def __iter__(self):
        for path in self._paths:
            yield None if path is None else self._decode(path)

    def _decode(self, path: str) -> Any:
        # Looked up at call time, so counting (or monkeypatching) decode_screenshot sees every decode.
        return decode_screenshot(path, blind=True) if self._blind else decode_screenshot(path)

    def __eq__(self, other: object) -> bool:
        # Compare by the files they point at, so equal rows compare equal
        # without decoding anything.
        if isinstance(other, LazyScreenshots):
            return self._paths == other._paths
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._paths)

    def __repr__(self) -> str:
        present = sum(path is not None for path in self._paths)
        return f"LazyScreenshots({len(self._paths)} steps, {present} with a screenshot)"
