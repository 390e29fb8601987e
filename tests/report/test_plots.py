"""Figures are written as PNG and SVG at the stated size, and what they draw
is the score: bar heights and interval ends are read back from the Figures."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from agenthorizon.schema import CONFIDENCE_VALUES, MISTAKE_TYPES, STEP_BUCKETS


@pytest.fixture(scope="module")
def run_dirs(tiny_root: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    import agenthorizon
    from agenthorizon.judging.runs.runner import run_judge

    base = tmp_path_factory.mktemp("plot-runs")
    dataset = agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths")
    dirs = [base / "lexical", base / "constant"]
    run_judge("lexical", dataset, dirs[0], config="all", data_root=tiny_root, progress=False)
    run_judge("constant:true", dataset, dirs[1], config="all", data_root=tiny_root, progress=False)
    return dirs


@pytest.fixture(scope="module")
def scored(run_dirs: list[Path], tiny_root: Path):
    from agenthorizon.report.plots import figure_scores
    from agenthorizon.report.runs import load_runs

    run_set = load_runs(run_dirs, tiny_root, images=None)
    return run_set, figure_scores(run_set, bootstrap=200, seed=3)


def _bar_heights(ax) -> list[list[float]]:
    """Heights of each bar container (one per run) of an axes."""
    return [[patch.get_height() for patch in container] for container in ax.containers if hasattr(container, "patches")]


def _nan_to_none(values):
    return [None if value != value else value for value in values]  # NaN marks a missing bar


@pytest.mark.slow
def test_cli_writes_png_and_svg_of_every_figure_at_the_stated_size(run_dirs, tiny_root: Path, tmp_path: Path, capsys):
    from PIL import Image

    from agenthorizon.cli import main
    from agenthorizon.report.plots import DPI, FIGURE_WIDTH, FIGURES

    out = tmp_path / "figures"
    assert main(["plot", *map(str, run_dirs), "--data", str(tiny_root), "--out", str(out), "--bootstrap", "100"]) == 0
    assert "judge_comparison" in capsys.readouterr().out
    for stem in FIGURES:
        with Image.open(out / f"{stem}.png") as png:
            png.load()
            assert png.width == round(FIGURE_WIDTH * DPI)
            assert 300 < png.height < 3 * DPI
        svg = (out / f"{stem}.svg").read_text(encoding="utf-8")
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    # Text stays text in the SVG (editable), and run labels are on the comparison figure.
    assert "lexical" in (out / "judge_comparison.svg").read_text(encoding="utf-8")
    assert main(["plot", str(run_dirs[0]), "--data", str(tiny_root), "--out", str(out / "png"), "--format", "png"]) == 0
    assert sorted(p.suffix for p in (out / "png").iterdir()) == [".png"] * len(FIGURES)


def test_length_and_type_recall_bars_are_the_score(scored):
    from agenthorizon.report.plots import plot_accuracy_by_length, plot_mistake_type_recall

    run_set, runs = scored
    fig = plot_accuracy_by_length(runs)
    left, right = fig.axes[:2]
    buckets = [name for _low, _high, name in STEP_BUCKETS]
    for ax, key in ((left, "positive_accuracy"), (right, "negative_accuracy")):
        for run, heights in zip(runs, _bar_heights(ax)):
            slices = run.report.slices["step_bucket"]
            expected = [getattr(slices[b], key) if b in slices else None for b in buckets]
            assert _nan_to_none(heights) == pytest.approx(expected), key
    assert left.get_title() == "" and right.get_title() == ""  # captions belong to the paper

    fig = plot_mistake_type_recall(runs)
    for run, heights in zip(runs, _bar_heights(fig.axes[0])):
        assert _nan_to_none(heights) == pytest.approx([run.report.mistake_type_recall[t]["recall"] for t in MISTAKE_TYPES])
    # constant:true rejects nothing, so it names no type.
    assert _bar_heights(fig.axes[0])[1] == [0.0, 0.0, 0.0]


def test_confidence_bars_are_accuracy_among_items_with_that_confidence(scored):
    import json

    from agenthorizon.report.plots import NO_CONFIDENCE, plot_accuracy_by_confidence

    run_set, runs = scored
    lexical = run_set.runs[0]
    tally: dict[str, list[int]] = {}
    for row in run_set.rows:
        result = json.loads((lexical.path / f"{row['trajectory_id']}.json").read_text())
        verdict = result["verdict"]
        level = verdict.get("confidence") if verdict.get("confidence") in CONFIDENCE_VALUES else NO_CONFIDENCE
        correct = verdict["success"] == (row["label"] == "positive")
        tally.setdefault(level, [0, 0])
        tally[level][0] += correct
        tally[level][1] += 1
    # A bucket empty in every run (here "none": lexical states a level on every item) is left out.
    shown = [level for level in (*CONFIDENCE_VALUES, NO_CONFIDENCE)
             if any(run.confidence.get(level, (0, 0))[1] for run in runs)]
    expected = [tally[level][0] / tally[level][1] if level in tally else None for level in shown]
    fig = plot_accuracy_by_confidence(runs)
    assert _nan_to_none(_bar_heights(fig.axes[0])[0]) == pytest.approx(expected)
    assert [tick.get_text() for tick in fig.axes[0].get_xticklabels()] == shown
    labels = [text.get_text() for text in fig.axes[0].texts]
    assert f"n={tally[shown[0]][1]}" in labels  # the item count of each bar is on it


def test_comparison_bars_and_error_bars_are_balanced_accuracy_and_its_interval(scored):
    from agenthorizon.report.plots import plot_judge_comparison

    _run_set, runs = scored
    fig = plot_judge_comparison(runs)
    ax = fig.axes[0]
    (bars,) = [c for c in ax.containers if hasattr(c, "patches")]
    widths = [patch.get_width() for patch in bars.patches]
    assert widths == pytest.approx([run.report.balanced_accuracy for run in runs])
    assert runs[1].report.balanced_accuracy == pytest.approx(0.5)  # accept-everything is chance
    segments = bars.errorbar.lines[2][0].get_segments()
    for run, segment in zip(runs, segments):
        low, high = sorted(point[0] for point in segment)
        assert (low, high) == pytest.approx(run.report.intervals["balanced_accuracy"])
    assert [label.get_text() for label in ax.get_yticklabels()] == [run.label for run in runs]


def test_missing_matplotlib_names_the_extra(monkeypatch):
    from agenthorizon.report import plots

    from agenthorizon.util.extras import install_advice

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    # The advice works for this installation: from this checkout, `pip install -e '<checkout>[plot]'`.
    advice = install_advice("plot")
    assert advice.endswith("[plot]'") and ("agenthorizon[plot]" in advice or "-e '" in advice)
    with pytest.raises(ImportError, match=re.escape(advice)):
        plots.plot_judge_comparison([])


def test_bare_verdict_files_keep_their_confidence(run_dirs, tiny_root: Path, tmp_path: Path):
    # A results directory may hold bare verdicts ({"success", "confidence", ...})
    # instead of runner result records; their stated confidence still counts.
    import json

    from agenthorizon.report.plots import NO_CONFIDENCE, figure_scores
    from agenthorizon.report.runs import load_runs

    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "run.json").write_text((run_dirs[0] / "run.json").read_text())
    for path in run_dirs[0].glob("*-*-*-*-*.json"):
        (bare / path.name).write_text(json.dumps(json.loads(path.read_text())["verdict"]))
    wrapped, unwrapped = (
        figure_scores(load_runs([directory], tiny_root, images=None), bootstrap=0)[0] for directory in (run_dirs[0], bare)
    )
    assert unwrapped.confidence == wrapped.confidence
    assert unwrapped.confidence[NO_CONFIDENCE] == (0, 0)


def test_a_run_and_a_mistake_type_look_the_same_in_figures_html_tables_and_info(scored, tiny_root: Path):
    # report/style.py defines the colours and short names once; every view uses them
    from matplotlib.colors import to_hex

    from agenthorizon.cli.info import format_table, release_info
    from agenthorizon.report.html import build_report
    from agenthorizon.report.plots import plot_judge_comparison, plot_mistake_type_recall
    from agenthorizon.report.style import SHORT_MISTAKE_TYPES, mistake_type_key, run_color
    from agenthorizon.report.tables import LeaderboardRow, render_leaderboard

    run_set, runs = scored
    (bars,) = [c for c in plot_judge_comparison(runs).axes[0].containers if hasattr(c, "patches")]
    colours = [run_color(index) for index in range(len(runs))]
    assert [to_hex(patch.get_facecolor()).upper() for patch in bars.patches] == [c.upper() for c in colours]
    html = build_report(run_set)
    assert all(f"background:{colour}" in html for colour in colours)

    ticks = [label.get_text().split("\n")[0] for label in plot_mistake_type_recall(runs).axes[0].get_xticklabels()]
    assert ticks == [SHORT_MISTAKE_TYPES[name] for name in MISTAKE_TYPES]
    table = render_leaderboard([LeaderboardRow("lexical", {"all": runs[0].report}, runs[0].report)], ["all"])
    assert all(f"recall {SHORT_MISTAKE_TYPES[name]}" in table for name in MISTAKE_TYPES)
    header = format_table(release_info(str(tiny_root))).splitlines()[0].split()
    assert header[4:7] == ["critical", "side_effect", "misunderstanding"] == [mistake_type_key(n) for n in MISTAKE_TYPES]


def test_accuracy_coverage_points_are_selective_accuracy_of_the_result_files(scored):
    import json

    import numpy as np

    from agenthorizon.report.plots import plot_accuracy_coverage

    run_set, runs = scored
    lexical = run_set.runs[0]
    rank, right = [], []
    for row in run_set.rows:
        result = json.loads((lexical.path / f"{row['trajectory_id']}.json").read_text())
        verdict = result["verdict"] if result["parse_status"] == "ok" else {}
        level = verdict.get("confidence")
        rank.append(CONFIDENCE_VALUES.index(level) if level in CONFIDENCE_VALUES else -1)
        right.append(bool(verdict) and verdict["success"] == (row["label"] == "positive"))
    rank, right = np.array(rank), np.array(right)
    expected = [(1.0, right.mean())]
    for r in range(3):  # a threshold that keeps the same items as the one before is the same point
        if (rank >= r).any() and (rank >= r).mean() != expected[-1][0]:
            expected.append(((rank >= r).mean(), right[rank >= r].mean()))
    fig = plot_accuracy_coverage(runs)
    line = fig.axes[0].lines[0]
    assert list(line.get_xdata()) == pytest.approx([x for x, _ in expected])
    assert list(line.get_ydata()) == pytest.approx([y for _, y in expected])
    assert fig.axes[0].get_xlabel() == "Coverage (share of items kept)"


def test_a_zero_bar_is_marked_and_every_figure_names_its_items(tiny_root, tmp_path):
    import agenthorizon
    from agenthorizon.report.plots import make_plots

    dataset = agenthorizon.load_dataset(tiny_root, "AH", split="test", images=None)
    agenthorizon.run_judge("constant:true", dataset, tmp_path / "run", config="AH", data_root=tiny_root, progress=False)
    from agenthorizon.report.plots import plot_mistake_type_recall
    from agenthorizon.report.runs import load_runs
    from agenthorizon.report.plots import figure_scores

    runs = figure_scores(load_runs([tmp_path / "run"], tiny_root, images=None), bootstrap=0)
    fig = plot_mistake_type_recall(runs)
    assert [text.get_text() for text in fig.axes[0].texts].count("0%") == 3  # accepts all: names no type, 0 % each
    written = make_plots([tmp_path / "run"], tiny_root, tmp_path / "fig", formats=("svg",), bootstrap=0)
    for (svg,) in written.values():
        assert f"AH, {len(dataset)} items" in svg.read_text()
