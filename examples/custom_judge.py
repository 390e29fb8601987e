"""Build your own judge, run it over AH-D with the resumable runner, and score it.

The judge below accepts a trajectory when its last typed text mentions a word
of the instruction -- a deliberately naive rule: replace ``judge()`` with your
model call. It sees only the blind input (instruction, steps, Markdown,
screenshots), never the label.

    python examples/custom_judge.py                 # generates a small sample corpus in a temp dir
    AGENTHORIZON_DATA=/path/to/release python examples/custom_judge.py
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import agenthorizon
from agenthorizon.judging.judges import BaseJudge, JudgeOutput


class LastTypedTextJudge(BaseJudge):
    """Success when the last typed text shares a word (4+ letters) with the instruction."""

    name = "last-typed-text"

    def judge(self, judge_input):  # a blocking judge; the runner runs it in threads
        instruction_words = {w.strip(".,\"'").lower() for w in judge_input.instruction.split() if len(w) >= 4}
        typed = judge_input.typed_text()
        last = typed[-1].lower() if typed else ""
        success = any(word in last for word in instruction_words)
        verdict = {
            "success": success,
            "reasoning": f"last typed text {'shares' if success else 'shares no'} word with the instruction",
            "confidence": "low",
            "mistake_type": None if success else "Critical Mistake",
        }
        return JudgeOutput(text=json.dumps(verdict))

    def spec(self):
        return {"name": self.name, "spec": self.name, "rule": "last typed text overlaps the instruction"}


def data_root(work: Path) -> Path:
    """The release root from AGENTHORIZON_DATA, else a small sample freshly generated in ``work``."""
    if os.environ.get("AGENTHORIZON_DATA"):
        return Path(os.environ["AGENTHORIZON_DATA"])
    root = work / "release"
    agenthorizon.generate_sample(root, preset="small", seed=0)
    return root


def main() -> None:
    # The sample corpus and the run folder live in a temporary folder removed at the end.
    with tempfile.TemporaryDirectory(prefix="agenthorizon-example-") as work:
        judge_and_score(data_root(Path(work)), Path(work) / "last-typed-text-AH-D")


def judge_and_score(root: Path, out: Path) -> None:
    dev = agenthorizon.load_dataset(root, "AH-D", split="test", images="paths")
    summary = agenthorizon.run_judge(LastTypedTextJudge(), dev, out, config="AH-D", data_root=root,
                                     concurrency=8, progress=False, bootstrap=500)
    print(summary)
    report = summary.score
    low, high = report.intervals["balanced_accuracy"]
    print(f"balanced accuracy {100 * report.balanced_accuracy:.1f}% (95% CI {100 * low:.1f}-{100 * high:.1f}), "
          f"positive {100 * report.positive_accuracy:.1f}%, negative {100 * report.negative_accuracy:.1f}%")
    # Running again resumes: nothing left to judge.
    again = agenthorizon.run_judge(LastTypedTextJudge(), dev, out, config="AH-D", progress=False)
    assert again.judged == 0 and again.counts.skipped == len(dev)


if __name__ == "__main__":
    main()
