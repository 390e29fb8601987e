"""``agenthorizon report``: one self-contained HTML file for one or more runs."""

from __future__ import annotations

import argparse
import dataclasses

from agenthorizon.schema import CONFIG_NAMES

HELP = "Write a self-contained HTML report (metrics, comparison, browsable items) of one or more runs."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", metavar="RUN", nargs="+", help="run directories (the first is the baseline of comparisons)")
    parser.add_argument("--data", required=True, metavar="ROOT", help="release root the runs were made on")
    parser.add_argument(
        "--config", choices=CONFIG_NAMES, default=None, help="config, when run.json does not record one"
    )
    parser.add_argument("--out", default="report.html", metavar="FILE", help="output HTML file (default report.html)")
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples for intervals (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument(
        "--thumbnails", type=int, default=3, metavar="K", help="screenshots embedded per item: first, middle, last (default 3; 0: none)"
    )
    parser.add_argument("--title", default=None, metavar="TEXT", help="page title (default: AgentHorizon judge report)")


def run(args: argparse.Namespace) -> int:
    from agenthorizon.report.html import ReportOptions, write_report

    if args.bootstrap < 0:
        raise ValueError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    if args.thumbnails < 0:
        raise ValueError(f"--thumbnails must be >= 0, got {args.thumbnails}")
    options = ReportOptions(bootstrap=args.bootstrap, seed=args.seed, thumbnails=args.thumbnails)
    if args.title:
        options = dataclasses.replace(options, title=args.title)
    path = write_report(args.runs, args.data, args.out, config=args.config, options=options)
    size = path.stat().st_size
    print(f"wrote {path} ({size / 1e6:.1f} MB); open it in a browser, no server needed")
    return 0
