"""Reading a release's files on disk, confined to the release.

A release root holds ``AgentHorizon.jsonl``, ``AgentHorizon-Simple.jsonl`` and
``sandbox/data/{jsons,markdowns,media/images}/`` (SPEC section 2). A file whose
real path leaves the release (:mod:`agenthorizon.release.confine`), or that is
not a regular file, is refused by name.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator, Sequence, TextIO

from agenthorizon.release.confine import (
    NotRegularFileError,
    confined,
    escaping_screenshots,
    link_out_message,
    open_confined,
    open_regular,
    release_real_roots,
)
from agenthorizon.release.item_files import (  # re-exported
    ITEM_FILE_LIMIT,
    _parse_json,
    parse_json_bytes,
    read_bounded,
    read_markdown,
    read_trajectory,
    screenshot_path,
    screenshot_paths,
)
from agenthorizon.release.labels import (
    LINE_LIMIT,
    cached_parse,
    check_disjoint,
    manifest_sha256,
    parse_label_lines,
    text_digest,
)
from agenthorizon.release.item_selection import Selection
from agenthorizon.release.splits import select_rows
from agenthorizon.schema import (
    DEV_GROUPS,
    DIFFICULTY_BY_LABEL_FILE,
    LABEL_FILES,
    LOAD_IMAGE_MODES,
    SANDBOX_DIR,
    json_relpath,
    markdown_relpath,
    screenshot_folder_relpath,
)

__all__ = [
    "ConfigRows",
    "NotRegularFileError",
    "check_images",
    "confined",
    "dev_manifest_identity",
    "dev_manifest_path",
    "escaping_screenshots",
    "expected_root_message",
    "label_file_lines",
    "link_out_message",
    "open_confined",
    "open_regular",
    "load_references",
    "local_root",
    "read_config_rows",
    "read_dev_manifest",
    "read_labels",
    "read_markdown",
    "read_trajectory",
    "release_real_roots",
    "screenshot_path",
    "screenshot_paths",
    "stat_fingerprint",
]



def expected_root_message() -> str:
    """What a release root is, for error messages."""
    return (
        f"expected a release root: the directory holding {LABEL_FILES[0]}, {LABEL_FILES[1]} "
        f"and {SANDBOX_DIR}/ (the parent of the {SANDBOX_DIR} folder)"
    )


def check_images(images: str | None) -> None:
    """Raise ``ValueError`` naming the modes when ``images`` is not a loading mode."""
    if images not in LOAD_IMAGE_MODES:
        raise ValueError(f"unknown images mode {images!r}; expected one of 'lazy', 'paths', 'eager' or None")


def local_root(path: str | os.PathLike[str]) -> Path:
    """The release root at ``path``, checked; absolute with symlinks kept (a Hub snapshot is a tree of links; :func:`confined` checks each)."""
    root = Path(os.path.normpath(Path(path).expanduser().absolute()))
    if root.is_file():
        if root.name in LABEL_FILES:
            raise ValueError(f"{root} is a label file; pass the directory that holds it: {root.parent}")
        raise ValueError(f"{root} is a file; {expected_root_message()}")
    if not root.is_dir():
        raise FileNotFoundError(f"{root} does not exist; {expected_root_message()}")
    # exists(), not is_file(): a label file that is a FIFO or a device is there, and its
    # reader names what it is (open_regular) rather than calling it missing.
    missing = [name for name in LABEL_FILES if not (root / name).exists()]
    if missing:
        if root.name == SANDBOX_DIR and all((root.parent / name).exists() for name in LABEL_FILES):
            raise ValueError(f"{root} is the {SANDBOX_DIR} folder; pass its parent, the release root {root.parent}")
        raise FileNotFoundError(f"{root} has no {' or '.join(missing)}; {expected_root_message()}")
    return root


# --- label files and the rows of a selection ---------------------------------------


def read_labels(root: str | os.PathLike[str]) -> list[dict[str, str]]:
    """The label rows of both files of the release at ``root``, validated.

    Rows come in release order (AgentHorizon.jsonl, then
    AgentHorizon-Simple.jsonl) with the seven label fields plus ``difficulty``
    (``hard`` / ``easy``, from their file) and ``location`` (``file:line``, for
    error messages). Raises ``ValueError`` naming the file and line of a bad
    row or of a trajectory id that occurs twice (within or across the files),
    or naming a label file that is a link out of the release.
    """
    root = Path(root)
    files = []
    for name in LABEL_FILES:
        path = root / name
        try:
            with open_confined(root, path, "label file", "r", encoding="utf-8") as handle:
                # Two streaming passes: the digest (an unchanged text reuses its parse), then the lines.
                digest = text_digest(iter(lambda: handle.read(1 << 20), ""))
                label_file = cached_parse(name, digest)
                if label_file is None:
                    handle.seek(0)
                    label_file = parse_label_lines(label_file_lines(handle), name, digest=digest)
        except FileNotFoundError:
            raise FileNotFoundError(f"label file {path} not found; {expected_root_message()}") from None
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}: not UTF-8 text ({error.reason}); expected JSON Lines") from None
        files.append(label_file)
    check_disjoint(files)
    rows = []
    for label_file in files:
        difficulty = DIFFICULTY_BY_LABEL_FILE[label_file.name]
        for index, row in enumerate(label_file.rows):
            rows.append({**row, "difficulty": difficulty, "location": label_file.location(index)})
    return rows


def label_file_lines(handle: TextIO) -> Iterator[str]:
    """The lines of an open label file, each read at most :data:`~agenthorizon.release.labels.LINE_LIMIT` + 1 characters.

    A longer line is given cut there (the validation refuses it) and the rest of it skipped."""
    while line := handle.readline(LINE_LIMIT + 1):
        if len(line) > LINE_LIMIT and not line.endswith("\n"):
            while (rest := handle.readline(LINE_LIMIT + 1)) and not rest.endswith("\n"):
                pass
        yield line


def dev_manifest_path(path: str | os.PathLike[str]) -> str:
    """A dev manifest's path in the one form runs record and readers compare: ``~`` expanded, absolute, links resolved.

    >>> dev_manifest_path("/tmp/../tmp/dev.txt") == str(Path("/tmp/dev.txt").resolve())
    True
    """
    return str(Path(path).expanduser().resolve())


def dev_manifest_identity(path: str | os.PathLike[str]) -> tuple[str, str]:
    """(absolute path, sha256 of the bytes) of a dev manifest: what a cache key and a run record keep."""
    absolute = dev_manifest_path(path)
    try:
        with open_regular(absolute, "dev manifest") as handle:
            return absolute, hashlib.sha256(handle.read()).hexdigest()
    except FileNotFoundError:
        raise FileNotFoundError(f"dev manifest {absolute} not found") from None


def read_dev_manifest(path: str | os.PathLike[str], *, sha256: str | None = None) -> list[str]:
    """Trajectory ids listed in a dev manifest (the user's file): one id a line (blanks and ``#`` comments ignored), or JSON.

    JSON is a list of ids or an object with a ``trajectory_ids`` list. With
    ``sha256`` (as a run recorded), a file hashing otherwise is refused: it would
    define another AH-D.
    """
    path = Path(path)
    try:
        with open_regular(path, "dev manifest") as handle:
            raw = read_bounded(handle, ITEM_FILE_LIMIT, path, "a dev manifest")
    except FileNotFoundError:
        raise FileNotFoundError(f"dev manifest {path} not found") from None
    if sha256 is not None and hashlib.sha256(raw).hexdigest() != sha256:
        raise ValueError(
            f"dev manifest {path} has sha256 {hashlib.sha256(raw).hexdigest()}, but the selection records {sha256}; "
            "expected the manifest the run was made with"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"dev manifest {path}: not UTF-8 text ({error.reason}); expected trajectory ids") from None
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        value = _parse_json(text, str(path), "a JSON list of trajectory ids")
        if isinstance(value, dict):
            value = value.get("trajectory_ids")
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ValueError(
                f"{path}: expected a JSON list of trajectory ids or an object with a 'trajectory_ids' list"
            )
        return list(value)
    ids = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            ids.append(line)
    return ids


@dataclass(frozen=True)
class ConfigRows:
    """A selection's rows as read from a release (``root``, ``selection``, ``rows``), and every label row (``labels``).

    Made by :func:`read_config_rows`; a builder reuses it, so one load reads the label files once.
    """

    root: str
    selection: Selection
    rows: list[dict[str, Any]]
    labels: list[dict[str, str]]

    @cached_property
    def release_label_sha256(self) -> str:
        """:func:`~agenthorizon.release.labels.manifest_sha256` of the whole release's labels (both files)."""
        return manifest_sha256(self.labels)

    def references(self) -> list[dict[str, Any]]:
        """The rows without ``location`` (a reading detail): what scoring and a run's label manifest use."""
        return [{key: value for key, value in row.items() if key != "location"} for row in self.rows]


def read_config_rows(root: str | os.PathLike[str], selection: Selection) -> ConfigRows:
    """The rows of ``selection`` in the release at ``root``: the label files read once, then :func:`select_rows`.

    A dev manifest the selection names is read here, checked against the
    sha256 the selection records (if any). Raises what the readers and ``select_rows`` raise.
    """
    labels = read_labels(root)
    ids = None
    if selection.dev_manifest is not None:
        ids = read_dev_manifest(selection.dev_manifest, sha256=selection.dev_manifest_sha256)
    return ConfigRows(os.fspath(root), selection, select_rows(labels, selection, dev_manifest_ids=ids), labels)


def load_references(
    root: str | os.PathLike[str],
    config: str,
    *,
    dev_groups: int = DEV_GROUPS,
    dev_manifest: str | os.PathLike[str] | None = None,
    exclude_dev: bool = False,
) -> list[dict[str, Any]]:
    """The label rows of ``config``: what scoring needs, without trajectory files.

    Each row has the seven label fields plus ``difficulty``, ``pair_group_id``
    and ``in_dev``, in release order. AH-D and ``in_dev`` are computed over the
    whole release (both files), as the authors' derivation requires.
    """
    manifest = None if dev_manifest is None else dev_manifest_path(dev_manifest)
    selection = Selection(config, dev_groups=dev_groups, dev_manifest=manifest, exclude_dev=exclude_dev)
    return read_config_rows(local_root(root), selection).references()


def stat_fingerprint(root: str | os.PathLike[str], rows: Sequence[dict[str, Any]]) -> str:
    """A sha256 of the size and modification time (ns) of every file a build of ``rows`` reads.

    Covers each row's JSON, Markdown and screenshot folder (its mtime changes
    when a screenshot is added, removed or replaced); a missing file counts as
    absent. One ``os.stat`` a file, no read.

    >>> import tempfile
    >>> root = tempfile.mkdtemp()
    >>> before = stat_fingerprint(root, [{"trajectory_id": "t", "steps_id": "s"}])
    >>> _ = os.makedirs(os.path.join(root, "sandbox/data/jsons"))
    >>> _ = open(os.path.join(root, "sandbox/data/jsons/t.json"), "w").write("{}")
    >>> stat_fingerprint(root, [{"trajectory_id": "t", "steps_id": "s"}]) != before
    True
    """
    root_text = os.fspath(root) + os.sep
    stat = os.stat
    parts = []
    for row in rows:
        for relpath in (
            json_relpath(row["trajectory_id"]),
            markdown_relpath(row["trajectory_id"]),
            screenshot_folder_relpath(row["steps_id"]),
        ):
            try:
                info = stat(root_text + relpath)
            except OSError:
                parts.append(f"{relpath}\0absent")
            else:
                parts.append(f"{relpath}\0{info.st_size}\0{info.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()
