"""Run AgentHorizon from Inspect, then score the Inspect log as a run (docs/inspect.md).

Inspect's offline mock model stands in for a judge here and accepts every
trajectory, so the balanced accuracy is 0.5 (chance) whatever the items. For a
real judge, replace the model with one served by vLLM or an API, e.g.
``model="openai-api/vllm/Qwen/Qwen3-VL-8B-Instruct"`` with ``VLLM_BASE_URL`` set,
or run the same task from the shell:
``inspect eval agenthorizon/agenthorizon -T data=ROOT -T config=AH --model ...``.

    python examples/inspect_eval.py                 # generates a small sample corpus in a temp dir
    AGENTHORIZON_DATA=/path/to/release python examples/inspect_eval.py

Needs the ``inspect`` extra: ``pip install 'agenthorizon[inspect]'``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage

from agenthorizon.cli import main
from agenthorizon.inspect_task.task import agenthorizon

ACCEPT = '{"success": true, "confidence": "low", "reasoning": "the mock model accepts everything"}'


def mock_judge(messages, tools, tool_choice, config):
    """Inspect's mock model calls this for each sample; a real model reads the prompt and the screenshots."""
    output = ModelOutput.from_content(model="mockllm/model", content=ACCEPT)
    # No model runs, so no token is spent; with usage left unset the mock model would estimate
    # it with tiktoken, which downloads its encoding on first use.
    output.usage = ModelUsage()
    return output


def main_example() -> None:
    # The sample corpus and the Inspect log live in a temporary folder removed at the end.
    with tempfile.TemporaryDirectory(prefix="agenthorizon-inspect-") as work:
        evaluate_and_score(Path(work))


def evaluate_and_score(work: Path) -> None:
    root = os.environ.get("AGENTHORIZON_DATA")
    if root is None:
        from agenthorizon.release.sample import generate

        root = str(generate(work / "release", preset="small", seed=0).root)
    # The task as `inspect eval agenthorizon/agenthorizon -T data=... -T config=AH-D` builds it.
    (log,) = inspect_eval(
        agenthorizon(data=root, config="AH-D", max_images=8),  # more screenshots than 8: 2x2 mosaics
        model="mockllm/model",
        model_args={"custom_outputs": mock_judge},
        log_dir=str(work / "logs"),
        display="none",
    )
    if log.status != "success":
        raise SystemExit(f"the Inspect eval ended {log.status}: {log.error.message if log.error else ''}")
    metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    print(f"Inspect log: {log.location}")
    print(f"Inspect metrics: balanced accuracy {metrics['balanced_accuracy']:.3f}, "
          f"positive {metrics['positive_accuracy']:.3f}, negative {metrics['negative_accuracy']:.3f}")
    # The same log, read as a run by the project's own scorer: the same numbers.
    main(["score", log.location, "--data", root])


if __name__ == "__main__":
    main_example()
