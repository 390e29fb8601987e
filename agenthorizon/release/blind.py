"""Hiding the pairing in image references: the one re-pointing rule for blind rows and judge inputs.

Screenshots sit under ``media/images/<steps_id>/``, and the steps id is a
pairing field (a negative shows a sibling's steps). Judge inputs and
``blind=True`` rows name the folder after the item's own trajectory id:
:func:`repoint_images` in text, :func:`blind_screenshot_paths` in file paths.
"""

from __future__ import annotations

import os
import re

from agenthorizon.schema import IMAGES_DIR

__all__ = ["blind_screenshot_paths", "repoint_images"]

# Either separator, so no spelling of a reference (``../``, ``<img src>``,
# Windows separators) keeps the steps-id folder.
_IMAGE_DIRS = ("media/images/", "media\\images\\")
_FOLDER_NAME = re.compile(r"[^/\\\s()\[\]\"'<>]+")


def repoint_images(text: str, trajectory_id: str) -> str:
    """Replace the folder of every ``media/images/<folder>/`` reference in ``text`` by the trajectory id.

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
            continue  # Markdown rarely holds a backslash: a cheap skip
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
                # Already blind; one count shows whether the whole text is.
                if not counted:
                    counted = True
                    if text.count(prefix) == text.count(blind):
                        break
                continue
            text = text.replace(f"{prefix}{match.group()}{separator}", blind)
            if text.count(prefix) == text.count(blind):
                break  # every reference re-pointed
    return text


def blind_screenshot_paths(root: str, paths: list[str | None], trajectory_id: str) -> list[str | None]:
    """The blind name of each screenshot file of one trajectory (``None`` stays ``None``).

    ``<root>/sandbox/data/media/images/<folder>/<name>`` becomes ``.../<trajectory_id>/<name>``,
    where a judge's sandbox holds the item's files; a root that itself holds
    ``media/images/`` keeps it. The names are of no existing file (a blind row
    reads the real one). Raises ``ValueError`` for a path outside the images folder.

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
