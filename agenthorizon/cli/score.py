"""``agenthorizon score``: score judge results strictly against a config's labels.

The denominator is the config's label manifest, never the set of result
files: an item without a result is a missing prediction, an unreadable file
is malformed, and result files for items outside the config are listed as
unexpected (not scored). Every report states the manifest's item count and
sha256.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any, Sequence

from agenthorizon.schema import CONFIG_AH, CONFIG_NAMES, LABEL_FIELDS, SPLIT_NAME

HELP = "Score judge results (run directories or JSONL files) strictly against a config's labels."

# Slices that read fields of the trajectory files; the others are label fields.
_TRAJECTORY_SLICES = {"os", "step_bucket", "num_applications"}
_SHOWN_IDS = 10
# Run records sit beside results by design; they are not worth a warning.
_RUN_RECORD = re.compile(r"^run(-shard-\d+-of-\d+)?\.json$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.report.tables import FORMATS
    from agenthorizon.scoring.metrics import SLICES

    parser.add_argument(
        "results",
        nargs="+",
        metavar="RESULTS",
        help="run directories of <trajectory_id>.json result files and/or JSONL files of rows with "
        "trajectory_id; shards of one run are merged",
    )
    parser.add_argument("--data", required=True, metavar="ROOT", help="local release root (holds the label files)")
    parser.add_argument("--config", default=CONFIG_AH, choices=CONFIG_NAMES, help="config whose labels are scored against: its items are the denominator (default AH)")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N", help="pair-clustered bootstrap resamples (0: none)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument(
        "--slices", default="", metavar="NAMES", help=f"comma-separated slices, from: {', '.join(SLICES)}"
    )
    parser.add_argument("--format", default="table", choices=FORMATS, help="output format (default table)")
    parser.add_argument("--out", metavar="FILE", help="write the report here instead of standard output")


def parse_slices(text: str) -> list[str]:
    """``"os, difficulty"`` -> ``["os", "difficulty"]``; unknown names raise ValueError."""
    from agenthorizon.scoring.metrics import SLICES

    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in SLICES]
    if unknown:
        raise ValueError(f"unknown slice(s) {', '.join(unknown)}; expected names from {', '.join(SLICES)}")
    return names


def load_config_references(root: str, config: str, slices: Sequence[str] = ()) -> tuple[Any, list[dict[str, Any]]]:
    """References to score with, and the label rows of the manifest.

    Label rows suffice unless a slice reads the trajectory files (os, steps,
    applications); then the dataset itself is loaded (without images).
    """
    if _TRAJECTORY_SLICES.intersection(slices):
        import agenthorizon

        dataset = agenthorizon.load_dataset(root, config, split=SPLIT_NAME, images=None)
        label_rows = dataset.select_columns(list(LABEL_FIELDS)).to_list()
        return dataset, label_rows
    from agenthorizon.release.source import load_references

    rows = load_references(root, config)
    return rows, rows


def manifest_of(config: str, label_rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``{"config", "n_items", "sha256"}`` of the labels a report was scored against."""
    from agenthorizon.release.labels import manifest_sha256

    return {"config": config, "n_items": len(label_rows), "sha256": manifest_sha256(label_rows)}


def predictions_from_results(result_set: Any, wanted_ids: set[str]) -> tuple[dict[str, Any], list[str]]:
    """Predictions by trajectory id for the ``wanted_ids``, and the unexpected ids.

    A result file that exists but is not a JSON object scores as
    ``malformed_json``; results outside ``wanted_ids`` are returned as
    unexpected so the caller can list them.
    """
    return result_set.predictions(wanted_ids), sorted(result_set.ids() - wanted_ids)


def ignored_files(result_set: Any) -> list[str]:
    """Files in result directories that are neither results nor run records."""
    return [path for path in result_set.ignored if not _RUN_RECORD.match(Path(path).name)]


def result_notes(result_set: Any, unexpected: Sequence[str], n_missing: int) -> list[str]:
    """Provenance lines about the result files: missing, unreadable, unexpected, ignored."""
    notes = [f"Results found: {len(result_set.ids())}; items without a result (scored as missing): {n_missing}"]
    if result_set.unreadable:
        notes.append(f"Unreadable result files (scored as malformed_json): {len(result_set.unreadable)}")
    if unexpected:
        shown = ", ".join(unexpected[:_SHOWN_IDS]) + (", ..." if len(unexpected) > _SHOWN_IDS else "")
        notes.append(f"Unexpected results for items outside the config (not scored): {len(unexpected)}: {shown}")
    if ignored_files(result_set):
        names = [Path(path).name for path in ignored_files(result_set)]
        shown = ", ".join(names[:_SHOWN_IDS]) + (", ..." if len(names) > _SHOWN_IDS else "")
        notes.append(f"Ignored files (not <uuid>.json): {len(names)}: {shown}")
    return notes


def write_output(text: str, out: str | None) -> None:
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def run(args: argparse.Namespace) -> int:
    from agenthorizon.report.tables import render_report
    from agenthorizon.judging.runs.records import read_results
    from agenthorizon.scoring.metrics import score

    if args.bootstrap < 0:
        raise ValueError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    slices = parse_slices(args.slices)
    references, label_rows = load_config_references(args.data, args.config, slices)
    wanted = {row["trajectory_id"] for row in label_rows}
    result_set = read_results(args.results)
    predictions, unexpected = predictions_from_results(result_set, wanted)
    report = score(predictions, references, bootstrap=args.bootstrap, seed=args.seed, slices=slices)
    manifest = manifest_of(args.config, label_rows)
    notes = result_notes(result_set, unexpected, len(wanted) - len(predictions))
    extra = {"results": [str(path) for path in args.results], "unexpected_ids": unexpected, "ignored_files": ignored_files(result_set)}
    text = render_report(
        report, args.format, title=f"AgentHorizon score ({args.config})", manifest=manifest, notes=notes, extra=extra
    )
    write_output(text, args.out)
    return 0
