"""The paper's other tables from real runs: cost and runtime, paired scores, rank agreement, re-partitioning, frontier.

Runs come from the real runner: the lexical baseline (cost $0, no tokens known) and
OpenAI-compatible judges against a model server on 127.0.0.1 that reports
token usage, priced per judge, so the runner writes real telemetry (tokens,
latency, cost). The server's "models" answer from a script keyed by the
trajectory id in the prompt: one mostly right, one that answers by the
recording alone (blind to the instruction), one coin. Every number the
commands print is checked against a count made here from the result files
and the label files, from the definitions.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import statistics
import warnings
from pathlib import Path

import pytest
from scipy import stats

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.report.plots import pareto_front
from agenthorizon.schema import LABEL_FIELDS, LABEL_FILE_EASY, LABEL_FILE_HARD
from loopback import ModelServer

UUID = re.compile(r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}")
DOCS_FRONTIER = Path(__file__).resolve().parents[2] / "docs" / "img" / "frontier.png"
PRICES = {"sharp": (3.0, 15.0), "blind": (0.5, 2.0), "coin": (0.1, 0.4)}


def _labels(root: Path) -> dict[str, dict]:
    rows = {}
    for name in (LABEL_FILE_HARD, LABEL_FILE_EASY):
        for line in (root / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                rows[row["trajectory_id"]] = {**row, "difficulty": "hard" if name == LABEL_FILE_HARD else "easy"}
    return rows


def _bit(*parts: str) -> int:
    return hashlib.sha256("/".join(parts).encode()).digest()[0]


def _answers(labels: dict[str, dict]):
    def scripted(decide):
        def answer(body: dict) -> str:
            text = json.dumps(body)
            tid = next((match for match in UUID.findall(text) if match in labels), None)
            if tid is None:  # the runner's preflight probe names no item
                return '{"success": true}'
            return json.dumps({"success": decide(labels[tid]), "reasoning": "scripted"})
        return answer

    return {
        # right on about 5 items in 6
        "sharp": scripted(lambda row: (row["label"] == "positive") != (_bit("sharp", row["trajectory_id"]) < 42)),
        # the same answer for every item showing one recording
        "blind": scripted(lambda row: _bit("blind", row["steps_id"]) < 128),
        "coin": scripted(lambda row: _bit("coin", row["trajectory_id"]) < 128),
    }


@pytest.fixture(scope="module")
def runs(small_root, tmp_path_factory, monkeypatch_module):
    base = tmp_path_factory.mktemp("analyses")
    labels = _labels(small_root)
    dataset = agenthorizon.load_dataset(small_root, "all", split="test", images=None)
    monkeypatch_module.setenv("AH_TEST_KEY", "sk-test-not-a-real-key")
    server = ModelServer(_answers(labels))
    folders = {}
    try:
        run_judge("lexical", dataset, base / "lexical", config="all", data_root=small_root, progress=False)
        folders["lexical"] = base / "lexical"
        for model, (price_in, price_out) in PRICES.items():
            judge = OpenAICompatibleJudge.from_options(model, base_url=server.base_url, api_key_env="AH_TEST_KEY", images="none",
                                          price_input_per_1m=price_in, price_output_per_1m=price_out, cache_dir=None)
            run_judge(judge, dataset, base / model, config="all", data_root=small_root, progress=False)
            folders[model] = base / model
    finally:
        server.close()
    return {"root": small_root, "base": base, "labels": labels, "folders": folders}


@pytest.fixture(scope="module")
def monkeypatch_module():
    patch = pytest.MonkeyPatch()
    yield patch
    patch.undo()


def _results(folder: Path) -> dict[str, dict]:
    return {path.stem: json.loads(path.read_text()) for path in folder.glob("*.json") if UUID.fullmatch(path.stem)}


def _said(result: dict | None):
    if result is None or result["parse_status"] != "ok":
        return None
    return result["verdict"]["success"]


def _balanced(results: dict, labels: dict, ids) -> float:
    pos = [_said(results.get(t)) is True for t in ids if labels[t]["label"] == "positive"]
    neg = [_said(results.get(t)) is False for t in ids if labels[t]["label"] == "negative"]
    return (sum(pos) / len(pos) + sum(neg) / len(neg)) / 2


def _pairs(labels: dict) -> list[tuple[str, str]]:
    """(positive, negative) showing the same recording: the issue's definition of a pair."""
    return [(p, n) for p in labels for n in labels if labels[p]["label"] == "positive"
            and labels[n]["label"] == "negative" and labels[n]["steps_id"] == labels[p]["steps_id"]]


def _folder_of(board: dict) -> dict[str, Path]:
    """Row label -> its run folder, from the leaderboard's JSON (labels carry the judge's settings)."""
    return {entry["judge"]: Path(entry["runs"][0]) for entry in board["judges"]}


def _json_out(capsys, argv) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_score_reports_cost_runtime_and_paired_scores_counted_from_the_result_files(runs, capsys):
    labels, folder = runs["labels"], runs["folders"]["blind"]
    out = _json_out(capsys, ["score", str(folder), "--data", str(runs["root"]), "--format", "json"])
    results = _results(folder)
    costs = [r["telemetry"]["cost_usd"] for r in results.values()]
    latencies = [r["telemetry"]["latency_s"] for r in results.values()]
    assert len(costs) == len(labels) and None not in costs
    assert out["cost"]["cost_usd"]["total"] == pytest.approx(sum(costs))
    assert out["cost"]["cost_usd"]["mean"] == pytest.approx(statistics.fmean(costs))
    assert out["cost"]["input_tokens"]["total"] == sum(r["telemetry"]["input_tokens"] for r in results.values())
    assert out["runtime"]["wall_time_s"]["median"] == pytest.approx(statistics.median(latencies))
    assert out["runtime"]["wall_time_s"]["max"] == pytest.approx(max(latencies))
    # A direct judge has no turns: unknown for every item, never 0.
    assert out["runtime"]["turns"] == {"n_items": len(labels), "n_known": 0, "n_unknown": len(labels), "mean": None,
                                       "median": None, "max": None, "total": None, "known_total": 0.0,
                                       "mean_interval": None}
    # The blind judge answers alike for a recording: it never tells a pair apart.
    pairs = _pairs(labels)
    assert pairs and out["instruction_sensitivity"] == 0.0 and out["n_instruction_pairs"] == len(pairs)


def test_paired_scores_of_a_judge_that_reads_the_instruction(runs, capsys):
    labels, folder = runs["labels"], runs["folders"]["sharp"]
    out = _json_out(capsys, ["score", str(folder), "--data", str(runs["root"]), "--format", "json", "--bootstrap", "200"])
    results = _results(folder)
    pairs = _pairs(labels)
    hits = sum(_said(results.get(p)) is True and _said(results.get(n)) is False for p, n in pairs)
    assert out["instruction_sensitivity"] == pytest.approx(hits / len(pairs))
    low, high = out["intervals"]["instruction_sensitivity"]
    assert low <= out["instruction_sensitivity"] <= high
    negatives = [t for t, row in labels.items() if row["label"] == "negative" and row["mistake_type"] == "Bad Side Effect"]
    rejected = sum(_said(results.get(t)) is False for t in negatives)
    assert out["rejection_rate_by_type"]["Bad Side Effect"] == {"rejected": rejected, "total": len(negatives),
                                                                "rate": rejected / len(negatives)}


def test_leaderboard_cost_columns_and_rank_correlation(runs, capsys):
    labels, folders = runs["labels"], runs["folders"]
    argv = ["leaderboard", *map(str, folders.values()), "--data", str(runs["root"]), "--rank-correlation", "AH,AH-S",
            "--bootstrap", "100"]
    out = _json_out(capsys, [*argv, "--format", "json"])
    agreement = out["rank_correlation"]
    hard = [t for t, row in labels.items() if row["difficulty"] == "hard"]
    easy = [t for t, row in labels.items() if row["difficulty"] == "easy"]
    folder_of = _folder_of(out)
    by_run = {Path(entry["runs"][0]): entry for entry in out["judges"]}
    a = [_balanced(_results(folder_of[judge]), labels, hard) for judge in agreement["judges"]]
    b = [_balanced(_results(folder_of[judge]), labels, easy) for judge in agreement["judges"]]
    assert agreement["balanced_a"] == pytest.approx(a) and agreement["balanced_b"] == pytest.approx(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert agreement["spearman_rho"] == pytest.approx(stats.spearmanr(a, b).statistic)
        assert agreement["kendall_tau"] == pytest.approx(stats.kendalltau(a, b).statistic)
    # Cost is over all the judge's items; the lexical baseline calls no model and says so ($0, known),
    # while it reports no token counts: those stay unknown, never 0.
    lexical_cost = by_run[folders["lexical"]]["all_scored_items"]["cost"]
    assert lexical_cost["cost_usd"]["mean"] == 0.0 and lexical_cost["input_tokens"]["mean"] is None
    costs = [r["telemetry"]["cost_usd"] for r in _results(folders["coin"]).values()]
    assert by_run[folders["coin"]]["all_scored_items"]["cost"]["cost_usd"]["total"] == pytest.approx(sum(costs))
    assert main([*argv, "--columns", "accuracy,paired,cost", "--format", "table"]) == 0
    text = capsys.readouterr().out
    assert "$/traj" in text and "instr. sens." in text and "Spearman rho" in text and "unknown" in text
    assert main([*argv[:-4], "--columns", "speed"]) == 2
    assert "unknown leaderboard column set(s) speed" in capsys.readouterr().err


def test_partition_writes_a_release_that_load_dataset_reads(runs, tmp_path, capsys):
    labels, folders = runs["labels"], dict(runs["folders"])
    # One run lacks a result: that item counts as not correct for it.
    damaged = tmp_path / "sharp-missing-one"
    damaged.mkdir()
    for path in folders["sharp"].iterdir():
        (damaged / path.name).write_bytes(path.read_bytes())
    dropped = sorted(_results(damaged))[0]
    (damaged / f"{dropped}.json").unlink()
    folders["sharp"] = damaged
    out = tmp_path / "split"
    k = 2
    assert main(["partition", *map(str, folders.values()), "--data", str(runs["root"]), "--threshold", str(k),
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    n_correct = {t: 0 for t in labels}
    for folder in folders.values():
        results = _results(folder)
        for t, row in labels.items():
            n_correct[t] += _said(results.get(t)) is (row["label"] == "positive")
    hard = {t for t, count in n_correct.items() if count <= k}
    loaded = agenthorizon.load_dataset(out, "AH", split="test", images=None)
    assert set(loaded["trajectory_id"]) == hard
    easy = agenthorizon.load_dataset(out, "AH-S", split="test", images="paths")
    assert set(easy["trajectory_id"]) == set(labels) - hard
    assert all(Path(path).is_relative_to(out) for row in easy.select(range(2)) for path in row["screenshots"] if path)
    for line in (out / LABEL_FILE_HARD).read_text().splitlines():
        assert list(json.loads(line)) == list(LABEL_FIELDS)  # the release's seven fields, in order
    shipped_hard = {t for t, row in labels.items() if row["difficulty"] == "hard"}
    agree = sum((t in hard) == (t in shipped_hard) for t in labels) / len(labels)
    assert f"{100 * agree:.1f}%" in printed
    assert "1 without a result" in printed
    assert json.loads((out / "partition.json").read_text())["items"][dropped]["n_correct"] == n_correct[dropped]


def test_frontier_plot_of_real_runs(runs, tmp_path, capsys):
    from PIL import Image

    folders = runs["folders"]
    assert main(["plot", "frontier", *map(str, folders.values()), "--data", str(runs["root"]), "--out",
                 str(tmp_path), "--format", "png", "--bootstrap", "50"]) == 0
    assert "frontier:" in capsys.readouterr().out
    with Image.open(tmp_path / "frontier.png") as image:
        assert image.size == (1300, 640)
        if os.environ.get("AGENTHORIZON_UPDATE_DOCS_IMAGES"):  # the figure shown in docs/reports.md
            image.convert("RGB").resize((650, 320)).save(DOCS_FRONTIER, optimize=True)
    # The front from the definition: no other judge is as cheap and as accurate, one strictly.
    labels = runs["labels"]
    points = {m: (statistics.fmean(r["telemetry"]["cost_usd"] for r in _results(folders[m]).values()),
                  _balanced(_results(folders[m]), labels, list(labels))) for m in PRICES}
    front = {m for m, (c, a) in points.items()
             if not any(c2 <= c and a2 >= a and (c2, a2) != (c, a) for c2, a2 in points.values())}
    names = list(points)
    assert {m for m, keep in zip(names, pareto_front(*zip(*[points[m] for m in names]))) if keep} == front


def test_html_report_shows_paired_scores_and_cost(runs, tmp_path):
    page = tmp_path / "report.html"
    assert main(["report", str(runs["folders"]["sharp"]), str(runs["folders"]["lexical"]), "--data", str(runs["root"]),
                 "--out", str(page), "--bootstrap", "50", "--thumbnails", "0"]) == 0
    text = page.read_text()
    assert "Instruction sensitivity" in text and "Cost and runtime per trajectory" in text and "rejected at all" in text


def test_rank_correlation_between_slices_read_from_the_trajectories(runs, capsys):
    labels, folders = runs["labels"], runs["folders"]
    rows = agenthorizon.load_dataset(runs["root"], "all", split="test", images=None).select_columns(["trajectory_id", "os"])
    os_of = {row["trajectory_id"]: row["os"] for row in rows}
    out = _json_out(capsys, ["leaderboard", *map(str, folders.values()), "--data", str(runs["root"]), "--format", "json",
                             "--rank-correlation", "os=linux,os=windows"])
    agreement = out["rank_correlation"]
    folder_of = _folder_of(out)
    for side, system in (("balanced_a", "linux"), ("balanced_b", "windows")):
        ids = [t for t in labels if os_of[t] == system]
        assert agreement[side] == pytest.approx([_balanced(_results(folder_of[j]), labels, ids) for j in agreement["judges"]])
    assert agreement["n_items_a"] == sum(value == "linux" for value in os_of.values())
    assert main(["leaderboard", str(folders["coin"]), "--data", str(runs["root"]), "--rank-correlation", "AH"]) == 2
    assert "expects two item sets A,B" in capsys.readouterr().err


def test_partition_refuses_a_folder_inside_the_release_and_links_links_as_links(runs, tmp_path, capsys):
    from agenthorizon.report.partition import partition_runs, write_partition

    folders = [runs["folders"]["coin"], runs["folders"]["sharp"]]
    argv = ["partition", *map(str, folders), "--data", str(runs["root"]), "--threshold", "0"]
    assert main([*argv, "--out", str(runs["root"] / "sandbox" / "split")]) == 2
    assert "is inside the release" in capsys.readouterr().err
    # A release whose sandbox holds a link out of it: the new folder holds the link, not the file it names.
    release = tmp_path / "release"
    shutil.copytree(runs["root"], release)
    secret = tmp_path / "secret.txt"
    secret.write_text("not part of the release")
    (release / "sandbox" / "escape.txt").symlink_to(secret)
    written = write_partition(partition_runs(folders, release, 0), release, tmp_path / "split")
    linked = tmp_path / "split" / "sandbox" / "escape.txt"
    assert linked.is_symlink() and linked.stat().st_ino == secret.stat().st_ino  # a link still, to the same place
    assert linked.lstat().st_ino != secret.stat().st_ino
    assert written["hard"] + written["easy"] == len(runs["labels"])


def test_partition_of_runs_without_the_dev_set_keeps_its_items_on_their_shipped_side(runs, tmp_path):
    from agenthorizon.report.partition import partition_runs, write_partition

    root = runs["root"]
    dataset = agenthorizon.load_dataset(root, "all", split="test", images=None, exclude_dev=True)
    run_judge("constant:false", dataset, tmp_path / "false", config="all", data_root=root, progress=False,
              data_options={"exclude_dev": True})
    dev = {row["trajectory_id"] for row in agenthorizon.load_dataset(root, "AH-D", split="test", images=None)}
    partition = partition_runs([tmp_path / "false"], root, threshold=0)
    assert set(partition.n_correct) == set(runs["labels"]) - dev  # only the judged items are counted
    written = write_partition(partition, root, tmp_path / "split", sandbox=False)
    assert written["kept"] == len(dev) and written["sandbox_files"] == 0
    hard = {json.loads(line)["trajectory_id"] for line in (tmp_path / "split" / LABEL_FILE_HARD).read_text().splitlines()}
    for tid in dev:
        assert (tid in hard) == (runs["labels"][tid]["difficulty"] == "hard")
    for tid, count in partition.n_correct.items():  # always "failure": right on the negatives only
        assert count == (runs["labels"][tid]["label"] == "negative")
        assert (tid in hard) == (count == 0)
