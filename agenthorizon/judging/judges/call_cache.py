"""Answers of a direct judge's helper models, kept on disk: step selections and screenshot summaries.

Judging again with another final model then pays for neither. Each entry is
one JSON file ``<root>/<kind>/<key[:2]>/<key>.json``, keyed by the sha256 of
what decides the answer (:func:`cache_key`); root: :func:`default_model_cache`.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterator, Mapping

__all__ = ["MODEL_CACHE_ENV", "CallCache", "cache_key", "default_model_cache"]

MODEL_CACHE_ENV = "AGENTHORIZON_MODEL_CACHE"
_VERSION = 1  # bump when what a key covers changes


def default_model_cache() -> Path:
    """``$AGENTHORIZON_MODEL_CACHE`` when set, else ``<HF_HOME>/agenthorizon/model-calls``."""
    override = os.environ.get(MODEL_CACHE_ENV)
    if override:
        return Path(override).expanduser()
    from huggingface_hub import constants

    return Path(constants.HF_HOME) / "agenthorizon" / "model-calls"


def cache_key(parts: Mapping[str, Any]) -> str:
    """The sha256 (hex) of ``parts`` as canonical JSON, with this cache's version.

    >>> cache_key({"model": "m", "k": 4}) == cache_key({"k": 4, "model": "m"})
    True
    >>> len(cache_key({}))
    64
    """
    text = json.dumps({"v": _VERSION, **parts}, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CallCache:
    """JSON entries of one ``kind`` (``selections``, ``summaries``...) under ``root``."""

    def __init__(self, root: str | os.PathLike[str] | None, kind: str) -> None:
        self.folder = (Path(root) if root is not None else default_model_cache()) / kind

    def path(self, key: str) -> Path:
        """Where the entry of ``key`` lives."""
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry of ``key``, ``None`` when there is none; a damaged entry is a ``ValueError`` naming its file."""
        path = self.path(key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            entry = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}: damaged cache entry ({error.msg} at character {error.pos}); delete the file") from None
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: damaged cache entry; expected a JSON object, got {type(entry).__name__}")
        return entry

    def put(self, key: str, entry: Mapping[str, Any]) -> None:
        """Write the entry of ``key``, stamped ``created_at`` (UTC, ISO 8601); renamed into place: no reader sees half of it."""
        entry = {**entry, "created_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(entry, handle, ensure_ascii=False, sort_keys=True)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def entries(self) -> Iterator[tuple[Path, dict[str, Any]]]:
        """Every entry, with its file, in file-name order."""
        if not self.folder.is_dir():
            return
        for path in sorted(self.folder.glob("*/*.json")):
            entry = self.get(path.stem)
            if entry is not None:
                yield path, entry
