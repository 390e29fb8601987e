"""Where a run came from: timestamps, package versions, the git revision, the data root.

These fill the run record's ``started_at`` / ``ended_at``, ``versions``,
``git_revision`` and ``data`` fields.
"""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["data_root_record", "git_revision", "now", "versions"]

_VERSIONED_PACKAGES = ("agenthorizon", "datasets", "huggingface_hub", "numpy", "pillow", "httpx", "pyarrow")


def now() -> str:
    """The current UTC time in ISO 8601 to the second, as the run record stores times."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def data_root_record(data_root: str | os.PathLike[str] | None) -> dict[str, Any]:
    """``data.root`` of the run record; for a Hub snapshot also the repo id and commit it holds.

    A Hub snapshot is ``<cache>/datasets--<org>--<name>/snapshots/<commit>``
    (``--`` cannot occur in a repo id, so the folder name gives it back).

    >>> data_root_record("/c/hub/datasets--ServiceNow--AgentHorizon/snapshots/0a1b")["commit"]
    '0a1b'
    """
    if data_root is None:
        return {"root": None}
    root = Path(data_root).resolve()
    record: dict[str, Any] = {"root": str(root)}
    storage = root.parent.parent.name
    if root.parent.name == "snapshots" and storage.startswith("datasets--") and storage.count("--") == 2:
        record.update(repo_id=storage[len("datasets--"):].replace("--", "/"), commit=root.name)
    return record


def git_revision() -> str | None:
    """The commit of the checkout the package runs from; ``None`` outside a git checkout."""
    package_dir = Path(__file__).resolve().parent
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=package_dir, capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    revision = result.stdout.strip()
    return revision if result.returncode == 0 and revision else None


def versions() -> dict[str, str | None]:
    """Python's version and the installed versions of the packages a run depends on (``None``: absent)."""
    from importlib import metadata

    found: dict[str, str | None] = {"python": sys.version.split()[0]}
    for name in _VERSIONED_PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found
