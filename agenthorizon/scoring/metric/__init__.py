"""The AgentHorizon ``evaluate`` module.

``metric.py`` in this directory is an ``evaluate`` metric script; ``evaluate``
resolves a local directory to the script of the same name inside it, so
:data:`METRIC_PATH` (this directory) can be handed to ``evaluate.load``.
The script's logic is :mod:`agenthorizon.scoring.metrics`; nothing is implemented
twice. Importing this package does not import ``evaluate``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

METRIC_PATH: str = str(Path(__file__).resolve().parent)
"""Directory holding the metric script and its card; ``evaluate.load(METRIC_PATH)`` works."""


def load_metric(**kwargs: Any) -> Any:
    """Load the strict AgentHorizon metric as an ``evaluate.Metric``.

    The same as ``evaluate.load(agenthorizon.METRIC_PATH, **kwargs)``. Its
    ``compute(predictions=..., references=...)`` (and ``add`` /
    ``add_batch``) take exactly what :func:`agenthorizon.score` takes --
    references may be label rows, label strings or a ``datasets.Dataset`` --
    and return a dict of

    - ``balanced_accuracy`` = 0.5 * (positive accuracy + negative accuracy),
      in [0, 1], higher is better, 0.5 is chance (the primary metric);
    - ``positive_accuracy``, ``negative_accuracy``, ``accuracy``, in [0, 1],
      higher is better (``None`` when the references hold no item of a class);
    - ``invalid_rate``, in [0, 1], lower is better: invalid predictions
      (missing, malformed JSON, no or non-Boolean ``success``) are counted as
      incorrect and never leave a denominator;
    - ``n_invalid`` and ``invalid_by_reason`` (reason -> count);
    - ``n``, the number of references;
    - ``mistake_type_recall`` (type -> recall in [0, 1] or ``None``) and
      ``mistake_type_recall_macro``;
    - ``rejection_rate_by_type``, ``instruction_sensitivity``,
      ``pair_group_accuracy`` (the paired design's scores,
      :mod:`agenthorizon.scoring.paired`) and ``cost`` / ``runtime``
      (:mod:`agenthorizon.scoring.telemetry`; ``None`` without telemetry).

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
    The metric card ``README.md`` in :data:`METRIC_PATH`; the scoring
    protocol in ``docs/scoring.md``.

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
