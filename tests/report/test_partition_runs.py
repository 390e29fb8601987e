"""`agenthorizon partition` from real runs: judges grouped as the leaderboard groups them, --out written safely.

Runs come from the real runner (`run_judge`) on the tiny sample corpus; the
expected split and its agreement are computed here from the result files and
the label files, from the definitions.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.schema import LABEL_FILE_EASY, LABEL_FILE_HARD
from tmpfs import mounted_tmpfs

JUDGES = ("lexical", "random:1", "random:2")


def _labels(root: Path) -> dict[str, dict]:
    rows = {}
    for name in (LABEL_FILE_HARD, LABEL_FILE_EASY):
        for line in (root / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rows[row["trajectory_id"]] = {**row, "hard": name == LABEL_FILE_HARD}
    return rows


def _correct(folder: Path, tid: str, label: str) -> bool:
    path = folder / f"{tid}.json"
    if not path.exists():
        return False
    result = json.loads(path.read_text())
    return result["parse_status"] == "ok" and result["verdict"]["success"] is (label == "positive")


@pytest.fixture(scope="module")
def split_runs(tiny_root, tmp_path_factory):
    """Per judge one run on AH and one on AH-S, each in a folder of its own (as Table 2's runs are); the
    last judge's AH run in two shards, each in its own folder."""
    base = tmp_path_factory.mktemp("partition-runs")
    folders: dict[str, dict[str, list[Path]]] = {}
    for config in ("AH", "AH-S"):
        dataset = agenthorizon.load_dataset(tiny_root, config, split="test", images=None)
        for spec in JUDGES:
            shards = [(1, 2), (2, 2)] if (spec, config) == (JUDGES[-1], "AH") else [None]
            for shard in shards:
                out = base / f"{spec.replace(':', '-')}-{config}{'' if shard is None else f'-shard{shard[0]}'}"
                run_judge(spec, dataset, out, config=config, data_root=tiny_root, progress=False, shard=shard)
                folders.setdefault(spec, {}).setdefault(config, []).append(out)
    return folders


def _all(split_runs) -> list[Path]:
    return [folder for per_config in split_runs.values() for runs in per_config.values() for folder in runs]


def _folder(split_runs, spec, config, tid) -> Path:
    """The folder holding ``tid``'s result among the judge's runs on ``config`` (a shard holds some items)."""
    runs = split_runs[spec][config]
    return next((folder for folder in runs if (folder / f"{tid}.json").exists()), runs[0])


def _argv(folders, root, out, k=1):
    return ["partition", *map(str, folders), "--data", str(root), "--threshold", str(k), "--out", str(out)]


def test_runs_on_ah_and_ah_s_pool_as_one_judge_each(tiny_root, split_runs, tmp_path, capsys):
    labels = _labels(tiny_root)
    folders = _all(split_runs)
    k = 1
    assert main(_argv(folders, tiny_root, tmp_path / "split", k)) == 0
    printed = capsys.readouterr().out
    # From the definition: per item, the judges (not folders) that judged it correctly.
    n_correct = {tid: sum(_correct(_folder(split_runs, spec, "AH" if row["hard"] else "AH-S", tid), tid, row["label"])
                          for spec in JUDGES) for tid, row in labels.items()}
    hard = {tid for tid, count in n_correct.items() if count <= k}
    written = {json.loads(line)["trajectory_id"] for line in (tmp_path / "split" / LABEL_FILE_HARD).read_text().splitlines()}
    assert written == hard
    record = json.loads((tmp_path / "split" / "partition.json").read_text())
    assert {tid: item["n_correct"] for tid, item in record["items"].items()} == n_correct
    assert record["n_judges"] == len(JUDGES)
    assert [len(judge["runs"]) for judge in record["judges"]] == [2, 2, 3]  # two shards of one run: one judge
    n = len(labels)
    observed = sum((tid in hard) == row["hard"] for tid, row in labels.items()) / n
    p_new, p_shipped = len(hard) / n, sum(row["hard"] for row in labels.values()) / n
    chance = p_new * p_shipped + (1 - p_new) * (1 - p_shipped)
    kappa = (observed - chance) / (1 - chance)
    assert record["agreement_with_release"]["agreement"] == pytest.approx(observed)
    assert record["agreement_with_release"]["cohen_kappa"] == pytest.approx(kappa)
    assert f"{100 * observed:.1f}%" in printed and f"kappa {kappa:.3f}" in printed
    assert f"{len(JUDGES)} judges pooled" in printed


def test_a_judge_without_a_run_on_one_config_is_refused_by_name(tiny_root, split_runs, tmp_path, capsys):
    folders = [*split_runs["lexical"]["AH"], *split_runs["lexical"]["AH-S"], *split_runs["random:1"]["AH"]]
    assert main(_argv(folders, tiny_root, tmp_path / "split")) == 2
    error = capsys.readouterr().err
    assert str(split_runs["random:1"]["AH"][0]) in error and "AH-S" in error
    assert not (tmp_path / "split").exists()


@pytest.mark.parametrize("how", ["copy", "link"])
def test_the_same_run_twice_is_refused(tiny_root, split_runs, tmp_path, capsys, how):
    (run,) = split_runs["lexical"]["AH"]
    twin = tmp_path / "twin"
    if how == "copy":
        shutil.copytree(run, twin)
    else:
        twin.symlink_to(run, target_is_directory=True)
    folders = [run, *split_runs["lexical"]["AH-S"], twin]
    assert main(_argv(folders, tiny_root, tmp_path / "split")) == 2
    error = capsys.readouterr().err
    assert "two runs of judge" in error and str(twin) in error
    assert not (tmp_path / "split").exists()


def test_out_is_checked_before_the_runs_are_read(tiny_root, tmp_path, capsys):
    out = tmp_path / "split"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    # The run folder does not even exist: --out is refused first, so the user fixes it before any work.
    assert main(_argv([tmp_path / "no-such-run"], tiny_root, out)) == 2
    error = capsys.readouterr().err
    assert str(out) in error and "not empty" in error
    assert (out / "notes.txt").read_text() == "mine"


def test_a_partition_json_planted_as_a_link_to_the_label_file_leaves_the_release_intact(
        tiny_copy, split_runs, tmp_path, capsys):
    label_file = tiny_copy / LABEL_FILE_HARD
    before = label_file.read_bytes()
    out = tmp_path / "split"
    out.mkdir()
    (out / "partition.json").symlink_to(label_file)
    folders = _all(split_runs)
    assert main(_argv(folders, tiny_copy, out)) == 2
    assert "not empty" in capsys.readouterr().err
    assert label_file.read_bytes() == before
    # --out itself a link to a folder: refused too, nothing written where it leads.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "split-link").symlink_to(elsewhere, target_is_directory=True)
    assert main(_argv(folders, tiny_copy, tmp_path / "split-link")) == 2
    assert "link" in capsys.readouterr().err
    assert list(elsewhere.iterdir()) == []


@pytest.fixture()
def other_disk(tmp_path):
    """A tmpfs (root only): a second file system, to which the release cannot be hard-linked."""
    yield from mounted_tmpfs(tmp_path / "disk", "8m")


def test_a_failure_halfway_leaves_nothing_half_written(tiny_root, split_runs, other_disk, capsys):
    folders = _all(split_runs)
    out = other_disk / "split"
    # The label files can be written there, the sandbox cannot be hard-linked across file systems.
    assert main(_argv(folders, tiny_root, out)) == 1  # the command could not finish: EXIT_INCOMPLETE
    assert "cannot hard-link" in capsys.readouterr().err
    assert list(other_disk.iterdir()) == []  # no --out, and no temporary folder beside it
    # With the label files alone it works there, and the folder is complete.
    assert main([*_argv(folders, tiny_root, out), "--labels-only"]) == 0
    assert sorted(path.name for path in out.iterdir()) == sorted([LABEL_FILE_HARD, LABEL_FILE_EASY, "partition.json"])
