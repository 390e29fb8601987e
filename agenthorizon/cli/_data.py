"""The one ``--data`` (or ``ROOT``) argument of every command that reads a release.

A local release root or a Hub dataset repo id, resolved for every command by
:func:`agenthorizon.resolve_release` and described in the same words.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agenthorizon.schema import DEFAULT_HUB_REPO

DATA_HELP = (
    f"local release root (the folder holding the label files), or a Hub dataset repo id such as {DEFAULT_HUB_REPO}, "
    "of which only the files the command reads are fetched"
)


def add_data_argument(parser: argparse.ArgumentParser, *, positional: bool = False) -> None:
    """``--data ROOT`` (required), or the positional ``ROOT``, with the one help text."""
    if positional:
        parser.add_argument("root", metavar="ROOT", help=DATA_HELP)
    else:
        parser.add_argument("--data", required=True, metavar="ROOT", help=DATA_HELP)


def resolve_data(root: str, config: str, *, images: str | None = None, **options: object) -> Path:
    """The local release root of ``root`` (a folder, or a Hub repo fetched for ``config``).

    ``options`` are :func:`agenthorizon.resolve_release`'s keywords (``revision``, ``dev_groups``, ...).
    """
    from agenthorizon.release.hub import resolve_release

    return resolve_release(root, config, images=images, **options)
