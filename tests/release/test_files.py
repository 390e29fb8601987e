"""Where releases come from: local roots (and clear errors for near misses), and
the real huggingface_hub, offline, on a hand-made warm cache. Everything a Hub
server shows (what is fetched, revisions, 404s, warm and offline caches) is
tested against a real server in test_hub.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import huggingface_hub
import pytest

from agenthorizon.data.load import load_dataset
from agenthorizon.schema import LABEL_FILES, json_relpath
from agenthorizon.release.files import load_references, read_labels
from agenthorizon.release.hub import resolve_release
from agenthorizon.release.splits import derive_dev_set

REPO_ID = "ServiceNow/AgentHorizon"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


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
