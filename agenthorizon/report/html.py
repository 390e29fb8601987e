"""A self-contained HTML report of one or more judge runs: :func:`write_report`.

One file that opens from disk with no server and no network request (inline
CSS and JavaScript, thumbnails as ``data:`` URLs); the skeleton is
``assets/report.html``. Instructions and judge output are untrusted text:
Python-rendered parts go through :func:`html.escape`, item data is embedded
as JSON with ``<``, ``>`` and ``&`` escaped, and the page's script assigns it
only through ``textContent``. Scores are strict: invalid predictions have their
own column in the confusion matrix, count as incorrect and stay in every denominator.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import warnings as _warnings
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any, Sequence

import orjson

from agenthorizon.report import sections
from agenthorizon.report.items import item_views, run_views
from agenthorizon.report.length_curves import run_length_curve
from agenthorizon.report.notes import telemetry_from_results
from agenthorizon.report.options import ReportOptions
from agenthorizon.report.references import LABEL_ROW_FIELDS, STEP_IDS
from agenthorizon.report.runs import RunSet, load_runs
from agenthorizon.schema import POSITIVE
from agenthorizon.scoring.metrics import CONFIDENCE_LEVEL, score

__all__ = ["ReportOptions", "build_report", "write_report"]


def _json_for_script(payload: Any) -> str:
    # Inside <script type="application/json"> only "</script" (and "<!--") can break out; escaping
    # every <, > and & as \\u00XX rules that out while JSON.parse restores the characters exactly.
    # orjson writes the same text as json.dumps (floats may be spelled otherwise), much faster;
    # what it refuses (a lone surrogate, an integer beyond 64 bits) goes to json.dumps.
    try:
        data = orjson.dumps(payload)
    except orjson.JSONEncodeError:
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    data = data.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")
    return data.decode("utf-8", "surrogatepass")


def _asset(name: str) -> str:
    return resources.files("agenthorizon.report").joinpath("assets", name).read_text(encoding="utf-8")


REPORT_FIELDS = (*LABEL_ROW_FIELDS, "instruction", "num_steps", "os", "screenshots", STEP_IDS)
"""The row fields the page shows or scores by: the label rows' own, and what the item list shows.
Only these columns are read (:func:`agenthorizon.report.references.load_run_references`)."""


def build_report(run_set: RunSet, options: ReportOptions | None = None, *, progress: bool = False) -> str:
    """The HTML text of the report for runs already loaded with :func:`load_runs` (``progress``: a bar for the thumbnails)."""
    from agenthorizon.scoring.compare import compare

    options = options or ReportOptions()
    rows = run_set.rows
    reports = [
        score(
            run.predictions(), rows, bootstrap=options.bootstrap, seed=options.seed, slices=["step_bucket", "os"],
            telemetry=telemetry_from_results(run.results),
        ).to_dict()
        for run in run_set.runs
    ]
    for run, report in zip(run_set.runs, reports):
        curve = run_length_curve(run.predictions(), rows, bootstrap=options.bootstrap, seed=options.seed)
        report["length_curve"] = None if curve is None else curve.to_dict()
    comparisons = []
    if len(run_set.runs) > 1:
        first = run_set.runs[0].predictions()
        for run in run_set.runs[1:]:
            comparisons.append(compare(first, run.predictions(), rows, bootstrap=options.bootstrap, seed=options.seed).to_dict())
    harnesses = _harnesses(run_set, reports, options) if len(run_set.runs) > 1 else None
    unreadable: list[str] = []
    payload = {"items": item_views(run_set, options, unreadable, progress=progress), "runs": run_views(run_set)}
    partial = _partial_runs(run_set)
    # An unfinished run is said first, before any number; each banner names its run.
    notes = [line for run, found in zip(run_set.runs, partial) if found is not None for line in found.lines(run.label)]
    notes += list(run_set.warnings)
    if unreadable:
        notes.append(
            f"{len(unreadable)} screenshot(s) could not be read and are shown as placeholders "
            f"(first: {unreadable[0]}); run `agenthorizon verify` on the release for all of them"
        )
        _warnings.warn(notes[-1], UserWarning, stacklevel=2)
    marks = ["" if run is None else run.headline() for run in partial]
    return _page(run_set, options, reports, comparisons, payload, notes, marks, harnesses)


def _harnesses(run_set: RunSet, reports: list[dict[str, Any]], options: ReportOptions) -> dict[str, Any]:
    """One model through several harnesses among the runs (:func:`~agenthorizon.report.harnesses.compare_harnesses`)."""
    from agenthorizon.report.harnesses import HarnessRun, compare_harnesses, run_identity

    runs = []
    for run, report in zip(run_set.runs, reports):
        model, harness = run_identity(run.record, options.model_aliases) if run.record is not None else (None, "")
        if model is not None:
            runs.append(HarnessRun(model, harness, run.label, run.record.judge_key, run.predictions(),
                                   {run_set.config: report["balanced_accuracy"]}))
    return compare_harnesses(runs, lambda a, b: ([run_set.config], run_set.rows), bootstrap=options.bootstrap,
                             seed=options.seed, level=CONFIDENCE_LEVEL, strict=False)


def _partial_runs(run_set: RunSet) -> list[Any]:
    """Each run's :class:`~agenthorizon.report.partial.PartialRun` when some items have no result, else ``None``."""
    from agenthorizon.report.partial import partial_run

    ids = {row["trajectory_id"] for row in run_set.rows}
    partial = []
    for run in run_set.runs:
        judged = len(run.results.ids() & ids)
        records = {str(run.path): run.record}
        partial.append(partial_run(judged, len(ids), records) if judged < len(ids) else None)
    return partial


def _page(
    run_set: RunSet,
    options: ReportOptions,
    reports: list[dict[str, Any]],
    comparisons: list[dict[str, Any]],
    payload: dict[str, Any],
    notes: list[str],
    marks: list[str],
    harnesses: dict[str, Any] | None = None,
) -> str:
    """``assets/report.html`` filled in: every value from data escaped, the item data as safe JSON."""
    from agenthorizon import __version__

    e = sections.escape
    rows = run_set.rows
    labels = [run.label for run in run_set.runs]
    manifest = run_set.manifest_sha256
    n_pos = sum(row["label"] == POSITIVE for row in rows)
    intervals_note = (
        f"Intervals: {options.bootstrap} pair-clustered bootstrap resamples (seed {options.seed})."
        if options.bootstrap
        else "No bootstrap intervals (bootstrap=0)."
    )
    return Template(_asset("report.html")).substitute(
        title=e(options.title),
        config=e(run_set.config),
        css=_asset("report.css"),
        n_items=len(rows),
        n_positive=n_pos,
        n_negative=len(rows) - n_pos,
        manifest=e(manifest),
        manifest_short=e(manifest[:12]),
        n_runs=len(run_set.runs),
        generated=e(_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
        version=e(__version__),
        warnings="".join(f'<div class="warning">{e(text)}</div>' for text in notes),
        summary_table=sections.summary_table(labels, reports, marks),
        intervals_note=e(intervals_note),
        comparison=sections.comparison_table(labels, comparisons),
        harnesses=sections.harness_table(harnesses),
        details="".join(
            sections.run_details(i, run, report, marks[i]) for i, (run, report) in enumerate(zip(run_set.runs, reports))
        ),
        items_section=sections.items_section(labels),
        data=_json_for_script(payload),
        js=_asset("report.js"),
    )


def write_report(
    run_dirs: Sequence[str | os.PathLike[str]],
    data_root: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    config: str | None = None,
    options: ReportOptions | None = None,
    selection_options: dict[str, Any] | None = None,
    progress: bool = False,
) -> Path:
    """Load runs (only the columns :data:`REPORT_FIELDS`), build the report and write it to ``out``; returns the path.

    >>> write_report(["runs/lexical"], "release", "report.html")  # doctest: +SKIP
    PosixPath('report.html')
    """
    run_set = load_runs(run_dirs, data_root, config=config, selection_options=selection_options, fields=REPORT_FIELDS)
    text = build_report(run_set, options, progress=progress)
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
