"""``agenthorizon.leaderboard``: the library function behind ``agenthorizon leaderboard``.

Runs come from the real runner (baseline judges on the tiny sample corpus);
each cell is checked against a count made here from the result files and
the label files, from the definition of the rates.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.schema import LABEL_FILE_EASY, LABEL_FILE_HARD


def _judge(root, spec, out, config, *, exclude_dev=False):
    """A real run of ``spec`` on ``config`` into ``out``."""
    dataset = agenthorizon.load_dataset(root, config, split="test", images=None, exclude_dev=exclude_dev)
    run_judge(spec, dataset, out, config=config, data_root=root, progress=False, data_options={"exclude_dev": exclude_dev})
    return out


@pytest.fixture(scope="module")
def runs(tiny_root, tmp_path_factory):
    base = tmp_path_factory.mktemp("board")
    folders = {
        "lexical-AH": _judge(tiny_root, "lexical", base / "lexical-AH", "AH"),
        "lexical-AH-S": _judge(tiny_root, "lexical", base / "lexical-AH-S", "AH-S"),
        "true-all": _judge(tiny_root, "constant:true", base / "true-all", "all"),
    }
    dataset = agenthorizon.load_dataset(tiny_root, "AH", split="test", images=None)
    for index in (1, 2):  # one run in two shards, each in its own folder
        folders[f"false-{index}"] = base / f"false-{index}"
        run_judge("constant:false", dataset, folders[f"false-{index}"], config="AH", data_root=tiny_root,
                  progress=False, shard=(index, 2))
    return {"root": tiny_root, "base": base, **folders}


def _labels(root: Path, name: str) -> dict[str, str]:
    lines = (root / name).read_text(encoding="utf-8").splitlines()
    return {row["trajectory_id"]: row["label"] for row in map(json.loads, filter(str.strip, lines))}


def _rates(folders: list[Path], labels: dict[str, str]) -> tuple[float, float, float]:
    """(balanced, positive, negative) accuracy from the result files: a missing or invalid verdict is wrong."""
    said: dict[str, bool] = {}
    for folder in folders:
        for path in folder.glob("*.json"):
            if not re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}\.json", path.name):
                continue  # run.json, a shard's record
            result = json.loads(path.read_text())
            if result["parse_status"] == "ok":
                said[path.stem] = result["verdict"]["success"]
    positives = [tid for tid, label in labels.items() if label == "positive"]
    negatives = [tid for tid, label in labels.items() if label == "negative"]
    positive = sum(said.get(tid) is True for tid in positives) / len(positives)
    negative = sum(said.get(tid) is False for tid in negatives) / len(negatives)
    return (positive + negative) / 2, positive, negative


def test_one_row_per_judge_key_with_each_cell_counted_from_the_result_files(runs):
    root = runs["root"]
    board = agenthorizon.leaderboard([runs["lexical-AH"], runs["true-all"], runs["lexical-AH-S"], runs["false-1"],
                                      runs["false-2"]], root)
    rows = {row.judge: row for row in board}
    assert set(rows) == {"lexical", "constant:true", "constant:false"}
    hard, easy = _labels(root, LABEL_FILE_HARD), _labels(root, LABEL_FILE_EASY)
    expected = {
        ("lexical", "AH"): _rates([runs["lexical-AH"]], hard),
        ("lexical", "AH-S"): _rates([runs["lexical-AH-S"]], easy),
        ("constant:true", "AH"): _rates([runs["true-all"]], hard),
        ("constant:true", "AH-S"): _rates([runs["true-all"]], easy),
        ("constant:false", "AH"): _rates([runs["false-1"], runs["false-2"]], hard),
    }
    for (judge, config), (balanced, positive, negative) in expected.items():
        report = rows[judge].reports[config]
        assert (report.balanced_accuracy, report.positive_accuracy, report.negative_accuracy) == pytest.approx(
            (balanced, positive, negative)
        ), (judge, config)
        assert report.n == len(hard if config == "AH" else easy)
    # The two shards are one run: every AH item has its result, none missing.
    assert rows["constant:false"].reports["AH"].invalid_by_reason["missing"] == 0
    assert rows["constant:false"].reports["AH-S"] is None  # not run there: blank
    assert (rows["constant:true"].reports["AH"].positive_accuracy, rows["constant:true"].reports["AH"].negative_accuracy) == (1.0, 0.0)
    # Ranked by AH balanced accuracy, best first.
    values = [row.reports["AH"].balanced_accuracy for row in board]
    assert values == sorted(values, reverse=True)
    assert [manifest["config"] for manifest in board.manifests] == ["AH", "AH-S"]
    assert [manifest["n_items"] for manifest in board.manifests] == [len(hard), len(easy)]
    assert board.notes[-1].startswith("Mistake-type recall is over all")


def test_the_command_prints_the_library_rows(runs, capsys):
    folders = [runs["lexical-AH"], runs["lexical-AH-S"], runs["true-all"]]
    assert main(["leaderboard", *map(str, folders), "--data", str(runs["root"]), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    board = agenthorizon.leaderboard(folders, runs["root"])
    assert [row["judge"] for row in printed["judges"]] == [row.judge for row in board]
    for shown, row in zip(printed["judges"], board):
        assert shown["judge_key"] == row.judge_key and shown["runs"] == row.runs
        assert shown["reports"] == {k: None if v is None else v.to_dict() for k, v in row.reports.items()}
    assert printed["manifests"] == board.manifests and printed["notes"] == board.notes


def test_two_runs_of_one_judge_on_one_config_are_an_error_naming_both(runs, tmp_path):
    again = _judge(runs["root"], "lexical", tmp_path / "lexical-again", "AH")
    with pytest.raises(ValueError, match="two runs of judge lexical") as raised:
        agenthorizon.leaderboard([runs["lexical-AH"], again], runs["root"])
    assert str(runs["lexical-AH"]) in str(raised.value) and str(again) in str(raised.value)
    # A run on all covers AH too.
    with pytest.raises(ValueError, match="two runs of judge constant:true"):
        agenthorizon.leaderboard([runs["true-all"], _judge(runs["root"], "constant:true", tmp_path / "t", "AH")], runs["root"])


def test_runs_the_leaderboard_cannot_rank_are_refused(runs, tmp_path):
    dev = _judge(runs["root"], "lexical", tmp_path / "dev", "AH-D")
    with pytest.raises(ValueError, match="run on config 'AH-D'; leaderboard and partition take runs on AH, AH-S, all"):
        agenthorizon.leaderboard([dev], runs["root"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no run.json or run-shard-"):
        agenthorizon.leaderboard([tmp_path / "empty"], runs["root"])
    excluded = _judge(runs["root"], "constant:false", tmp_path / "excluded", "AH-S", exclude_dev=True)
    with pytest.raises(ValueError, match="different item selections"):
        agenthorizon.leaderboard([runs["lexical-AH"], excluded], runs["root"])


@pytest.fixture(scope="module")
def interrupted(runs):
    """A run on all stopped by Ctrl-C after 3 items (the real runner), right on each: partial, not a judge's score."""
    from stub_judges import InterruptedJudge

    root = runs["root"]
    dataset = agenthorizon.load_dataset(root, "all", split="test", images=None)
    answers = {tid: label == "positive" for name in (LABEL_FILE_HARD, LABEL_FILE_EASY)
               for tid, label in _labels(root, name).items()}
    out = runs["base"] / "interrupted-all"
    with pytest.raises(KeyboardInterrupt):
        run_judge(InterruptedJudge(4, answers), dataset, out, config="all", data_root=root, progress=False,
                  concurrency=1)
    return out, len(answers)


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "latex", "json"])
def test_a_partial_run_is_marked_in_every_format_and_left_out_of_the_ranks(runs, interrupted, capsys, fmt):
    folder, n_items = interrupted
    mark = f"PARTIAL: 3 of {n_items} items judged"
    complete = [runs["lexical-AH"], runs["lexical-AH-S"], runs["true-all"]]
    argv = ["leaderboard", str(folder), *map(str, complete), "--data", str(runs["root"]), "--format", fmt]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    if fmt == "json":
        judges = {row["judge"]: row for row in json.loads(printed)["judges"]}
        assert judges["interrupted"]["partial"] == mark and judges["interrupted"]["rank"] is None
        assert sorted(row["rank"] for name, row in judges.items() if name != "interrupted") == [1, 2]
        assert list(judges)[-1] == "interrupted"  # listed after the ranked rows
    else:
        line = next(line for line in printed.splitlines() if "interrupted" in line and "PARTIAL" in line
                    and "Why" not in line)
        assert mark in line and "unranked" in line
    # --include-partial ranks it, still marked.
    assert main([*argv, "--include-partial", "--format", "json"]) == 0
    judges = {row["judge"]: row for row in json.loads(capsys.readouterr().out)["judges"]}
    assert judges["interrupted"]["partial"] == mark
    assert sorted(row["rank"] for row in judges.values()) == [1, 2, 3]


def test_rank_correlation_leaves_out_a_partial_run_and_refuses_one_set_twice(runs, interrupted, capsys):
    folder, _ = interrupted
    complete = [runs["lexical-AH"], runs["lexical-AH-S"], runs["true-all"]]
    argv = ["leaderboard", str(folder), *map(str, complete), "--data", str(runs["root"]), "--format", "json",
            "--rank-correlation", "AH,AH-S"]
    assert main(argv) == 0
    agreement = json.loads(capsys.readouterr().out)["rank_correlation"]
    assert sorted(agreement["judges"]) == ["constant:true", "lexical"] and agreement["excluded"] == ["interrupted"]
    assert main([*argv, "--include-partial"]) == 0
    assert "interrupted" in json.loads(capsys.readouterr().out)["rank_correlation"]["judges"]
    # One item set twice: a ranking agrees with itself, rho = 1 says nothing.
    for sets in ("AH,AH", " AH-S , AH-S", "os=linux,os=linux"):
        assert main([*argv[:-1], sets]) == 2
        assert "names one item set twice" in capsys.readouterr().err
