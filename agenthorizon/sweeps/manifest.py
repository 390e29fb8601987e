"""The shard manifest: what one cell of a sweep judged, written beside its shard's run record.

``sweep/shard-I-of-N.json`` in the run folder; ``sweep collect`` merges a
folder's shards only when their manifests agree on everything but the shard
and together cover each item once. Readers of results skip ``sweep/``.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable

__all__ = ["MANIFEST_VERSION", "SWEEP_FOLDER", "ShardManifest", "id_set_sha256", "manifest_name", "read_manifests", "write_manifest"]

MANIFEST_VERSION = 1
"""The version of :class:`ShardManifest` this release writes."""

SWEEP_FOLDER = "sweep"
"""The sub-folder of a run folder holding the sweep's files: shard manifests, server logs."""
_PREFIX, _SUFFIX = "shard-", ".json"


def id_set_sha256(trajectory_ids: Iterable[str]) -> str:
    """sha256 (hex) of the sorted, distinct ids, one per line: the identity of a set of items.

    >>> id_set_sha256(["b", "a"]) == id_set_sha256(["a", "b", "a"])
    True
    """
    text = "\n".join(sorted(set(trajectory_ids)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def manifest_name(shard: tuple[int, int]) -> str:
    """``shard-I-of-N.json`` (in the run folder's :data:`SWEEP_FOLDER`).

    >>> manifest_name((2, 4))
    'shard-2-of-4.json'
    """
    return f"{_PREFIX}{shard[0]}-of-{shard[1]}{_SUFFIX}"


@dataclass(frozen=True)
class ShardManifest:
    """One shard of one cell of a sweep: judge key, shard ``I/N``, :func:`id_set_sha256` of its items,
    the release's label manifest sha256 and the package version; ``cell`` is its index in the sweep."""

    judge_key: str
    shard_index: int
    shard_count: int
    ids_sha256: str
    n_items: int
    label_manifest_sha256: str
    package_version: str
    config: str
    cell: int
    version: int = MANIFEST_VERSION

    @property
    def shard(self) -> tuple[int, int]:
        return self.shard_index, self.shard_count

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any, where: str) -> ShardManifest:
        """A manifest from its JSON object, or a ``ValueError`` naming ``where`` and the field at fault."""
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected a JSON object (a shard manifest), got {type(data).__name__}")
        version = data.get("version")
        if version != MANIFEST_VERSION:
            raise ValueError(f"{where}: shard manifest version {version!r}; this release reads version {MANIFEST_VERSION}")
        fields = {"judge_key": str, "shard_index": int, "shard_count": int, "ids_sha256": str, "n_items": int,
                  "label_manifest_sha256": str, "package_version": str, "config": str, "cell": int}
        for name, kind in fields.items():
            value = data.get(name)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ValueError(f"{where}: field {name!r} must be {kind.__name__}, got {value!r}")
        unknown = set(data) - set(fields) - {"version"}
        if unknown:
            raise ValueError(f"{where}: unknown fields {sorted(unknown)} in a shard manifest")
        if not 1 <= data["shard_index"] <= data["shard_count"]:
            raise ValueError(f"{where}: shard {data['shard_index']}/{data['shard_count']}; expected 1 <= I <= N")
        return cls(**{name: data[name] for name in fields})


def write_manifest(folder: str | os.PathLike[str], manifest: ShardManifest) -> Path:
    """Write ``manifest`` into ``folder`` atomically (a re-run of the shard replaces it); its path."""
    path = Path(folder) / SWEEP_FOLDER / manifest_name(manifest.shard)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(manifest.to_dict(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_manifests(folder: str | os.PathLike[str]) -> dict[str, ShardManifest]:
    """Every shard manifest of run folder ``folder`` by file name (none: empty); an unreadable one is a ``ValueError`` naming it."""
    folder = Path(folder) / SWEEP_FOLDER
    found: dict[str, ShardManifest] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.iterdir()):
        if path.name.startswith(_PREFIX) and path.name.endswith(_SUFFIX):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise ValueError(f"{path}: unreadable shard manifest ({error}); expected JSON") from None
            found[path.name] = ShardManifest.from_dict(data, str(path))
    return found
