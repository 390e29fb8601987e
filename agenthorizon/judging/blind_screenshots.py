"""The screenshots a judge gets: decoded on access, aligned with the steps, never showing a path.

The release stores screenshots under ``media/images/<steps_id>/``, and the
steps id is a pairing field (it links a negative to its sibling), so
:class:`BlindScreenshots` hands out images decoded from bytes, encoded bytes,
model-ready images and hard links, but never a file path.
:func:`screenshot_sources` takes the per-step sources from whatever form a
row has (``LazyScreenshots``, decoded images, file paths in step records).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Iterator

__all__ = ["BlindScreenshots", "screenshot_sources"]


class BlindScreenshots(Sequence):
    """The screenshots of one trajectory, aligned with its steps, without their paths.

    Item ``k`` is the screenshot of step ``k`` decoded to a ``PIL.Image.Image``
    on access (``None`` when the step has none). Images are decoded from the
    file's bytes, so not even ``image.filename`` reveals where the file lives
    (its folder is the steps id, a pairing field). :meth:`read_bytes` gives the
    encoded file for judges that copy or hash screenshots.

    Sources may be file paths, already decoded PIL images or ``None``.
    """

    __slots__ = ("__sources",)

    def __init__(self, sources: Sequence[Any]) -> None:
        self.__sources = tuple(sources)

    def __len__(self) -> int:
        return len(self.__sources)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            # Still lazy, like LazyScreenshots[a:b]: a slice decodes nothing.
            return BlindScreenshots(self.__sources[index])
        source = self.__sources[index]
        if source is None:
            return None
        if isinstance(source, str):
            from agenthorizon.data.images import open_image

            # Decoded from bytes and named by step: neither the image nor an
            # error message carries the path (its folder is the steps id).
            return open_image(self.read_bytes(index), name=f"screenshot of step index {index}")
        # An already decoded image: hand out a copy, which carries no filename.
        return source.copy()

    def __iter__(self) -> Iterator[Any]:
        for index in range(len(self)):
            yield self[index]

    def has(self, index: int) -> bool:
        """True when step ``index`` has a screenshot."""
        return self.__sources[index] is not None

    @property
    def present(self) -> list[int]:
        """Indices of the steps that have a screenshot."""
        return [i for i, s in enumerate(self.__sources) if s is not None]

    def read_bytes(self, index: int) -> bytes | None:
        """The encoded screenshot of step ``index`` (PNG for files), or ``None``."""
        source = self.__sources[index]
        if source is None:
            return None
        if isinstance(source, str):
            with open(source, "rb") as handle:
                return handle.read()
        import io

        buffer = io.BytesIO()
        source.save(buffer, format="PNG")
        return buffer.getvalue()

    def prepare(self, **settings: Any) -> Any:
        """Model-ready images of these screenshots: :func:`agenthorizon.data.images.prepare_images`.

        The preprocessor reads the files by path (its cache hashes file bytes),
        and the paths stay inside this object: the judge gets encoded images and
        step ids only. ``settings`` are passed through (``mode``, ``size``,
        ``budget``, ``step_ids``, ``cache_dir``, ...).
        """
        from agenthorizon.data.images import prepare_images

        return prepare_images(list(self.__sources), **settings)

    def link_to(self, index: int, target: Any) -> bool:
        """Hard-link step ``index``'s file to ``target``; False when that is not possible.

        A hard link shares the file's content without recording where it came
        from (unlike a symbolic link, whose target shows the steps-id folder).
        """
        import os

        source = self.__sources[index]
        if not isinstance(source, str):
            return False
        try:
            os.link(source, target)
        except OSError:  # another file system, or links not supported: copy instead
            return False
        return True

    def __repr__(self) -> str:
        return f"BlindScreenshots({len(self)} steps, {len(self.present)} with a screenshot)"

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__


def screenshot_sources(row: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> list[Any]:
    """Per-step screenshot sources (path, PIL image or None) from whatever form the row has."""
    images = row.get("screenshots")
    if images is not None and not isinstance(images, (str, bytes)):
        paths = getattr(images, "paths", None)
        if paths is not None:  # a LazyScreenshots: use its paths, decode ourselves
            return list(paths)
        images = list(images)
        if len(images) == len(steps):
            return [str(x) if hasattr(x, "__fspath__") else x for x in images]
    return [step.get("screenshot") for step in steps]
