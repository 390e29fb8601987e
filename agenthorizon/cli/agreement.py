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
    parser.add_argument("--write-majority", metavar="DIR", help="also write the majority vote as a run folder "
                        "(a new or empty DIR) that score, leaderboard, report, compare and plot take like any run")
    parser.add_argument("--name", help="the majority run's label (default: majority of k runs of JUDGE, "
                        "or majority of A, B, C); part of its judge key, like a model name")


def run(args: argparse.Namespace) -> int:
    from agenthorizon.cli._common import write_output
    from agenthorizon.report.agreement import agreement_table, run_agreement
    from agenthorizon.report.tables import render_table
    from agenthorizon.report.virtual_runs import write_virtual_run

    found = run_agreement(args.runs, args.data, config=args.config, bootstrap=args.bootstrap, seed=args.seed,
                          name=args.name)
    table = agreement_table(found)
    if args.write_majority:
        folder = write_virtual_run(found.virtual_run, args.write_majority)
        table.notes.append(f"majority vote written as a run to {folder}")
    write_output(render_table(table, args.format, json_payload=found.to_dict()), args.out)
    return 0
