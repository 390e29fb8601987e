"""The AgentHorizon ``evaluate`` module.

``metric.py`` in this directory is an ``evaluate`` metric script; ``evaluate``
resolves a local directory to the script of the same name inside it, so
:data:`METRIC_PATH` (this directory) can be handed to ``evaluate.load``.
The script's logic is :mod:`agenthorizon.scoring`; nothing is implemented
twice. Importing this package does not import ``evaluate``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

METRIC_PATH: str = str(Path(__file__).resolve().parent)
"""Directory holding the metric script and its card; ``evaluate.load(METRIC_PATH)`` works."""


def load_metric(**kwargs: Any) -> Any:
    """Load the AgentHorizon metric as an ``evaluate.Metric``.

    Keyword arguments go to ``evaluate.load`` (``cache_dir``,
    ``keep_in_memory``, ``experiment_id``, ...).

    >>> import agenthorizon
    >>> metric = agenthorizon.load_metric()  # doctest: +SKIP
    >>> metric.compute(predictions=[True, None], references=["positive", "negative"])["balanced_accuracy"]  # doctest: +SKIP
    0.5
    """
    import evaluate

    return evaluate.load(METRIC_PATH, **kwargs)
