"""``agenthorizon agreement``: how repeated runs of one judge, or several judges, agree, and their majority vote."""

from __future__ import annotations

import argparse

HELP = "Agreement of runs (Cohen's and Fleiss' kappa, Krippendorff's alpha, flip rate) and their majority vote's score."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.cli._common import add_bootstrap_arguments
    from agenthorizon.cli._data import add_data_argument
    from agenthorizon.report.tables import FORMATS

    parser.add_argument("runs", nargs="+", metavar="RUN", help="run directories of one selection (repeated runs of a "
                        "judge measure its self-agreement; runs of several judges their agreement)")
    add_data_argument(parser)
    parser.add_argument("--config", help="the config, when no run records one")
    add_bootstrap_arguments(parser, default=0)
    parser.add_argument("--format", default="table", choices=FORMATS, help="output format (default table)")
    parser.add_argument("--out", metavar="FILE", help="write here instead of standard output")


def run(args: argparse.Namespace) -> int:
    from agenthorizon.cli._common import write_output
    from agenthorizon.report.agreement import agreement_table, run_agreement
    from agenthorizon.report.tables import render_table

    result, majority, config = run_agreement(args.runs, args.data, config=args.config, bootstrap=args.bootstrap,
                                             seed=args.seed)
    payload = {"config": config, **result.to_dict(), "majority_vote": majority.to_dict()}
    write_output(render_table(agreement_table(result, majority, config), args.format, json_payload=payload), args.out)
    return 0
