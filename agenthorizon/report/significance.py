"""The leaderboard's judges compared pair by pair: :func:`agenthorizon.scoring.significance.significance` on its runs."""

from __future__ import annotations

from typing import Any

from agenthorizon.report.leaderboard import Leaderboard
from agenthorizon.report.tables import Rate, Table
from agenthorizon.schema import CONFIG_AH
from agenthorizon.scoring.significance import Significance, significance

__all__ = ["leaderboard_significance", "significance_table"]


def leaderboard_significance(
    board: Leaderboard, config: str = CONFIG_AH, *, bootstrap: int = 2000, seed: int = 0, alpha: float = 0.05
) -> tuple[Significance, list[str]]:
    """Every pair of the leaderboard's judges run on ``config``, on that config's items.

    Returns the :class:`~agenthorizon.scoring.significance.Significance` (judges named by row label) and the
    labels left out (not run on ``config``, or partial and unranked). ``ValueError`` when fewer than two remain.
    """
    # A judge missing items is not compared, as it is not ranked.
    rows = [row for row in board if row.reports.get(config) is not None and row.rank is not None]
    left_out = [row.judge + (" (partial)" if row.reports.get(config) is not None else "")
                for row in board if row not in rows]
    if len(rows) < 2:
        raise ValueError(f"significance needs at least two judges run on {config}; got {len(rows)}")
    references = board.references[config]
    ids = {reference["trajectory_id"] for reference in references}
    predictions = {row.judge: {key: value for key, value in board.predictions[row.judge_key].items() if key in ids}
                   for row in rows}
    return significance(predictions, references, bootstrap=bootstrap, seed=seed, alpha=alpha), left_out


def significance_table(result: Significance, config: str = CONFIG_AH, left_out: list[str] | None = None) -> Table:
    """Each pair's difference, interval, McNemar counts, raw and Holm-adjusted p, and the letters as notes."""
    def p_text(value: float) -> str:
        return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"

    body: list[list[Any]] = []
    for pair in result.pairs:
        mdd = pair.minimum_detectable_difference
        body.append([
            f"{pair.a} vs {pair.b}", Rate(pair.difference, pair.interval), f"{pair.only_a_correct}/{pair.only_b_correct}",
            p_text(pair.p_value), p_text(pair.p_holm), "yes" if pair.significant else "no",
            "-" if mdd is None else f"{100 * mdd:.1f}",
        ])
    notes = [
        "Letters (judges sharing a letter do not differ significantly): "
        + ", ".join(f"{judge} {result.letters[judge]}" for judge in result.judges),
        "Tied with the best (not significantly worse after adjustment): " + ", ".join(result.tied_with_best),
        f"{result.n} items in {result.n_clusters} pair groups; exact McNemar test on per-item correctness, Holm "
        f"adjustment over {len(result.pairs)} pairs at alpha {result.alpha:g}; the minimum detectable difference "
        "(MDD, points of per-item accuracy) is what this pair's item count and discordance detect with 80% power; "
        "the test is of per-item accuracy and the interval of balanced accuracy, so they can disagree when one "
        "judge's errors fall on one class",
    ]
    if result.n_bootstrap:
        notes.append(f"Difference intervals: {100 * result.level:.0f}% pair-clustered paired percentile bootstrap, "
                     f"{result.n_bootstrap} resamples, seed {result.seed}")
    if left_out:
        notes.append(f"Not run on {config} (left out): {', '.join(left_out)}")
    return Table(
        title=f"Significance on {config}: every pair of judges",
        header=["pair", "bal. diff", "only A/only B", "p", "p (Holm)", "significant", "MDD"],
        rows=body, notes=notes,
    )
