"""``agenthorizon leaderboard``: one table across judge runs, shaped like the paper's Table 2.

The rows are :func:`agenthorizon.leaderboard`'s (its module,
:mod:`agenthorizon.report.leaderboard`, states the grouping rules: one row
per judge key, shards of one run merged, two runs of one key on one config
an error, one shared selection); this command renders them with their label
manifests and notes.
"""

from __future__ import annotations

import argparse

HELP = "Compare judge runs in one table shaped like the paper's Table 2 (AH and AH-S)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.cli._data import add_data_argument

    from agenthorizon.cli._common import add_bootstrap_arguments
    from agenthorizon.report.tables import FORMATS

    parser.add_argument("runs", nargs="+", metavar="RUN", help="run directories (each holds run.json or run-shard-*.json)")
    add_data_argument(parser)
    add_bootstrap_arguments(parser, default=0)
    parser.add_argument("--format", default="markdown", choices=FORMATS, help="output format (default markdown)")
    parser.add_argument("--out", metavar="FILE", help="write the table here instead of standard output")


def run(args: argparse.Namespace) -> int:
    from agenthorizon.cli._common import write_output
    from agenthorizon.report.leaderboard import LEADERBOARD_CONFIGS, leaderboard
    from agenthorizon.report.tables import render_leaderboard

    board = leaderboard(args.runs, args.data, bootstrap=args.bootstrap, seed=args.seed)
    text = render_leaderboard(board, LEADERBOARD_CONFIGS, args.format, manifests=board.manifests, notes=board.notes)
    write_output(text, args.out)
    return 0
