"""``agenthorizon score``: score judge results strictly against a config's labels.

The denominator is the config's label manifest, never the result files:
items without a valid result count as wrong; results for items outside the
config are listed, not scored. The selection is read from the runs'
``run.json``; selection options are needed only for results without one.

Exit status: 0 when every item has a result; 1 when some are missing, failed,
unreadable or untrusted (the report is still written; re-running ``judge``
resumes them); 2 for a usage or input error.
"""

from __future__ import annotations

import argparse
from typing import Any

from agenthorizon.cli._common import (
    RESUMABLE_REASONS,
    add_bootstrap_arguments,
    add_selection_arguments,
    incomplete,
    write_output,
)

HELP = "Score judge results (run directories or JSONL files) strictly against a config's labels."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.cli._data import add_data_argument

    from agenthorizon.report.tables import FORMATS
    from agenthorizon.scoring.slices import SLICES

    parser.add_argument(
        "results",
        nargs="+",
        metavar="RESULTS",
        help="run directories of <trajectory_id>.json result files and/or JSONL files of rows with "
        "trajectory_id; shards of one run are merged",
    )
    add_data_argument(parser)
    add_selection_arguments(parser, from_run=True)
    add_bootstrap_arguments(parser, default=0)
    parser.add_argument(
        "--slices", default="", metavar="NAMES", help=f"comma-separated slices, from: {', '.join(SLICES)}"
    )
    parser.add_argument(
        "--against", nargs="+", metavar="RUN",
        help="the unperturbed run of the same judge: report the flip rate of RESULTS (a run made with judge --perturb) "
        "against it, with pair-clustered intervals (--bootstrap resamples)",
    )
    parser.add_argument(
        "--evidence", action="store_true",
        help="also report what an agentic judge opened: screenshots viewed and where, the Markdown, the JSON, and "
        "accuracy by the share of screenshots viewed (needs the release's trajectory files)",
    )
    parser.add_argument("--format", default="table", choices=FORMATS, help="output format (default table)")
    parser.add_argument("--out", metavar="FILE", help="write the report here instead of standard output")
    parser.add_argument("--prices", metavar="FILE", help='JSON {"MODEL": {"input": D, "output": D}} in dollars per '
                        "million tokens: estimate the cost of items that report tokens but no cost, shown apart as "
                        "estimated_cost_usd (never added to reported costs)")


def parse_slices(text: str) -> list[str]:
    """``"os, difficulty"`` -> ``["os", "difficulty"]``; unknown names raise ValueError."""
    from agenthorizon.scoring.slices import check_slices

    return check_slices([name.strip() for name in text.split(",") if name.strip()])


def run(args: argparse.Namespace) -> int:
    from agenthorizon.cli._data import resolve_data
    from agenthorizon.judging.runs.folder import read_results, run_records
    from agenthorizon.report.coverage import check_coverage, coverage
    from agenthorizon.report.notes import (
        ignored_files, predictions_from_results, result_notes, score_noting_shapes, telemetry_from_results,
    )
    from agenthorizon.report.references import LABEL_ROW_FIELDS, load_run_references, recorded_selections
    from agenthorizon.report.tables import render_report
    from agenthorizon.scoring.slices import SLICES

    slices = parse_slices(args.slices)
    result_set = read_results(args.results)
    records = run_records(args.results, result_set)  # each run's record, read once
    recorded = recorded_selections(records)
    # The label files alone (a Hub repo id fetches just those): they decide which items the results must be about.
    root = resolve_data(args.data, "all", labels_only=True)
    selection, chosen = _selection(args, recorded, root, result_set.ids())
    # Label rows suffice unless a slice reads the trajectory files (os, steps, applications).
    fields = (*LABEL_ROW_FIELDS, *(SLICES[name][0] for name in slices), *(("num_steps",) if args.evidence else ()))
    references = load_run_references(root, selection, recorded, fields=fields)
    wanted = references.ids()
    found = coverage(result_set.ids(), wanted, references.release_ids, config=selection.config)
    if found.is_wrong:  # refused: the counts, an example of each, and advice only where it can help
        check_coverage(found, ", ".join(map(str, args.results)), advice=_advice(args, recorded, root, result_set.ids()))
    predictions, unexpected = predictions_from_results(result_set, wanted)
    report, shape_notes = score_noting_shapes(
        predictions, references.rows, bootstrap=args.bootstrap, seed=args.seed, slices=slices,
        telemetry=telemetry_from_results(result_set, wanted),
    )
    if args.prices:
        from agenthorizon.report.prices import add_estimated_costs

        notes_from_prices = add_estimated_costs(report, args.prices, records,
                                                telemetry_from_results(result_set, wanted) or {}, references.rows)
    else:
        notes_from_prices = []
    partial = _partial(found, records)
    notes = [
        *(partial.lines() if partial else []), *chosen,
        *result_notes(result_set, unexpected, len(wanted) - len(predictions)), *references.notes, *shape_notes,
        *notes_from_prices,
    ]
    extra = {
        "results": [str(path) for path in args.results],
        "selection": selection.to_dict(),
        "unexpected_ids": unexpected,
        "ignored_files": ignored_files(result_set),
        "partial": None if partial is None else {"judged": partial.judged, "total": partial.total,
                                                 "reasons": list(partial.reasons), "resume": partial.resume},
    }
    if args.against:
        from agenthorizon.report.flips import flip_note, perturbation_flips

        extra["flip_rate"] = perturbation_flips(args.results, args.against, references.rows, bootstrap=args.bootstrap,
                                                seed=args.seed)
        notes.append(flip_note(extra["flip_rate"]))
    if args.evidence:
        from agenthorizon.report.evidence import evidence_note, run_evidence

        extra["evidence"] = run_evidence(result_set.records, predictions, references.rows, bootstrap=args.bootstrap,
                                         seed=args.seed)
        notes.append(evidence_note(extra["evidence"]))
    title = f"AgentHorizon score ({selection.config})" + (f" -- {partial.headline()}" if partial else "")
    text = render_report(report, args.format, title=title, manifest=references.manifest, notes=notes, extra=extra)
    write_output(text, args.out)
    unresolved = {reason: report.invalid_by_reason[reason] for reason in RESUMABLE_REASONS}
    unresolved["unreadable"] = len(set(result_set.unreadable) & wanted)
    if not recorded:
        # Predictions files only: no run to resume, so no advice to re-run one.
        return incomplete(unresolved, None)
    from agenthorizon.report.partial import rerun_advice

    # An Inspect log is made again by its own `inspect eval` command, not resumed by `agenthorizon judge`.
    advice = rerun_advice(records)
    return incomplete(unresolved, "`agenthorizon judge` into the same --out",
                      advice=None if advice is None else f"To judge them again: {advice}.")


def _selection(args: argparse.Namespace, recorded: dict, root, result_ids: set[str]) -> tuple[Any, list[str]]:
    """The selection to score against, and a note when the results' ids chose its config.

    Results without a run record and without ``--config`` are scored against
    the config whose items they are exactly, never a default.
    """
    from agenthorizon.cli._common import selection_options
    from agenthorizon.release.item_selection import SelectionConflict
    from agenthorizon.report.coverage import infer_config
    from agenthorizon.report.references import run_selection

    options = selection_options(args)
    try:
        return run_selection(recorded, options), []
    except SelectionConflict as conflict:
        if conflict.field != "config" or conflict.run is not None:
            raise
    config = infer_config(result_ids, _config_ids(root, options))
    note = f"Config {config}: the results' ids are exactly its items (no run.json and no --config named one)"
    return run_selection(recorded, {**options, "config": config}), [note]


def _config_ids(root, options: dict) -> dict[str, set[str]]:
    """Each config's item ids under the given selection options (dev groups, dev manifest, ``exclude_dev``).

    Built as :func:`~agenthorizon.report.references.run_selection` builds one selection.
    """
    from agenthorizon.release.files import read_config_rows
    from agenthorizon.report.references import run_selection
    from agenthorizon.schema import CONFIG_NAMES

    return {
        config: {row["trajectory_id"] for row in read_config_rows(root, run_selection({}, {**options, "config": config})).rows}
        for config in CONFIG_NAMES
    }


def _advice(args: argparse.Namespace, recorded: dict, root, result_ids: set[str]) -> str:
    """A step that can fix results of the wrong items, or nothing: another config, when their ids name one."""
    from agenthorizon.cli._common import selection_options
    from agenthorizon.report.coverage import infer_config

    if any(selection is not None for selection in recorded.values()):
        return "check that --data is the release the run was made on"
    try:
        config = infer_config(result_ids, _config_ids(root, selection_options(args)))
    except ValueError:
        return ""
    return f"their ids are exactly the items of {config}: pass --config {config}" if config != args.config else ""


def _partial(found: Any, records: dict) -> Any:
    """The :class:`~agenthorizon.report.partial.PartialRun` when some items have no result, else ``None``."""
    if not found.is_partial:
        return None
    from agenthorizon.report.partial import partial_run

    return partial_run(len(found.matched), found.n_items, records)
