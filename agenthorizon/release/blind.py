"""Hiding the pairing in image references: the one re-pointing rule for blind rows and judge inputs.

The release stores an item's screenshots under ``media/images/<steps_id>/``,
and its Markdown and JSON name that folder. The steps id is a pairing field
(a negative shows a sibling's steps), so anything blind, be it a judge's input
(:func:`agenthorizon.judging.inputs.build_judge_input`) or a ``blind=True``
dataset row (:func:`agenthorizon.load_dataset`), names the folder after the
item's own trajectory id instead: :func:`repoint_images` in text,
:func:`blind_screenshot_paths` in screenshot file paths.
"""

from __future__ import annotations

import os
import re

from agenthorizon.schema import IMAGES_DIR

__all__ = ["blind_screenshot_paths", "repoint_images"]

# Re-pointing matches ``media/images/`` with either path separator, so no
# other spelling of the reference (no ``../``, an HTML ``<img src>``, Windows
# separators) keeps the folder.
_IMAGE_DIRS = ("media/images/", "media\\images\\")
_FOLDER_NAME = re.compile(r"[^/\\\s()\[\]\"'<>]+")


def repoint_images(text: str, trajectory_id: str) -> str:
    """Replace the folder of every ``media/images/<folder>/`` reference in ``text`` by the trajectory id.

    Folder by folder with ``str.replace`` (a release Markdown has one folder
    and hundreds of references), rather than one substitution per reference.
    Applying it twice gives the same text as once.

    >>> repoint_images("![a](../media/images/d-1/step_1.png) ![b](../media/images/d-1/step_2.png)", "T")
    '![a](../media/images/T/step_1.png) ![b](../media/images/T/step_2.png)'
    >>> repoint_images('<img src="media/images/d-1/step_3.png"> media\\\\images\\\\d-1\\\\step_4.png', "T")
    '<img src="media/images/T/step_3.png"> media\\\\images\\\\T\\\\step_4.png'
    >>> repoint_images("![a](../media/images/T/step_1.png) ![b](../media/images/d-2/step_2.png)", "T")
    '![a](../media/images/T/step_1.png) ![b](../media/images/T/step_2.png)'
    """
    for prefix in _IMAGE_DIRS:
        separator = prefix[-1]
        if separator not in text:
            continue  # one memchr instead of a search for the whole prefix (Markdown rarely holds a backslash)
        start = 0
        blind = f"{prefix}{trajectory_id}{separator}"
        counted = False
        while (found := text.find(prefix, start)) >= 0:
            begin = found + len(prefix)
            match = _FOLDER_NAME.match(text, begin)
            start = begin
            if match is None or text[match.end() : match.end() + 1] != separator:
                continue
            if match.group() == trajectory_id:
                # Already blind here; a blind row's Markdown is blind throughout, which one
                # count shows instead of stepping through its hundreds of references.
                if not counted:
                    counted = True
                    if text.count(prefix) == text.count(blind):
                        break
                continue
            text = text.replace(f"{prefix}{match.group()}{separator}", blind)
            if text.count(prefix) == text.count(blind):
                break  # every reference re-pointed: skip the rest in one C-level check
    return text


def blind_screenshot_paths(root: str, paths: list[str | None], trajectory_id: str) -> list[str | None]:
    """The blind name of each screenshot file of one trajectory (``None`` stays ``None``).

    ``paths`` are screenshot paths as the build reads them,
    ``<root>/sandbox/data/media/images/<folder>/<name>``; each becomes
    ``<root>/sandbox/data/media/images/<trajectory_id>/<name>``, where the
    item's files sit in a judge's sandbox. Only the folder right under the
    images directory is replaced, by position rather than by searching the
    text, so a root that itself holds ``media/images/`` keeps it. The names
    are of no existing file: a blind row's screenshots read the real one
    (:class:`agenthorizon.data.screenshots.BlindScreenshots`).

    >>> blind_screenshot_paths("/r", ["/r/sandbox/data/media/images/0001-d/step_2.png", None], "T")
    ['/r/sandbox/data/media/images/T/step_2.png', None]
    >>> blind_screenshot_paths("/media/images/x/", ["/media/images/x/sandbox/data/media/images/d/a/b.png"], "T")
    ['/media/images/x/sandbox/data/media/images/T/a/b.png']
    """
    images = os.path.normpath(os.path.join(root, IMAGES_DIR.replace("/", os.sep))) + os.sep
    cut = len(images)
    blind = []
    for path in paths:
        if path is None:
            blind.append(None)
            continue
        if not path.startswith(images):
            raise ValueError(f"{path}: not a screenshot of the release at {root}; expected a path under {images}")
        folder, separator, rest = path[cut:].partition(os.sep)
        blind.append(images + trajectory_id + os.sep + (rest if separator else folder))
    return blind
