"""A self-contained HTML report of one or more judge runs.

:func:`write_report` produces ONE file that opens from disk in any browser,
with no server and no network request: its CSS and JavaScript are inline and
its screenshot thumbnails are base64 ``data:`` URLs. It shows

- headline metrics of each run with pair-clustered bootstrap intervals;
- the confusion matrix (invalid predictions in their own column: they are
  incorrect and stay in every denominator);
- mistake-type recall, and accuracy by step-count bucket and by OS;
- with two or more runs, the paired comparison of each run with the first
  (:func:`agenthorizon.compare`);
- a filterable, searchable list of items (all / correct / false accepts /
  false rejects / invalid); clicking an item shows its instruction, verdict,
  reasoning, parse status and first, middle and last screenshots.

Instructions and judge output are untrusted text. Python-rendered parts go
through :func:`html.escape`; item data is embedded as JSON with ``<``, ``>``
and ``&`` escaped (so no string can close the ``<script>`` element that holds
it) and the page's script only ever assigns it through ``textContent``.
"""

from __future__ import annotations

import datetime as _dt
import functools
import html
import json
import os
import warnings as _warnings
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

from agenthorizon.report.runs import JudgedRun, RunSet, load_runs
from agenthorizon.report.style import run_color
from agenthorizon.schema import MISTAKE_TYPES, POSITIVE, step_bucket
from agenthorizon.scoring.metrics import item_outcomes, score
from agenthorizon.scoring.predictions import prediction_verdict, validate_prediction

__all__ = ["ReportOptions", "build_report", "write_report"]

_RAW_OUTPUT_LIMIT = 4000  # characters of raw judge output shown when no reasoning parsed


@dataclass(frozen=True)
class ReportOptions:
    """Knobs of the report.

    ``bootstrap``: resamples for intervals and the comparison (0: none).
    ``thumbnails``: screenshots per item (first, middle, last for 3; 0: none).
    ``thumbnail_size``: box each thumbnail is downscaled to fit.
    ``thumbnail_quality``: JPEG quality of thumbnails.
    """

    bootstrap: int = 1000
    seed: int = 0
    thumbnails: int = 3
    thumbnail_size: tuple[int, int] = (384, 249)
    thumbnail_quality: int = 70
    title: str = "AgentHorizon judge report"


# --- formatting --------------------------------------------------------------------


def _e(value: Any) -> str:
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
    return f'<div class="bar"><span style="width:{width:.1f}%"></span>{tick}</div>'


def _json_for_script(payload: Any) -> str:
    # Inside <script type="application/json"> only "</script" (and "<!--")
    # can break out; escaping every <, > and & as \\u00XX rules that out for
    # any string while JSON.parse restores the characters exactly.
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _asset(name: str) -> str:
    return resources.files("agenthorizon.report").joinpath("assets", name).read_text(encoding="utf-8")


# --- data ----------------------------------------------------------------------------


def _thumbnails(row: dict[str, Any], options: ReportOptions, unreadable: list[str]) -> list[dict[str, Any]]:
    """The item's thumbnails: first, last and evenly spaced screenshots, as JPEG data URLs.

    A screenshot that cannot be read (missing, over the pixel budget,
    truncated, not an image) becomes a placeholder image captioned as
    unreadable, and its reason is appended to ``unreadable``: one bad file
    never stops the report.
    """
    from agenthorizon.data.images import ScreenshotError, evenly_spaced, prepare_images

    if options.thumbnails <= 0:
        return []
    screenshots = row.get("screenshots") or []
    paths = list(getattr(screenshots, "paths", screenshots))
    available = [index for index, path in enumerate(paths) if path is not None]
    if not available:
        return []
    step_ids = [step["step_id"] for step in row["steps"]] if len(row["steps"]) == len(paths) else list(range(len(paths)))
    thumbnails = []
    for index in evenly_spaced(available, options.thumbnails):
        try:
            (image,) = prepare_images(
                [paths[index]],
                mode="per-step",
                size=options.thumbnail_size,
                format="jpeg",
                quality=options.thumbnail_quality,
                step_ids=[step_ids[index]],
                use_cache=False,
                workers=1,
            )
        except ScreenshotError as error:  # a ScreenshotNotFoundError too
            unreadable.append(f"item {row['trajectory_id']} step {step_ids[index]}: {error}")
            thumbnails.append({"step": step_ids[index], "src": _placeholder(options.thumbnail_size), "unreadable": True})
            continue
        thumbnails.append({"step": image.steps[0], "src": image.data_url()})
    return thumbnails


@functools.lru_cache(maxsize=4)
def _placeholder(size: tuple[int, int]) -> str:
    """A grey JPEG data URL of ``size`` that stands in for an unreadable screenshot."""
    import base64
    import io

    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, (200, 200, 200))
    ImageDraw.Draw(image).text((10, 10), "screenshot unreadable", fill=(60, 60, 60))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=70)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def images_sent(telemetry: dict[str, Any]) -> str | None:
    """How an item's screenshots went to a direct judge, from its result's telemetry; ``None`` when not recorded.

    >>> images_sent({"images_mode_used": "mosaic", "merged": True, "merge_reason": "count", "n_images": 8})
    '8 image(s) as 2x2 mosaics (merged: count)'
    >>> images_sent({"images_mode_used": "per-step", "merged": False, "n_images": 30})
    '30 image(s) as per-step (not merged)'
    """
    mode = telemetry.get("images_mode_used")
    if not isinstance(mode, str):
        return None
    if mode == "none":
        return "none (text only)"
    shape = "2x2 mosaics" if mode == "mosaic" else mode
    if telemetry.get("merged") is True:
        reason = telemetry.get("merge_reason")
        merged = f"merged: {reason}" if isinstance(reason, str) else "merged: mosaics requested"
    else:
        merged = "not merged"
    return f"{telemetry.get('n_images')} image(s) as {shape} ({merged})"


def _verdict_view(result: Any, status: str, success: bool | None, outcome: str) -> dict[str, Any]:
    # Whatever form the prediction took (result record, bare verdict, JSON
    # text), show the verdict's own fields; fall back to the raw judge output.
    verdict = prediction_verdict(result) or {}
    reasoning = verdict.get("reasoning")
    raw = False
    if not isinstance(reasoning, str) or not reasoning:
        output = result.get("raw_output") if isinstance(result, dict) else None
        reasoning = output[:_RAW_OUTPUT_LIMIT] if isinstance(output, str) and output else None
        raw = reasoning is not None
    mistake_type = verdict.get("mistake_type")
    confidence = verdict.get("confidence")
    error = result.get("error") if isinstance(result, dict) else None
    telemetry = result.get("telemetry") if isinstance(result, dict) else None
    return {
        "images": images_sent(telemetry) if isinstance(telemetry, dict) else None,
        "outcome": outcome,
        "status": status,
        "success": success,
        "mistake_type": mistake_type if isinstance(mistake_type, str) else None,
        "confidence": confidence if isinstance(confidence, str) else None,
        "reasoning": reasoning,
        "reasoning_is_raw": raw,
        "error": error if isinstance(error, str) else None,
    }


def _run_views(run_set: RunSet) -> list[dict[str, Any]]:
    views = []
    for run in run_set.runs:
        predictions = run.predictions()
        # The outcome classes come from scoring itself, so the item list can
        # never disagree with the metrics above it.
        outcomes = item_outcomes(predictions, run_set.rows)
        verdicts = []
        for row, outcome in zip(run_set.rows, outcomes.outcome_classes()):
            result = predictions.get(row["trajectory_id"])
            success, _named, status = validate_prediction(result)
            verdicts.append(_verdict_view(result, status, success, outcome))
        views.append({"label": run.label, "verdicts": verdicts})
    return views


def _item_views(run_set: RunSet, options: ReportOptions, unreadable: list[str]) -> list[dict[str, Any]]:
    return [
        {
            "id": row["trajectory_id"],
            "instruction": row["instruction"],
            "label": row["label"],
            "mistake_type": row["mistake_type"],
            "num_steps": row["num_steps"],
            "bucket": step_bucket(int(row["num_steps"])),
            "os": row.get("os"),
            "thumbnails": _thumbnails(row, options, unreadable),
        }
        for row in run_set.rows
    ]


# --- sections ------------------------------------------------------------------------


def _headline(report: dict[str, Any]) -> str:
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
            f'<div class="ci">{_e(_interval(intervals.get(key)))}</div></div>'
        )
    reasons = ", ".join(f"{count} {name}" for name, count in report["invalid_by_reason"].items() if count)
    cards.append(
        f'<div class="card metric" data-metric="invalid"><div class="label">Invalid predictions</div>'
        f'<div class="value">{report["n_invalid"]}</div>'
        f'<div class="ci">{_e(reasons or "none")} · counted as incorrect</div></div>'
    )
    return f'<div class="headline">{"".join(cards)}</div>'


def _confusion(report: dict[str, Any]) -> str:
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


def _mistake_types(report: dict[str, Any]) -> str:
    rows = []
    for name in MISTAKE_TYPES:
        value = report["mistake_type_recall"][name]
        rows.append(
            f"<tr><td>{_e(name)}</td><td class='num'>{value['correct']} / {value['total']}</td>"
            f"<td class='num'>{_pct(value['recall'])}{_bar(value['recall'])}</td></tr>"
        )
    return (
        '<div class="card"><h3>Mistake-type recall</h3>'
        "<table><thead><tr><th>type</th><th class='num'>rejected and named</th><th class='num'>recall</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        f"<p class='small'>Among negatives of each reference type: the share the judge rejected <em>and</em> "
        f"named with that type. {_untyped_note(report['n_untyped_negatives'])}</p></div>"
    )


def _untyped_note(count: int) -> str:
    if count == 0:
        return "Every negative has a reference type."
    subject = "1 untyped negative is" if count == 1 else f"{count} untyped negatives are"
    return f"{subject} left out of these denominators only."


def _slice_table(report: dict[str, Any], name: str, title: str) -> str:
    values = report["slices"].get(name, {})
    rows = []
    for value, sub in values.items():
        rows.append(
            f"<tr><td>{_e(value)}</td><td class='num'>{sub['n']}</td>"
            f"<td class='num'>{sub['n_positive']} / {sub['n_negative']}</td>"
            f"<td class='num'>{_pct(sub['positive_accuracy'])}</td>"
            f"<td class='num'>{_pct(sub['negative_accuracy'])}</td>"
            f"<td class='num'>{_pct(sub['balanced_accuracy'])}{_bar(sub['balanced_accuracy'], 0.5)}</td></tr>"
        )
    return (
        f'<div class="card" data-slice="{_e(name)}"><h3>{_e(title)}</h3>'
        "<table><thead><tr><th></th><th class='num'>items</th><th class='num'>pos / neg</th>"
        "<th class='num'>pos. acc.</th><th class='num'>neg. acc.</th><th class='num'>balanced</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        "<p class='small'>Balanced accuracy is undefined (—) where a slice has no positives or no negatives; "
        "the tick marks chance (50%).</p></div>"
    )


def _summary_table(labels: list[str], reports: list[dict[str, Any]]) -> str:
    rows = []
    for index, (label, report) in enumerate(zip(labels, reports)):
        intervals = report.get("intervals") or {}
        cells = []
        for key in ("balanced_accuracy", "positive_accuracy", "negative_accuracy"):
            ci = _interval(intervals.get(key)).replace("95% CI ", "")
            cells.append(f"<td class='num'>{_pct(report[key])}<div class='small'>{_e(ci)}</div></td>")
        swatch = f'<span class="swatch" style="background:{run_color(index)}"></span>'
        rows.append(
            f"<tr><td>{swatch}{_e(label)}</td>{''.join(cells)}"
            f"<td class='num'>{report['n_invalid']}</td><td class='num'>{_pct(report['mistake_type_recall_macro'])}</td></tr>"
        )
    return (
        '<table class="summary card" id="summary-table"><thead><tr><th>run</th><th class="num">balanced acc.</th>'
        '<th class="num">positive acc.</th><th class="num">negative acc.</th><th class="num">invalid</th>'
        '<th class="num">type recall (macro)</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _comparison(labels: list[str], comparisons: list[dict[str, Any]]) -> str:
    if not comparisons:
        return ""
    rows = []
    for index, comparison in enumerate(comparisons, start=1):
        interval = comparison["interval"]
        significant = interval is not None and (interval[0] > 0 or interval[1] < 0)
        rows.append(
            f"<tr><td>{_e(labels[index])} − {_e(labels[0])}</td>"
            f"<td class='num'><strong>{100 * -comparison['difference']:+.1f}</strong> pts</td>"
            f"<td class='num'>{_e(_negate_interval(interval))}</td>"
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


def _negate_interval(interval: Sequence[float] | None) -> str:
    if interval is None:
        return "—"
    return f"{-100 * interval[1]:+.1f} to {-100 * interval[0]:+.1f}"


def _items_section(labels: list[str]) -> str:
    select = ""
    if len(labels) > 1:
        options = "".join(f'<option value="{i}">{_e(label)}</option>' for i, label in enumerate(labels))
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


# --- assembly --------------------------------------------------------------------------


def build_report(run_set: RunSet, options: ReportOptions | None = None) -> str:
    """The HTML text of the report for runs already loaded with :func:`load_runs`."""
    from agenthorizon import __version__
    from agenthorizon.scoring.compare import compare

    options = options or ReportOptions()
    rows = run_set.rows
    labels = [run.label for run in run_set.runs]
    reports = [
        score(run.predictions(), rows, bootstrap=options.bootstrap, seed=options.seed, slices=["step_bucket", "os"]).to_dict()
        for run in run_set.runs
    ]
    comparisons = []
    if len(run_set.runs) > 1:
        first = run_set.runs[0].predictions()
        for run in run_set.runs[1:]:
            comparisons.append(compare(first, run.predictions(), rows, bootstrap=options.bootstrap, seed=options.seed).to_dict())
    manifest = run_set.manifest_sha256
    n_pos = sum(row["label"] == POSITIVE for row in rows)
    unreadable: list[str] = []
    payload = {"items": _item_views(run_set, options, unreadable), "runs": _run_views(run_set)}
    notes = list(run_set.warnings)
    if unreadable:
        notes.append(
            f"{len(unreadable)} screenshot(s) could not be read and are shown as placeholders "
            f"(first: {unreadable[0]}); run `agenthorizon verify` on the release for all of them"
        )
        _warnings.warn(notes[-1], UserWarning, stacklevel=2)

    details = []
    for index, (run, report) in enumerate(zip(run_set.runs, reports)):
        color = run_color(index)
        details.append(
            f'<section class="run" data-run="{index}"><h3 class="run-title"><span class="swatch" style="background:{color}">'
            f"</span>{_e(run.label)} <span class='small'>{_e(_run_facts(run))}</span></h3>"
            f"{_headline(report)}"
            f'<div class="grid two">{_confusion(report)}{_mistake_types(report)}</div>'
            f'<div class="grid two">{_slice_table(report, "step_bucket", "By trajectory length (steps)")}'
            f'{_slice_table(report, "os", "By operating system")}</div></section>'
        )
    warnings = "".join(f'<div class="warning">{_e(text)}</div>' for text in notes)
    generated = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    intervals_note = (
        f"Intervals: {options.bootstrap} pair-clustered bootstrap resamples (seed {options.seed})."
        if options.bootstrap
        else "No bootstrap intervals (bootstrap=0)."
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>{_e(options.title)} · {_e(run_set.config)}</title>
<link rel="icon" href="data:,">
<style>{_asset("report.css")}</style>
</head>
<body>
<header class="page"><div class="inner">
<h1>{_e(options.title)}</h1>
<div class="meta"><span>config <strong>{_e(run_set.config)}</strong></span>
<span>{len(rows)} items ({n_pos} positive, {len(rows) - n_pos} negative)</span>
<span>labels <code title="{_e(manifest)}">sha256 {_e(manifest[:12])}</code></span>
<span>{len(run_set.runs)} run(s)</span><span>generated {_e(generated)} by agenthorizon {_e(__version__)}</span></div>
{warnings}
</div></header>
<main>
<h2 id="summary">Summary</h2>
{_summary_table(labels, reports)}
<p class="small">Balanced accuracy = ½ (positive accuracy + negative accuracy); 50% is chance. Invalid predictions count as
incorrect and never leave a denominator. {_e(intervals_note)}</p>
{_comparison(labels, comparisons)}
<h2 id="details">Details</h2>
{"".join(details)}
{_items_section(labels)}
<footer>Self-contained report: no network requests; thumbnails are embedded. Untrusted text (instructions, judge output)
is displayed as text.</footer>
</main>
<script type="application/json" id="report-data">{_json_for_script(payload)}</script>
<script>{_asset("report.js")}</script>
</body>
</html>
"""


def _run_facts(run: JudgedRun) -> str:
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
            parts.append(f"images {images['mode']}{quality}")
        if record.counts:
            parts.append(", ".join(f"{key} {value}" for key, value in record.counts.items()))
    parts.append(str(run.path))
    return " · ".join(parts)


def write_report(
    run_dirs: Sequence[str | os.PathLike[str]],
    data_root: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    config: str | None = None,
    options: ReportOptions | None = None,
    selection_options: dict[str, Any] | None = None,
) -> Path:
    """Load runs, build the report and write it to ``out``; returns the path.

    >>> write_report(["runs/lexical"], "release", "report.html")  # doctest: +SKIP
    PosixPath('report.html')
    """
    run_set = load_runs(run_dirs, data_root, config=config, selection_options=selection_options)
    text = build_report(run_set, options)
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
