"""The AgentHorizon ``evaluate`` module: ``evaluate.load(METRIC_PATH)`` loads ``metric.py`` here.

Its logic is :mod:`agenthorizon.scoring.metrics`. Importing this package does not import ``evaluate``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

METRIC_PATH: str = str(Path(__file__).resolve().parent)
"""Directory holding the metric script and its card (``evaluate`` loads the script named after it)."""


def load_metric(**kwargs: Any) -> Any:
    """Load the strict AgentHorizon metric as an ``evaluate.Metric``.

    The same as ``evaluate.load(agenthorizon.METRIC_PATH, **kwargs)``. Its
    ``compute(predictions=..., references=...)`` (and ``add`` /
    ``add_batch``) take what :func:`agenthorizon.score` takes and return
    :meth:`ScoreReport.metric_values <agenthorizon.scoring.metrics.ScoreReport.metric_values>`:
    ``balanced_accuracy`` (the primary metric, in [0, 1], 0.5 is chance),
    ``positive_accuracy``, ``negative_accuracy``, ``accuracy``,
    ``invalid_rate`` (invalid predictions count as incorrect and never leave
    a denominator), ``mistake_type_recall``, the paired scores, ``cost`` /
    ``runtime`` and the rest; every rate is in [0, 1] or ``None``.

    Parameters
    ----------
    **kwargs
        Passed to ``evaluate.load`` (``cache_dir``, ``keep_in_memory``,
        ``experiment_id``, ...).

    Returns
    -------
    evaluate.Metric

    See Also
    --------
    agenthorizon.score : the same numbers, plus bootstrap intervals and slices.

    References
    ----------
    The metric card ``README.md`` in :data:`METRIC_PATH`; ``docs/scoring.md``.

    Examples
    --------
    >>> import agenthorizon
    >>> metric = agenthorizon.load_metric()
    >>> result = metric.compute(predictions=[True, "true", None, False],
    ...                         references=["positive", "positive", "negative", "negative"])
    >>> result["balanced_accuracy"], result["invalid_rate"]
    (0.5, 0.5)
    """
    import evaluate

    return evaluate.load(METRIC_PATH, **kwargs)
