"""Judge a sample corpus, then write what goes to the Hub: Eval Results entries, a judgments dataset, a bundle.

Runs offline in seconds on the `small` sample corpus (the real release works
the same way: pass its root, or a Hub repo id to `agenthorizon results --data`).

    .venv/bin/python examples/publish_results.py [OUT_DIR]     # OUT_DIR: ./agenthorizon-results by default

Writes OUT_DIR/results/.eval_results/*.yaml (for the judge's model repo),
OUT_DIR/results/judgments/ (Parquet + card, with the submission bundle in
bundle/), checks the bundle as `agenthorizon verify-results` does, and loads
the judgments with plain `datasets`. Uploading is one more argument:
`agenthorizon results RUN --data ROOT --push OWNER/NAME`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import agenthorizon
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.report.bundle import verify_bundle
from agenthorizon.report.publish import publish_results


def main(out: Path) -> None:
    root = out / "release"
    if not (root / "AgentHorizon.jsonl").exists():
        agenthorizon.generate_sample(root, preset="small", seed=0)
    runs = []
    for config in ("AH", "AH-S"):  # one judge, one run per leaderboard task
        dataset = agenthorizon.load_dataset(root, config, split="test", images="paths")
        runs.append(out / "runs" / f"lexical-{config}")
        print(run_judge("lexical", dataset, runs[-1], config=config, data_root=root, progress=False))

    summary = publish_results(runs, root, out / "results", dataset_id="ServiceNow/AgentHorizon", bootstrap=1000)
    for path in summary.eval_results:
        print(f"{path.relative_to(out)}:\n{path.read_text(encoding='utf-8')}")
    for note in summary.notes:
        print("note:", note)

    # Anyone holding the release can check the bundle: same files, same release, same numbers bit for bit.
    for run in verify_bundle(summary.bundle, root).runs:
        print(f"verified {run['path']}: {run['config']} balanced accuracy {run['balanced_accuracy']!r}")

    import datasets

    verdicts = datasets.load_dataset(str(summary.judgments), "verdicts", split="test")
    print(f"judgments: plain datasets sees {len(verdicts)} verdicts, columns {verdicts.column_names[:6]}...")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "agenthorizon-results"))
