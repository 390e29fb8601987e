"""``agenthorizon verify ROOT``: check every file a release's label rows refer to."""

from __future__ import annotations

import argparse

HELP = (
    "Check a release as loading reads it (every label row's files exist and parse, no link leaves the release, "
    "every screenshot header reads within the pixel budget), all problems at once."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("root", metavar="ROOT", help="release root (holds AgentHorizon.jsonl and sandbox/)")


def run(args: argparse.Namespace) -> int:
    """Print every problem, one per line; exit 1 when there is any, 0 otherwise."""
    from agenthorizon.release.verify import verify_release
    from agenthorizon.terminal_text import MESSAGE_LIMIT, printable

    problems = verify_release(args.root)
    for problem in problems:
        print(printable(str(problem), limit=MESSAGE_LIMIT))  # file names and values come from the release
    if problems:
        print(f"{len(problems)} problem(s) found in {args.root}")
        return 1
    print(
        f"{args.root}: OK (every referenced file exists and loads, no link leaves the release, "
        "every screenshot header reads within the pixel budget)"
    )
    return 0
