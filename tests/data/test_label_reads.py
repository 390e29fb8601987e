"""One load reads the label files once and computes pair groups once, cold or cached.

Before, a cold ``load_dataset`` read both label files three times and drew
the pair groups six times, because ``load_dataset`` and the builder each
assembled the config's rows themselves. Both now go through
``release.files.read_config_rows`` / ``release.splits.select_rows``, and
the builder reuses the rows ``load_dataset`` read.
"""

from __future__ import annotations

import sys

import pytest

from agenthorizon.data.builder import AgentHorizon
from agenthorizon.data.load import load_dataset
from agenthorizon.release import files, labels
from agenthorizon.release.files import load_references


def spy(monkeypatch: pytest.MonkeyPatch, function) -> list[tuple]:
    """Count calls of ``function`` wherever the package imported it (every module attribute bound to it)."""
    calls: list[tuple] = []

    def counting(*args, **kwargs):
        calls.append(args)
        return function(*args, **kwargs)

    for name, module in list(sys.modules.items()):
        if name == "agenthorizon" or name.startswith("agenthorizon."):
            for attribute, value in list(vars(module).items()):
                if value is function:
                    monkeypatch.setattr(module, attribute, counting)
    return calls


@pytest.fixture()
def counts(monkeypatch):
    return {"label reads": spy(monkeypatch, files.read_labels), "pair groups": spy(monkeypatch, labels.pair_groups)}


@pytest.mark.parametrize("config, options", [("AH", {}), ("AH-D", {}), ("all", {"exclude_dev": True})])
def test_a_load_reads_the_label_files_once_and_draws_pair_groups_once(
    tiny_root, tmp_path, counts, generation_count, config, options
):
    cold = load_dataset(tiny_root, config, split="test", images=None, cache_dir=tmp_path, **options)
    assert generation_count == [config]  # the cache was built in this call
    assert {name: len(calls) for name, calls in counts.items()} == {"label reads": 1, "pair groups": 1}
    for calls in counts.values():
        calls.clear()
    warm = load_dataset(tiny_root, config, split="test", images=None, cache_dir=tmp_path, **options)
    assert generation_count == [config]  # served from the cache
    assert {name: len(calls) for name, calls in counts.items()} == {"label reads": 1, "pair groups": 1}
    assert warm["trajectory_id"] == cold["trajectory_id"]
    expected = load_references(tiny_root, config, **options)
    assert cold["trajectory_id"] == [row["trajectory_id"] for row in expected]
    assert cold["pair_group_id"] == [row["pair_group_id"] for row in expected]
    assert cold["in_dev"] == [row["in_dev"] for row in expected]


def test_a_dev_manifest_load_reads_the_labels_once(tiny_root, tmp_path, counts):
    manifest = tmp_path / "dev.txt"
    ids = [row["trajectory_id"] for row in load_references(tiny_root, "all")][:3]
    manifest.write_text("\n".join(ids) + "\n", encoding="utf-8")
    for calls in counts.values():
        calls.clear()
    ds = load_dataset(tiny_root, "AH-D", split="test", images=None, cache_dir=tmp_path / "cache", dev_manifest=manifest)
    assert sorted(ds["trajectory_id"]) == sorted(ids)
    assert {name: len(calls) for name, calls in counts.items()} == {"label reads": 1, "pair groups": 1}


def test_the_builder_on_its_own_reads_the_labels_itself(tiny_root, tmp_path, counts):
    builder = AgentHorizon(cache_dir=str(tmp_path), config_name="AH-S", data_dir=str(tiny_root))
    builder.download_and_prepare()
    rows = builder.as_dataset(split="test")
    assert rows["trajectory_id"] == [row["trajectory_id"] for row in load_references(tiny_root, "AH-S")]
    assert len(counts["label reads"]) == 2  # the build, and the reference computed here
