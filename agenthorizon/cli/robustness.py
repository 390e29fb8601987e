"""``agenthorizon robustness``: re-partition by difficulty for every K and leaving one pool run out, ranking judges on each."""

from __future__ import annotations

import argparse

HELP = "Partition robustness: re-split by every K and leaving one pool run out, with the judges' rank correlation."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.cli._common import non_negative_int
    from agenthorizon.cli._data import add_data_argument
    from agenthorizon.report.tables import FORMATS

    parser.add_argument("runs", nargs="+", metavar="RUN", help="the pool: run folders of one selection, each one rater "
                        "(8 runs of one model at --threshold 6 is the authors' rule: at least 7 of 8 correct is easy)")
    add_data_argument(parser)
    parser.add_argument("--rank", nargs="+", default=[], metavar="RUN",
                        help="the judges to rank on each subset (default: the pool runs)")
    parser.add_argument("--threshold", type=non_negative_int, metavar="K",
                        help="also leave each pool run out in turn, at the same share as at most K correct")
    parser.add_argument("--config", help="the config, when no run records one")
    parser.add_argument("--format", default="table", choices=FORMATS, help="output format (default table)")
    parser.add_argument("--out", metavar="FILE", help="write here instead of standard output")


def run(args: argparse.Namespace) -> int:
    from agenthorizon.cli._common import write_output
    from agenthorizon.report.robustness import robustness_table, run_robustness
    from agenthorizon.report.tables import render_table

    found = run_robustness(args.runs, args.data, rank_dirs=args.rank, threshold=args.threshold, config=args.config)
    write_output(render_table(robustness_table(found), args.format, json_payload=found.to_dict()), args.out)
    return 0
