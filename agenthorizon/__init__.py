"""agenthorizon: the AgentHorizon benchmark for the Hugging Face ecosystem.

The public API is re-exported here and imported lazily, so heavy
dependencies load only when the name that needs them is used.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    # loading
    "load_dataset": "agenthorizon.data.load",
    "AgentHorizon": "agenthorizon.data.builder",
    "AgentHorizonConfig": "agenthorizon.data.builder",
    "resolve_release": "agenthorizon.release.hub",
    "verify_release": "agenthorizon.release.verify",
    "derive_dev_set": "agenthorizon.release.splits",
    # sample corpus
    "generate_sample": "agenthorizon.release.sample",
    # judging
    "build_judge_input": "agenthorizon.judging.inputs",
    "JudgeInput": "agenthorizon.judging.inputs",
    "to_markdown": "agenthorizon.release.render",
    "parse_verdict": "agenthorizon.scoring.verdicts",
    "Verdict": "agenthorizon.scoring.verdicts",
    "run_judge": "agenthorizon.judging.runs.runner",
    "make_judge": "agenthorizon.judging.judges",
    "BaseJudge": "agenthorizon.judging.judges",
    "JudgeOutput": "agenthorizon.judging.judges",
    # scoring
    "score": "agenthorizon.scoring.metrics",
    "ScoreReport": "agenthorizon.scoring.metrics",
    "compare": "agenthorizon.scoring.compare",
    "Comparison": "agenthorizon.scoring.compare",
    "score_runs": "agenthorizon.report.scored_runs",
    "ScoredRuns": "agenthorizon.report.scored_runs",
    "leaderboard": "agenthorizon.report.leaderboard",
    "Leaderboard": "agenthorizon.report.leaderboard",
    "load_metric": "agenthorizon.scoring.metric",
    "METRIC_PATH": "agenthorizon.scoring.metric",
    # publishing
    "export_release": "agenthorizon.data.export",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'agenthorizon' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
