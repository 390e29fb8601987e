"""``agenthorizon demo``: the main job, end to end, offline, in well under a minute.

It generates (or reuses) the ``small`` sample corpus in ``--out``, runs the
lexical and the constant judge on AH-D and AH, scores them and compares them
on AH. The corpus is synthetic: its numbers show the pipeline working, not how
a judge does on the real benchmark.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from agenthorizon.cli._common import non_negative_int
from agenthorizon.schema import CONFIG_AH, CONFIG_AH_D, CONFIG_AH_S, LABEL_FILES, MISTAKE_TYPES, NEGATIVE, POSITIVE

HELP = "Run the main job on a generated sample corpus: load, judge (lexical, constant), score and compare."

DEMO_JUDGES = ("lexical", "constant:true")
DEMO_CONFIGS = (CONFIG_AH_D, CONFIG_AH)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="agenthorizon-demo", metavar="DIR",
                        help="working folder: DIR/release (sample corpus) and DIR/runs (default ./agenthorizon-demo)")
    parser.add_argument("--preset", default="small", choices=("tiny", "small"), help="sample corpus size (default small)")
    parser.add_argument("--bootstrap", type=non_negative_int, default=1000, metavar="N", help="bootstrap resamples (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="sample corpus and bootstrap seed (default 0)")


def summarise(name: str, dataset) -> str:
    """One line about a loaded config: items, labels, mistake types, steps, pair groups."""
    labels = dataset["label"]
    types = [t for t in dataset["mistake_type"] if t]
    steps = dataset["num_steps"]
    by_type = ", ".join(f"{types.count(t)} {t.split()[0].lower()}" for t in MISTAKE_TYPES)
    return (
        f"  {name:5s} {len(dataset):4d} items: {labels.count(POSITIVE)} positive / {labels.count(NEGATIVE)} negative "
        f"({by_type}); median {statistics.median(steps):.0f} steps; "
        f"{len(set(dataset['pair_group_id']))} pair groups"
    )


def run(args: argparse.Namespace) -> int:
    import agenthorizon
    from agenthorizon.report.tables import Rate, Table, render_comparison, render_table
    from agenthorizon.judging.runs.folder import read_results
    from agenthorizon.judging.runs.runner import run_judge
    from agenthorizon.release.sample import generate
    from agenthorizon.scoring.compare import compare

    import datasets

    datasets.disable_progress_bars()  # the demo prints its own short lines
    started = time.perf_counter()
    out = Path(args.out)
    root = out / "release"
    if all((root / name).is_file() for name in LABEL_FILES):
        print(f"Reusing the sample corpus in {root}")
    else:
        print(f"Generating the {args.preset} sample corpus in {root} ...")
        generate(root, preset=args.preset, seed=args.seed)

    print("\nConfigs:")
    loaded = {}
    for config in (CONFIG_AH, CONFIG_AH_S, CONFIG_AH_D):
        loaded[config] = agenthorizon.load_dataset(root, config, split="test", images="paths")
        print(summarise(config, loaded[config]))

    print("\nJudging:")
    runs = {}
    for config in DEMO_CONFIGS:
        for spec in DEMO_JUDGES:
            run_dir = out / "runs" / f"{spec.split(':')[0]}-{config}"
            summary = run_judge(spec, loaded[config], run_dir, config=config, data_root=root, progress=False,
                                bootstrap=args.bootstrap)
            runs[spec, config] = summary
            print(f"  {spec:14s} on {config:4s}: {summary.n_selected} items "
                  f"({summary.counts.skipped} reused) -> {run_dir}")

    rows = []
    for (spec, config), summary in runs.items():
        report = summary.score
        interval = (report.intervals or {}).get
        rows.append([
            spec,
            config,
            report.n,
            Rate(report.balanced_accuracy, interval("balanced_accuracy")),
            Rate(report.positive_accuracy, interval("positive_accuracy")),
            Rate(report.negative_accuracy, interval("negative_accuracy")),
            Rate(report.mistake_type_recall_macro),
            report.n_invalid,
        ])
    any_report = next(iter(runs.values())).score
    notes = ["Synthetic sample corpus: these numbers show the pipeline, not real benchmark results."]
    if any_report.bootstrap:
        notes.append(f"Intervals: 95% pair-clustered bootstrap, {any_report.bootstrap['n_resamples']} resamples.")
    table = Table(
        title="Scores (%, strict: invalid predictions count as wrong)",
        header=["judge", "config", "n", "balanced", "positive", "negative", "type recall", "invalid"],
        rows=rows,
        notes=notes,
    )
    print()
    print(render_table(table, "table"), end="")

    # Pair-clustered bootstrap of the difference and an exact McNemar test on per-item correctness.
    predictions = [read_results([runs[spec, CONFIG_AH].out_dir]).predictions() for spec in DEMO_JUDGES]
    comparison = compare(predictions[0], predictions[1], loaded[CONFIG_AH], bootstrap=args.bootstrap or 1000,
                         seed=args.seed)
    print()
    print(render_comparison(comparison, "table", names=("lexical", "constant")), end="")
    print(f"\nDone in {time.perf_counter() - started:.1f} s. Score a run again with:\n"
          f"  agenthorizon score {out / 'runs' / 'lexical-AH'} --data {root} --config AH --bootstrap 1000")
    return 0
