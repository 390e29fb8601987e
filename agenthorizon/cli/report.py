"""``agenthorizon report``: one self-contained HTML file for one or more runs."""

from __future__ import annotations

import argparse
import dataclasses

from agenthorizon.cli._common import (
    add_bootstrap_arguments, add_model_alias_argument, add_selection_arguments, non_negative_int, selection_options,
)

HELP = "Write a self-contained HTML report (metrics, comparison, browsable items) of one or more runs."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.cli._data import add_data_argument

    parser.add_argument("runs", metavar="RUN", nargs="+", help="run directories (the first is the baseline of comparisons)")
    add_data_argument(parser)
    add_selection_arguments(parser, from_run=True)
    parser.add_argument("--out", default="report.html", metavar="FILE", help="output HTML file (default report.html)")
    add_bootstrap_arguments(parser, default=1000)
    parser.add_argument(
        "--thumbnails", type=non_negative_int, default=3, metavar="K", help="screenshots embedded per item: first, middle, last (default 3; 0: none)"
    )
    parser.add_argument("--title", default=None, metavar="TEXT", help="page title (default: AgentHorizon judge report)")
    add_model_alias_argument(parser)


def _selection(args: argparse.Namespace) -> dict:
    """``config`` and the other selection options given, as ``write_report`` takes them."""
    options = selection_options(args)
    return {"config": options.pop("config"), "selection_options": options}


def run(args: argparse.Namespace) -> int:
    from agenthorizon.report.html import ReportOptions, write_report

    from agenthorizon.report.harnesses import parse_model_aliases

    options = ReportOptions(bootstrap=args.bootstrap, seed=args.seed, thumbnails=args.thumbnails,
                            model_aliases=parse_model_aliases(args.model_alias))
    if args.title:
        options = dataclasses.replace(options, title=args.title)
    path = write_report(args.runs, args.data, args.out, **_selection(args), options=options, progress=True)
    size = path.stat().st_size
    print(f"wrote {path} ({size / 1e6:.1f} MB); open it in a browser, no server needed")
    return 0
