"""How a sample corpus says it is synthetic: the first line of its framework text.

:func:`agenthorizon.release.sample.generate` writes :data:`SAMPLE_MARKER` as
the first line of ``sandbox/AGENTS.md`` (and its copies), a file every route
fetches. It is an HTML comment, so an agent reading the file sees no
instruction in it; exports made from the corpus can then say it is synthetic.
"""

from __future__ import annotations

import os
from pathlib import Path

from agenthorizon.release.confine import open_confined
from agenthorizon.schema import FRAMEWORK_FILES

__all__ = ["SAMPLE_MARKER", "is_sample_corpus"]

SAMPLE_MARKER = "<!-- agenthorizon sample corpus: synthetic data written by `agenthorizon sample`, not the AgentHorizon release -->"
"""The first line of a sample corpus's framework text (never changed, so older corpora stay recognised)."""


def is_sample_corpus(root: str | os.PathLike[str]) -> bool:
    """Whether the release at ``root`` is a generated sample corpus (its framework text starts with the marker).

    A release without the framework file, or one that cannot be read, is
    not taken for a sample: the marker is the sample's own statement.

    >>> import tempfile, agenthorizon
    >>> is_sample_corpus(agenthorizon.generate_sample(tempfile.mkdtemp() + "/r", preset="tiny", images=False).root)
    True
    >>> is_sample_corpus(tempfile.mkdtemp())
    False
    """
    path = Path(root) / FRAMEWORK_FILES[0]
    try:
        with open_confined(root, path, "framework file", "r", encoding="utf-8") as handle:
            return handle.readline(len(SAMPLE_MARKER) + 2).rstrip("\n") == SAMPLE_MARKER
    except (OSError, ValueError):
        return False
