"""The HTML fragments of the report page: headline cards, tables and the item list's controls.

Every value that comes from data goes through :func:`escape`, so untrusted
text never becomes markup.
"""

from __future__ import annotations

import html
from typing import Any, Mapping, Sequence

from agenthorizon.judging.ablation import describe_ablation
from agenthorizon.judging.perturbation import describe_perturbation
from agenthorizon.report.runs import JudgedRun
from agenthorizon.report.style import QUANTITY_LABELS, quantity_text, run_color
from agenthorizon.schema import MISTAKE_TYPES

__all__ = ["comparison_table", "confusion", "escape", "headline", "items_section", "mistake_types", "run_details", "run_facts", "slice_table", "summary_table"]


def escape(value: Any) -> str:
    """``value`` as text safe inside HTML elements and quoted attributes.

    >>> escape('<b title="x">')
    '&lt;b title=&quot;x&quot;&gt;'
    """
    return html.escape(str(value), quote=True)


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _interval(bounds: Sequence[float] | None) -> str:
    if not bounds:
        return ""
    return f"95% CI {100 * bounds[0]:.1f}–{100 * bounds[1]:.1f}"


def _bar(value: float | None, marker: float | None = None) -> str:
    if value is None:
        return ""
    width = max(0.0, min(1.0, value)) * 100
    tick = "" if marker is None else f'<i style="left:{100 * marker:.1f}%"></i>'
    # A 0 % bar gets a visible stub of its own colour: 0 must not look like "not run" (no bar at all).
    zero = " zero" if value <= 0 else ""
    return f'<div class="bar{zero}" title="{100 * value:.1f}%"><span style="width:{width:.1f}%"></span>{tick}</div>'


def headline(report: dict[str, Any]) -> str:
    intervals = report.get("intervals") or {}
    cards = []
    for key, name in (
        ("balanced_accuracy", "Balanced accuracy"),
        ("positive_accuracy", "Positive accuracy"),
        ("negative_accuracy", "Negative accuracy"),
    ):
        cards.append(
            f'<div class="card metric" data-metric="{key}"><div class="label">{name}</div>'
            f'<div class="value">{_pct(report[key])}</div>'
            f'<div class="ci">{escape(_interval(intervals.get(key)))}</div></div>'
        )
    reasons = ", ".join(f"{count} {name}" for name, count in report["invalid_by_reason"].items() if count)
    cards.append(
        f'<div class="card metric" data-metric="invalid"><div class="label">Invalid predictions</div>'
        f'<div class="value">{report["n_invalid"]}</div>'
        f'<div class="ci">{escape(reasons or "none")} · counted as incorrect</div></div>'
    )
    return f'<div class="headline">{"".join(cards)}</div>'


def confusion(report: dict[str, Any]) -> str:
    c = report["confusion"]
    n_pos, n_neg = report["n_positive"], report["n_negative"]
    return (
        '<div class="card"><h3>Confusion matrix</h3>'
        '<table class="confusion"><thead><tr><th>label \\ verdict</th><th>success</th><th>failure</th>'
        "<th>invalid</th><th>total</th></tr></thead><tbody>"
        f'<tr><th>positive</th><td class="ok">{c["tp"]}<small>correct</small></td>'
        f'<td class="fr">{c["fn"]}<small>false reject</small></td>'
        f'<td class="inv">{c["invalid_positive"]}<small>incorrect</small></td><td>{n_pos}</td></tr>'
        f'<tr><th>negative</th><td class="fa">{c["fp"]}<small>false accept</small></td>'
        f'<td class="ok">{c["tn"]}<small>correct</small></td>'
        f'<td class="inv">{c["invalid_negative"]}<small>incorrect</small></td><td>{n_neg}</td></tr>'
        "</tbody></table></div>"
    )


def mistake_types(report: dict[str, Any]) -> str:
    rows = []
    for name in MISTAKE_TYPES:
        value = report["mistake_type_recall"][name]
        rejection = (report.get("rejection_rate_by_type") or {}).get(name) or {"rate": None}
        rows.append(
            f"<tr><td>{escape(name)}</td><td class='num'>{value['correct']} / {value['total']}</td>"
            f"<td class='num'>{_pct(value['recall'])}{_bar(value['recall'])}</td>"
            f"<td class='num'>{_pct(rejection['rate'])}</td></tr>"
        )
    return (
        '<div class="card"><h3>Mistake-type recall</h3>'
        "<table><thead><tr><th>type</th><th class='num'>rejected and named</th><th class='num'>recall</th>"
        "<th class='num'>rejected at all</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        f"<p class='small'>Among negatives of each reference type: the share the judge rejected <em>and</em> "
        f"named with that type. {_untyped_note(report['n_untyped_negatives'])}</p></div>"
    )


def paired_and_cost(report: dict[str, Any]) -> str:
    """Instruction sensitivity and pair-group accuracy, and the cost and runtime per trajectory."""
    intervals = report.get("intervals") or {}
    cells = "".join(
        f"<tr><td>{name}</td><td class='num'>{_pct(report.get(key))}{_bar(report.get(key))}</td>"
        f"<td class='num'>{report.get(count, 0)}</td><td class='small'>{escape(_interval(intervals.get(key)))}</td></tr>"
        for key, name, count in (
            ("instruction_sensitivity", "Instruction sensitivity", "n_instruction_pairs"),
            ("pair_group_accuracy", "Pair-group accuracy", "n_pair_groups"),
        )
    )
    paired = (
        '<div class="card" data-section="paired"><h3>Paired design</h3><table><thead><tr><th></th>'
        f"<th class='num'>value</th><th class='num'>of</th><th></th></tr></thead><tbody>{cells}</tbody></table>"
        "<p class='small'>Instruction sensitivity: same-recording pairs with the positive accepted and the negative "
        "rejected (blind to the instruction: 0; coin: 25%). Pair-group accuracy: groups with every item correct.</p></div>"
    )
    usage_rows, unreported = [], []
    for group in ("cost", "runtime"):
        for name, summary in (report.get(group) or {}).items():
            if not summary["n_known"]:  # a row of "unknown" only: named once below the table instead
                unreported.append(QUANTITY_LABELS.get(name, name).lower())
                continue
            values = "".join(
                f"<td class='num'>{quantity_text(name, summary[k])}</td>"
                for k in ("mean", "median", "max", "total")
            )
            usage_rows.append(f"<tr><td>{escape(QUANTITY_LABELS.get(name, name))}</td>{values}"
                              f"<td class='num'>{summary['n_known']} / {summary['n_items']}</td></tr>")
    usage = (
        '<div class="card" data-section="cost"><h3>Cost and runtime per trajectory</h3><table><thead><tr><th></th>'
        "<th class='num'>mean</th><th class='num'>median</th><th class='num'>max</th><th class='num'>total</th>"
        f"<th class='num'>known</th></tr></thead><tbody>{''.join(usage_rows)}</tbody></table>"
        "<p class='small'>Over the items whose result reports the value; the total is unknown when any item's is."
        f"{' Not reported by this judge: ' + ', '.join(unreported) + '.' if unreported else ''}</p></div>"
        if usage_rows else ""
    )
    # Without telemetry the paired card takes the whole row: no card sits beside an empty half.
    return f'<div class="grid{" two" if usage else ""}">{paired}{usage}</div>'


def _untyped_note(count: int) -> str:
    if count == 0:
        return "Every negative has a reference type."
    subject = "1 untyped negative is" if count == 1 else f"{count} untyped negatives are"
    return f"{subject} left out of these denominators only."


def slice_table(report: dict[str, Any], name: str, title: str) -> str:
    values = report["slices"].get(name, {})
    rows = []
    for value, sub in values.items():
        rows.append(
            f"<tr><td>{escape(value)}</td><td class='num'>{sub['n']}</td>"
            f"<td class='num'>{sub['n_positive']} / {sub['n_negative']}</td>"
            f"<td class='num'>{_pct(sub['positive_accuracy'])}</td>"
            f"<td class='num'>{_pct(sub['negative_accuracy'])}</td>"
            f"<td class='num'>{_pct(sub['balanced_accuracy'])}{_bar(sub['balanced_accuracy'], 0.5)}</td></tr>"
        )
    return (
        f'<div class="card" data-slice="{escape(name)}"><h3>{escape(title)}</h3>'
        "<table><thead><tr><th></th><th class='num'>items</th><th class='num'>pos / neg</th>"
        "<th class='num'>pos. acc.</th><th class='num'>neg. acc.</th><th class='num'>balanced</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        "<p class='small'>Balanced accuracy is undefined (—) where a slice has no positives or no negatives; "
        "the tick marks chance (50%).</p></div>"
    )


def summary_table(labels: list[str], reports: list[dict[str, Any]], marks: Sequence[str] = ()) -> str:
    """One row per run; ``marks`` (a partial run's mark, or ``""``) follow the run's name."""
    rows = []
    marks = list(marks) or [""] * len(labels)
    for index, (label, report) in enumerate(zip(labels, reports)):
        mark = f" <span class='partial-mark'>{escape(marks[index])}</span>" if marks[index] else ""
        intervals = report.get("intervals") or {}
        cells = []
        for key in ("balanced_accuracy", "positive_accuracy", "negative_accuracy"):
            ci = _interval(intervals.get(key)).replace("95% CI ", "")
            cells.append(f"<td class='num'>{_pct(report[key])}<div class='small'>{escape(ci)}</div></td>")
        swatch = f'<span class="swatch" style="background:{run_color(index)}"></span>'
        rows.append(
            f"<tr><td>{swatch}{escape(label)}{mark}</td>{''.join(cells)}"
            f"<td class='num'>{report['n_invalid']}</td><td class='num'>{_pct(report['mistake_type_recall_macro'])}</td></tr>"
        )
    return (
        '<table class="summary card" id="summary-table"><thead><tr><th>run</th><th class="num">balanced acc.</th>'
        '<th class="num">positive acc.</th><th class="num">negative acc.</th><th class="num">invalid</th>'
        '<th class="num">type recall (macro)</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def comparison_table(labels: list[str], comparisons: list[dict[str, Any]]) -> str:
    if not comparisons:
        return ""
    rows = []
    for index, comparison in enumerate(comparisons, start=1):
        interval = comparison["interval"]
        significant = interval is not None and (interval[0] > 0 or interval[1] < 0)
        rows.append(
            f"<tr><td>{escape(labels[index])} − {escape(labels[0])}</td>"
            f"<td class='num'><strong>{100 * -comparison['difference']:+.1f}</strong> pts</td>"
            f"<td class='num'>{escape(_negate_interval(interval))}</td>"
            f"<td class='num'>{comparison['only_b_correct']} / {comparison['only_a_correct']}</td>"
            f"<td class='num'>{comparison['p_value']:.3g}</td>"
            f"<td>{'interval excludes 0' if significant else 'interval includes 0'}</td></tr>"
        )
    return (
        '<h2 id="comparison">Paired comparison</h2><div class="card">'
        '<table id="comparison-table"><thead><tr><th>difference in balanced accuracy</th><th class="num">Δ</th>'
        '<th class="num">95% CI (pair-clustered paired bootstrap)</th>'
        '<th class="num">only this run / only first run correct</th><th class="num">McNemar p (exact)</th><th></th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        "<p class='small'>Each resample draws whole pair groups and rescores both runs on the same draw; "
        "McNemar's test uses per-item correctness (invalid = incorrect).</p></div>"
    )


def harness_table(result: dict[str, Any] | None) -> str:
    """One model through several harnesses: each harness pair's paired difference (empty when no model has two)."""
    if not result or not result["models"]:
        return ""
    rows = []
    for entry in result["models"]:
        for pair in entry["pairs"]:
            interval = pair["interval"]
            shown = "—" if interval is None else f"{100 * interval[0]:+.1f} to {100 * interval[1]:+.1f}"
            rows.append(
                f"<tr><td>{escape(entry['model'])}</td><td>{escape(pair['a'])} − {escape(pair['b'])}</td>"
                f"<td class='num'><strong>{100 * pair['difference']:+.1f}</strong> pts</td>"
                f"<td class='num'>{escape(shown)}</td>"
                f"<td class='num'>{pair['only_a_correct']} / {pair['only_b_correct']}</td>"
                f"<td class='num'>{pair['p_value']:.3g}</td></tr>"
            )
    return (
        '<h2 id="harnesses">One model across harnesses</h2><div class="card">'
        '<table id="harness-table"><thead><tr><th>model</th><th>harness A − harness B</th><th class="num">Δ</th>'
        '<th class="num">95% CI (pair-clustered paired bootstrap)</th>'
        '<th class="num">only A / only B correct</th><th class="num">McNemar p (exact)</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        "<p class='small'>Runs are one model's when they record the same model name (after --model-alias); "
        "the harness is the judge kind of each run's spec.</p></div>"
    )


def _negate_interval(interval: Sequence[float] | None) -> str:
    if interval is None:
        return "—"
    return f"{-100 * interval[1]:+.1f} to {-100 * interval[0]:+.1f}"


def items_section(labels: list[str]) -> str:
    select = ""
    if len(labels) > 1:
        options = "".join(f'<option value="{i}">{escape(label)}</option>' for i, label in enumerate(labels))
        select = f'<label class="small" for="run-select">run</label><select id="run-select">{options}</select>'
    buttons = "".join(
        f'<button type="button" data-filter="{key}" aria-pressed="false">{name} <span class="count"></span></button>'
        for key, name in (
            ("all", "All"),
            ("false_accept", "False accepts"),
            ("false_reject", "False rejects"),
            ("invalid", "Invalid"),
            ("correct", "Correct"),
        )
    )
    return (
        '<h2 id="items">Items</h2>'
        f'<div class="controls">{select}{buttons}'
        '<input type="search" id="item-search" placeholder="Search instruction, id or reasoning" aria-label="search items">'
        '<span id="item-count"></span></div>'
        '<div class="items-scroll"><table id="items-table"><thead><tr><th>outcome</th><th>label</th><th>verdict</th>'
        '<th class="num">steps</th><th>OS</th><th>instruction</th><th>id</th></tr></thead><tbody></tbody></table></div>'
        '<dialog id="item-dialog" aria-labelledby="dialog-title"><div class="head"><strong id="dialog-title"></strong>'
        '<button type="button" class="close" id="dialog-close">Close</button></div>'
        '<div class="body" id="dialog-body"></div></dialog>'
    )



def run_facts(run: JudgedRun) -> str:
    record = run.record
    parts = []
    if record is not None:
        parts.append(f"judge {record.spec} (key {record.judge_key})")
        harness = record.judge.get("harness")
        if isinstance(harness, Mapping) and harness.get("name"):
            parts.append(f"harness {harness['name']} {harness.get('version') or '(version not recorded)'}")
        prompt = record.prompt
        if isinstance(prompt, Mapping) and prompt.get("source"):
            parts.append(f"prompt {prompt['source']} (sha256 {str(prompt.get('sha256'))[:12]})")
        images = record.images
        if isinstance(images, dict) and images.get("mode"):
            quality = f", JPEG quality {images['quality']}" if images.get("quality") else ""
            budget = f", token budget {images['token_budget']}" if images.get("token_budget") else ""
            parts.append(f"images {images['mode']}{quality}{budget}")
        layout = record.judge.get("layout")
        if isinstance(layout, str) and layout != "markdown":
            parts.append(f"layout {layout}")
        system = record.judge.get("system_prompt")
        if isinstance(system, Mapping):
            parts.append(f"system prompt {system.get('path')} (sha256 {str(system.get('sha256'))[:12]})")
        if record.judge.get("reask"):
            reasked = record.reasking
            counted = "" if reasked is None else (
                f": {reasked.items} item(s) re-asked, {reasked.reasks} more answer(s), {reasked.recovered} recovered")
            parts.append(f"reask {record.judge['reask']}{counted}")
        if record.ablation:  # what the judge was not shown: the paper's information ablations
            parts.append(f"ablation: {describe_ablation(record.ablation)}")
        if record.judge.get("perturbation"):  # how the items were shown differently (judge --perturb)
            parts.append(describe_perturbation(record.judge["perturbation"]))
        if record.interruption is not None:  # a run that did not finish says so, and why
            parts.append(f"{record.status} ({record.interruption.cause})")
        if record.counts:
            parts.append(", ".join(f"{key} {value}" for key, value in record.counts.to_dict().items()))
    parts.append(str(run.path))
    return " · ".join(parts)


def run_details(index: int, run: JudgedRun, report: dict[str, Any], partial: str = "") -> str:
    """One run's section: title with its facts, headline cards, confusion matrix, mistake types, slices, length curve.

    ``partial`` (an unfinished run's mark) is shown before the headline cards.
    """
    from agenthorizon.report.length_curves import length_curve_card

    mark = f'<div class="partial-mark">{escape(partial)}</div>' if partial else ""
    return (
        f'<section class="run" data-run="{index}"><h3 class="run-title"><span class="swatch" style="background:{run_color(index)}">'
        f"</span>{escape(run.label)} <span class='small'>{escape(run_facts(run))}</span></h3>"
        f"{mark}{headline(report)}"
        f'<div class="grid two">{confusion(report)}{mistake_types(report)}</div>'
        f"{paired_and_cost(report)}"
        f'<div class="grid two">{slice_table(report, "step_bucket", "By trajectory length (steps)")}'
        f'{slice_table(report, "os", "By operating system")}</div>{length_curve_card(report.get("length_curve"))}</section>'
    )
