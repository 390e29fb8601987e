"""Accuracy against trajectory length for runs: the curve per run (:func:`run_length_curve`), its figure and its report card."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from agenthorizon.report.sections import escape
from agenthorizon.report.style import run_color
from agenthorizon.scoring.length_curve import LengthCurve, length_curve
from agenthorizon.scoring.outcomes import item_outcomes

__all__ = ["length_curve_card", "plot_length_curve", "run_length_curve"]


def run_length_curve(
    predictions: Any, rows: Sequence[Mapping[str, Any]], *, bootstrap: int, seed: int
) -> LengthCurve | None:
    """The length curve of one run's predictions on ``rows``; ``None`` when a row has no ``num_steps``."""
    steps = [row.get("num_steps") for row in rows]
    if not rows or any(value is None for value in steps):
        return None
    outcomes = item_outcomes(predictions, rows)
    return length_curve(steps, outcomes.correct, outcomes.clusters, n_resamples=bootstrap, seed=seed)


def plot_length_curve(runs: Sequence[Any]) -> Any:
    """Accuracy against trajectory length: each run's logistic fit, its pair-clustered band and binned points.

    ``runs`` are :class:`~agenthorizon.report.plots.RunScores`; a run without
    a ``length_curve`` draws nothing. Points are the accuracy of each
    equal-count length bin, at the middle of its range.
    """
    from agenthorizon.report.plots import _STYLE, _figure, _legend, _matplotlib, _percent_formatter

    with _matplotlib().rc_context(_STYLE):
        fig = _figure(2.8)
        ax = fig.subplots()
        for index, run in enumerate(runs):
            curve = getattr(run, "length_curve", None)
            if curve is None:
                continue
            color = run_color(index)
            ax.plot(curve.grid, curve.fitted, color=color, label=run.label)
            if curve.band is not None:
                ax.fill_between(curve.grid, [b[0] for b in curve.band], [b[1] for b in curve.band], color=color,
                                alpha=0.18, linewidth=0)
            middles = [(b.low + b.high) / 2 for b in curve.bins]
            ax.plot(middles, [b.accuracy for b in curve.bins], linestyle="none", marker="o", markersize=3.5, color=color)
            if len(runs) == 1:
                for x, b in zip(middles, curve.bins):
                    ax.annotate(f"n={b.n}", (x, b.accuracy), textcoords="offset points", xytext=(3, 4), fontsize=6.5)
        ax.set_ylim(0, 1)
        ax.yaxis.set_major_formatter(_percent_formatter())
        ax.set_xlabel("Trajectory length (steps); points: accuracy of equal-count length bins")
        ax.set_ylabel("Accuracy (logistic fit)")
        _legend(fig, ax, runs)
    return fig


def length_curve_card(curve: Mapping[str, Any] | None) -> str:
    """The report's card: slope per 100 steps with its interval, the fit at a few lengths, and the bins."""
    if not curve:
        return ""

    def pct(value: float | None) -> str:
        return "—" if value is None else f"{100 * value:.1f}%"

    points = curve["curve"]
    shown = [points[i] for i in sorted({0, len(points) // 4, len(points) // 2, 3 * len(points) // 4, len(points) - 1})]
    fitted = "".join(
        f"<tr><td>{point['steps']:.0f}</td><td class='num'>{pct(point['accuracy'])}</td><td class='small'>"
        + ("" if point["interval"] is None else f"[{pct(point['interval'][0])}, {pct(point['interval'][1])}]")
        + "</td></tr>"
        for point in shown
    )
    bins = "".join(
        f"<tr><td>{b['low']}–{b['high']}</td><td class='num'>{b['n']}</td><td class='num'>{pct(b['accuracy'])}</td></tr>"
        for b in curve["bins"]
    )
    slope = f"{100 * curve['slope']:+.3f}"
    if curve["slope_interval"]:
        slope += f" [{100 * curve['slope_interval'][0]:+.3f}, {100 * curve['slope_interval'][1]:+.3f}]"
    return (
        '<div class="card" data-section="length-curve"><h3>Accuracy against trajectory length</h3>'
        f"<p class='small'>Logistic fit of per-item correctness on the step count: log-odds change per 100 steps "
        f"{escape(slope)}{' (pair-clustered interval)' if curve['slope_interval'] else ''}.</p>"
        '<div class="grid two"><table><thead><tr><th>steps</th><th class="num">fitted</th><th></th></tr></thead>'
        f"<tbody>{fitted}</tbody></table>"
        '<table><thead><tr><th>length bin</th><th class="num">items</th><th class="num">accuracy</th></tr></thead>'
        f"<tbody>{bins}</tbody></table></div></div>"
    )
