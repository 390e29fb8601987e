"""``agenthorizon verify ROOT``: check every file a release's label rows refer to."""

from __future__ import annotations

import argparse

HELP = (
    "Check a release as loading reads it (every label row's files exist and parse, no link leaves the release, "
    "every screenshot header reads within the pixel budget), all problems at once."
)

SHOWN = 3
"""Places listed per kind of problem without ``--all``."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("root", metavar="ROOT", help="release root (holds AgentHorizon.jsonl and sandbox/)")
    parser.add_argument("--all", action="store_true", help="list every problem, one per line (default: each kind "
                        f"once, with its count and the first {SHOWN} places)")


def run(args: argparse.Namespace) -> int:
    """Print each kind of problem once (``--all``: every problem); exit 1 when there is any, 0 otherwise."""
    from agenthorizon.release.problem_groups import group_problems
    from agenthorizon.release.verify import verify_release
    from agenthorizon.util.terminal_text import MESSAGE_LIMIT, printable

    problems = verify_release(args.root, progress=True)
    # File names and values come from the release: printed escaped and cut.
    groups = group_problems(problems, shown=SHOWN)
    if args.all:
        for problem in problems:
            print(printable(str(problem), limit=MESSAGE_LIMIT))
    else:
        for group in groups:
            print("\n".join(printable(line, limit=MESSAGE_LIMIT) for line in group.lines()))
    if problems:
        kinds = len(groups)
        hint = "" if args.all else "; --all lists every one"
        print(f"{len(problems)} problem(s) found in {args.root} ({kinds} kind(s){hint})")
        return 1
    print(
        f"{args.root}: OK (every referenced file exists and loads, no link leaves the release, "
        "every screenshot header reads within the pixel budget)"
    )
    return 0
