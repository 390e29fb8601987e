"""AgentHorizon as a Hub-style ``datasets`` loading script.

For users still on ``datasets`` < 4 (which runs loading scripts) and for
publishing: ``datasets.load_dataset("agenthorizon_loader.py", "AH",
data_dir="/path/to/release")``. On ``datasets`` >= 4, which refuses scripts,
use ``agenthorizon.load_dataset`` instead; it drives the same builder.

The builder is defined once, in :mod:`agenthorizon.builder`; this file only
exposes it, so the script and the library can never disagree.
"""

from __future__ import annotations

from agenthorizon.builder import AgentHorizon, AgentHorizonConfig

__all__ = ["AgentHorizon", "AgentHorizonConfig"]
