"""Lazy screenshot sequences: decode a screenshot only when it is indexed.

:class:`LazyScreenshots` (full rows) shows each file's path;
:class:`BlindScreenshots` (blind rows, judge inputs) shows none, since the real
folder is the steps id, a pairing field. A blind row stores each screenshot
under its *blind name*, ``<root>/sandbox/data/media/images/<trajectory_id>/step_N.png``
(no such file exists); reading it finds the real file through the item's own
trajectory json, at that moment.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Sequence
from typing import Any, Iterable, Iterator, overload

from agenthorizon.release.blind import blind_screenshot_paths, repoint_images
from agenthorizon.release.confine import open_confined, open_regular
from agenthorizon.release.item_files import read_trajectory, screenshot_paths
from agenthorizon.release.image_files import ScreenshotError, ScreenshotNotFoundError, open_image
from agenthorizon.schema import IMAGES_DIR, SANDBOX_DIR, json_relpath

__all__ = ["BlindScreenshots", "LazyScreenshots", "decode_screenshot"]


def decode_screenshot(path: str) -> Any:
    """Decode the image file at ``path`` to a fully loaded ``PIL.Image.Image``, within the pixel budget.

    The only place :class:`LazyScreenshots` decodes, so counting (or
    monkeypatching) it counts decodes.

    Raises ``ScreenshotNotFoundError`` (a ``FileNotFoundError``) naming ``path``
    when the file does not exist, and ``ScreenshotError`` (a ``ValueError``)
    naming it when the file is over the pixel budget, truncated or not an image.
    """
    return open_image(path)


class LazyScreenshots(Sequence):
    """The screenshots of one trajectory, aligned with its steps, decoded on access.

    ``screens[k]`` decodes the screenshot of step ``k`` (through
    :func:`decode_screenshot`) and returns a ``PIL.Image.Image``, or ``None``
    when step ``k`` has no screenshot. Nothing is cached: indexing twice decodes
    twice, so a loop over a long trajectory holds one image at a time.
    Slicing returns another lazy sequence and decodes nothing; :attr:`paths`
    gives the file paths without touching the files.

    A missing file raises ``FileNotFoundError`` naming its path, only when that
    screenshot is indexed. Blind rows hold :class:`BlindScreenshots` instead.

    >>> screens = LazyScreenshots(["/data/step_1.png", None, "/data/step_3.png"])
    >>> len(screens), screens[1]
    (3, None)
    >>> screens[::2].paths
    ('/data/step_1.png', '/data/step_3.png')
    >>> screens
    LazyScreenshots(3 steps, 2 with a screenshot)
    """

    __slots__ = ("_paths",)

    def __init__(self, paths: Iterable[str | os.PathLike[str] | None]) -> None:
        self._paths: tuple[str | None, ...] = tuple(None if p is None else os.fspath(p) for p in paths)

    @classmethod
    def of_paths(cls, paths: tuple[str | None, ...]) -> LazyScreenshots:
        """A sequence over ``paths``, already a tuple of ``str`` or ``None`` (no per-path conversion).

        >>> LazyScreenshots.of_paths(("/data/step_1.png", None))
        LazyScreenshots(2 steps, 1 with a screenshot)
        """
        screens = cls.__new__(cls)
        screens._paths = paths
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
            return LazyScreenshots.of_paths(self._paths[index])
        path = self._paths[index]
        # decode_screenshot is looked up at call time, so monkeypatching it sees every decode.
        return None if path is None else decode_screenshot(path)

    def __iter__(self):
        for path in self._paths:
            yield None if path is None else decode_screenshot(path)

    def __eq__(self, other: object) -> bool:
        # By the files they point at: equal rows compare equal without decoding.
        if isinstance(other, LazyScreenshots):
            return self._paths == other._paths
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._paths)

    def __repr__(self) -> str:
        present = sum(path is not None for path in self._paths)
        return f"LazyScreenshots({len(self._paths)} steps, {present} with a screenshot)"


_IMAGES_MARKER = os.sep + IMAGES_DIR.replace("/", os.sep) + os.sep
_SANDBOX_IMAGES = IMAGES_DIR[len(SANDBOX_DIR) + 1 :]  # "data/media/images", as a judge's sandbox has it
_STEP_FILE = re.compile(r"step_([0-9]+)\.png")


class BlindScreenshots(Sequence):
    """The screenshots of one trajectory, aligned with its steps, showing no file path.

    Item ``k`` is the screenshot of step ``k`` decoded to a ``PIL.Image.Image``
    on access (``None`` when the step has none); a slice is another lazy
    sequence. Images are decoded from the file's bytes, so not even
    ``image.filename`` shows where the file lives, and errors name the
    trajectory and the step (``data/media/images/<trajectory_id>/step_N.png``,
    as a judge's sandbox lays it out), never the file. :meth:`read_bytes`,
    :meth:`prepare` and :meth:`link_to` give the encoded file, model-ready
    images and a hard link, for judges that copy, send or hash screenshots.

    Parameters
    ----------
    sources : sequence
        One entry per step: ``None``, a decoded PIL image, or a file path.
        A path whose folder under ``sandbox/data/media/images/`` is
        ``trajectory_id`` is a *blind name*, which is how a blind row stores
        its screenshots (:func:`agenthorizon.release.blind.blind_screenshot_paths`):
        its real file is found, when it is read, from the item's trajectory
        json in that release. Any other path is read as it is.
    trajectory_id : str, optional
        The item's id: it tells blind names apart and names the item in errors.

    Blindness is per item: two sequences whose screenshots are the same files
    still give the same bytes, so a program can compare two items by content.

    >>> screens = BlindScreenshots([None, "/r/sandbox/data/media/images/T/step_2.png"], trajectory_id="T")
    >>> screens, screens.present, screens.has(0)
    (BlindScreenshots(2 steps, 1 with a screenshot), [1], False)
    >>> screens[1]
    Traceback (most recent call last):
    ...
    agenthorizon.release.image_files.ScreenshotNotFoundError: trajectory T, step 1 (data/media/images/T/step_2.png): its trajectory json sandbox/data/jsons/T.json is not in the release
    """

    __slots__ = ("__sources", "__trajectory_id")

    def __init__(self, sources: Sequence[Any], trajectory_id: str | None = None) -> None:
        self.__sources = tuple(sources)
        self.__trajectory_id = trajectory_id

    @classmethod
    def of_blind_paths(cls, paths: tuple[str | None, ...]) -> BlindScreenshots:
        """The screenshots of a blind row, from its stored blind names (whose folder is the trajectory id).

        >>> BlindScreenshots.of_blind_paths(("/r/sandbox/data/media/images/T/step_1.png", None)).trajectory_id
        'T'
        """
        trajectory_id = None
        for path in paths:
            if path is not None:
                at = path.rfind(_IMAGES_MARKER)
                if at >= 0:
                    trajectory_id = path[at + len(_IMAGES_MARKER) :].split(os.sep, 1)[0]
                break
        return cls(paths, trajectory_id)

    @property
    def trajectory_id(self) -> str | None:
        """The id of the item these screenshots belong to (``None`` when not given)."""
        return self.__trajectory_id

    def __len__(self) -> int:
        return len(self.__sources)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> BlindScreenshots: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return BlindScreenshots(self.__sources[index], self.__trajectory_id)  # still lazy: decodes nothing
        source = self.__sources[index]
        if source is None:
            return None
        if isinstance(source, (str, os.PathLike)):
            # Decoded from bytes and named by step: neither the image nor an error carries the path.
            return open_image(self.read_bytes(index), name=self._name(index))
        return source.copy()  # an already decoded image: a copy carries no file name

    def __iter__(self) -> Iterator[Any]:
        for index in range(len(self)):
            yield self[index]

    def take(self, indices: Sequence[int]) -> BlindScreenshots:
        """The screenshots at ``indices``, in that order (still lazy: decodes nothing).

        >>> BlindScreenshots([None, "a.png", "b.png"], "T").take([2, 1]).present
        [0, 1]
        """
        return BlindScreenshots([self.__sources[index] for index in indices], self.__trajectory_id)

    def has(self, index: int) -> bool:
        """True when step ``index`` has a screenshot."""
        return self.__sources[index] is not None

    @property
    def present(self) -> list[int]:
        """Indices of the steps that have a screenshot."""
        return [i for i, s in enumerate(self.__sources) if s is not None]

    def only(self, indices: Iterable[int]) -> BlindScreenshots:
        """The same steps with the screenshots of ``indices`` alone (every other step without one); still lazy.

        >>> BlindScreenshots(["a.png", "b.png", "c.png"], trajectory_id="T").only([2]).present
        [2]
        """
        keep = set(indices)
        return BlindScreenshots(
            [source if index in keep else None for index, source in enumerate(self.__sources)], self.__trajectory_id
        )

    def read_bytes(self, index: int) -> bytes | None:
        """The encoded screenshot of step ``index`` (the file's bytes; PNG for a decoded image), or ``None``.

        Raises ``ScreenshotNotFoundError`` (a ``FileNotFoundError``) naming the
        trajectory and step when the file is missing.
        """
        source = self.__sources[index]
        if source is None:
            return None
        if not isinstance(source, (str, os.PathLike)):
            import io

            buffer = io.BytesIO()
            source.save(buffer, format="PNG")
            return buffer.getvalue()
        root, path = self._file(index)
        name = self._name(index)
        try:
            with open_regular(path, "screenshot") if root is None else open_confined(root, path, "screenshot") as handle:
                return handle.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            failure: Exception = ScreenshotNotFoundError(f"{name}: screenshot file not found; expected an image file")
        except (OSError, ValueError) as error:  # unreadable, or a link out of the release
            failure = ScreenshotError(self._blinded(str(error).replace(path, name)))
        raise failure  # outside the handler: no chained error keeps the real path

    def prepare(self, **settings: Any) -> Any:
        """Model-ready images of these screenshots: :func:`agenthorizon.data.images.prepare_images`.

        The preprocessor reads the files (its cache hashes their bytes); the
        judge gets encoded images and step ids only, and errors name the step,
        not the file. ``settings`` are passed through (``mode``, ``size``,
        ``budget``, ``step_ids``, ``cache_dir``, ...).
        """
        from agenthorizon.data.images import prepare_images

        files = {
            index: self._file(index)[1]
            for index, source in enumerate(self.__sources)
            if isinstance(source, (str, os.PathLike))
        }
        try:
            return prepare_images([files.get(index, source) for index, source in enumerate(self.__sources)], **settings)
        except ScreenshotError as error:
            message = str(error)
            for index, path in files.items():
                message = message.replace(path, self._name(index))
            failure = type(error)(self._blinded(message))
        raise failure  # outside the handler: no chained error keeps the real path

    def link_to(self, index: int, target: Any) -> bool:
        """Hard-link step ``index``'s file to ``target``; False when that is not possible.

        A hard link shares the file's content without recording where it came
        from (unlike a symbolic link, whose target shows the steps-id folder).
        """
        source = self.__sources[index]
        if not isinstance(source, (str, os.PathLike)):
            return False
        try:
            os.link(self._file(index)[1], target)
        except (OSError, ValueError):  # another file system, links not supported, or not found: copy instead
            return False
        return True

    def _file(self, index: int) -> tuple[str | None, str]:
        """(release root or None, real path) of the file of step ``index``; a blind name is looked up."""
        path = os.fspath(self.__sources[index])
        trajectory_id = self.__trajectory_id
        at = path.rfind(_IMAGES_MARKER)
        if trajectory_id is None or at < 0 or not path.startswith(trajectory_id + os.sep, at + len(_IMAGES_MARKER)):
            return None, path
        root = path[:at]
        real = _real_files(root, trajectory_id, self._name(index)).get(path)
        if real is None:
            raise ScreenshotNotFoundError(
                f"{self._name(index)}: the item's trajectory json no longer lists this screenshot "
                "(the release changed since the dataset was built; load it again)"
            )
        return root, real

    def _name(self, index: int) -> str:
        """How errors and decoded images name step ``index``'s screenshot: by trajectory and step."""
        source = self.__sources[index]
        trajectory_id = self.__trajectory_id
        if trajectory_id is None:
            return f"screenshot of step index {index}"
        if not isinstance(source, (str, os.PathLike)):
            return f"trajectory {trajectory_id}, step {index}"
        name = os.path.basename(os.fspath(source))
        match = _STEP_FILE.fullmatch(name)
        step = int(match.group(1)) - 1 if match else index  # file names are 1-based, step ids 0-based
        return f"trajectory {trajectory_id}, step {step} ({_SANDBOX_IMAGES}/{trajectory_id}/{name})"

    def _blinded(self, message: str) -> str:
        return message if self.__trajectory_id is None else repoint_images(message, self.__trajectory_id)

    def __reduce__(self) -> tuple[Any, ...]:
        return (BlindScreenshots, (self.__sources, self.__trajectory_id))

    def __repr__(self) -> str:
        return f"BlindScreenshots({len(self)} steps, {len(self.present)} with a screenshot)"

    def __eq__(self, other: object) -> bool:
        # By what they show, so equal blind rows compare equal without reading a file.
        if isinstance(other, BlindScreenshots):
            return (self.__trajectory_id, self.__sources) == (other.__trajectory_id, other.__sources)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.__trajectory_id, len(self.__sources)))


def _real_files(root: str, trajectory_id: str, name: str) -> dict[str, str]:
    """Blind name -> real path of every screenshot of ``trajectory_id``, from its trajectory json.

    Read the way the build reads it (so the same files, confined to the
    release), and kept for the json's current size and modification time, so
    a loop over a trajectory parses its json once and a changed json is read
    again. Errors name the item and step (``name``), never the steps-id folder.
    """
    relpath = json_relpath(trajectory_id)
    json_path = root + os.sep + relpath.replace("/", os.sep)
    failure: Exception | None = None
    try:
        stat = os.stat(json_path)
        return _real_files_of(root, json_path, trajectory_id, stat.st_size, stat.st_mtime_ns, stat.st_ino)
    except FileNotFoundError:
        failure = ScreenshotNotFoundError(f"{name}: its trajectory json {relpath} is not in the release")
    except (OSError, ValueError) as error:
        message = repoint_images(str(error), trajectory_id)
        failure = ScreenshotError(f"{name}: its trajectory json {relpath} does not locate it ({message})")
    raise failure


@functools.lru_cache(maxsize=64)
def _real_files_of(root: str, json_path: str, trajectory_id: str, *stat: int) -> dict[str, str]:
    where = f"trajectory {trajectory_id}"
    steps = read_trajectory(root, json_path, where)["steps"]
    references = [step.get("screenshot") if isinstance(step, dict) else None for step in steps]
    real = screenshot_paths(root, json_path, references, json_path)
    files: dict[str, str] = {}
    for blind, path in zip(blind_screenshot_paths(root, real, trajectory_id), real):
        if blind is not None and files.setdefault(blind, path) != path:
            raise ValueError(
                f"two screenshots of {where} are both named {os.path.basename(blind)}, in different folders; "
                "expected one screenshot folder per trajectory (agenthorizon verify reports this)"
            )
    return files
