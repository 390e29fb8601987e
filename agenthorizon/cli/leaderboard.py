"""``agenthorizon leaderboard``: one table across judge runs, shaped like the paper's Table 2.

Run directories are grouped by the judge name in their run record; shards
and separate AH / AH-S runs of one judge are merged. Each judge gets
balanced, positive and negative accuracy on AH and AH-S (blank when it was
not run on a config) and mistake-type recall over all its scored items.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from agenthorizon.schema import CONFIG_AH, CONFIG_AH_S, CONFIG_ALL

HELP = "Compare judge runs in one table shaped like the paper's Table 2 (AH and AH-S)."

LEADERBOARD_CONFIGS = (CONFIG_AH, CONFIG_AH_S)
# A run on "all" covers both columns; other configs (AH-D) overlap them.
_COVERS = {CONFIG_AH: (CONFIG_AH,), CONFIG_AH_S: (CONFIG_AH_S,), CONFIG_ALL: LEADERBOARD_CONFIGS}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.report.tables import FORMATS

    parser.add_argument("runs", nargs="+", metavar="RUN", help="run directories (each holds run.json or run-shard-*.json)")
    parser.add_argument("--data", required=True, metavar="ROOT", help="local release root (holds the label files)")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N", help="pair-clustered bootstrap resamples (0: none)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--format", default="markdown", choices=FORMATS, help="output format (default markdown)")
    parser.add_argument("--out", metavar="FILE", help="write the table here instead of standard output")


def judge_and_config(run_dir: Path) -> tuple[str, str]:
    """``(judge name, config)`` from a run directory's run record(s)."""
    from agenthorizon.report.runs import read_run_record

    record = read_run_record(run_dir)  # merges shards; they must agree on judge and config
    if not record:
        raise FileNotFoundError(f"{run_dir}: no run.json or run-shard-*.json; expected a run directory")
    judge = record.get("judge")
    name = judge.get("name") if isinstance(judge, dict) else None
    config = record.get("config")
    if not isinstance(name, str) or not name:
        raise ValueError(f'{run_dir}: expected "judge": {{"name": ...}} in the run record')
    if config not in _COVERS:
        raise ValueError(
            f"{run_dir}: run on config {config!r}; the leaderboard ranks runs on "
            f"{', '.join(_COVERS)} (AH-D overlaps both columns)"
        )
    return name, config


def run(args: argparse.Namespace) -> int:
    from agenthorizon.cli.score import (
        load_config_references,
        manifest_of,
        predictions_from_results,
        result_notes,
        write_output,
    )
    from agenthorizon.report.tables import LeaderboardRow, render_leaderboard
    from agenthorizon.judging.runs.records import read_results
    from agenthorizon.scoring.metrics import score

    if args.bootstrap < 0:
        raise ValueError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    runs_by_judge: dict[str, list[tuple[Path, str]]] = {}
    for raw in args.runs:
        run_dir = Path(raw)
        name, config = judge_and_config(run_dir)
        runs_by_judge.setdefault(name, []).append((run_dir, config))

    references: dict[str, list[dict[str, Any]]] = {}
    manifests = []
    for config in LEADERBOARD_CONFIGS:
        rows, label_rows = load_config_references(args.data, config)
        references[config] = rows
        manifests.append(manifest_of(config, label_rows))

    rows = []
    notes = []
    for judge, runs in runs_by_judge.items():
        covered = [c for c in LEADERBOARD_CONFIGS if any(c in _COVERS[config] for _, config in runs)]
        result_set = read_results([run_dir for run_dir, _ in runs])
        union = [row for config in covered for row in references[config]]
        wanted = {row["trajectory_id"] for row in union}
        predictions, unexpected = predictions_from_results(result_set, wanted)
        reports: dict[str, Any] = {}
        for config in LEADERBOARD_CONFIGS:
            if config not in covered:
                reports[config] = None
                continue
            ids = {row["trajectory_id"] for row in references[config]}
            subset = {key: value for key, value in predictions.items() if key in ids}
            reports[config] = score(subset, references[config], bootstrap=args.bootstrap, seed=args.seed)
        recall = score(predictions, union)
        rows.append(LeaderboardRow(judge=judge, reports=reports, recall=recall))
        for note in result_notes(result_set, unexpected, len(wanted) - len(predictions)):
            notes.append(f"{judge}: {note}")

    def rank(row: LeaderboardRow) -> tuple:
        report = row.reports.get(CONFIG_AH)
        value = report.balanced_accuracy if report is not None else None
        return (value is None, -(value or 0.0), row.judge)

    rows.sort(key=rank)
    notes.append("Mistake-type recall is over all of a judge's scored items (AH and AH-S where run).")
    text = render_leaderboard(rows, LEADERBOARD_CONFIGS, args.format, manifests=manifests, notes=notes)
    write_output(text, args.out)
    return 0
