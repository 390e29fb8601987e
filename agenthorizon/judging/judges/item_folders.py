"""Names of a command judge's item folders, and which of them a killed runner left.

Item folders are named ``agenthorizon-judge-<run tag>-<pid>-<random>``, so a
resumed run can find those of the same run whose process is gone
(:func:`stale_item_folders`); folders of other runs or of a live process are
never named.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["ITEM_PREFIX", "item_prefix", "stale_item_folders"]

ITEM_PREFIX = "agenthorizon-judge-"
"""The start of every item folder's name."""
_TAG = re.compile(r"[0-9a-f]{1,64}")


def item_prefix(run_tag: str | None) -> str:
    """The name prefix of the item folders this process makes for the run ``run_tag`` (``None``: no run).

    >>> item_prefix("3fa9") == f"agenthorizon-judge-3fa9-{os.getpid()}-"
    True
    >>> item_prefix(None)
    'agenthorizon-judge-'
    """
    if run_tag is None:
        return ITEM_PREFIX
    if not _TAG.fullmatch(run_tag):
        raise ValueError(f"run tag {run_tag!r}: expected lower-case hexadecimal digits")
    return f"{ITEM_PREFIX}{run_tag}-{os.getpid()}-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def stale_item_folders(root: str | os.PathLike[str], run_tag: str) -> list[Path]:
    """The item folders under ``root`` of the run ``run_tag`` whose runner process is gone (links excluded).

    Safe to remove by a runner holding the run folder's lock: no live runner of the run can be using them.
    """
    pattern = re.compile(rf"{re.escape(ITEM_PREFIX)}{re.escape(run_tag)}-(\d+)-.+")
    try:
        with os.scandir(root) as scan:
            entries = [(entry, pattern.fullmatch(entry.name)) for entry in scan]
    except FileNotFoundError:
        return []
    return sorted(
        Path(entry.path) for entry, match in entries
        if match is not None and entry.is_dir(follow_symlinks=False) and not _alive(int(match.group(1)))
    )
