"""``agenthorizon partition``: re-split the release into hard and easy from a pool of judge runs.

Per item, how many of the runs judged it correctly; at most ``--threshold``
correct goes to the hard split (``AgentHorizon.jsonl``), the rest to the easy
one (``AgentHorizon-Simple.jsonl``), written to ``--out`` as a release that
``load_dataset`` and every command read (:mod:`agenthorizon.report.partition`
states the counting rules). Prints the agreement with the shipped AH / AH-S.
"""

from __future__ import annotations

import argparse

from agenthorizon.cli._common import non_negative_int

HELP = "Re-partition the release into hard / easy by how many pooled judge runs got each item right."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run directories, one judgment per item each")
    parser.add_argument("--data", required=True, metavar="ROOT", help="release root the runs were made on")
    parser.add_argument(
        "--threshold", required=True, type=non_negative_int, metavar="K",
        help="an item with at most K correct runs is hard (the paper: 18 of 24)",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for the new label files (a release)")
    parser.add_argument(
        "--labels-only", action="store_true",
        help="write the label files and partition.json only, without hard-linking the release's sandbox/",
    )


def run(args: argparse.Namespace) -> int:
    from agenthorizon.report.partition import partition_runs, write_partition

    partition = partition_runs(args.runs, args.data, args.threshold)
    written = write_partition(partition, args.data, args.out, sandbox=not args.labels_only)
    agreement = partition.agreement
    kappa = agreement["cohen_kappa"]
    lines = [
        f"{len(partition.runs)} runs pooled; hard = at most {args.threshold} correct",
        f"wrote {args.out}: {written['hard']} hard, {written['easy']} easy"
        + (f" ({written['kept']} items not judged kept their shipped side)" if written["kept"] else "")
        + (f"; sandbox/ hard-linked ({written['sandbox_files']} files)" if written["sandbox_files"] else ""),
        f"agreement with the shipped split over {agreement['n']} items: {100 * agreement['agreement']:.1f}% "
        f"(Cohen's kappa {'undefined' if kappa is None else f'{kappa:.3f}'}); "
        f"AH stays hard {agreement['hard_both']}, AH -> easy {agreement['hard_to_easy']}, "
        f"AH-S stays easy {agreement['easy_both']}, AH-S -> hard {agreement['easy_to_hard']}",
    ]
    for one in partition.runs:
        lines.append(f"  {one['label']} ({one['run']}, {one['config']}): {one['not_valid']} items without a valid "
                     f"verdict ({one['missing']} without a result), counted as not correct")
    lines += [f"note: {note}" for note in partition.notes]
    print("\n".join(lines))
    return 0
