"""``agenthorizon plot``: paper-ready figures (PNG/SVG) of one or more runs."""

from __future__ import annotations

import argparse

from agenthorizon.schema import CONFIG_NAMES

HELP = "Draw paper-ready figures (accuracy by length and confidence, type recall, judge comparison) of runs."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", metavar="RUN", nargs="+", help="run directories, one judge each")
    parser.add_argument("--data", required=True, metavar="ROOT", help="release root the runs were made on")
    parser.add_argument("--config", choices=CONFIG_NAMES, default=None, help="config, when run.json does not record one")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for the figure files")
    parser.add_argument("--format", nargs="+", choices=("png", "svg"), default=["png", "svg"], help="file formats (default: png svg)")
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples for the intervals (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")


def run(args: argparse.Namespace) -> int:
    from agenthorizon.report.plots import make_plots

    if args.bootstrap < 0:
        raise ValueError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    written = make_plots(
        args.runs, args.data, args.out, config=args.config, formats=args.format, bootstrap=args.bootstrap, seed=args.seed
    )
    for stem, paths in written.items():
        print(f"{stem}: " + ", ".join(str(path) for path in paths))
    return 0
