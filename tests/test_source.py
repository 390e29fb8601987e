"""Where releases come from: local roots (and clear errors for near misses),
and the Hub boundary, exercised offline with a fake snapshot_download that
serves a local sample corpus with huggingface_hub's own pattern matching."""

from __future__ import annotations

import shutil
from pathlib import Path

import huggingface_hub
import pytest
from huggingface_hub.utils import filter_repo_objects

from agenthorizon.builder import load_dataset
from agenthorizon.schema import FRAMEWORK_FILES, IMAGES_DIR, LABEL_FILES, PROMPT_FILE, json_relpath, markdown_relpath
from agenthorizon.source import load_references, read_labels, resolve_release
from agenthorizon.splits import derive_dev_set

REPO_ID = "ServiceNow/AgentHorizon"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


class FakeHub:
    """Stands in for huggingface_hub.snapshot_download, serving ``corpus``.

    Files are selected with huggingface_hub's own ``filter_repo_objects`` (the
    function snapshot_download uses), copied into ``snapshots/<commit>/`` like
    the real cache, and every call is recorded.
    """

    def __init__(self, corpus: Path, cache: Path) -> None:
        self.corpus, self.cache = corpus, cache
        self.calls: list[dict] = []
        self.repo_files = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*") if p.is_file())

    def __call__(self, repo_id, *, repo_type=None, revision=None, allow_patterns=None, token=None, cache_dir=None, **kw):
        self.calls.append(
            {"repo_id": repo_id, "repo_type": repo_type, "revision": revision, "allow_patterns": allow_patterns,
             "cache_dir": cache_dir}
        )
        snapshot = self.cache / "snapshots" / COMMIT
        for name in filter_repo_objects(self.repo_files, allow_patterns=allow_patterns):
            target = snapshot / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self.corpus / name, target)
        return str(snapshot)

    def fetched(self) -> set[str]:
        root = self.cache / "snapshots" / COMMIT
        return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


@pytest.fixture()
def hub(tiny_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeHub:
    fake = FakeHub(tiny_root, tmp_path / "hub-cache")
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake)
    return fake


def _expected_files(rows: list[dict], *, images: bool, corpus: Path) -> set[str]:
    files = set(LABEL_FILES) | {PROMPT_FILE, *FRAMEWORK_FILES}
    for row in rows:
        files |= {json_relpath(row["trajectory_id"]), markdown_relpath(row["trajectory_id"])}
        if images:
            folder = corpus / IMAGES_DIR / row["steps_id"]
            files |= {p.relative_to(corpus).as_posix() for p in folder.iterdir()}
    return files


@pytest.mark.parametrize("config", ["AH", "AH-S", "AH-D", "all"])
def test_hub_fetches_labels_first_then_only_the_config_items(hub: FakeHub, tiny_root: Path, config: str):
    # two dev groups, so that AH-D is a proper subset of the tiny corpus
    root = resolve_release(REPO_ID, config, revision="main", dev_groups=2)
    assert root == hub.cache / "snapshots" / COMMIT
    first, second = hub.calls
    assert first["allow_patterns"] == list(LABEL_FILES)
    assert first["repo_type"] == second["repo_type"] == "dataset"
    assert first["revision"] == "main" and second["revision"] == COMMIT  # trajectories pinned to the labels' commit
    rows = read_labels(tiny_root)
    wanted = {r["trajectory_id"] for r in load_references(tiny_root, config, dev_groups=2)}
    selected = [r for r in rows if r["trajectory_id"] in wanted]
    assert hub.fetched() == _expected_files(selected, images=True, corpus=tiny_root)
    if config != "all":
        others = {json_relpath(r["trajectory_id"]) for r in rows if r["trajectory_id"] not in wanted}
        assert others and not others & hub.fetched()


def test_images_none_fetches_no_media_and_loading_still_works(hub: FakeHub, tiny_root: Path, tmp_path: Path):
    ds = load_dataset(REPO_ID, "AH", images=None, split="test", cache_dir=tmp_path / "datasets")
    assert not any(pattern.startswith(IMAGES_DIR) for pattern in hub.calls[1]["allow_patterns"])
    assert not any(name.startswith(IMAGES_DIR) for name in hub.fetched())
    assert hub.calls[0]["cache_dir"] == str(tmp_path / "datasets" / "hub")
    ah_ids = [r["trajectory_id"] for r in read_labels(tiny_root) if r["difficulty"] == "hard"]
    assert ds["trajectory_id"] == ah_ids
    paths = [p for p in ds[0]["screenshots"] if p is not None]
    assert paths and all(isinstance(p, str) and p.startswith(str(hub.cache)) for p in paths)


def test_hub_lazy_load_decodes_screenshots_from_the_snapshot(hub: FakeHub, tmp_path: Path):
    ds = load_dataset(REPO_ID, "AH-D", dev_groups=2, split="test", cache_dir=tmp_path / "datasets")
    rows = read_labels(hub.cache / "snapshots" / COMMIT)
    assert set(ds["trajectory_id"]) == derive_dev_set(rows, 2).trajectory_ids
    screens = ds[0]["screenshots"]
    k = next(i for i, p in enumerate(screens.paths) if p is not None)
    assert screens[k].size[0] > 0


# --- local roots ----------------------------------------------------------------------------------


def test_local_root_is_returned_without_touching_the_hub(tiny_root: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda *a, **k: pytest.fail("no Hub for local roots"))
    assert resolve_release(tiny_root, "AH") == tiny_root


def test_sandbox_folder_gets_a_pointer_to_its_parent(tiny_root: Path):
    with pytest.raises(ValueError, match=rf"is the sandbox folder; pass its parent, the release root {tiny_root}$"):
        resolve_release(tiny_root / "sandbox", "AH")


def test_label_file_path_gets_a_pointer_to_its_folder(tiny_root: Path):
    with pytest.raises(ValueError, match=rf"is a label file; pass the directory that holds it: {tiny_root}"):
        resolve_release(tiny_root / LABEL_FILES[0], "AH")


def test_missing_or_incomplete_roots_say_what_a_root_holds(tmp_path: Path, tiny_copy: Path):
    expected = r"expected a release root: the directory holding AgentHorizon\.jsonl, AgentHorizon-Simple\.jsonl"
    with pytest.raises(FileNotFoundError, match=rf"does not exist; {expected}"):
        resolve_release(tmp_path / "nowhere", "AH")
    (tiny_copy / LABEL_FILES[1]).unlink()
    with pytest.raises(FileNotFoundError, match=rf"has no AgentHorizon-Simple\.jsonl; {expected}"):
        resolve_release(tiny_copy, "AH")


def test_bad_arguments_are_refused(tiny_root: Path):
    with pytest.raises(ValueError, match="unknown config 'AH-X'"):
        resolve_release(tiny_root, "AH-X")
    with pytest.raises(ValueError, match="unknown images mode 'pixels'"):
        resolve_release(tiny_root, "AH", images="pixels")
    with pytest.raises(ValueError, match="applies to Hub repos only"):
        resolve_release(tiny_root, "AH", revision="main")


def test_read_labels_and_references_carry_difficulty_group_and_dev_flag(small_root: Path):
    rows = read_labels(small_root)
    hard_lines = [line for line in (small_root / LABEL_FILES[0]).read_text().splitlines() if line.strip()]
    assert [r["difficulty"] for r in rows[: len(hard_lines)]] == ["hard"] * len(hard_lines)
    assert {r["difficulty"] for r in rows[len(hard_lines):]} == {"easy"}
    dev = load_references(small_root, "AH-D")
    assert dev and all(r["in_dev"] for r in dev)
    assert {r["trajectory_id"] for r in dev} == derive_dev_set(rows).trajectory_ids
    everything = load_references(small_root, "all")
    assert sum(r["in_dev"] for r in everything) == len(dev)
    assert all(len(r["pair_group_id"]) == 12 for r in everything)
    assert not any(r["in_dev"] for r in load_references(small_root, "all", exclude_dev=True))


# --- warm caches, offline, and paths that are neither local nor on the Hub --------------------------


def test_a_warm_snapshot_is_not_matched_against_the_repo_again(hub: FakeHub, tiny_root: Path):
    # huggingface_hub matches every repo file against every pattern (minutes on the real release),
    # so a snapshot that already holds the config's files needs only the label call.
    root = resolve_release(REPO_ID, "AH")
    assert len(hub.calls) == 2
    assert resolve_release(REPO_ID, "AH") == root
    assert len(hub.calls) == 3 and hub.calls[2]["allow_patterns"] == list(LABEL_FILES)
    # a missing screenshot (an interrupted download) is fetched again, at the labels' commit
    row = next(r for r in read_labels(tiny_root) if r["difficulty"] == "hard")
    next((root / IMAGES_DIR / row["steps_id"]).iterdir()).unlink()
    resolve_release(REPO_ID, "AH")
    assert len(hub.calls) == 5 and hub.calls[4]["revision"] == COMMIT
    assert resolve_release(REPO_ID, "AH", images=None) == root and len(hub.calls) == 6


def test_offline_load_from_a_warm_hub_cache(tiny_root: Path, tmp_path: Path):
    # The real snapshot_download (the session is HF_HUB_OFFLINE=1) on a cache laid out as
    # huggingface_hub lays it out: refs/main names the commit, snapshots/<commit>/ holds the files.
    storage = tmp_path / "datasets" / "hub" / "datasets--ServiceNow--AgentHorizon"
    shutil.copytree(tiny_root, storage / "snapshots" / COMMIT)
    (storage / "refs").mkdir()
    (storage / "refs" / "main").write_text(COMMIT)
    ds = load_dataset(REPO_ID, "AH-S", split="test", cache_dir=tmp_path / "datasets")
    assert ds["trajectory_id"] == [r["trajectory_id"] for r in read_labels(tiny_root) if r["difficulty"] == "easy"]
    assert ds[0]["screenshots"].paths[0].startswith(str(storage / "snapshots" / COMMIT))


def test_a_missing_relative_folder_spelled_like_a_repo_id_says_it_is_neither(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"data/relase: no such local directory .* not a Hub dataset repo"):
        resolve_release("data/relase", "AH", cache_dir=tmp_path / "hub")
