"""Where a release comes from: a local root, or a Hub dataset repo fetched file by file.

:func:`resolve_release` gives a release root; fetching is split into naming
the files (:func:`item_files`, :func:`screenshot_files`), planning the
requests (:func:`plan_fetch`) and making them (:class:`_HubRepo`).
"""

from __future__ import annotations

import functools
import os
import re
import warnings
from pathlib import Path
from typing import Any, Sequence

from agenthorizon.release.files import (
    check_images,
    dev_manifest_path,
    expected_root_message,
    local_root,
    read_config_rows,
    read_trajectory,
    screenshot_paths,
)
from agenthorizon.release.item_selection import Selection, check_config
from agenthorizon.schema import (
    DEFAULT_HUB_REPO,
    DEV_GROUPS,
    FRAMEWORK_FILES,
    LABEL_FILES,
    MARKDOWNS_DIR,
    PROMPT_FILE,
    json_relpath,
    markdown_relpath,
)

__all__ = ["item_files", "plan_fetch", "resolve_release", "screenshot_files"]

# owner/name as the Hub spells repo ids: no spaces, no leading dot or slash.
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
# How many files are requested at once: snapshot_download's default.
_WORKERS = 8
# Seconds the first request may take before the Hub counts as unreachable.
_PROBE_TIMEOUT = 10.0


def _looks_like_repo_id(path: str) -> bool:
    return bool(_REPO_ID.fullmatch(path)) and not path.startswith((".", "~"))


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
    labels_only: bool = False,
) -> Path:
    """The local release root holding what ``config`` needs.

    ``path`` is a local release root or a Hub dataset repo id
    (``"ServiceNow/AgentHorizon"``), fetched into the huggingface_hub cache file
    by file, never by listing: both label files (the first at ``revision``; its
    snapshot folder is the root and everything else is fetched at that commit),
    then :func:`item_files` of the config's rows, then (unless ``images`` is
    None) :func:`screenshot_files`. ``labels_only`` stops after the labels. Files
    already in the snapshot, or recorded as absent, are not requested again;
    ``HF_HUB_OFFLINE=1`` reads the cache only. A missing json raises
    FileNotFoundError naming the item; a missing markdown or screenshot is a
    warning. A path that exists is always local; a missing ``owner/name`` is tried
    on the Hub once, and the error says it is neither. Details:
    docs/architecture.md, "Design notes by module".
    """
    check_config(config)
    check_images(images)
    text = os.fspath(path)
    if os.path.exists(text) or not _looks_like_repo_id(text):
        if revision is not None:
            raise ValueError(f"revision={revision!r} applies to Hub repos only; {text} is a local path")
        if not os.path.exists(text):
            # Neither a folder nor spelled owner/name: say both things --data may be.
            raise FileNotFoundError(
                f"{Path(text).expanduser().absolute()} does not exist; {expected_root_message()}, "
                f"or a Hub dataset repo id such as {DEFAULT_HUB_REPO!r}"
            )
        return local_root(text)
    hub = _HubRepo(text, token=token, cache_dir=cache_dir)
    root = hub.fetch_labels(revision)
    if labels_only:
        return root
    manifest = None if dev_manifest is None else dev_manifest_path(dev_manifest)
    # exclude_dev only ever removes items: fetching the config's every item covers it.
    selected = read_config_rows(root, Selection(config, dev_groups=dev_groups, dev_manifest=manifest)).rows
    absent = hub.fetch(root, item_files(selected), f"{config} trajectory files")
    _report_missing_items(absent, selected, config, hub.where())
    if images is not None:
        absent = hub.fetch(root, screenshot_files(root, selected), f"{config} screenshots")
        _report_missing_screenshots(absent, config, hub.where())
    return root


def item_files(rows: Sequence[dict[str, str]]) -> list[str]:
    """Repo paths of the files ``rows`` need from the Hub, screenshots aside.

    The sandbox prompt files agentic judges read, then the json and the
    markdown of each row, in release order.

    >>> item_files([{"trajectory_id": "t1"}])[-2:]
    ['sandbox/data/jsons/t1.json', 'sandbox/data/markdowns/t1.md']
    """
    files = [PROMPT_FILE, *FRAMEWORK_FILES]
    for row in rows:
        files.append(json_relpath(row["trajectory_id"]))
        files.append(markdown_relpath(row["trajectory_id"]))
    return files


def screenshot_files(root: str | os.PathLike[str], rows: Sequence[dict[str, str]]) -> list[str]:
    """Repo paths (``/``-separated, relative to ``root``) of the screenshots the json files of ``rows`` reference, in step order, each once.

    A row whose json does not parse, or holds a reference loading refuses,
    adds nothing (loading that row raises).

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
            steps = read_trajectory(root_text, json_path, f"label row {where}")["steps"]
            references = [step.get("screenshot") if isinstance(step, dict) else None for step in steps]
            paths = screenshot_paths(root_text, json_path, references, json_path)
        except ValueError:
            continue
        for path in paths:
            if path is not None:
                files[path[cut:].replace(os.sep, "/")] = None
    return list(files)


def plan_fetch(root: str | os.PathLike[str], files: Sequence[str], commit: str) -> tuple[list[str], dict[str, Exception]]:
    """Which of ``files`` to request: those neither in ``root`` nor known to be absent.

    ``root`` is the snapshot folder ``<repo cache>/snapshots/<commit>``.
    Returns the files to request and, separately, those huggingface_hub
    has recorded as absent at that commit (a 404 leaves an empty file at
    ``<repo cache>/.no_exist/<commit>/<path>``; asking again would 404
    again). That folder is walked once, not asked per file with
    ``try_to_load_from_cache``, which lists ``snapshots/`` on every call.
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
            absent[name] = FileNotFoundError(f"not in the repo at commit {commit} (a 404 cached earlier)")
        elif not os.path.isfile(os.path.join(root_text, name)):
            wanted.append(name)
    return wanted, absent


class _HubRepo:
    """One Hub dataset repo of a release: its requests, into the huggingface_hub cache."""

    def __init__(self, repo_id: str, *, token: str | bool | None, cache_dir: str | os.PathLike[str] | None) -> None:
        self.repo_id = repo_id
        self.token = token
        self.cache_dir = None if cache_dir is None else os.fspath(cache_dir)
        self.commit = ""

    def where(self) -> str:
        """The repo and commit, for messages."""
        return f"Hub dataset repo {self.repo_id} at commit {self.commit}"

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

    def _neither(self, error: BaseException) -> FileNotFoundError:
        """Why ``repo_id`` is neither a local release nor a Hub repo that could be fetched, in words.

        Each cause gets the sentence of its fix: offline with nothing cached,
        no such repo (or no token), or the Hub unreachable.
        """
        from huggingface_hub import constants
        from huggingface_hub.errors import LocalEntryNotFoundError, RepositoryNotFoundError

        local = f"{self.repo_id}: no such local directory ({Path(self.repo_id).absolute()} does not exist)"
        reason = (str(error).splitlines() or [""])[0]
        if constants.HF_HUB_OFFLINE and isinstance(error, LocalEntryNotFoundError):
            cache = self.cache_dir or constants.HF_HUB_CACHE
            return FileNotFoundError(
                f"{local}, and not a Hub dataset repo that could be fetched: offline mode is on (HF_HUB_OFFLINE=1) "
                f"with no copy of Hub dataset repo "
                f"{self.repo_id} in the cache {cache}; fill the cache once while online "
                f"(`hf download {self.repo_id} --repo-type dataset`, or run this command without HF_HUB_OFFLINE), "
                f"or pass a local release directory"
            )
        if isinstance(error, RepositoryNotFoundError):
            return FileNotFoundError(
                f"{local}, and not a Hub dataset repo that could be fetched: the Hub has no dataset repo "
                f"{self.repo_id} (or it is private and no token was sent); {expected_root_message()}, or a Hub dataset repo id such as {DEFAULT_HUB_REPO!r}"
            )
        return FileNotFoundError(
            f"{local}, and not a Hub dataset repo that could be fetched: the Hub at {constants.ENDPOINT} could "
            f"not be reached to fetch dataset repo "
            f"{self.repo_id} ({type(error).__name__}: {reason}); check the network (or HF_ENDPOINT), "
            f"set HF_HUB_OFFLINE=1 if the repo is in the cache, or pass a local release directory"
        )

    def probe(self, revision: str | None) -> None:
        """One request to the Hub endpoint, unless the first label file is cached or the Hub is off.

        huggingface_hub retries a failed first request for up to a minute; this
        fails at once, with :meth:`_neither`'s message, when the Hub cannot be
        reached. It asks the endpoint's root, not the repo, so the download
        that follows asks for each file exactly once.
        """
        import huggingface_hub
        from huggingface_hub import constants
        from huggingface_hub.utils import get_session

        if constants.HF_HUB_OFFLINE:
            return
        cached = huggingface_hub.try_to_load_from_cache(
            self.repo_id, LABEL_FILES[0], cache_dir=self.cache_dir, revision=revision, repo_type="dataset"
        )
        if isinstance(cached, str):
            return
        try:
            get_session().head(constants.ENDPOINT.rstrip("/") + "/", timeout=_PROBE_TIMEOUT)
        except Exception as error:  # noqa: BLE001 - no connection, DNS, TLS, timeout: all mean "unreachable"
            raise self._neither(error) from error

    def fetch_labels(self, revision: str | None) -> Path:
        """Both label files; the snapshot folder of the commit ``revision`` resolves to."""
        from huggingface_hub.errors import (
            HFValidationError,
            LocalEntryNotFoundError,
            RemoteEntryNotFoundError,
            RepositoryNotFoundError,
        )

        where = self.repo_id if revision is None else f"{self.repo_id} at revision {revision!r}"
        self.probe(revision)
        try:
            first = Path(self._download(LABEL_FILES[0], revision))
        except RemoteEntryNotFoundError:
            raise FileNotFoundError(
                f"Hub dataset repo {where} has no {LABEL_FILES[0]}; {expected_root_message()}"
            ) from None
        except (RepositoryNotFoundError, LocalEntryNotFoundError, HFValidationError) as error:
            raise self._neither(error) from error
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
                f"{expected_root_message()}"
            ) from None
        except LocalEntryNotFoundError as error:
            raise FileNotFoundError(
                f"{LABEL_FILES[1]} of Hub dataset repo {where} (commit {self.commit}) could not be fetched: "
                f"{str(error).splitlines()[0]}"
            ) from error
        return local_root(snapshot)

    def fetch(self, root: Path, files: Sequence[str], desc: str) -> dict[str, Exception]:
        """Fetch the ``files`` not yet in ``root``; return those the repo lacks, with the reason."""
        from huggingface_hub.errors import EntryNotFoundError
        from huggingface_hub.utils import hf_thread_map

        wanted, absent = plan_fetch(root, files, self.commit)

        def fetch_one(name: str) -> Exception | None:
            try:
                self._download(name, self.commit)
            except EntryNotFoundError as error:  # a 404 at the commit, or offline and not cached
                return error
            return None

        if wanted:
            errors = hf_thread_map(fetch_one, wanted, max_workers=_WORKERS, desc=f"Fetching {len(wanted)} {desc}")
            absent.update((name, error) for name, error in zip(wanted, errors) if error is not None)
        return absent


def _report_missing_items(absent: dict[str, Exception], rows: Sequence[dict[str, str]], config: str, where: str) -> None:
    """A missing json raises (naming trajectory and label row); missing markdown or sandbox files warn."""
    missing_jsons = [
        f"{json_relpath(row['trajectory_id'])} (trajectory {row['trajectory_id']}, label row {row['location']}: "
        f"{_reason(absent[json_relpath(row['trajectory_id'])])})"
        for row in rows
        if json_relpath(row["trajectory_id"]) in absent
    ]
    if missing_jsons:
        raise FileNotFoundError(
            f"{len(missing_jsons)} trajectory json file(s) of config {config} could not be fetched from "
            f"{where}: " + "; ".join(missing_jsons[:5]) + ("; ..." if len(missing_jsons) > 5 else "")
        )
    markdowns = [name for name in absent if name.startswith(MARKDOWNS_DIR + "/")]
    if markdowns:
        _warn(
            f"{len(markdowns)} trajectory markdown file(s) of config {config} are not in {where} "
            f"(first: {markdowns[0]}); loading renders them from the json"
        )
    sandbox = [name for name in absent if name not in markdowns]
    if sandbox:
        _warn(
            f"{', '.join(sandbox)} not in {where}; agentic judges that read the sandbox prompt files will not find them"
        )


def _report_missing_screenshots(absent: dict[str, Exception], config: str, where: str) -> None:
    """Screenshots the repo lacks are counted in a warning; indexing one raises later."""
    if absent:
        first = next(iter(absent))
        _warn(
            f"{len(absent)} screenshot(s) referenced by config {config} could not be fetched from "
            f"{where} (first: {first}: {_reason(absent[first])}); "
            "indexing one raises FileNotFoundError with its path"
        )


def _reason(error: Exception) -> str:
    from huggingface_hub.errors import RemoteEntryNotFoundError

    if isinstance(error, RemoteEntryNotFoundError):
        return "not in the repo at that commit"
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _warn(message: str) -> None:
    # stacklevel: this function, the reporter, resolve_release, its caller.
    warnings.warn(message, UserWarning, stacklevel=4)


@functools.cache
def _quiet_file_bar() -> type:
    """A huggingface_hub progress bar class that never shows: the batch's file-count bar replaces the per-file byte bars."""
    from huggingface_hub.utils import tqdm as hf_tqdm

    class QuietFileBar(hf_tqdm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

    return QuietFileBar
