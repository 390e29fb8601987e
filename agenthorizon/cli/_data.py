"""The one ``--data`` (or ``ROOT``) argument of every command that reads a release.

A command's data is a local release root or a Hub dataset repo id, and it is
resolved one way for all of them: by :func:`agenthorizon.resolve_release`
(directly here for ``info``; inside the library's references loader for
``score``, ``leaderboard``, ``report`` and ``plot``; in ``judge`` and
``export`` before they load). This module only says so on the command line,
in the same words for every command, so no command can accept less than
another.
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

    :func:`agenthorizon.resolve_release` with the command's needs; ``options``
    are its keywords (``revision``, ``dev_groups``, ``dev_manifest``, ``labels_only``).
    """
    from agenthorizon.release.hub import resolve_release

    return resolve_release(root, config, images=images, **options)
