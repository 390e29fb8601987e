"""Score tables: a ScoreReport, a Comparison or a leaderboard as ``table``, ``json``, ``markdown``, ``csv`` or ``latex``.

Text formats print rates as percentages with one decimal; JSON and CSV keep
full-precision fractions in [0, 1] (CSV with separate interval columns).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from agenthorizon.report.style import SHORT_MISTAKE_TYPES, amount_text
from agenthorizon.schema import MISTAKE_TYPES

if TYPE_CHECKING:  # annotations only: rendering a table needs no scoring code
    from agenthorizon.scoring.compare import Comparison
    from agenthorizon.scoring.metrics import ScoreReport

FORMATS = ("table", "json", "markdown", "csv", "latex")
"""Every output format of :func:`render_report`."""



@dataclass(frozen=True)
class Rate:
    """A rate in [0, 1] (``None`` when undefined) with an optional interval."""

    value: float | None
    interval: tuple[float, float] | None = None


@dataclass
class Table:
    """What every format renders: a title, notes (provenance), a header and rows."""

    title: str
    header: list[str]
    rows: list[list[Any]]
    notes: list[str] = field(default_factory=list)
    text_columns: int = 1
    """How many leading columns hold text (left-aligned); the others hold numbers (right-aligned)."""


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _text_cell(cell: Any) -> str:
    if isinstance(cell, Rate):
        text = _percent(cell.value)
        if cell.interval is not None:
            text += f" [{_percent(cell.interval[0])}, {_percent(cell.interval[1])}]"
        return text
    return "" if cell is None else str(cell)


def _render_text(table: Table) -> str:
    cells = [table.header] + [[_text_cell(c) for c in row] for row in table.rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(table.header))]

    def line(row: list[str]) -> str:
        # Text left-aligned, numbers right-aligned, as a reader scans them.
        return "  ".join(
            cell.rjust(width) if i >= table.text_columns else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths))
        ).rstrip()

    out = [table.title, *table.notes, "", line(cells[0]), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in cells[1:]]
    return "\n".join(out) + "\n"


def _markdown_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _render_markdown(table: Table) -> str:
    out = [f"### {table.title}", ""]
    out += [f"{note}  " for note in table.notes]
    if table.notes:
        out.append("")
    out.append("| " + " | ".join(_markdown_escape(h) for h in table.header) + " |")
    text = min(table.text_columns, len(table.header))
    out.append("|" + "|".join(["---"] * text + ["---:"] * (len(table.header) - text)) + "|")
    for row in table.rows:
        out.append("| " + " | ".join(_markdown_escape(_text_cell(c)) for c in row) + " |")
    return "\n".join(out) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    r"""Escape LaTeX's special characters.

    >>> latex_escape("GPT-5.5 & co_1 (50%)")
    'GPT-5.5 \\& co\\_1 (50\\%)'
    """
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def _render_latex(table: Table) -> str:
    out = [f"% {latex_escape(table.title)}"] + [f"% {note}" for note in table.notes]
    text = min(table.text_columns, len(table.header))
    out.append(r"\begin{tabular}{" + "l" * text + "r" * (len(table.header) - text) + "}")
    out.append(r"\toprule")
    out.append(" & ".join(latex_escape(h) for h in table.header) + r" \\")
    out.append(r"\midrule")
    for row in table.rows:
        out.append(" & ".join(latex_escape(_text_cell(c).replace("–", "--")) for c in row) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"


def _render_csv(table: Table, extra: Mapping[str, Any]) -> str:
    # Low/high columns when any cell of the column has an interval, so every row has the same columns.
    with_interval = {
        i
        for i in range(len(table.header))
        if any(isinstance(row[i], Rate) and row[i].interval is not None for row in table.rows)
    }
    header: list[str] = []
    for i, name in enumerate(table.header):
        header.append(name)
        if i in with_interval:
            header += [f"{name} low", f"{name} high"]
    header += list(extra)
    buffer = io.StringIO()
    import csv  # here: only --format csv writes one

    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in table.rows:
        values: list[Any] = []
        for i, cell in enumerate(row):
            if isinstance(cell, Rate):
                values.append(_fraction(cell.value))
                if i in with_interval:
                    low, high = cell.interval if cell.interval is not None else (None, None)
                    values += [_fraction(low), _fraction(high)]
            else:
                values.append("" if cell is None else cell)
        writer.writerow(values + list(extra.values()))
    return buffer.getvalue()


def _fraction(value: float | None) -> str:
    return "" if value is None else repr(round(value, 10))


def render_table(table: Table, fmt: str, *, json_payload: Any = None, csv_extra: Mapping[str, Any] | None = None) -> str:
    """Render ``table`` in format ``fmt`` (one of :data:`FORMATS`).

    ``json`` prints ``json_payload`` (the full numbers, not the rounded
    table); ``csv_extra`` adds constant columns (provenance) to every CSV row.
    """
    if fmt == "table":
        return _render_text(table)
    if fmt == "markdown":
        return _render_markdown(table)
    if fmt == "latex":
        return _render_latex(table)
    if fmt == "csv":
        return _render_csv(table, csv_extra or {})
    if fmt == "json":
        return json.dumps(json_payload, indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


# --- what the tables hold ---------------------------------------------------------------


def _interval(report: ScoreReport, name: str) -> tuple[float, float] | None:
    return None if report.intervals is None else report.intervals.get(name)


def _rate(report: ScoreReport, name: str) -> Rate:
    return Rate(getattr(report, name), _interval(report, name))


def manifest_note(manifest: Mapping[str, Any] | None) -> list[str]:
    """Provenance lines: the label manifest (config, item count, sha256)."""
    if not manifest:
        return []
    config = f"{manifest['config']}, " if manifest.get("config") else ""
    return [f"Label manifest: {config}{manifest['n_items']} items, sha256 {manifest['sha256']}"]


def report_table(report: ScoreReport, *, title: str = "AgentHorizon score", notes: Sequence[str] = ()) -> Table:
    """The main metrics of a :class:`~agenthorizon.scoring.metrics.ScoreReport` as a table."""
    from agenthorizon.scoring.metric_list import METRICS  # here: a ScoreReport's table, so scoring is loaded already

    rows: list[list[Any]] = [
        ["balanced accuracy", _rate(report, "balanced_accuracy"), report.n],
        ["positive accuracy", _rate(report, "positive_accuracy"), report.n_positive],
        ["negative accuracy", _rate(report, "negative_accuracy"), report.n_negative],
        ["accuracy", Rate(report.accuracy), report.n],
        ["invalid rate", Rate(report.invalid_rate), report.n],
    ]
    for name, value in report.mistake_type_recall.items():
        rows.append([f"recall: {name}", Rate(value["recall"]), value["total"]])
    rows.append(["recall: macro mean", Rate(report.mistake_type_recall_macro), ""])
    rows += paired_rows(report)
    rows += [[spec.label, _rate(report, spec.name), spec.denominator(report)] for spec in METRICS]
    notes = list(notes)
    reasons = ", ".join(f"{reason} {count}" for reason, count in report.invalid_by_reason.items() if count)
    notes.append(f"Invalid predictions: {report.n_invalid} of {report.n}" + (f" ({reasons})" if reasons else ""))
    notes.append(
        f"Untyped negatives: {report.n_untyped_negatives}; "
        f"predicted mistake types matching no known type: {report.n_unmatched_mistake_types}"
    )
    if report.bootstrap:
        boot = report.bootstrap
        notes.append(
            f"Intervals: {100 * boot['level']:.0f}% pair-clustered percentile bootstrap, "
            f"{boot['n_resamples']} resamples of {boot['n_clusters']} clusters, seed {boot['seed']}"
        )
    return Table(title=title, header=["metric", "value", "denominator"], rows=rows, notes=notes)


def paired_rows(report: ScoreReport) -> list[list[Any]]:
    """Rejection by type, instruction sensitivity and pair-group accuracy, with their denominators."""
    rows: list[list[Any]] = [
        [f"rejection: {name}", Rate(value["rate"], _interval(report, f"rejection_rate_by_type/{name}")), value["total"]]
        for name, value in report.rejection_rate_by_type.items()
    ]
    rows.append(["instruction sensitivity", _rate(report, "instruction_sensitivity"), report.n_instruction_pairs])
    rows.append(["pair-group accuracy", _rate(report, "pair_group_accuracy"), report.n_pair_groups])
    return rows


TELEMETRY_COLUMNS = ("mean", "median", "max", "total")
"""The statistics a telemetry table shows per quantity (per trajectory, then the run's total)."""


def telemetry_table(report: ScoreReport) -> Table | None:
    """Cost and runtime per trajectory and in total (paper Table 6); ``None`` without telemetry."""
    if report.cost is None or report.runtime is None:
        return None
    rows = []
    for group, quantities in (("cost", report.cost), ("runtime", report.runtime)):
        for name, summary in quantities.items():
            cells = [amount_text(summary[key]) for key in TELEMETRY_COLUMNS]
            if summary.get("mean_interval"):
                low, high = summary["mean_interval"]
                cells[0] += f" [{amount_text(low)}, {amount_text(high)}]"
            rows.append([group, name, *cells, f"{summary['n_known']}/{summary['n_items']}"])
    notes = ["Statistics over the items that report the value; total is unknown when any item does not (known/items)."]
    estimate = report.cost.get("estimated_cost_usd")
    if estimate:
        price = estimate["price"]
        notes.append(f"estimated_cost_usd: ESTIMATED from tokens at ${price['input_per_million']:g}/${price['output_per_million']:g} "
                     f"per million input/output tokens ({estimate['model']}), for the {estimate['n_items']} items that "
                     f"report no cost; the {estimate['n_reported']} with a reported cost are in cost_usd only, never added")
    return Table(title="Cost and runtime per trajectory", header=["group", "quantity", *TELEMETRY_COLUMNS, "known"],
                 rows=rows, notes=notes)


def slices_table(report: ScoreReport) -> Table:
    """Per-slice metrics of a report that was computed with ``slices``."""
    rows = []
    for name, values in report.slices.items():
        for value, sliced in values.items():
            rows.append(
                [
                    name,
                    value,
                    sliced.n,
                    _rate(sliced, "balanced_accuracy"),
                    _rate(sliced, "positive_accuracy"),
                    _rate(sliced, "negative_accuracy"),
                    Rate(sliced.invalid_rate),
                ]
            )
    header = ["slice", "value", "n", "balanced", "positive", "negative", "invalid"]
    return Table(title="By slice", header=header, rows=rows)


def render_report(
    report: ScoreReport,
    fmt: str = "table",
    *,
    title: str = "AgentHorizon score",
    manifest: Mapping[str, Any] | None = None,
    notes: Sequence[str] = (),
    extra: Mapping[str, Any] | None = None,
) -> str:
    """Render a :class:`~agenthorizon.scoring.metrics.ScoreReport` in ``fmt``.

    ``manifest`` is stated in every format; ``notes`` are extra provenance
    lines; ``extra`` is merged into the JSON payload.
    """
    table = report_table(report, title=title, notes=[*manifest_note(manifest), *notes])
    payload = {**report.to_dict(), "manifest": dict(manifest) if manifest else None, "notes": list(notes)}
    payload.update(extra or {})
    csv_extra = {}
    if manifest:
        csv_extra = {"manifest_n_items": manifest["n_items"], "manifest_sha256": manifest["sha256"]}
    text = render_table(table, fmt, json_payload=payload, csv_extra=csv_extra)
    usage = telemetry_table(report)
    if usage is not None and fmt != "json":
        text += "\n" + render_table(usage, fmt)
    if report.slices and fmt in ("table", "markdown", "latex"):
        text += "\n" + render_table(slices_table(report), fmt)
    elif report.slices and fmt == "csv":
        text += "\n" + render_table(slices_table(report), fmt, csv_extra=csv_extra)
    return text


def comparison_table(comparison: Comparison, *, names: tuple[str, str] = ("A", "B")) -> Table:
    """A :class:`~agenthorizon.scoring.compare.Comparison` as a table."""
    a, b = names
    c = comparison
    rows = [
        [f"balanced accuracy {a}", Rate(c.balanced_accuracy_a)],
        [f"balanced accuracy {b}", Rate(c.balanced_accuracy_b)],
        [f"difference {a} - {b}", Rate(c.difference, c.interval)],
        [f"only {a} correct", c.only_a_correct],
        [f"only {b} correct", c.only_b_correct],
        ["McNemar exact p-value", f"{c.p_value:.4g}"],
    ]
    notes = [f"{c.n} paired items in {c.n_clusters} clusters"]
    if c.n_bootstrap:
        notes.append(
            f"Interval: {100 * c.level:.0f}% pair-clustered paired bootstrap, {c.n_bootstrap} resamples, seed {c.seed}"
        )
    return Table(title=f"{a} vs {b}", header=["quantity", "value"], rows=rows, notes=notes)


def render_comparison(comparison: Comparison, fmt: str = "table", *, names: tuple[str, str] = ("A", "B")) -> str:
    """Render a :class:`~agenthorizon.scoring.compare.Comparison` in ``fmt``."""
    payload = {**comparison.to_dict(), "names": list(names)}
    return render_table(comparison_table(comparison, names=names), fmt, json_payload=payload)


@dataclass
class LeaderboardRow:
    """One judge's line of the leaderboard.

    ``reports``: config (``AH``, ``AH-S``) -> report, ``None`` where not run;
    ``recall``: the report over all its scored items, whose mistake-type recall
    is shown. ``partial``: the mark of a row with results for only some items
    (``"PARTIAL: 30 of 93 items judged"``; ``None``: complete). ``rank``: 1 the
    best; ``None``: not ranked (a partial row, unless asked for).
    """

    judge: str
    reports: dict[str, ScoreReport | None]
    recall: ScoreReport | None
    judge_key: str | None = None
    runs: list[str] = field(default_factory=list)
    partial: str | None = None
    rank: int | None = None

    def label(self) -> str:
        """The judge's label, with the partial mark when it has one."""
        return self.judge if self.partial is None else f"{self.judge} ({self.partial})"

    def rank_cell(self) -> str:
        """The rank as shown: its number, or "unranked" for a partial row left out of the ranks."""
        if self.rank is not None:
            return str(self.rank)
        return "unranked" if self.partial is not None else ""


COLUMN_SETS = ("accuracy", "paired", "cost")
"""Leaderboard column sets: ``accuracy`` (the paper's Table 2: per config balanced, positive and negative
accuracy, then type recall), ``paired`` (rejection by type, instruction sensitivity, pair-group accuracy)
and ``cost`` (mean per trajectory of cost, tokens, wall time, turns and tool calls, and the total cost)."""

# (column, group, quantity, statistic) of the cost column set.
_COST_COLUMNS = (
    ("$/traj", "cost", "cost_usd", "mean"), ("$ total", "cost", "cost_usd", "total"),
    ("in tok/traj", "cost", "input_tokens", "mean"), ("out tok/traj", "cost", "output_tokens", "mean"),
    ("s/traj", "runtime", "wall_time_s", "mean"), ("turns/traj", "runtime", "turns", "mean"),
    ("tools/traj", "runtime", "tool_calls", "mean"),
)


def _cost_cell(report: ScoreReport | None, group: str, quantity: str, statistic: str) -> str:
    usage = None if report is None else getattr(report, group)
    if usage is None:
        return "unknown"
    summary = usage[quantity]
    text = amount_text(summary[statistic])
    if summary["n_unknown"] and summary[statistic] is not None:
        text += f" ({summary['n_known']}/{summary['n_items']} known)"
    return text


def leaderboard_table(
    rows: Sequence[LeaderboardRow], configs: Sequence[str], *, notes: Sequence[str] = (),
    columns: Sequence[str] = ("accuracy",),
) -> Table:
    """The leaderboard with the column sets of :data:`COLUMN_SETS` named in ``columns``, in their order.

    ``paired`` and ``cost`` are over all of a judge's scored items (AH and AH-S where run).
    """
    unknown = [name for name in columns if name not in COLUMN_SETS]
    if unknown:
        raise ValueError(f"unknown leaderboard column set(s) {', '.join(unknown)}; expected names from {', '.join(COLUMN_SETS)}")
    header = ["rank", "judge"]
    if "accuracy" in columns:
        for config in configs:
            header += [f"{config} bal.", f"{config} pos", f"{config} neg"]
        header += [f"recall {SHORT_MISTAKE_TYPES[t]}" for t in MISTAKE_TYPES]
    if "paired" in columns:
        header += [f"reject {SHORT_MISTAKE_TYPES[t]}" for t in MISTAKE_TYPES] + ["instr. sens.", "group acc."]
    if "cost" in columns:
        header += [column[0] for column in _COST_COLUMNS]
    body = []
    for row in rows:
        cells: list[Any] = [row.rank_cell(), row.label()]
        if "accuracy" in columns:
            for config in configs:
                report = row.reports.get(config)
                if report is None:
                    cells += [Rate(None)] * 3
                else:
                    cells += [_rate(report, m) for m in ("balanced_accuracy", "positive_accuracy", "negative_accuracy")]
            for mistake_type in MISTAKE_TYPES:
                cells.append(Rate(row.recall.mistake_type_recall[mistake_type]["recall"] if row.recall else None))
        if "paired" in columns:
            lines = paired_rows(row.recall) if row.recall else [[None, Rate(None), None]] * (len(MISTAKE_TYPES) + 2)
            cells += [line[1] for line in lines]
        if "cost" in columns:
            cells += [_cost_cell(row.recall, *column[1:]) for column in _COST_COLUMNS]
        body.append(cells)
    return Table(title="AgentHorizon leaderboard", header=header, rows=body, notes=list(notes), text_columns=2)


def render_leaderboard(
    rows: Sequence[LeaderboardRow],
    configs: Sequence[str],
    fmt: str = "markdown",
    *,
    manifests: Sequence[Mapping[str, Any]] = (),
    notes: Sequence[str] = (),
    columns: Sequence[str] = ("accuracy",),
    extra: Mapping[str, Any] | None = None,
) -> str:
    """Render a leaderboard in ``fmt``; each manifest is stated in every format.

    ``columns`` are the column sets (:data:`COLUMN_SETS`) of the text formats; JSON holds every number plus ``extra``.
    """
    all_notes = [line for manifest in manifests for line in manifest_note(manifest)] + list(notes)
    table = leaderboard_table(rows, configs, notes=all_notes, columns=columns)
    payload = {
        "manifests": [dict(m) for m in manifests],
        "notes": list(notes),
        "judges": [
            {
                "judge": row.judge,
                "judge_key": row.judge_key,
                "runs": list(row.runs),
                "rank": row.rank,
                "partial": row.partial,
                "reports": {k: None if v is None else v.to_dict() for k, v in row.reports.items()},
                "mistake_type_recall": None if row.recall is None else row.recall.to_dict()["mistake_type_recall"],
                "all_scored_items": None if row.recall is None else row.recall.to_dict(),
            }
            for row in rows
        ],
        **(extra or {}),
    }
    csv_extra = {
        f"{m['config']} manifest": f"{m['n_items']} items sha256 {m['sha256']}" for m in manifests
    }
    return render_table(table, fmt, json_payload=payload, csv_extra=csv_extra)
