"""``agenthorizon plot``: paper-ready figures (PNG/SVG) of one or more runs."""

from __future__ import annotations

import argparse

from agenthorizon.cli._common import add_bootstrap_arguments, add_selection_arguments, selection_options

HELP = "Draw paper-ready figures (accuracy by length and confidence, type recall, judge comparison) of runs."

FIGURE_WORDS = ("frontier",)
"""A first RUN argument that names a figure draws that figure alone (``plot frontier RUN...``);
a run folder of that very name is given as ``./frontier``."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.cli._data import add_data_argument

    parser.add_argument(
        "runs", metavar="RUN", nargs="+",
        help="run directories, one judge each; start with 'frontier' to draw balanced accuracy against mean cost "
        "per trajectory (Pareto front marked) instead of the default figures",
    )
    add_data_argument(parser)
    add_selection_arguments(parser, from_run=True)
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for the figure files")
    parser.add_argument("--format", nargs="+", choices=("png", "svg"), default=["png", "svg"], help="file formats (default: png svg)")
    add_bootstrap_arguments(parser, default=1000)


def _selection(args: argparse.Namespace) -> dict:
    """``config`` and the other selection options given, as ``make_plots`` takes them."""
    options = selection_options(args)
    return {"config": options.pop("config"), "selection_options": options}


def run(args: argparse.Namespace) -> int:
    from agenthorizon.report.plots import make_plots

    figures, runs = None, list(args.runs)
    if runs[0] in FIGURE_WORDS:
        figures, runs = [runs[0]], runs[1:]
        if not runs:
            raise ValueError(f"plot {figures[0]}: expected one or more run directories after it")
    written = make_plots(
        runs, args.data, args.out, **_selection(args), formats=args.format, bootstrap=args.bootstrap, seed=args.seed,
        figures=figures,
    )
    for stem, paths in written.items():
        print(f"{stem}: " + ", ".join(str(path) for path in paths))
    return 0
