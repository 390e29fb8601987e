"""``agenthorizon leaderboard``: one table across judge runs, shaped like the paper's Table 2.

Runs are grouped by their judge key (:attr:`RunRecord.judge_key`: the judge
spec, model, prompt, sampling and image settings), never by the judge's
class name, so two models, or one model at two temperatures, are two rows.
A key's runs on AH and on AH-S (or one run on ``all``) form one row; shards
of one run in separate folders are merged; two runs of one key on the same
config are an error naming both folders. Each row is labelled with the
model name, else the judge spec, and gets balanced, positive and negative
accuracy on AH and AH-S (blank when it was not run on a config) and
mistake-type recall over all its scored items.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenthorizon.schema import CONFIG_AH, CONFIG_AH_S, CONFIG_ALL

HELP = "Compare judge runs in one table shaped like the paper's Table 2 (AH and AH-S)."

LEADERBOARD_CONFIGS = (CONFIG_AH, CONFIG_AH_S)
# A run on "all" covers both columns; other configs (AH-D) overlap them.
_COVERS = {CONFIG_AH: (CONFIG_AH,), CONFIG_AH_S: (CONFIG_AH_S,), CONFIG_ALL: LEADERBOARD_CONFIGS}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.cli._common import add_bootstrap_arguments
    from agenthorizon.report.tables import FORMATS

    parser.add_argument("runs", nargs="+", metavar="RUN", help="run directories (each holds run.json or run-shard-*.json)")
    parser.add_argument("--data", required=True, metavar="ROOT", help="local release root (holds the label files)")
    add_bootstrap_arguments(parser, default=0)
    parser.add_argument("--format", default="markdown", choices=FORMATS, help="output format (default markdown)")
    parser.add_argument("--out", metavar="FILE", help="write the table here instead of standard output")


@dataclass
class _Entry:
    """The runs of one judge key: its label and, per covered config, the folders."""

    key: str
    label: str
    folders: dict[str, list[tuple[Path, Any]]]


def _read_run(run_dir: Path) -> Any:
    from agenthorizon.judging.runs.records import read_run_record

    record = read_run_record(run_dir)  # merges shards; they must agree on judge and selection
    if record is None:
        raise FileNotFoundError(f"{run_dir}: no run.json or run-shard-*.json; expected a run directory")
    if record.config not in _COVERS:
        raise ValueError(
            f"{run_dir}: run on config {record.config!r}; the leaderboard ranks runs on "
            f"{', '.join(_COVERS)} (AH-D overlaps both columns)"
        )
    return record


def group_runs(run_dirs: list[str]) -> list[_Entry]:
    """Runs grouped by judge key, in the order first given; overlapping runs of a key raise."""
    from agenthorizon.judging.runs.records import distinct_labels

    entries: dict[str, _Entry] = {}
    for raw in run_dirs:
        run_dir = Path(raw)
        record = _read_run(run_dir)
        entry = entries.setdefault(record.judge_key, _Entry(record.judge_key, record.label, {}))
        for config in _COVERS[record.config]:
            for other, other_record in entry.folders.get(config, []):
                if not _shards_of_one_run(record, other_record):
                    raise ValueError(
                        f"two runs of judge {record.label} (key {record.judge_key}) on {config}: {other} and "
                        f"{run_dir}; expected one run per judge and config (merge shards into one folder, "
                        "or leave one run out)"
                    )
            entry.folders.setdefault(config, []).append((run_dir, record))
    # One model under two harnesses, or at two temperatures, must not share a label.
    first_records = [next(iter(entry.folders.values()))[0][1] for entry in entries.values()]
    for entry, label in zip(entries.values(), distinct_labels(first_records)):
        entry.label = label
    return list(entries.values())


def _shared_options(entries: list[_Entry]) -> dict[str, Any]:
    """The dev-set options (``exclude_dev``, dev groups, manifest) every run shares; differing ones raise."""
    seen: dict[tuple, Path] = {}
    for entry in entries:
        for folders in entry.folders.values():
            for folder, record in folders:
                selection = record.selection
                seen.setdefault((selection.dev_groups, selection.dev_manifest, selection.exclude_dev), folder)
    if len(seen) > 1:
        listing = "; ".join(f"{folder}: dev_groups={k[0]}, dev_manifest={k[1]}, exclude_dev={k[2]}" for k, folder in seen.items())
        raise ValueError(f"the runs were made on different item selections ({listing}); rank runs of one selection")
    if not seen:
        return {}
    dev_groups, dev_manifest, exclude_dev = next(iter(seen))
    return {"dev_groups": dev_groups, "dev_manifest": dev_manifest, "exclude_dev": exclude_dev}


def _shards_of_one_run(a: Any, b: Any) -> bool:
    """Two records of different shards (same count) of one run, in separate folders."""
    return (
        a.shard is not None
        and b.shard is not None
        and a.shard.get("count") == b.shard.get("count")
        and a.shard.get("index") != b.shard.get("index")
    )


def run(args: argparse.Namespace) -> int:
    from agenthorizon.cli._common import (
        load_selection_references,
        manifest_of,
        predictions_from_results,
        result_notes,
        write_output,
    )
    from agenthorizon.judging.runs.records import read_results
    from agenthorizon.release.splits import Selection
    from agenthorizon.report.tables import LeaderboardRow, render_leaderboard
    from agenthorizon.scoring.metrics import score

    entries = group_runs(args.runs)
    options = _shared_options(entries)
    references: dict[str, list[dict[str, Any]]] = {}
    manifests = []
    for config in LEADERBOARD_CONFIGS:
        rows, label_rows = load_selection_references(args.data, Selection(config, **options))
        references[config] = rows
        manifests.append(manifest_of(config, label_rows))

    rows = []
    notes = []
    for entry in entries:
        covered = [config for config in LEADERBOARD_CONFIGS if config in entry.folders]
        folders = list(dict.fromkeys(folder for config in covered for folder, _ in entry.folders[config]))
        result_set = read_results(folders)
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
        rows.append(LeaderboardRow(judge=entry.label, reports=reports, recall=recall, judge_key=entry.key,
                                   runs=[str(folder) for folder in folders]))
        for note in result_notes(result_set, unexpected, len(wanted) - len(predictions)):
            notes.append(f"{entry.label}: {note}")

    def rank(row: LeaderboardRow) -> tuple:
        report = row.reports.get(CONFIG_AH)
        value = report.balanced_accuracy if report is not None else None
        return (value is None, -(value or 0.0), row.judge)

    rows.sort(key=rank)
    notes.append("Mistake-type recall is over all of a judge's scored items (AH and AH-S where run).")
    text = render_leaderboard(rows, LEADERBOARD_CONFIGS, args.format, manifests=manifests, notes=notes)
    write_output(text, args.out)
    return 0
