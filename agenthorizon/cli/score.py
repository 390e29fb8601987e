"""``agenthorizon score``: score judge results strictly against a config's labels.

The denominator is the config's label manifest, never the set of result
files: an item without a result is a missing prediction, an unreadable file
is malformed, and result files for items outside the config are listed as
unexpected (not scored). Every report states the manifest's item count and
sha256.

The items are the ones the runs were made on: the selection (config,
``exclude_dev``, dev groups) is read from their ``run.json``; ``--config``
and the other selection options are needed only for results without a run
record, and are an error when they contradict one.

Exit status: 0 when every item has a result; 1 when some are missing,
failed (``error``), unreadable or untrusted (``id_mismatch``,
``judge_mismatch``) -- the report is still written, and re-running
``agenthorizon judge`` into the same folder resumes those items; 2 for a
usage or input error.
"""

from __future__ import annotations

import argparse

from agenthorizon.cli._common import (
    RESUMABLE_REASONS,
    add_bootstrap_arguments,
    add_selection_arguments,
    incomplete,
    resolve_selection,
    write_output,
)

HELP = "Score judge results (run directories or JSONL files) strictly against a config's labels."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.report.tables import FORMATS
    from agenthorizon.scoring.slices import SLICES

    parser.add_argument(
        "results",
        nargs="+",
        metavar="RESULTS",
        help="run directories of <trajectory_id>.json result files and/or JSONL files of rows with "
        "trajectory_id; shards of one run are merged",
    )
    parser.add_argument("--data", required=True, metavar="ROOT", help="local release root (holds the label files)")
    add_selection_arguments(parser, from_run=True)
    add_bootstrap_arguments(parser, default=0)
    parser.add_argument(
        "--slices", default="", metavar="NAMES", help=f"comma-separated slices, from: {', '.join(SLICES)}"
    )
    parser.add_argument("--format", default="table", choices=FORMATS, help="output format (default table)")
    parser.add_argument("--out", metavar="FILE", help="write the report here instead of standard output")


def parse_slices(text: str) -> list[str]:
    """``"os, difficulty"`` -> ``["os", "difficulty"]``; unknown names raise ValueError."""
    from agenthorizon.scoring.slices import check_slices

    return check_slices([name.strip() for name in text.split(",") if name.strip()])


def run(args: argparse.Namespace) -> int:
    from agenthorizon.judging.runs.folder import read_results
    from agenthorizon.report.notes import (
        ignored_files, predictions_from_results, result_notes, score_noting_shapes, telemetry_from_results,
    )
    from agenthorizon.report.references import LABEL_ROW_FIELDS, load_run_references, recorded_selections
    from agenthorizon.report.tables import render_report
    from agenthorizon.scoring.slices import SLICES

    slices = parse_slices(args.slices)
    recorded = recorded_selections(args.results)
    selection = resolve_selection(args, recorded)
    # Label rows suffice unless a slice reads the trajectory files (os, steps, applications).
    fields = (*LABEL_ROW_FIELDS, *(SLICES[name][0] for name in slices))
    references = load_run_references(args.data, selection, recorded, fields=fields)
    wanted = references.ids()
    result_set = read_results(args.results)
    predictions, unexpected = predictions_from_results(result_set, wanted)
    report, shape_notes = score_noting_shapes(
        predictions, references.rows, bootstrap=args.bootstrap, seed=args.seed, slices=slices,
        telemetry=telemetry_from_results(result_set, wanted),
    )
    notes = result_notes(result_set, unexpected, len(wanted) - len(predictions)) + references.notes + shape_notes
    extra = {
        "results": [str(path) for path in args.results],
        "selection": selection.to_dict(),
        "unexpected_ids": unexpected,
        "ignored_files": ignored_files(result_set),
    }
    text = render_report(
        report, args.format, title=f"AgentHorizon score ({selection.config})", manifest=references.manifest,
        notes=notes, extra=extra,
    )
    write_output(text, args.out)
    unresolved = {reason: report.invalid_by_reason[reason] for reason in RESUMABLE_REASONS}
    unresolved["unreadable"] = len(set(result_set.unreadable) & wanted)
    return incomplete(unresolved, "`agenthorizon judge` into the same --out")
