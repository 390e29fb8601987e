"""``agenthorizon verify-results BUNDLE --data ROOT``: rescore a submission bundle, bit for bit."""

from __future__ import annotations

import argparse

HELP = "Check a submission bundle: unaltered, made on this release, and rescoring to the very same numbers."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.cli._data import add_data_argument

    parser.add_argument("bundle", metavar="BUNDLE", help="a bundle folder written by `agenthorizon results` (holds bundle.json)")
    add_data_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Exit 0 when every number is reproduced; 1 (with the reason) when the bundle is refused."""
    import sys

    from agenthorizon.cli._data import resolve_data
    from agenthorizon.report.bundle import BundleError, verify_bundle

    root = resolve_data(args.data, "all", labels_only=True)
    try:
        checked = verify_bundle(args.bundle, root)
    except BundleError as error:
        print(f"refused: {error}", file=sys.stderr)
        return 1
    for run in checked.runs:
        value = run["balanced_accuracy"]
        print(f"{run['path']}: {run['label']} on {run['config']}: balanced accuracy "
              f"{'n/a' if value is None else repr(value)} reproduced")
    print(f"{args.bundle}: OK (files unaltered, same release, every number reproduced bit for bit)")
    return 0
