"""An item's own files in a release: its trajectory json, its Markdown and its screenshot paths, read confined.

Apart from :mod:`agenthorizon.release.files` (which re-exports them) so that
blind screenshots need not import the label code (``pyproject.toml`` import contract).
"""

from __future__ import annotations

import json
import os
import re
from itertools import compress, repeat
from operator import is_not, itemgetter
from typing import Any, Sequence

import orjson

from agenthorizon.release.confine import open_confined
from agenthorizon.schema import IMAGES_DIR, SCREENSHOT_REF_PREFIX, markdown_relpath
from agenthorizon.util.terminal_text import ECHO_LIMIT, printable

__all__ = ["ITEM_FILE_LIMIT", "parse_json_bytes", "read_bounded", "read_markdown", "read_trajectory", "screenshot_path",
           "screenshot_paths"]

ITEM_FILE_LIMIT = 64 * 2**20
"""The largest trajectory JSON or Markdown file read: 64 MiB (the release's largest is under 1 MB)."""

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")
# A screenshot reference of the release's own form, ``../media/images/<folder>/step_N.png``,
# whose folder is one plain name (not "." or "..", no separator or drive): it
# cannot leave the images directory, so it needs no per-step normalisation.
_CANONICAL_REFERENCE = re.compile(re.escape(SCREENSHOT_REF_PREFIX) + r"(?!\.\.?/)[^/\\:]+/step_[0-9]+\.png")


def read_bounded(handle: Any, limit: int, path: str | os.PathLike[str], what: str) -> Any:
    """All of an open release file, at most ``limit`` bytes: a larger (or sparse) one is refused before it is read.

    Raises ``ValueError`` naming ``path``, its size and ``limit``.
    """
    size = os.fstat(handle.fileno()).st_size
    data = handle.read(size + 1) if size <= limit else ""
    if size < len(data) <= limit:
        # It grew since fstat: read on to the limit (asking for limit + 1 bytes up front would
        # allocate that much for every small file).
        data += handle.read(limit + 1 - len(data))
    if size > limit or len(data) > limit:
        raise ValueError(f"{path}: {what} of {max(size, len(data)):,} bytes; expected at most {limit:,} (refused unread)")
    return data


def _parse_json(raw: bytes | str, name: str, expected: str) -> Any:
    """``json.loads`` with every way it fails turned into a ``ValueError`` naming ``name``."""
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{name}: unreadable json ({error}); expected {expected}") from None
    except RecursionError:
        # The standard parser recurses once per nesting level.
        raise ValueError(f"{name}: json nested too deeply to read; expected {expected}") from None


# Every digit becomes "0", so that a run of digits is a run of "0"s.
_DIGITS_AS_ZEROS = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGIT_RUN = b"0" * 19


def parse_json_bytes(raw: bytes, name: str, expected: str) -> Any:
    """Exactly :func:`_parse_json` of ``raw`` (values, and errors), faster.

    ``orjson`` is used only where it gives the standard parser's values: texts
    with a run of 19 or more digits, texts orjson refuses, and documents nested
    deeper than 255 levels go to the standard parser, whose errors are raised.

    >>> parse_json_bytes(b'{"t": 18446744073709551616, "x": 1.5}', "t.json", "an object")
    {'t': 18446744073709551616, 'x': 1.5}
    """
    if _LONG_DIGIT_RUN not in raw.translate(_DIGITS_AS_ZEROS):
        try:
            value = orjson.loads(raw)
            orjson.dumps(value)  # raises beyond 255 levels of nesting
            return value
        except (orjson.JSONDecodeError, orjson.JSONEncodeError):
            pass  # the standard parser decides, and names the error
    return _parse_json(raw, name, expected)


def read_trajectory(root: str | os.PathLike[str], json_path: str | os.PathLike[str], where: str) -> dict[str, Any]:
    """The trajectory object in ``json_path`` of the release at ``root``, checked for the fields rows need.

    Raises ``FileNotFoundError`` when the file is missing and ``ValueError``
    (naming the file and ``where``, usually the label row) when it is a link
    out of the release, not UTF-8 JSON, nested too deeply to parse, or not a
    trajectory object with a string ``task.instruction`` and a ``steps`` list.
    """
    try:
        with open_confined(root, json_path, "trajectory json") as handle:
            raw = read_bounded(handle, ITEM_FILE_LIMIT, f"{json_path} ({where})", "a trajectory json")
    except FileNotFoundError:
        raise FileNotFoundError(f"{json_path} ({where}): trajectory json not found") from None
    trajectory = parse_json_bytes(raw, f"{json_path} ({where})", "a trajectory object")
    if not isinstance(trajectory, dict):
        raise ValueError(
            f"{json_path} ({where}): the json is a {type(trajectory).__name__}, expected a trajectory object"
        )
    task = trajectory.get("task")
    if not isinstance(task, dict) or not isinstance(task.get("instruction"), str):
        raise ValueError(f"{json_path} ({where}): missing task.instruction; expected a string instruction")
    if not isinstance(trajectory.get("steps"), list):
        raise ValueError(f"{json_path} ({where}): 'steps' must be a list of step objects")
    return trajectory


def read_markdown(root: str | os.PathLike[str], trajectory_id: str, where: str) -> str | None:
    """The Markdown of ``trajectory_id`` in the release at ``root``; ``None`` when the release lacks it.

    Raises ``ValueError`` naming the file and ``where`` when it is a link out
    of the release or not UTF-8 text.
    """
    path = os.path.join(os.fspath(root), markdown_relpath(trajectory_id).replace("/", os.sep))
    try:
        with open_confined(root, path, "markdown file", "r", encoding="utf-8") as handle:
            return read_bounded(handle, ITEM_FILE_LIMIT, f"{path} ({where})", "a markdown file")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} ({where}): not UTF-8 text ({error.reason}); expected UTF-8 Markdown") from None

def screenshot_path(root: str | os.PathLike[str], json_path: str | os.PathLike[str], reference: Any, at: str) -> str:
    """Absolute path of a screenshot reference, which must stay under ``sandbox/data/media/images/``.

    References are relative to the json file (``../media/images/<steps_id>/step_N.png``).
    An absolute path, or one that leaves the images folder (``..`` out of the
    root, or to a label file or a json), raises ``ValueError`` starting with
    ``at``. The check is on the path as written;
    :func:`~agenthorizon.release.confine.escaping_screenshots` checks where links lead.
    """
    if not isinstance(reference, str) or not reference:
        raise ValueError(f"{at}: screenshot is {printable(reference, limit=ECHO_LIMIT, quote=True)}; expected a relative path string")
    # String tests rather than pathlib: this runs once per step of the release.
    if reference.startswith(("/", "\\")) or _WINDOWS_DRIVE.match(reference):
        raise ValueError(
            f"{at}: screenshot path {printable(reference, limit=ECHO_LIMIT, quote=True)} is absolute; expected a path relative to the json file"
        )
    root = os.fspath(root)
    # Lexical normalisation, not resolve(): Hub snapshots are symlinks into a
    # blob store, and resolving them would leave the root.
    path = os.path.normpath(os.path.join(os.path.dirname(os.fspath(json_path)), reference))
    if not path.startswith(root + os.sep):
        raise ValueError(
            f"{at}: screenshot path {printable(reference, limit=ECHO_LIMIT, quote=True)} escapes the release root {root}; "
            "expected a path inside the release"
        )
    images = os.path.join(root, IMAGES_DIR.replace("/", os.sep))
    if not path.startswith(images + os.sep):
        raise ValueError(
            f"{at}: screenshot path {printable(reference, limit=ECHO_LIMIT, quote=True)} points at {path}, outside the screenshot folder {images}; "
            f"expected a path under {IMAGES_DIR}/"
        )
    return path


def screenshot_paths(
    root: str | os.PathLike[str], json_path: str | os.PathLike[str], references: Sequence[Any], at: str
) -> list[str | None]:
    """:func:`screenshot_path` of each reference of one trajectory; ``None`` stays ``None``.

    Same results and errors (`` step <index>`` appended); references of the
    release's own form are joined without a per-step check.

    >>> screenshot_paths("/r", "/r/sandbox/data/jsons/t.json", ["../media/images/s/step_1.png", None], "t.json")
    ['/r/sandbox/data/media/images/s/step_1.png', None]
    """
    root = os.fspath(root)
    json_path = os.fspath(json_path)
    images_dir = os.path.normpath(os.path.join(os.path.dirname(json_path), SCREENSHOT_REF_PREFIX))
    own_images_dir = os.path.isabs(json_path) and images_dir == os.path.join(root, IMAGES_DIR.replace("/", os.sep))
    cut = len(SCREENSHOT_REF_PREFIX)
    prefix = images_dir + os.sep
    present = list(compress(references, map(is_not, references, repeat(None)))) if None in references else references
    if own_images_dir and os.sep == "/" and _in_one_canonical_folder(present):
        if present is references:
            return list(map(prefix.__add__, map(itemgetter(slice(cut, None)), references)))
        return [None if reference is None else prefix + reference[cut:] for reference in references]
    if (
        own_images_dir
        and set(map(type, present)) <= {str}
        and all(map(_CANONICAL_REFERENCE.fullmatch, present))
    ):
        if os.sep == "/":
            return [None if reference is None else prefix + reference[cut:] for reference in references]
        return [None if reference is None else prefix + reference[cut:].replace("/", os.sep) for reference in references]
    return [
        None if reference is None else screenshot_path(root, json_path, reference, f"{at} step {index}")
        for index, reference in enumerate(references)
    ]


_CANONICAL_FILE_NAMES = re.compile(r"step_[0-9]+\.png(?:\nstep_[0-9]+\.png)*")


def _in_one_canonical_folder(references: Sequence[Any]) -> bool:
    """Whether every reference is ``../media/images/<folder>/step_N.png`` with one same folder: ``_CANONICAL_REFERENCE`` in a few C-level passes."""
    if not references or type(references[0]) is not str or not _CANONICAL_REFERENCE.fullmatch(references[0]):
        return False
    head = references[0][: references[0].rindex("/") + 1]  # "../media/images/<folder>/"
    if set(map(type, references)) != {str} or not all(map(str.startswith, references, repeat(head))):
        return False
    names = "\n".join(map(itemgetter(slice(len(head), None)), references))
    return names.count("\n") == len(references) - 1 and _CANONICAL_FILE_NAMES.fullmatch(names) is not None
