"""The CLI reference page, generated from the argument parser so the docs cannot drift from the code."""

from __future__ import annotations

import argparse


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse exposes no public accessor for subparsers
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def cli_reference_markdown() -> str:
    """Markdown for every subcommand: its one-line help and its full usage text."""
    from agenthorizon.cli import build_parser

    parser = build_parser()
    parts = [
        "# Command-line reference",
        "",
        "Generated from `agenthorizon.cli.build_parser()` when the docs are built.",
        "",
        "```text",
        parser.format_help().rstrip(),
        "```",
    ]
    for name, sub in sorted(_subparsers(parser).items()):
        sub.prog = f"agenthorizon {name}"
        parts += ["", f"## `agenthorizon {name}`", "", sub.description or "", "", "```text", sub.format_help().rstrip(), "```"]
        for action, nested in _subparsers(sub).items():  # a command with actions (`sweep plan`, `sweep run`...)
            nested.prog = f"agenthorizon {name} {action}"
            parts += ["", f"### `agenthorizon {name} {action}`", "", "```text", nested.format_help().rstrip(), "```"]
    return "\n".join(parts) + "\n"
