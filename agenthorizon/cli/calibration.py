"""``agenthorizon calibration``: how a judge's stated confidence relates to being right."""

from __future__ import annotations

import argparse

HELP = "Calibration of runs' stated confidence: selective accuracy by level, reliability, ECE, Brier, AUROC."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.cli._common import add_bootstrap_arguments, non_negative_int
    from agenthorizon.cli._data import add_data_argument
    from agenthorizon.report.tables import FORMATS

    parser.add_argument("runs", nargs="+", metavar="RUN", help="run directories of one selection")
    add_data_argument(parser)
    parser.add_argument("--config", help="the config, when no run records one")
    parser.add_argument("--bins", type=non_negative_int, default=10, help="bins of numeric confidence (default 10)")
    add_bootstrap_arguments(parser, default=1000)
    parser.add_argument("--format", default="table", choices=FORMATS, help="output format (default table)")
    parser.add_argument("--out", metavar="FILE", help="write here instead of standard output")


def run(args: argparse.Namespace) -> int:
    from agenthorizon.cli._common import write_output
    from agenthorizon.report.calibration import calibration_tables, run_calibration
    from agenthorizon.report.tables import render_table

    results, config = run_calibration(args.runs, args.data, config=args.config, bins=args.bins,
                                      bootstrap=args.bootstrap, seed=args.seed)
    if args.format == "json":
        payload = {"config": config, "runs": {label: result.to_dict() for label, result in results.items()}}
        text = render_table(calibration_tables(results, config)[0], "json", json_payload=payload)
    else:
        text = "\n".join(render_table(table, args.format) for table in calibration_tables(results, config))
    write_output(text, args.out)
    return 0
