"""Paper figures of judge runs: :func:`make_plots` scores runs and writes :data:`FIGURES`.

Each ``plot_*`` function returns a ``matplotlib.figure.Figure`` built without
``pyplot`` (no global state; PNGs rendered by Agg); :func:`save_figure` writes
PNG and/or SVG. matplotlib is an optional extra imported inside the functions:
without it they raise :class:`agenthorizon.util.extras.MissingExtraError`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from agenthorizon.report.length_curves import plot_length_curve
from agenthorizon.report.references import LABEL_ROW_FIELDS
from agenthorizon.report.style import SHORT_MISTAKE_TYPES, run_color
from agenthorizon.schema import CONFIDENCE_VALUES, MISTAKE_TYPES, STEP_BUCKETS

if TYPE_CHECKING:
    from agenthorizon.report.runs import RunSet
    from agenthorizon.scoring.metrics import ScoreReport

__all__ = [
    "FIGURES",
    "RunScores",
    "make_plots",
    "pareto_front",
    "plot_frontier",
    "plot_accuracy_by_confidence",
    "plot_accuracy_coverage",
    "plot_accuracy_by_length",
    "plot_judge_comparison",
    "plot_mistake_type_recall",
    "save_figure",
    "figure_scores",
]

NO_CONFIDENCE = "none"
"""Confidence bucket of items whose verdict states none (or is invalid)."""

CONFIDENCE_BUCKETS = (*CONFIDENCE_VALUES, NO_CONFIDENCE)

FIGURE_FIELDS = (*LABEL_ROW_FIELDS, "num_steps")
"""The row fields the figures read: the label rows and the step count (the ``step_bucket`` slice)."""

FIGURE_WIDTH = 6.5  # inches: a paper's text width
DPI = 200

_STYLE = {
    "font.size": 9,
    "axes.labelsize": 9,
    "xtick.labelsize": 8.5,
    "ytick.labelsize": 8.5,
    "legend.fontsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "svg.fonttype": "none",  # keep text as text in SVG, editable in a paper's figure tools
    "savefig.dpi": DPI,
}


def _matplotlib() -> Any:
    from agenthorizon.util.extras import require_extra

    matplotlib = require_extra("matplotlib", "plot", "plots")
    require_extra("matplotlib.figure", "plot", "plots")  # checks the full install
    return matplotlib


@dataclass
class RunScores:
    """What the figures need from one run.

    ``report`` has the ``step_bucket`` slice; ``confidence[level] = (correct, n)``
    counts items by the confidence their verdict states (:data:`NO_CONFIDENCE`
    when none or invalid).
    """

    label: str
    report: ScoreReport
    confidence: dict[str, tuple[int, int]] = field(default_factory=dict)
    calibration: Any = None
    """The run's :class:`~agenthorizon.scoring.calibration.Calibration` (selective accuracy by level)."""
    length_curve: Any = None
    """The run's :class:`~agenthorizon.scoring.length_curve.LengthCurve` (``None`` without step counts)."""


def figure_scores(run_set: RunSet, *, bootstrap: int = 1000, seed: int = 0) -> list[RunScores]:
    """One :class:`RunScores` per run of an already loaded :class:`agenthorizon.report.runs.RunSet` (runs not grouped by judge key)."""
    from agenthorizon.scoring.metrics import item_outcomes, score
    from agenthorizon.scoring.calibration import calibration
    from agenthorizon.scoring.predictions import prediction_verdict

    from agenthorizon.report.length_curves import run_length_curve
    from agenthorizon.report.notes import telemetry_from_results

    scored = []
    for run in run_set.runs:
        predictions = run.predictions()
        report = score(predictions, run_set.rows, bootstrap=bootstrap, seed=seed, slices=["step_bucket"],
                       telemetry=telemetry_from_results(run.results))
        outcomes = item_outcomes(predictions, run_set.rows)
        counts = {level: [0, 0] for level in CONFIDENCE_BUCKETS}
        for index, row in enumerate(run_set.rows):
            level = NO_CONFIDENCE
            if outcomes.valid[index]:
                verdict = prediction_verdict(predictions.get(row["trajectory_id"])) or {}
                stated = verdict.get("confidence")
                level = stated if stated in CONFIDENCE_VALUES else NO_CONFIDENCE
            counts[level][0] += int(outcomes.correct[index])
            counts[level][1] += 1
        scored.append(RunScores(run.label, report, {level: (c, n) for level, (c, n) in counts.items()},
                                calibration(predictions, run_set.rows, bootstrap=bootstrap, seed=seed),
                                run_length_curve(predictions, run_set.rows, bootstrap=bootstrap, seed=seed)))
    return scored


# --- figures ------------------------------------------------------------------------


def _figure(height: float) -> Any:
    _matplotlib()
    from matplotlib.figure import Figure

    return Figure(figsize=(FIGURE_WIDTH, height), dpi=DPI, layout="constrained")


def _grouped_bars(ax: Any, groups: Sequence[str], series: Sequence[tuple[str, Sequence[float | None]]], *, hatch: str | None = None) -> None:
    """Bars of several series per group; a missing value (None) draws no bar."""
    count = max(1, len(series))
    width = 0.8 / count
    for index, (label, values) in enumerate(series):
        offsets = [g + (index - (count - 1) / 2) * width for g in range(len(groups))]
        heights = [float("nan") if v is None else v for v in values]
        ax.bar(
            offsets, heights, width=width * 0.92, label=label, color=run_color(index),
            hatch=hatch, edgecolor="white" if hatch is None else "#333333", linewidth=0.4,
        )
        # A 0 % bar has no height: mark it, so that 0 and "not run" (no bar, no mark) read differently.
        zeros = [x for x, v in zip(offsets, values) if v == 0]
        if zeros:
            ax.plot(zeros, [0.0] * len(zeros), linestyle="none", marker="_", markersize=max(4.0, 40 * width),
                    markeredgewidth=2.5, color=run_color(index), clip_on=False)
            for x in zeros:
                ax.annotate("0%", (x, 0.0), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=6)
    ax.set_xticks(range(len(groups)), groups)
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(_percent_formatter())


def _percent_formatter() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(xmax=1, decimals=0)


def _legend(fig: Any, axes: Any, runs: Sequence[RunScores]) -> None:
    if len(runs) > 1:
        handles, labels = axes.get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=min(len(runs), 4), frameon=False)


def plot_accuracy_by_length(runs: Sequence[RunScores]) -> Any:
    """Positive (left) and negative (right) accuracy per step-count bucket (``report.slices["step_bucket"]``).

    A bucket without positives (or negatives) has no bar; tick labels give its item count.
    """
    with _matplotlib().rc_context(_STYLE):
        fig = _figure(2.6)
        axes = fig.subplots(1, 2, sharey=True)
        buckets = [name for _low, _high, name in STEP_BUCKETS]
        for ax, (key, count_key, name) in zip(
            axes, (("positive_accuracy", "n_positive", "Positives"), ("negative_accuracy", "n_negative", "Negatives"))
        ):
            series = []
            for run in runs:
                slices = run.report.slices.get("step_bucket", {})
                series.append((run.label, [getattr(slices[b], key) if b in slices else None for b in buckets]))
            _grouped_bars(ax, buckets, series)
            first = runs[0].report.slices.get("step_bucket", {}) if runs else {}
            ax.set_xticks(
                range(len(buckets)),
                [f"{b}\n(n={getattr(first[b], count_key) if b in first else 0})" for b in buckets],
            )
            ax.set_xlabel(f"{name}: trajectory length (steps)")
        axes[0].set_ylabel("Accuracy")
        _legend(fig, axes[0], runs)
    return fig


def plot_accuracy_by_confidence(runs: Sequence[RunScores]) -> Any:
    """Accuracy (correct / items) per stated-confidence bucket, per run.

    Invalid predictions fall in ``none`` and count as incorrect. A bucket empty
    for a run has no bar; one empty for every run is left out.
    """
    with _matplotlib().rc_context(_STYLE):
        fig = _figure(2.6)
        ax = fig.subplots()
        # A bucket no run has an item in (often "none": every verdict states a level) is not drawn.
        buckets = [level for level in CONFIDENCE_BUCKETS if any(run.confidence.get(level, (0, 0))[1] for run in runs)]
        series = []
        for run in runs:
            values = []
            for level in buckets:
                correct, n = run.confidence.get(level, (0, 0))
                values.append(correct / n if n else None)
            series.append((run.label, values))
        _grouped_bars(ax, buckets, series)
        if len(runs) == 1:  # one run: its item count per bucket under the bucket
            counts = runs[0].confidence
            ax.set_xticks(range(len(buckets)), [f"{level}\n(n={counts.get(level, (0, 0))[1]})" for level in buckets])
        ax.set_xlabel("Confidence stated by the judge" + ("" if len(runs) == 1 else " (n per run in the bar labels)"))
        if len(runs) > 1:
            for container, run in zip([c for c in ax.containers if hasattr(c, "patches")], runs):
                labels = [f"n={run.confidence.get(level, (0, 0))[1]}" for level in buckets]
                ax.bar_label(container, labels=labels, fontsize=6, padding=1)
        ax.set_ylabel("Accuracy")
        _legend(fig, ax, runs)
    return fig


def plot_accuracy_coverage(runs: Sequence[RunScores]) -> Any:
    """Selective accuracy against coverage: the judge abstains below each stated confidence in turn.

    One line per run, from ``any`` (coverage 1) to ``high``; error bars are the
    pair-clustered intervals. A run that states no confidence draws no line.
    """
    with _matplotlib().rc_context(_STYLE):
        fig = _figure(2.6)
        ax = fig.subplots()
        for run in runs:
            points, names = [], []
            for p in (run.calibration.selective if run.calibration else ()):
                if p.accuracy is None:
                    continue
                if points and points[-1].kept == p.kept:  # the same items kept ("any" and "low" when every verdict states one)
                    names[-1] += f"/{p.threshold}"
                    continue
                points.append(p)
                names.append(p.threshold)
            if not points:
                continue
            x = [p.coverage for p in points]
            y = [p.accuracy for p in points]
            low = [p.accuracy - p.interval[0] if p.interval else 0 for p in points]
            high = [p.interval[1] - p.accuracy if p.interval else 0 for p in points]
            ax.errorbar(x, y, yerr=[low, high], marker="o", capsize=2, label=run.label)
            for p, name in zip(points, names):
                ax.annotate(name, (p.coverage, p.accuracy), textcoords="offset points", xytext=(3, 4), fontsize=7)
        ax.set_xlim(0, 1.05)
        ax.xaxis.set_major_formatter(_percent_formatter())
        ax.yaxis.set_major_formatter(_percent_formatter())
        ax.set_xlabel("Coverage (share of items kept)")
        ax.set_ylabel("Accuracy of the items kept")
        _legend(fig, ax, runs)
    return fig


def plot_mistake_type_recall(runs: Sequence[RunScores]) -> Any:
    """Mistake-type recall per type (rejected and named correctly / negatives of the type), per run."""
    with _matplotlib().rc_context(_STYLE):
        fig = _figure(2.6)
        ax = fig.subplots()
        series = [
            (run.label, [run.report.mistake_type_recall[name]["recall"] for name in MISTAKE_TYPES]) for run in runs
        ]
        totals = runs[0].report.mistake_type_recall if runs else {}
        _grouped_bars(ax, [SHORT_MISTAKE_TYPES[name] for name in MISTAKE_TYPES], series)
        ax.set_xticks(
            range(len(MISTAKE_TYPES)),
            [f"{SHORT_MISTAKE_TYPES[name]}\n(n={totals[name]['total'] if totals else 0})" for name in MISTAKE_TYPES],
        )
        ax.set_ylabel("Mistake-type recall")
        _legend(fig, ax, runs)
    return fig


def plot_judge_comparison(runs: Sequence[RunScores]) -> Any:
    """Balanced accuracy of each run (bar) with its bootstrap interval (error bar); 50% = chance."""
    with _matplotlib().rc_context(_STYLE):
        fig = _figure(0.9 + 0.45 * max(1, len(runs)))
        ax = fig.subplots()
        positions = list(range(len(runs)))[::-1]  # first run on top
        values = [run.report.balanced_accuracy or 0.0 for run in runs]
        low, high = [], []
        for run, value in zip(runs, values):
            interval = (run.report.intervals or {}).get("balanced_accuracy")
            low.append(value - interval[0] if interval else 0.0)
            high.append(interval[1] - value if interval else 0.0)
        ax.barh(
            positions, values, height=0.6, color=[run_color(i) for i in range(len(runs))],
            xerr=[low, high], error_kw={"ecolor": "#222222", "capsize": 3, "linewidth": 1},
        )
        for position, value in zip(positions, values):
            ax.text(0.01, position, f"{100 * value:.1f}%", va="center", ha="left", color="white", fontsize=8, fontweight="bold")
        ax.axvline(0.5, color="#555555", linestyle="--", linewidth=0.8)
        ax.set_yticks(positions, [run.label for run in runs])
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_formatter(_percent_formatter())
        ax.set_xlabel("Balanced accuracy (95% pair-clustered bootstrap CI; dashed: chance)")
        ax.grid(axis="x")
        ax.grid(axis="y", visible=False)
    return fig


def pareto_front(costs: Sequence[float], accuracies: Sequence[float]) -> list[bool]:
    """Which points are on the Pareto front: no other point costs no more and is no less accurate, with one strictly.

    >>> pareto_front([0.1, 0.2, 0.3, 0.2], [0.6, 0.8, 0.7, 0.8])
    [True, True, False, True]
    """
    points = list(zip(costs, accuracies))
    return [
        not any(c <= cost and a >= accuracy and (c < cost or a > accuracy) for c, a in points)
        for cost, accuracy in points
    ]


def frontier_points(runs: Sequence[RunScores]) -> tuple[list[tuple[str, float, float, str, int]], list[str]]:
    """``(label, mean cost per trajectory, balanced accuracy, known, run index)`` per run that can be placed, and the labels left out.

    A run is left out when no item reports its cost or its balanced accuracy
    is undefined; ``known`` is ``"k/n"`` when only k of its n items report a cost
    (the mean is then over those k), else ``""``.
    """
    placed, left_out = [], []
    for index, run in enumerate(runs):
        summary = (run.report.cost or {}).get("cost_usd")
        if summary is None or summary["mean"] is None or run.report.balanced_accuracy is None:
            left_out.append(run.label)
            continue
        known = f"{summary['n_known']}/{summary['n_items']}" if summary["n_unknown"] else ""
        placed.append((run.label, summary["mean"], run.report.balanced_accuracy, known, index))
    return placed, left_out


def plot_frontier(runs: Sequence[RunScores]) -> Any:
    """Balanced accuracy (y) against mean cost per trajectory in US dollars (x), one point per run.

    Runs on the Pareto front (:func:`pareto_front`) are filled and joined by a
    step line. A run with cost known for only k of n items is labelled ``k/n``;
    one with no known cost is named below the axes.
    """
    placed, left_out = frontier_points(runs)
    with _matplotlib().rc_context(_STYLE):
        fig = _figure(3.2)
        ax = fig.subplots()
        on_front = pareto_front([p[1] for p in placed], [p[2] for p in placed])
        # Labels of neighbours in cost go above and below their points in turn, so close runs stay legible.
        by_cost = {id(point): rank for rank, point in enumerate(sorted(placed, key=lambda point: point[1]))}
        for point, front in zip(placed, on_front):
            label, cost, accuracy, known, index = point
            color = run_color(index)  # the run's colour in every figure
            ax.scatter([cost], [accuracy], s=42, color=color if front else "white", edgecolors=color, linewidths=1.5,
                       zorder=3, label=label)
            ax.annotate(f"{label}" + (f" ({known} costs known)" if known else ""), (cost, accuracy),
                        textcoords="offset points", xytext=(5, 5 if by_cost[id(point)] % 2 == 0 else -12), fontsize=7.5)
        front = sorted((p[1], p[2]) for p, keep in zip(placed, on_front) if keep)
        if front:
            ax.step([c for c, _ in front], [a for _, a in front], where="post", color="#555555", linewidth=0.9, zorder=2)
        ax.axhline(0.5, color="#555555", linestyle="--", linewidth=0.8)
        # Headroom right and above, so the label of the costliest or best judge stays inside the axes.
        ax.set_ylim(0, 1.08)
        ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.yaxis.set_major_formatter(_percent_formatter())
        ax.set_xlim(0, 1.3 * max((p[1] for p in placed), default=0) or 1)
        ax.set_xlabel("Mean cost per trajectory (US$)" + (f"; no cost known: {', '.join(left_out)}" if left_out else ""))
        ax.set_ylabel("Balanced accuracy")
        ax.grid(axis="x")
    return fig


FIGURES = {
    "accuracy_by_length": plot_accuracy_by_length,
    "accuracy_by_length_curve": plot_length_curve,
    "accuracy_by_confidence": plot_accuracy_by_confidence,
    "accuracy_coverage": plot_accuracy_coverage,
    "mistake_type_recall": plot_mistake_type_recall,
    "judge_comparison": plot_judge_comparison,
}
"""File stem -> figure function, in the order :func:`make_plots` writes them by default."""

EXTRA_FIGURES = {"frontier": plot_frontier}
"""Figures drawn only when named (``make_plots(..., figures=["frontier"])``, ``agenthorizon plot frontier``)."""


def save_figure(fig: Any, out_dir: str | os.PathLike[str], stem: str, formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Write ``fig`` as ``out_dir/stem.<format>`` for each format (png, svg); returns the paths.

    PNGs are ``FIGURE_WIDTH x height`` inches at :data:`DPI` (no tight bbox); SVGs keep text as text.
    """
    unknown = [fmt for fmt in formats if fmt not in ("png", "svg")]
    if unknown:
        raise ValueError(f"unknown figure format(s) {unknown}; expected png and/or svg")
    directory = Path(out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    with _matplotlib().rc_context(_STYLE):
        for fmt in formats:
            path = directory / f"{stem}.{fmt}"
            fig.savefig(path, format=fmt, dpi=DPI, metadata={"Date": None} if fmt == "svg" else None)
            paths.append(path)
    return paths


def make_plots(
    run_dirs: Sequence[str | os.PathLike[str]],
    data_root: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    config: str | None = None,
    formats: Sequence[str] = ("png", "svg"),
    bootstrap: int = 1000,
    seed: int = 0,
    selection_options: dict[str, Any] | None = None,
    figures: Sequence[str] | None = None,
) -> dict[str, list[Path]]:
    """Score runs and write the figures named in ``figures`` (default: every one of :data:`FIGURES`); returns stem -> files.

    The items are the runs' recorded selection; ``config`` and
    ``selection_options`` must agree with it (see :func:`agenthorizon.report.runs.load_runs`).
    """
    from agenthorizon.report.runs import load_runs

    known = {**FIGURES, **EXTRA_FIGURES}
    chosen = list(FIGURES) if figures is None else list(figures)
    unknown = [name for name in chosen if name not in known]
    if unknown:
        raise ValueError(f"unknown figure(s) {', '.join(unknown)}; expected names from {', '.join(known)}")
    _matplotlib()  # fail before any work when the extra is missing
    run_set = load_runs(
        run_dirs, data_root, config=config, images=None, selection_options=selection_options, fields=FIGURE_FIELDS
    )
    runs = figure_scores(run_set, bootstrap=bootstrap, seed=seed)
    written = {}
    for stem in chosen:
        figure = known[stem](runs)
        # Which items a figure shows, on the figure itself: a PNG pasted alone must still say it.
        figure.suptitle(f"{run_set.config}, {len(run_set.rows)} items", fontsize=8, x=0.99, ha="right")
        written[stem] = save_figure(figure, out_dir, stem, formats)
    return written
