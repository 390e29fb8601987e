"""Re-partition the release by difficulty from a pool of one's own judge runs, written as a loadable release.

``agenthorizon partition RUNS... --threshold K --out DIR`` counts, per item,
how many of the pooled runs judged it correctly
(:func:`agenthorizon.scoring.partition.difficulty_partition`): at most ``K``
correct is hard, the rest easy. :func:`write_partition` writes ``DIR`` as a
release of its own: ``AgentHorizon.jsonl`` (hard) and
``AgentHorizon-Simple.jsonl`` (easy) in the release's format (the seven label
fields, in order, one JSON object a line), ``partition.json`` (per item the
number of runs correct, the threshold, the runs, the agreement with the
shipped split), and ``sandbox/`` as hard links to the release's own files
(same bytes, no copy), so ``load_dataset(DIR, "AH")``, ``agenthorizon judge
--data DIR`` and ``score --data DIR`` read the new split with the release's
trajectories and screenshots. With ``sandbox=False`` only the label files
are written.

Counting rules, stated in every output: each run folder is one judgment
per item; an item a run has no valid verdict for (no result, a failed or
unparseable answer) counts as *not* correct for that run, never as left
out, and the count of such items per run is reported. Items outside the
runs' selection (AH-D when the runs were made with ``exclude_dev``) are not
re-judged: they keep their shipped side.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from agenthorizon.judging.runs.folder import read_results, read_run_record
from agenthorizon.release.files import local_root, read_labels
from agenthorizon.release.item_selection import Selection
from agenthorizon.report.coverage import check_coverage, coverage
from agenthorizon.report.references import load_run_references
from agenthorizon.report.runs import run_label
from agenthorizon.schema import CONFIG_ALL, LABEL_FIELDS, LABEL_FILE_EASY, LABEL_FILE_HARD, SANDBOX_DIR
from agenthorizon.scoring.outcomes import item_outcomes
from agenthorizon.scoring.partition import difficulty_partition, partition_agreement

__all__ = ["Partition", "partition_runs", "write_partition"]

_SELECTION_KEYS = ("dev_groups", "dev_manifest", "dev_manifest_sha256", "exclude_dev")


@dataclass
class Partition:
    """A re-partition: per judged item its count of correct runs and side, and how it was made.

    ``runs`` lists per run its folder, label, config and how many judged
    items it has no valid verdict for (``not_valid``: counted as not
    correct); ``agreement`` is :func:`~agenthorizon.scoring.partition.partition_agreement`
    with the shipped split (AH hard, AH-S easy) over the judged items.
    """

    threshold: int
    rows: list[dict[str, Any]]
    n_correct: dict[str, int]
    hard: dict[str, bool]
    runs: list[dict[str, Any]]
    agreement: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """``partition.json``: the threshold, runs, agreement, notes and per item ``n_correct`` and side."""
        return {
            "threshold": self.threshold,
            "n_runs": len(self.runs),
            "runs": self.runs,
            "agreement_with_release": self.agreement,
            "notes": self.notes,
            "items": {
                tid: {"n_correct": count, "difficulty": "hard" if self.hard[tid] else "easy"}
                for tid, count in self.n_correct.items()
            },
        }


def _shared_options(records: dict[str, Any]) -> dict[str, Any]:
    seen = {tuple(getattr(record.selection, key) for key in _SELECTION_KEYS) for record in records.values()}
    if len(seen) > 1:
        raise ValueError(
            "the runs were made on different item selections (dev groups, dev manifest or exclude_dev); "
            "pool runs of one selection"
        )
    return dict(zip(_SELECTION_KEYS, next(iter(seen)))) if seen else {}


def partition_runs(
    run_dirs: Sequence[str | os.PathLike[str]], data_root: str | os.PathLike[str], threshold: int
) -> Partition:
    """Count per item how many runs judged it correctly and split at ``threshold``.

    The items are the whole release (``all``) under the runs' shared dev-set
    choice. Each folder is one run (merge shards into one folder first).
    A run made on AH or AH-S alone has no verdict for the other file's
    items: they count as not correct for it, and a note says so.

    Raises
    ------
    FileNotFoundError
        A folder without a run record.
    ValueError
        No run, a bad threshold, or runs of different selections.
    """
    if not run_dirs:
        raise ValueError("no run directory given; expected the runs to pool")
    records = {}
    for raw in run_dirs:
        record = read_run_record(raw)
        if record is None:
            raise FileNotFoundError(f"{raw}: no run.json or run-shard-*.json; expected a run directory")
        records[os.fspath(raw)] = record
    references = load_run_references(data_root, Selection(CONFIG_ALL, **_shared_options(records)))
    rows = references.rows
    ids = references.ids()
    corrects, runs, notes = [], [], []
    for folder, record in records.items():
        result_set = read_results([folder])
        # Runs of another release would count every item wrong and skew the split, not fail: refused.
        check_coverage(coverage(result_set.ids(), ids, references.release_ids, config=CONFIG_ALL), folder)
        predictions = result_set.predictions(ids)
        outcomes = item_outcomes(predictions, rows)
        corrects.append(outcomes.correct)
        not_valid = int((~outcomes.valid).sum())
        runs.append({"run": folder, "label": run_label(record, Path(folder)), "config": record.config,
                     "not_valid": not_valid, "missing": len(ids) - len(predictions)})
        if record.config != CONFIG_ALL:
            notes.append(f"{folder}: run on {record.config} only; its {len(ids) - len(predictions)} items without a "
                         "result count as not correct")
    n_correct, hard = difficulty_partition(corrects, threshold)
    shipped = np.array([row["difficulty"] == "hard" for row in rows])
    notes.insert(0, "An item a run has no valid verdict for (missing, failed, unparseable) counts as not correct "
                    "for that run.")
    return Partition(
        threshold=threshold, rows=rows,
        n_correct={row["trajectory_id"]: int(count) for row, count in zip(rows, n_correct)},
        hard={row["trajectory_id"]: bool(side) for row, side in zip(rows, hard)},
        runs=runs, agreement=partition_agreement(hard, shipped), notes=notes,
    )


def _link_tree(source: Path, target: Path) -> int:
    """Hard-link every file under ``source`` into ``target`` (folders made); returns the number of files."""
    count = 0
    for folder, _dirs, files in os.walk(source):
        destination = target / Path(folder).relative_to(source)
        destination.mkdir(parents=True, exist_ok=True)
        for name in files:
            try:
                # A link in the release is linked as the link itself, never as what it points to: the
                # loaders' confinement then judges it in the new folder as it did in the release.
                os.link(Path(folder) / name, destination / name, follow_symlinks=False)
            except OSError as error:
                raise OSError(
                    f"cannot hard-link {Path(folder) / name} into {destination} ({error.strerror}); put --out on the "
                    "release's file system, or write the label files alone (--labels-only)"
                ) from None
            count += 1
    return count


def write_partition(
    partition: Partition, data_root: str | os.PathLike[str], out_dir: str | os.PathLike[str], *, sandbox: bool = True
) -> dict[str, Any]:
    """Write the split as a release at ``out_dir``; returns what was written.

    Items the runs did not judge keep their shipped side. Rows keep the
    release's order within each file. ``out_dir`` must not hold label files
    already.

    Returns
    -------
    dict
        ``hard``, ``easy`` (items per file), ``kept`` (items not judged,
        left on their shipped side), ``sandbox_files`` (files linked; 0
        without ``sandbox``), ``files`` (paths written).
    """
    root = local_root(data_root)
    out = Path(out_dir)
    real_root, real_out = Path(root).resolve(), out.resolve()
    if real_out == real_root or real_root in real_out.parents:
        raise ValueError(f"--out {out} is inside the release {root}; expected a folder outside it")
    for name in (LABEL_FILE_HARD, LABEL_FILE_EASY):
        if (out / name).exists():
            raise ValueError(f"{out / name} exists; expected an empty or new --out folder")
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, list[str]] = {LABEL_FILE_HARD: [], LABEL_FILE_EASY: []}
    kept = 0
    for row in read_labels(root):
        side = partition.hard.get(row["trajectory_id"])
        if side is None:
            kept += 1
            side = row["difficulty"] == "hard"
        # The release's own line format: the seven fields in order, json.dumps defaults.
        files[LABEL_FILE_HARD if side else LABEL_FILE_EASY].append(
            json.dumps({name: row[name] for name in LABEL_FIELDS}, ensure_ascii=False) + "\n"
        )
    written = []
    for name, lines in files.items():
        (out / name).write_text("".join(lines), encoding="utf-8")
        written.append(out / name)
    (out / "partition.json").write_text(json.dumps(partition.to_dict(), indent=2) + "\n", encoding="utf-8")
    written.append(out / "partition.json")
    linked = _link_tree(Path(root) / SANDBOX_DIR, out / SANDBOX_DIR) if sandbox else 0
    return {"hard": len(files[LABEL_FILE_HARD]), "easy": len(files[LABEL_FILE_EASY]), "kept": kept,
            "sandbox_files": linked, "files": [str(path) for path in written]}
