"""Where releases come from: local roots (and clear errors for near misses),
and the Hub boundary, exercised offline with a fake hf_hub_download that
serves a local sample corpus into a snapshot folder the way huggingface_hub
lays out its cache (and with the real library on a hand-made warm cache)."""

from __future__ import annotations

import json
import posixpath
import shutil
from pathlib import Path

import httpx2
import huggingface_hub
import pytest
from huggingface_hub import constants
from huggingface_hub.errors import RemoteEntryNotFoundError

from agenthorizon.data.load import load_dataset
from agenthorizon.release.render import to_markdown
from agenthorizon.schema import (
    FRAMEWORK_FILES,
    IMAGES_DIR,
    JSONS_DIR,
    LABEL_FILES,
    PROMPT_FILE,
    json_relpath,
    markdown_relpath,
)
from agenthorizon.release.source import load_references, read_labels, resolve_release
from agenthorizon.release.splits import derive_dev_set

REPO_ID = "ServiceNow/AgentHorizon"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


class FakeHub:
    """Stands in for huggingface_hub.hf_hub_download, serving ``corpus`` as commit COMMIT of REPO_ID.

    Like the real function it resolves ``main`` to the commit, copies the file to
    ``<cache>/datasets--ServiceNow--AgentHorizon/snapshots/<commit>/<file>`` and returns
    that path; a file the corpus lacks is recorded under ``.no_exist/<commit>/`` and
    raises RemoteEntryNotFoundError (a 404). Every request is recorded.
    """

    def __init__(self, corpus: Path) -> None:
        self.corpus = corpus
        self.requests: list[tuple[str, str | None]] = []
        self.cache_dirs: set[str | None] = set()

    def __call__(self, repo_id, filename, *, repo_type=None, revision=None, token=None, cache_dir=None, **kw):
        assert repo_id == REPO_ID and repo_type == "dataset"
        assert revision in (None, "main", "v1", COMMIT), revision
        self.requests.append((filename, revision))
        self.cache_dirs.add(cache_dir)
        storage = Path(cache_dir or constants.HF_HUB_CACHE) / "datasets--ServiceNow--AgentHorizon"
        if not (self.corpus / filename).is_file():
            marker = storage / ".no_exist" / COMMIT / filename
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
            response = httpx2.Response(404, request=httpx2.Request("HEAD", f"https://hub.test/{filename}"))
            raise RemoteEntryNotFoundError(f"404 Entry not found: {filename}", response=response)
        target = storage / "snapshots" / COMMIT / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.corpus / filename, target)
        return str(target)

    @property
    def snapshot(self) -> Path:
        return Path(constants.HF_HUB_CACHE) / "datasets--ServiceNow--AgentHorizon" / "snapshots" / COMMIT

    def names(self) -> list[str]:
        return [name for name, _ in self.requests]

    def fetched(self) -> set[str]:
        return {p.relative_to(self.snapshot).as_posix() for p in self.snapshot.rglob("*") if p.is_file()}


@pytest.fixture()
def corpus(tiny_copy: Path) -> Path:
    # A screenshot no json references, in a folder that is fetched: it must stay on the "Hub".
    row = next(r for r in read_labels(tiny_copy) if r["difficulty"] == "hard")
    shutil.copyfile(next((tiny_copy / IMAGES_DIR / row["steps_id"]).iterdir()),
                    tiny_copy / IMAGES_DIR / row["steps_id"] / "step_999.png")
    return tiny_copy


@pytest.fixture()
def hub(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeHub:
    fake = FakeHub(corpus)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake)
    return fake


def _expected_files(rows: list[dict], *, images: bool, corpus: Path) -> set[str]:
    """What a config needs, computed from the corpus files without agenthorizon.release.source."""
    files = {PROMPT_FILE, *FRAMEWORK_FILES}
    for row in rows:
        files |= {json_relpath(row["trajectory_id"]), markdown_relpath(row["trajectory_id"])}
        if images:
            steps = json.loads((corpus / json_relpath(row["trajectory_id"])).read_text())["steps"]
            files |= {posixpath.normpath(f"{JSONS_DIR}/{s['screenshot']}") for s in steps if s.get("screenshot")}
    return files


@pytest.mark.parametrize("config", ["AH", "AH-S", "AH-D", "all"])
def test_hub_fetches_labels_first_then_exactly_the_config_files(hub: FakeHub, corpus: Path, config: str):
    # two dev groups, so that AH-D is a proper subset of the tiny corpus
    root = resolve_release(REPO_ID, config, revision="main", dev_groups=2)
    assert root == hub.snapshot
    # the user's revision resolves the commit once; everything after is pinned to it
    assert hub.requests[0] == (LABEL_FILES[0], "main")
    assert hub.requests[1] == (LABEL_FILES[1], COMMIT)
    assert {revision for _, revision in hub.requests[1:]} == {COMMIT}
    rows = read_labels(corpus)
    wanted = {r["trajectory_id"] for r in load_references(corpus, config, dev_groups=2)}
    selected = [r for r in rows if r["trajectory_id"] in wanted]
    expected = _expected_files(selected, images=True, corpus=corpus)
    names = hub.names()[2:]
    assert len(names) == len(set(names))  # nothing asked twice
    assert set(names) == expected
    assert hub.fetched() == expected | set(LABEL_FILES)
    assert not any(name.endswith("step_999.png") for name in names)  # unreferenced: not fetched
    if config != "all":
        others = {json_relpath(r["trajectory_id"]) for r in rows if r["trajectory_id"] not in wanted}
        assert others and not others & set(names)


def test_images_none_fetches_no_media_and_loading_still_works(hub: FakeHub, corpus: Path, tmp_path: Path):
    ds = load_dataset(REPO_ID, "AH", images=None, split="test", cache_dir=tmp_path / "datasets")
    assert not any(name.startswith(IMAGES_DIR) or name.endswith(".png") for name in hub.names())
    assert hub.cache_dirs == {str(tmp_path / "datasets" / "hub")}
    ah_rows = [r for r in read_labels(corpus) if r["difficulty"] == "hard"]
    assert set(hub.names()) == _expected_files(ah_rows, images=False, corpus=corpus) | set(LABEL_FILES)
    assert ds["trajectory_id"] == [r["trajectory_id"] for r in ah_rows]
    paths = [p for p in ds[0]["screenshots"] if p is not None]
    assert paths and all(isinstance(p, str) and p.startswith(str(tmp_path / "datasets" / "hub")) for p in paths)


def test_hub_lazy_load_decodes_screenshots_from_the_snapshot(hub: FakeHub, tmp_path: Path):
    ds = load_dataset(REPO_ID, "AH-D", dev_groups=2, split="test", cache_dir=tmp_path / "datasets")
    snapshot = tmp_path / "datasets" / "hub" / "datasets--ServiceNow--AgentHorizon" / "snapshots" / COMMIT
    assert set(ds["trajectory_id"]) == derive_dev_set(read_labels(snapshot), 2).trajectory_ids
    screens = ds[0]["screenshots"]
    k = next(i for i, p in enumerate(screens.paths) if p is not None)
    assert screens.paths[k].startswith(str(snapshot)) and screens[k].size[0] > 0


def test_a_warm_snapshot_costs_the_label_requests_only(hub: FakeHub, corpus: Path):
    root = resolve_release(REPO_ID, "AH")
    first = len(hub.requests)
    assert resolve_release(REPO_ID, "AH") == root
    assert hub.requests[first:] == [(LABEL_FILES[0], None), (LABEL_FILES[1], COMMIT)]
    # a missing screenshot (an interrupted download) is fetched again, alone, at the labels' commit
    row = next(r for r in read_labels(corpus) if r["difficulty"] == "hard")
    lost = sorted((root / IMAGES_DIR / row["steps_id"]).iterdir())[0]
    lost.unlink()
    resolve_release(REPO_ID, "AH")
    assert hub.requests[first + 2:] == [
        (LABEL_FILES[0], None), (LABEL_FILES[1], COMMIT), (lost.relative_to(root).as_posix(), COMMIT)
    ]
    assert lost.is_file()
    count = len(hub.requests)
    assert resolve_release(REPO_ID, "AH", images=None) == root and len(hub.requests) == count + 2


def test_a_markdown_missing_on_the_hub_is_skipped_and_rendered(hub: FakeHub, corpus: Path, tmp_path: Path):
    row = next(r for r in read_labels(corpus) if r["difficulty"] == "easy")
    (corpus / markdown_relpath(row["trajectory_id"])).unlink()
    with pytest.warns(UserWarning, match=r"1 trajectory markdown file\(s\) of config AH-S .* renders them from the json"):
        ds = load_dataset(REPO_ID, "AH-S", split="test", cache_dir=tmp_path / "datasets")
    item = ds[ds["trajectory_id"].index(row["trajectory_id"])]
    trajectory = json.loads((corpus / json_relpath(row["trajectory_id"])).read_text())
    assert item["markdown"] == to_markdown(trajectory)
    # the Hub's 404 is remembered in the cache: loading again asks for the labels only
    count = len(hub.requests)
    with pytest.warns(UserWarning, match="renders them from the json"):
        resolve_release(REPO_ID, "AH-S", cache_dir=tmp_path / "datasets" / "hub")
    assert hub.names()[count:] == list(LABEL_FILES)


def test_a_json_missing_on_the_hub_names_the_trajectory_and_label_row(hub: FakeHub, corpus: Path):
    row = next(r for r in read_labels(corpus) if r["difficulty"] == "hard")
    (corpus / json_relpath(row["trajectory_id"])).unlink()
    with pytest.raises(FileNotFoundError, match=rf"trajectory {row['trajectory_id']}, label row {row['location']}"):
        resolve_release(REPO_ID, "AH")
    assert resolve_release(REPO_ID, "AH-S") == hub.snapshot  # other configs do not need it


def test_a_repo_without_a_label_file_is_not_a_release(hub: FakeHub, corpus: Path):
    (corpus / LABEL_FILES[1]).unlink()
    with pytest.raises(FileNotFoundError, match=rf"{REPO_ID} at revision 'v1'.* has no AgentHorizon-Simple\.jsonl"):
        resolve_release(REPO_ID, "AH", revision="v1")


def test_a_screenshot_missing_on_the_hub_fails_only_when_indexed(hub: FakeHub, corpus: Path, tmp_path: Path):
    row = next(r for r in read_labels(corpus) if r["difficulty"] == "easy")
    steps = json.loads((corpus / json_relpath(row["trajectory_id"])).read_text())["steps"]
    k, reference = next((i, s["screenshot"]) for i, s in enumerate(steps) if s.get("screenshot"))
    (corpus / posixpath.normpath(f"{JSONS_DIR}/{reference}")).unlink()
    with pytest.warns(UserWarning, match=r"1 screenshot\(s\) referenced by config AH-S could not be fetched"):
        ds = load_dataset(REPO_ID, "AH-S", split="test", cache_dir=tmp_path / "datasets")
    screens = ds[ds["trajectory_id"].index(row["trajectory_id"])]["screenshots"]
    with pytest.raises(FileNotFoundError, match=posixpath.basename(reference)):
        screens[k]


# --- local roots ----------------------------------------------------------------------------------


def test_local_root_is_returned_without_touching_the_hub(tiny_root: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", lambda *a, **k: pytest.fail("no Hub for local roots"))
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


def test_offline_load_from_a_warm_hub_cache(tiny_root: Path, tmp_path: Path):
    # The real hf_hub_download (the session is HF_HUB_OFFLINE=1) on a cache laid out as
    # huggingface_hub lays it out: refs/main names the commit, snapshots/<commit>/ holds the files.
    storage = _warm_cache(tiny_root, tmp_path / "datasets" / "hub")
    ds = load_dataset(REPO_ID, "AH-S", split="test", cache_dir=tmp_path / "datasets")
    assert ds["trajectory_id"] == [r["trajectory_id"] for r in read_labels(tiny_root) if r["difficulty"] == "easy"]
    assert ds[0]["screenshots"].paths[0].startswith(str(storage / "snapshots" / COMMIT))


def test_offline_a_json_missing_from_the_cache_names_its_trajectory(tiny_root: Path, tmp_path: Path):
    storage = _warm_cache(tiny_root, tmp_path / "hub")
    row = read_labels(tiny_root)[0]
    (storage / "snapshots" / COMMIT / json_relpath(row["trajectory_id"])).unlink()
    with pytest.raises(FileNotFoundError, match=rf"trajectory {row['trajectory_id']}, label row {row['location']}"):
        resolve_release(REPO_ID, "AH", cache_dir=tmp_path / "hub")


def _warm_cache(release: Path, cache_dir: Path) -> Path:
    storage = cache_dir / "datasets--ServiceNow--AgentHorizon"
    shutil.copytree(release, storage / "snapshots" / COMMIT)
    (storage / "refs").mkdir()
    (storage / "refs" / "main").write_text(COMMIT)
    return storage


def test_a_missing_relative_folder_spelled_like_a_repo_id_says_it_is_neither(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"data/relase: no such local directory .* not a Hub dataset repo"):
        resolve_release("data/relase", "AH", cache_dir=tmp_path / "hub")


def test_export_from_a_hub_repo_fetches_only_what_it_writes(hub: FakeHub, corpus: Path, tmp_path: Path):
    import datasets

    from agenthorizon.data.export import export_release

    export_release(REPO_ID, tmp_path / "out", configs=["AH"], images="none", dev_groups=2)
    assert not [name for name in hub.names() if name.endswith(".png")], "images='none' fetched screenshots"
    exported = datasets.load_dataset(str(tmp_path / "out"), "AH", split="test")
    expected = [row["trajectory_id"] for row in read_labels(corpus) if row["difficulty"] == "hard"]
    assert exported["trajectory_id"] == expected
