"""Where the release files come from: a local root, or a Hub snapshot.

A *release root* is the directory that holds the two label files and the
``sandbox/`` folder (SPEC section 2)::

    <root>/AgentHorizon.jsonl
    <root>/AgentHorizon-Simple.jsonl
    <root>/sandbox/data/{jsons,markdowns,media/images}/...

:func:`resolve_release` turns a local path or a Hub dataset repo id into such a
root, fetching from the Hub only the files a config needs. :func:`read_labels`
reads and validates both label files; :func:`load_references` gives the label
rows of a config (with ``difficulty``, ``pair_group_id`` and ``in_dev``)
without reading any trajectory file, which is what scoring needs.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Sequence

from agenthorizon.labels import check_disjoint, pair_group_id, pair_groups, parse_label_file
from agenthorizon.schema import (
    CONFIG_LABEL_FILES,
    CONFIG_NAMES,
    DEV_GROUPS,
    DIFFICULTY_BY_LABEL_FILE,
    FRAMEWORK_FILES,
    IMAGES_DIR,
    LABEL_FILES,
    LOAD_IMAGE_MODES,
    PROMPT_FILE,
    SANDBOX_DIR,
    SCREENSHOT_REF_PREFIX,
    json_relpath,
    markdown_relpath,
)
from agenthorizon.splits import DevSet, derive_dev_set, dev_set_from_manifest, select_config

__all__ = [
    "check_config",
    "check_images",
    "hub_patterns",
    "load_dev_set",
    "load_references",
    "read_dev_manifest",
    "read_labels",
    "read_trajectory",
    "resolve_release",
    "screenshot_path",
    "screenshot_paths",
]

# owner/name as the Hub spells repo ids: no spaces, no leading dot or slash.
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
# A screenshot reference of the release's own form, ``../media/images/<folder>/step_N.png``,
# whose folder is one plain name (not "." or "..", no separator or drive): it
# cannot leave the images directory, so it needs no per-step normalisation.
_CANONICAL_PREFIX = SCREENSHOT_REF_PREFIX
_CANONICAL_REFERENCE = re.compile(re.escape(SCREENSHOT_REF_PREFIX) + r"(?!\.\.?/)[^/\\:]+/step_[0-9]+\.png")


def _expected_root_message() -> str:
    return (
        f"expected a release root: the directory holding {LABEL_FILES[0]}, {LABEL_FILES[1]} "
        f"and {SANDBOX_DIR}/ (the parent of the {SANDBOX_DIR} folder)"
    )


def check_config(config: str) -> None:
    """Raise ``ValueError`` naming the configs when ``config`` is not one of them."""
    if config not in CONFIG_NAMES:
        raise ValueError(f"unknown config {config!r}; expected one of {', '.join(CONFIG_NAMES)}")


def check_images(images: str | None) -> None:
    """Raise ``ValueError`` naming the modes when ``images`` is not a loading mode."""
    if images not in LOAD_IMAGE_MODES:
        raise ValueError(f"unknown images mode {images!r}; expected one of 'lazy', 'paths', 'eager' or None")


def local_root(path: str | os.PathLike[str]) -> Path:
    """The release root at ``path``, checked; absolute but with symlinks kept.

    Symlinks are kept (no ``resolve()``) because a Hub snapshot is a tree of
    symlinks into a blob store: resolving would move every file out of the root
    and defeat the check that screenshot paths stay inside it.
    """
    root = Path(os.path.normpath(Path(path).expanduser().absolute()))
    if root.is_file():
        if root.name in LABEL_FILES:
            raise ValueError(f"{root} is a label file; pass the directory that holds it: {root.parent}")
        raise ValueError(f"{root} is a file; {_expected_root_message()}")
    if not root.is_dir():
        raise FileNotFoundError(f"{root} does not exist; {_expected_root_message()}")
    missing = [name for name in LABEL_FILES if not (root / name).is_file()]
    if missing:
        if root.name == SANDBOX_DIR and all((root.parent / name).is_file() for name in LABEL_FILES):
            raise ValueError(f"{root} is the {SANDBOX_DIR} folder; pass its parent, the release root {root.parent}")
        raise FileNotFoundError(f"{root} has no {' or '.join(missing)}; {_expected_root_message()}")
    return root


def _looks_like_repo_id(path: str) -> bool:
    return bool(_REPO_ID.match(path)) and not path.startswith((".", "~"))


def read_labels(root: str | os.PathLike[str]) -> list[dict[str, str]]:
    """The label rows of both files of the release at ``root``, validated.

    Rows come in release order (AgentHorizon.jsonl, then
    AgentHorizon-Simple.jsonl) with the seven label fields plus ``difficulty``
    (``hard`` / ``easy``, from their file) and ``location`` (``file:line``, for
    error messages). Raises ``ValueError`` naming the file and line of a bad
    row or of a trajectory id that occurs twice (within or across the files).
    """
    root = Path(root)
    files = []
    for name in LABEL_FILES:
        path = root / name
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise FileNotFoundError(f"label file {path} not found; {_expected_root_message()}") from None
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}: not UTF-8 text ({error.reason}); expected JSON Lines") from None
        files.append(parse_label_file(text, name))
    check_disjoint(files)
    rows = []
    for label_file in files:
        difficulty = DIFFICULTY_BY_LABEL_FILE[label_file.name]
        for index, row in enumerate(label_file.rows):
            rows.append({**row, "difficulty": difficulty, "location": label_file.location(index)})
    return rows


def read_dev_manifest(path: str | os.PathLike[str]) -> list[str]:
    """Trajectory ids listed in a dev manifest file.

    Two forms are accepted: a text file with one trajectory id per line
    (blank lines and ``#`` comments ignored), or a JSON file holding a list of
    ids or an object with a ``trajectory_ids`` list.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"dev manifest {path} not found") from None
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}: not valid JSON ({error.msg} at line {error.lineno})") from None
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


def load_dev_set(
    rows: Sequence[dict[str, str]],
    *,
    dev_groups: int = DEV_GROUPS,
    dev_manifest: str | os.PathLike[str] | None = None,
) -> DevSet:
    """AH-D over the whole release: from ``dev_manifest`` when given, else derived."""
    if dev_manifest is not None:
        return dev_set_from_manifest(rows, read_dev_manifest(dev_manifest), str(dev_manifest))
    return derive_dev_set(rows, dev_groups)


def annotate(rows: Sequence[dict[str, str]], dev: DevSet) -> list[dict[str, Any]]:
    """Copies of ``rows`` with ``pair_group_id`` and ``in_dev`` added."""
    groups = pair_groups(rows)
    group_ids = {group: pair_group_id(group) for group in set(groups.values())}
    return [
        {
            **row,
            "pair_group_id": group_ids[groups[row["trajectory_id"]]],
            "in_dev": row["trajectory_id"] in dev.trajectory_ids,
        }
        for row in rows
    ]


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
    check_config(config)
    rows = read_labels(local_root(root))
    dev = load_dev_set(rows, dev_groups=dev_groups, dev_manifest=dev_manifest)
    selected = select_config(annotate(rows, dev), config, dev, exclude_dev=exclude_dev)
    return [{key: value for key, value in row.items() if key != "location"} for row in selected]


# --- trajectory files ---------------------------------------------------------------


def read_trajectory(json_path: str | os.PathLike[str], where: str) -> dict[str, Any]:
    """The trajectory object in ``json_path``, checked for the fields rows need."""
    try:
        with open(json_path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"{json_path} ({where}): trajectory json not found") from None
    try:
        trajectory = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{json_path} ({where}): unreadable json ({error}); expected a trajectory object") from None
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


def screenshot_path(root: str | os.PathLike[str], json_path: str | os.PathLike[str], reference: Any, at: str) -> str:
    """Absolute path of a screenshot reference, which must stay inside ``root``.

    References are relative to the json file (``../media/images/<steps_id>/step_N.png``).
    An absolute path, or one whose ``..`` climbs out of the release root, is
    refused: a release must not make the loader read arbitrary files. ``at``
    names the json file and step in error messages.
    """
    if not isinstance(reference, str) or not reference:
        raise ValueError(f"{at}: screenshot is {reference!r}; expected a relative path string")
    # String tests rather than pathlib: this runs once per step of the release.
    if reference.startswith(("/", "\\")) or _WINDOWS_DRIVE.match(reference):
        raise ValueError(
            f"{at}: screenshot path {reference!r} is absolute; expected a path relative to the json file"
        )
    root = os.fspath(root)
    # Lexical normalisation, not resolve(): Hub snapshots are symlinks into a
    # blob store, and resolving them would leave the root.
    path = os.path.normpath(os.path.join(os.path.dirname(os.fspath(json_path)), reference))
    if not path.startswith(root + os.sep):
        raise ValueError(
            f"{at}: screenshot path {reference!r} escapes the release root {root}; "
            "expected a path inside the release"
        )
    return path


def screenshot_paths(
    root: str | os.PathLike[str], json_path: str | os.PathLike[str], references: Sequence[Any], at: str
) -> list[str | None]:
    """:func:`screenshot_path` of each reference of one trajectory; ``None`` stays ``None``.

    The result, and every error, is the one :func:`screenshot_path` gives
    (``at`` names the json file; `` step <index>`` is appended in errors), but
    references of the release's own form ``../media/images/<folder>/step_N.png``
    are joined to the images directory by concatenation: the images directory
    is checked against ``root`` once, and such a reference cannot leave it.
    This runs once per trajectory of a build, over about 130 steps each.

    >>> screenshot_paths("/r", "/r/sandbox/data/jsons/t.json", ["../media/images/s/step_1.png", None], "t.json")
    ['/r/sandbox/data/media/images/s/step_1.png', None]
    """
    root = os.fspath(root)
    json_path = os.fspath(json_path)
    images_dir = os.path.normpath(os.path.join(os.path.dirname(json_path), _CANONICAL_PREFIX))
    present = [reference for reference in references if reference is not None]
    if (
        os.path.isabs(json_path)
        and (images_dir + os.sep).startswith(root + os.sep)
        and set(map(type, present)) <= {str}
        and all(map(_CANONICAL_REFERENCE.fullmatch, present))
    ):
        cut = len(_CANONICAL_PREFIX)
        prefix = images_dir + os.sep
        if os.sep == "/":
            return [None if reference is None else prefix + reference[cut:] for reference in references]
        return [None if reference is None else prefix + reference[cut:].replace("/", os.sep) for reference in references]
    return [
        None if reference is None else screenshot_path(root, json_path, reference, f"{at} step {index}")
        for index, reference in enumerate(references)
    ]


def hub_patterns(rows: Sequence[dict[str, str]], *, images: str | None = "lazy") -> list[str]:
    """``allow_patterns`` fetching the trajectory files of ``rows`` from the Hub.

    The json and markdown of every item, its screenshot folder
    (``media/images/<steps_id>/``) unless ``images`` is None, and the sandbox's
    small prompt files that agentic judges read. Patterns are exact paths (no
    wildcard other than the image folders'), because huggingface_hub matches
    them with ``fnmatch``, where ``*`` would cross folders.
    """
    patterns = [PROMPT_FILE, *FRAMEWORK_FILES]
    for row in rows:
        patterns.append(json_relpath(row["trajectory_id"]))
        patterns.append(markdown_relpath(row["trajectory_id"]))
    if images is not None:
        steps_ids = dict.fromkeys(row["steps_id"] for row in rows)  # ordered, unique
        patterns.extend(f"{IMAGES_DIR}/{steps_id}/*" for steps_id in steps_ids)
    return patterns


def resolve_release(
    path: str | os.PathLike[str],
    config: str,
    *,
    images: str | None = "lazy",
    revision: str | None = None,
    token: str | bool | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    dev_groups: int = DEV_GROUPS,
    dev_manifest: str | os.PathLike[str] | None = None,
) -> Path:
    """The local release root holding what ``config`` needs.

    ``path`` is either a local release root (the directory with
    ``AgentHorizon.jsonl``, ``AgentHorizon-Simple.jsonl`` and ``sandbox/``) or
    a Hub dataset repo id such as ``"ServiceNow/AgentHorizon"``. For a repo id
    the snapshot is fetched in two steps with ``huggingface_hub.snapshot_download``:
    both label files first (AH-D and ``in_dev`` are defined on the whole
    release), then the json, markdown and screenshot folder of every item of
    ``config`` only; ``images=None`` fetches no media. The second step pins the
    commit the first one resolved, so labels and trajectories come from the
    same revision. ``cache_dir`` is the huggingface_hub cache; ``dev_groups`` and
    ``dev_manifest`` decide which items AH-D fetches.

    A path that exists on disk is always local. One that does not exist but
    is spelled ``owner/name`` is tried as a repo id; if the Hub has no such
    repo (or, offline, the cache has no snapshot of it) the error says that it
    is neither, since ``data/release`` may be a mistyped relative folder.

    Raises ``FileNotFoundError`` / ``ValueError`` saying what a release root
    must contain when ``path`` is a local path that is not one.
    """
    check_config(config)
    check_images(images)
    text = os.fspath(path)
    if os.path.exists(text) or not _looks_like_repo_id(text):
        if revision is not None:
            raise ValueError(f"revision={revision!r} applies to Hub repos only; {text} is a local path")
        return local_root(text)
    from huggingface_hub.errors import HFValidationError, LocalEntryNotFoundError, RepositoryNotFoundError

    try:
        return _fetch_from_hub(
            text,
            config,
            images=images,
            revision=revision,
            token=token,
            cache_dir=cache_dir,
            dev_groups=dev_groups,
            dev_manifest=dev_manifest,
        )
    except (RepositoryNotFoundError, LocalEntryNotFoundError, HFValidationError) as error:
        raise FileNotFoundError(
            f"{text}: no such local directory ({Path(text).absolute()} does not exist), and not a Hub "
            f"dataset repo that could be fetched ({type(error).__name__}: {str(error).splitlines()[0]}); "
            f"{_expected_root_message()}, or a Hub dataset repo id such as 'ServiceNow/AgentHorizon'"
        ) from error


def _fetch_from_hub(
    repo_id: str,
    config: str,
    *,
    images: str | None,
    revision: str | None,
    token: str | bool | None,
    cache_dir: str | os.PathLike[str] | None,
    dev_groups: int,
    dev_manifest: str | os.PathLike[str] | None,
) -> Path:
    import huggingface_hub

    common = {"repo_type": "dataset", "token": token, "cache_dir": None if cache_dir is None else os.fspath(cache_dir)}
    snapshot = Path(
        huggingface_hub.snapshot_download(repo_id, revision=revision, allow_patterns=list(LABEL_FILES), **common)
    )
    root = local_root(snapshot)
    rows = read_labels(root)
    dev = load_dev_set(rows, dev_groups=dev_groups, dev_manifest=dev_manifest)
    selected = select_config(rows, config, dev)
    # A snapshot folder is one commit, so files already in it are the right
    # ones. Checking for them is worth it: huggingface_hub tests every file of
    # the repo (about 110,000) against every pattern (one per item and image
    # folder: thousands), hundreds of millions of fnmatch calls even when
    # every file is cached, online or offline (docs/data.md, "Local root or the Hub").
    if snapshot_has(root, selected, images=images):
        return root
    # The snapshot folder is named after the commit: fetching the trajectories
    # at that commit keeps them consistent with the labels just read, even if
    # the branch moves in between.
    huggingface_hub.snapshot_download(
        repo_id, revision=snapshot.name, allow_patterns=hub_patterns(selected, images=images), **common
    )
    return root


def snapshot_has(root: str | os.PathLike[str], rows: Sequence[dict[str, str]], *, images: str | None) -> bool:
    """Whether ``root`` already holds every file :func:`hub_patterns` would fetch for ``rows``.

    That is the sandbox prompt files and the json and markdown of every row
    and, unless ``images`` is None, every screenshot the rows' json files
    reference. A json that does not parse counts as present (fetching the same
    commit again cannot repair it; loading reports it with its label row).
    """
    root = Path(root)
    needed = [root / PROMPT_FILE, *(root / name for name in FRAMEWORK_FILES)]
    for row in rows:
        needed.append(root / json_relpath(row["trajectory_id"]))
        needed.append(root / markdown_relpath(row["trajectory_id"]))
    if not all(path.is_file() for path in needed):
        return False
    if images is None:
        return True
    for row in rows:
        json_path = root / json_relpath(row["trajectory_id"])
        try:
            steps = read_trajectory(json_path, row["trajectory_id"])["steps"]
            references = [step.get("screenshot") if isinstance(step, dict) else None for step in steps]
            paths = screenshot_paths(root, json_path, references, str(json_path))
        except ValueError:
            continue
        if not all(path is None or os.path.isfile(path) for path in paths):
            return False
    return True
