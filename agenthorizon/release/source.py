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

import functools
import json
import os
import re
import warnings
from pathlib import Path
from typing import Any, Sequence

from agenthorizon.release.labels import check_disjoint, pair_group_id, pair_groups, parse_label_file
from agenthorizon.schema import (
    DEV_GROUPS,
    DIFFICULTY_BY_LABEL_FILE,
    FRAMEWORK_FILES,
    LABEL_FILES,
    LOAD_IMAGE_MODES,
    MARKDOWNS_DIR,
    PROMPT_FILE,
    SANDBOX_DIR,
    SCREENSHOT_REF_PREFIX,
    json_relpath,
    markdown_relpath,
)
from agenthorizon.release.splits import DevSet, check_config, derive_dev_set, dev_set_from_manifest, select_config

__all__ = [
    "check_config",
    "check_images",
    "item_files",
    "load_dev_set",
    "load_references",
    "read_dev_manifest",
    "read_labels",
    "read_trajectory",
    "resolve_release",
    "screenshot_path",
    "screenshot_files",
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


def item_files(rows: Sequence[dict[str, str]]) -> list[str]:
    """Repo paths of the files ``rows`` need from the Hub, screenshots aside.

    The sandbox's small prompt files that agentic judges read
    (:data:`~agenthorizon.schema.PROMPT_FILE` and
    :data:`~agenthorizon.schema.FRAMEWORK_FILES`), then the json and the
    markdown of each row, in release order: exact paths, as
    ``huggingface_hub.hf_hub_download`` takes them.

    >>> item_files([{"trajectory_id": "t1"}])[-2:]
    ['sandbox/data/jsons/t1.json', 'sandbox/data/markdowns/t1.md']
    """
    files = [PROMPT_FILE, *FRAMEWORK_FILES]
    for row in rows:
        files.append(json_relpath(row["trajectory_id"]))
        files.append(markdown_relpath(row["trajectory_id"]))
    return files


def screenshot_files(root: str | os.PathLike[str], rows: Sequence[dict[str, str]]) -> list[str]:
    """Repo paths of the screenshots the json files of ``rows`` under ``root`` reference.

    Each reference is resolved by :func:`screenshot_paths` (so a path that
    would leave the release is refused exactly as loading refuses it) and
    given relative to ``root`` with ``/`` separators, in step order, each path
    once. Every row's json must be in ``root``; a json that does not parse, or
    whose references are refused, contributes nothing here: loading that row
    raises the error with its label row.

    >>> import json, pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "sandbox/data/jsons").mkdir(parents=True)
    >>> steps = [{"screenshot": "../media/images/s/step_1.png"}, {"screenshot": None}]
    >>> _ = (root / "sandbox/data/jsons/t.json").write_text(json.dumps({"task": {"instruction": "x"}, "steps": steps}))
    >>> screenshot_files(root, [{"trajectory_id": "t"}])
    ['sandbox/data/media/images/s/step_1.png']
    """
    root_text = os.fspath(root)
    cut = len(root_text) + len(os.sep)
    files: dict[str, None] = {}  # ordered and unique: trajectories may share a screenshot folder
    for row in rows:
        json_path = os.path.join(root_text, json_relpath(row["trajectory_id"]))
        where = row.get("location", row["trajectory_id"])
        try:
            steps = read_trajectory(json_path, f"label row {where}")["steps"]
            references = [step.get("screenshot") if isinstance(step, dict) else None for step in steps]
            paths = screenshot_paths(root_text, json_path, references, json_path)
        except ValueError:
            continue
        for path in paths:
            if path is not None:
                files[path[cut:].replace(os.sep, "/")] = None
    return list(files)


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
    a Hub dataset repo id such as ``"ServiceNow/AgentHorizon"``. A repo is
    fetched file by file with ``huggingface_hub.hf_hub_download``, never by
    listing the repo (about 110,000 files):

    1. both label files (AH-D and ``in_dev`` are defined on the whole
       release). The first is asked for at ``revision``; huggingface_hub
       resolves the branch or tag to a commit and returns
       ``<cache>/datasets--<owner>--<name>/snapshots/<commit>/AgentHorizon.jsonl``,
       so that folder is the release root and its name the commit. Everything
       else, the second label file included, is fetched at that commit, so
       labels and trajectories come from one revision even if the branch
       moves meanwhile.
    2. :func:`item_files` of the config's rows, 8 at a time. A markdown the
       repo lacks is skipped (loading renders it from the json, with a
       warning); a missing json raises ``FileNotFoundError`` naming the
       trajectory and its label row.
    3. unless ``images`` is None, :func:`screenshot_files`: every screenshot
       those jsons reference. One the repo lacks is only counted in a warning;
       indexing it later raises ``FileNotFoundError`` with its path.

    Files already in the snapshot folder (one commit, so they are the right
    ones) are not requested again, nor files huggingface_hub has recorded as
    absent at that commit: loading a config again costs the two label requests
    only. With ``HF_HUB_OFFLINE=1`` everything comes from the cache.
    ``token`` and ``cache_dir`` (the huggingface_hub cache) are passed through;
    ``dev_groups`` and ``dev_manifest`` decide which items AH-D fetches.

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
    hub = _HubRepo(text, token=token, cache_dir=cache_dir)
    root = hub.fetch_labels(revision)
    rows = read_labels(root)
    dev = load_dev_set(rows, dev_groups=dev_groups, dev_manifest=dev_manifest)
    selected = select_config(rows, config, dev)
    hub.fetch_items(root, selected, config)
    if images is not None:
        hub.fetch_screenshots(root, selected, config)
    return root


# How many files are requested at once: snapshot_download's default.
_WORKERS = 8


class _HubRepo:
    """One Hub dataset repo of a release, fetched file by file into the huggingface_hub cache."""

    def __init__(self, repo_id: str, *, token: str | bool | None, cache_dir: str | os.PathLike[str] | None) -> None:
        self.repo_id = repo_id
        self.token = token
        self.cache_dir = None if cache_dir is None else os.fspath(cache_dir)
        self.commit = ""

    def _download(self, filename: str, revision: str | None) -> str:
        import huggingface_hub

        return huggingface_hub.hf_hub_download(
            self.repo_id,
            filename,
            repo_type="dataset",
            revision=revision,
            token=self.token,
            cache_dir=self.cache_dir,
            tqdm_class=_quiet_file_bar(),
        )

    def fetch_labels(self, revision: str | None) -> Path:
        """Both label files; the snapshot folder of the commit ``revision`` resolves to."""
        from huggingface_hub.errors import (
            HFValidationError,
            LocalEntryNotFoundError,
            RemoteEntryNotFoundError,
            RepositoryNotFoundError,
        )

        where = self.repo_id if revision is None else f"{self.repo_id} at revision {revision!r}"
        try:
            first = Path(self._download(LABEL_FILES[0], revision))
        except RemoteEntryNotFoundError:
            raise FileNotFoundError(
                f"Hub dataset repo {where} has no {LABEL_FILES[0]}; {_expected_root_message()}"
            ) from None
        except (RepositoryNotFoundError, LocalEntryNotFoundError, HFValidationError) as error:
            raise FileNotFoundError(
                f"{self.repo_id}: no such local directory ({Path(self.repo_id).absolute()} does not exist), and "
                f"not a Hub dataset repo that could be fetched ({type(error).__name__}: "
                f"{str(error).splitlines()[0]}); {_expected_root_message()}, or a Hub dataset repo id such as "
                "'ServiceNow/AgentHorizon'"
            ) from error
        # hf_hub_download returns <cache>/<repo folder>/snapshots/<commit>/<file>: the
        # label files sit at the top of the repo, so their folder is the release root.
        snapshot = first.parent
        if snapshot.parent.name != "snapshots":
            raise RuntimeError(f"{first}: not in a huggingface_hub snapshots/<commit>/ folder")
        self.commit = snapshot.name
        try:
            self._download(LABEL_FILES[1], self.commit)
        except RemoteEntryNotFoundError:
            raise FileNotFoundError(
                f"Hub dataset repo {where} (commit {self.commit}) has no {LABEL_FILES[1]}; "
                f"{_expected_root_message()}"
            ) from None
        except LocalEntryNotFoundError as error:
            raise FileNotFoundError(
                f"{LABEL_FILES[1]} of Hub dataset repo {where} (commit {self.commit}) could not be fetched: "
                f"{str(error).splitlines()[0]}"
            ) from error
        return local_root(snapshot)

    def plan(self, root: Path, files: Sequence[str]) -> tuple[list[str], dict[str, Exception]]:
        """Which of ``files`` to request: those neither in ``root`` nor known to be absent.

        ``root`` is the snapshot folder ``<repo cache>/snapshots/<commit>``.
        Returns the files to request and, separately, those huggingface_hub
        has recorded as absent at that commit: a 404 leaves an empty file at
        ``<repo cache>/.no_exist/<commit>/<path>`` (the cache layout of
        huggingface_hub's "Manage cache" guide), and asking again would 404
        again. That folder is read once rather than per file with
        ``try_to_load_from_cache``, which costs about 100 µs a file (it
        validates the name and lists ``snapshots/`` each time): seconds over
        a release's 100,000 screenshots.
        """
        root_text = os.fspath(root)
        no_exist = os.path.join(os.path.dirname(os.path.dirname(root_text)), ".no_exist", os.path.basename(root_text))
        known_absent = set()
        for folder, _, names in os.walk(no_exist):
            prefix = os.path.relpath(folder, no_exist).replace(os.sep, "/")
            known_absent.update(name if prefix == "." else f"{prefix}/{name}" for name in names)
        absent: dict[str, Exception] = {}
        wanted = []
        for name in files:
            if name in known_absent:
                absent[name] = FileNotFoundError(f"not in the repo at commit {self.commit} (a 404 cached earlier)")
            elif not os.path.isfile(os.path.join(root_text, name)):
                wanted.append(name)
        return wanted, absent

    def _fetch_absent(self, root: Path, files: Sequence[str], desc: str) -> dict[str, Exception]:
        """Fetch the ``files`` not yet in ``root``; those the repo lacks, with the reason."""
        from huggingface_hub.errors import EntryNotFoundError
        from huggingface_hub.utils import hf_thread_map

        wanted, absent = self.plan(root, files)

        def fetch(name: str) -> Exception | None:
            try:
                self._download(name, self.commit)
            except EntryNotFoundError as error:  # a 404 at the commit, or offline and not cached
                return error
            return None

        if wanted:
            errors = hf_thread_map(fetch, wanted, max_workers=_WORKERS, desc=f"Fetching {len(wanted)} {desc}")
            absent.update((name, error) for name, error in zip(wanted, errors) if error is not None)
        return absent

    def fetch_items(self, root: Path, rows: Sequence[dict[str, str]], config: str) -> None:
        """:func:`item_files` of ``rows``: a missing json raises, the rest is reported."""
        absent = self._fetch_absent(root, item_files(rows), f"{config} trajectory files")
        missing_jsons = [
            f"{json_relpath(row['trajectory_id'])} (trajectory {row['trajectory_id']}, label row {row['location']}: "
            f"{_reason(absent[json_relpath(row['trajectory_id'])])})"
            for row in rows
            if json_relpath(row["trajectory_id"]) in absent
        ]
        if missing_jsons:
            raise FileNotFoundError(
                f"{len(missing_jsons)} trajectory json file(s) of config {config} could not be fetched from Hub "
                f"dataset repo {self.repo_id} at commit {self.commit}: " + "; ".join(missing_jsons[:5])
                + ("; ..." if len(missing_jsons) > 5 else "")
            )
        markdowns = [name for name in absent if name.startswith(MARKDOWNS_DIR + "/")]
        if markdowns:
            _warn(
                f"{len(markdowns)} trajectory markdown file(s) of config {config} are not in Hub dataset repo "
                f"{self.repo_id} at commit {self.commit} (first: {markdowns[0]}); loading renders them from "
                "the json"
            )
        sandbox = [name for name in absent if name not in markdowns]
        if sandbox:
            _warn(
                f"{', '.join(sandbox)} not in Hub dataset repo {self.repo_id} at commit {self.commit}; "
                "agentic judges that read the sandbox prompt files will not find them"
            )

    def fetch_screenshots(self, root: Path, rows: Sequence[dict[str, str]], config: str) -> None:
        """:func:`screenshot_files` of ``rows``; the ones the repo lacks are counted in a warning."""
        absent = self._fetch_absent(root, screenshot_files(root, rows), f"{config} screenshots")
        if absent:
            first = next(iter(absent))
            _warn(
                f"{len(absent)} screenshot(s) referenced by config {config} could not be fetched from Hub "
                f"dataset repo {self.repo_id} at commit {self.commit} (first: {first}: {_reason(absent[first])}); "
                "indexing one raises FileNotFoundError with its path"
            )


def _reason(error: Exception) -> str:
    from huggingface_hub.errors import RemoteEntryNotFoundError

    if isinstance(error, RemoteEntryNotFoundError):
        return "not in the repo at that commit"
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _warn(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=4)


@functools.cache
def _quiet_file_bar() -> type:
    """A huggingface_hub progress bar class that never shows.

    hf_hub_download draws one byte bar per file; across thousands of small
    files the one file-count bar of the batch says more (snapshot_download
    silences its per-file bars the same way).
    """
    from huggingface_hub.utils import tqdm as hf_tqdm

    class QuietFileBar(hf_tqdm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

    return QuietFileBar
