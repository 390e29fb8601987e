"""agenthorizon: the AgentHorizon benchmark for the Hugging Face ecosystem.

The public API is re-exported here and imported lazily, so ``import
agenthorizon`` stays cheap (the command line starts fast) and heavy
dependencies load only when the name that needs them is used.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    # loading
    "load_dataset": "agenthorizon.builder",
    "AgentHorizon": "agenthorizon.builder",
    "AgentHorizonConfig": "agenthorizon.builder",
    "resolve_release": "agenthorizon.source",
    "verify_release": "agenthorizon.verify",
    "derive_dev_set": "agenthorizon.splits",
    # sample corpus
    "generate_sample": "agenthorizon.sample",
    # judging
    "build_judge_input": "agenthorizon.judge_input",
    "JudgeInput": "agenthorizon.judge_input",
    "to_markdown": "agenthorizon.render",
    "parse_verdict": "agenthorizon.verdicts",
    "Verdict": "agenthorizon.verdicts",
    "run_judge": "agenthorizon.runner",
    "make_judge": "agenthorizon.judges",
    "BaseJudge": "agenthorizon.judges",
    "JudgeOutput": "agenthorizon.judges",
    # scoring
    "score": "agenthorizon.scoring",
    "ScoreReport": "agenthorizon.scoring",
    "compare": "agenthorizon.stats",
    "Comparison": "agenthorizon.stats",
    "load_metric": "agenthorizon.metric",
    "METRIC_PATH": "agenthorizon.metric",
    # publishing
    "export_release": "agenthorizon.export",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'agenthorizon' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name if name != "generate_sample" else "generate")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
