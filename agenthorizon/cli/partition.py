"""``agenthorizon partition``: re-split the release into hard and easy from a pool of judge runs.

An item judged correctly by at most ``--threshold`` runs is hard. The split is
written to ``--out`` as a release; prints the agreement with the shipped AH / AH-S.
"""

from __future__ import annotations

import argparse

from agenthorizon.cli._common import non_negative_int
from agenthorizon.cli._data import add_data_argument

HELP = "Re-partition the release into hard / easy by how many pooled judge runs got each item right."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "runs", nargs="+", metavar="RUN",
        help="run directories, grouped into judges as leaderboard groups them (runs on AH and AH-S, or on all, "
        "or shards, of one judge key are one judge)",
    )
    add_data_argument(parser)
    parser.add_argument(
        "--threshold", required=True, type=non_negative_int, metavar="K",
        help="an item with at most K correct runs is hard (the paper: 18 of 24)",
    )
    parser.add_argument(
        "--out", required=True, metavar="DIR",
        help="a new or empty folder for the new release (written whole beside it, then moved into place)",
    )
    parser.add_argument(
        "--labels-only", action="store_true",
        help="write the label files and partition.json only, without hard-linking the release's sandbox/",
    )


def run(args: argparse.Namespace) -> int:
    from agenthorizon.cli._data import resolve_data
    from agenthorizon.report.partition import check_out_dir, partition_runs, write_partition
    from agenthorizon.schema import CONFIG_ALL

    # --out first: a folder that cannot take the split is refused before any work.
    check_out_dir(args.out)
    # From a Hub repo id: the label files, and every item's files for the sandbox's hard links.
    root = resolve_data(args.data, CONFIG_ALL, images=None if args.labels_only else "lazy",
                        labels_only=args.labels_only)
    check_out_dir(args.out, root)
    partition = partition_runs(args.runs, root, args.threshold)
    written = write_partition(partition, root, args.out, sandbox=not args.labels_only)
    agreement = partition.agreement
    kappa = agreement["cohen_kappa"]
    lines = [
        f"{len(partition.runs)} judges pooled; hard = at most {args.threshold} correct",
        f"wrote {args.out}: {written['hard']} hard, {written['easy']} easy"
        + (f" ({written['kept']} items not judged kept their shipped side)" if written["kept"] else "")
        + (f"; sandbox/ hard-linked ({written['sandbox_files']} files)" if written["sandbox_files"] else ""),
        f"agreement with the shipped split over {agreement['n']} items: {100 * agreement['agreement']:.1f}% "
        f"(Cohen's kappa {'undefined' if kappa is None else f'{kappa:.3f}'}); "
        f"AH stays hard {agreement['hard_both']}, AH -> easy {agreement['hard_to_easy']}, "
        f"AH-S stays easy {agreement['easy_both']}, AH-S -> hard {agreement['easy_to_hard']}",
    ]
    for one in partition.runs:
        lines.append(f"  {one['judge']} ({', '.join(one['runs'])}; {'+'.join(one['configs'])}): {one['not_valid']} "
                     f"items without a valid verdict ({one['missing']} without a result), counted as not correct")
    lines += [f"note: {note}" for note in partition.notes]
    print("\n".join(lines))
    return 0
