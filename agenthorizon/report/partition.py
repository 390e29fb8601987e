"""Re-partition the release by difficulty from a pool of one's own judge runs, written as a loadable release.

An item is hard when at most ``threshold`` pooled judges are correct on it
(:func:`partition_runs`); :func:`write_partition` writes the split as a folder
that loads, judges and scores as a release.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from agenthorizon.release.confine import confined
from agenthorizon.release.files import local_root, read_labels
from agenthorizon.report.scored_runs import JudgeScores, score_runs
from agenthorizon.schema import LABEL_FIELDS, LABEL_FILE_EASY, LABEL_FILE_HARD, SANDBOX_DIR
from agenthorizon.scoring.partition import difficulty_partition, partition_agreement

__all__ = ["Partition", "check_out_dir", "partition_runs", "write_partition"]

@dataclass
class Partition:
    """A re-partition: per judged item its count of correct judges and side, and how it was made.

    ``runs`` lists per judge key its label, run folders, configs and
    ``not_valid`` (judged items without a valid verdict, counted as not
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
        """``partition.json``: the threshold, judges, agreement, notes and per item ``n_correct`` and side."""
        return {
            "threshold": self.threshold,
            "n_judges": len(self.runs),
            "judges": self.runs,
            "agreement_with_release": self.agreement,
            "notes": self.notes,
            "items": {
                tid: {"n_correct": count, "difficulty": "hard" if self.hard[tid] else "easy"}
                for tid, count in self.n_correct.items()
            },
        }


def _shared_config(judges: Sequence[JudgeScores]) -> str:
    """The config every judge covers (AH, AH-S or all); refused, naming each judge's folders, when they differ.

    Counting a judge's unjudged items as not correct would push them all towards hard.
    """
    if len({judge.config for judge in judges}) > 1:
        listing = "; ".join(
            f"{judge.label} ({', '.join(str(folder) for folder in judge.folders())}): {'+'.join(judge.runs.configs())}"
            for judge in judges
        )
        raise ValueError(
            f"the judges were run on different configs ({listing}); expected every judge run on the same configs "
            "(runs on AH and AH-S, or one on all, per judge): give the missing runs or leave those judges out"
        )
    return judges[0].config


def partition_runs(
    run_dirs: Sequence[str | os.PathLike[str]], data_root: str | os.PathLike[str], threshold: int
) -> Partition:
    """Count per item how many judges judged it correctly and split at ``threshold``.

    Runs are grouped into judges by :func:`agenthorizon.score_runs`; every
    judge must cover the same configs, under one dev-set choice. An item
    without a valid verdict counts as not correct. Raises FileNotFoundError
    for a folder without a run record and ValueError (naming the folders) for
    runs that cannot be grouped or pooled.
    """
    if not run_dirs:
        raise ValueError("no run directory given; expected the runs to pool")
    scored = score_runs(run_dirs, data_root)
    config = _shared_config(scored.judges)
    rows = scored.references[config].rows
    configs = list(scored.judges[0].runs.configs())
    corrects, judges = [], []
    for judge in scored.judges:
        # The judge's outcomes are over its config's rows, in release order: the rows counted here.
        corrects.append(judge.outcomes.correct)
        judges.append({"judge": judge.label, "runs": [str(folder) for folder in judge.folders()], "configs": configs,
                       "not_valid": int((~judge.outcomes.valid).sum()), "missing": len(rows) - len(judge.predictions)})
    n_correct, hard = difficulty_partition(corrects, threshold)
    shipped = np.array([row["difficulty"] == "hard" for row in rows])
    notes = ["An item a judge has no valid verdict for (missing, failed, unparseable) counts as not correct "
             "for that judge."]
    return Partition(
        threshold=threshold, rows=rows,
        n_correct={row["trajectory_id"]: int(count) for row, count in zip(rows, n_correct)},
        hard={row["trajectory_id"]: bool(side) for row, side in zip(rows, hard)},
        runs=judges, agreement=partition_agreement(hard, shipped), notes=notes,
    )


def _stays_inside(root: Path, path: Path) -> bool:
    try:
        confined(root, path, "sandbox file")
    except ValueError:
        return False
    return True


def _link_tree(root: Path, source: Path, target: Path) -> int:
    """Hard-link every file under ``source`` into ``target`` (folders made); returns the number of files."""
    count = 0
    for folder, _dirs, files in os.walk(source):
        destination = target / Path(folder).relative_to(source)
        destination.mkdir(parents=True, exist_ok=True)
        for name in files:
            path = Path(folder) / name
            # A link inside the release (a Hub snapshot's blobs/) is linked as its file; one that leaves the
            # release is linked as the link, so the loaders' confinement judges it as it did in the release.
            inside = path.is_symlink() and _stays_inside(root, path)
            try:
                os.link(os.path.realpath(path) if inside else path, destination / name, follow_symlinks=False)
            except OSError as error:
                raise OSError(
                    f"cannot hard-link {path} into {destination} ({error.strerror}); put --out on the "
                    "release's file system, or write the label files alone (--labels-only)"
                ) from None
            count += 1
    return count


def check_out_dir(out_dir: str | os.PathLike[str], data_root: str | os.PathLike[str] | None = None) -> Path:
    """``out_dir`` as an absolute path, checked before any work: new or empty, not a link, not a file, not inside the release at ``data_root``; ValueError otherwise."""
    out = Path(os.path.normpath(Path(out_dir).expanduser().absolute()))
    expected = "expected a new folder, or an empty one (the split is written whole, then moved into place)"
    if out.is_symlink():
        raise ValueError(f"--out {out} is a symbolic link (to {os.readlink(out)}); {expected}")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file; {expected}")
    if out.is_dir() and next(os.scandir(out), None) is not None:
        raise ValueError(f"--out {out} is not empty; {expected}")
    if data_root is not None:
        real_root, real_out = Path(data_root).resolve(), out.resolve()
        if real_out == real_root or real_root in real_out.parents:
            raise ValueError(f"--out {out} is inside the release {data_root}; expected a folder outside it")
    return out


def _write_new(path: Path, text: str) -> None:
    # "x": the file is new in a folder made for this write; nothing there can be a link to follow.
    with open(path, "x", encoding="utf-8") as handle:
        handle.write(text)


def write_partition(
    partition: Partition, data_root: str | os.PathLike[str], out_dir: str | os.PathLike[str], *, sandbox: bool = True
) -> dict[str, Any]:
    """Write the split as a release at ``out_dir`` (checked by :func:`check_out_dir`), atomically; returns what was written.

    Writes ``AgentHorizon.jsonl`` (hard), ``AgentHorizon-Simple.jsonl`` (easy),
    ``partition.json`` and ``sandbox/`` as hard links, in a temporary folder
    renamed when complete. Rows keep release order; unjudged items keep their
    shipped side. Returns ``hard``, ``easy``, ``kept`` (counts),
    ``sandbox_files`` (0 without ``sandbox``) and ``files``.
    """
    root = local_root(data_root)
    out = check_out_dir(out_dir, root)
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
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    try:
        # mkdtemp's 0700, widened as a folder made by mkdir would be: the split is a release to share.
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)
        for name, lines in files.items():
            _write_new(staging / name, "".join(lines))
        _write_new(staging / "partition.json", json.dumps(partition.to_dict(), indent=2) + "\n")
        linked = _link_tree(root, root / SANDBOX_DIR, staging / SANDBOX_DIR) if sandbox else 0
        try:
            os.rename(staging, out)  # replaces an empty folder only; never writes into one filled meanwhile
        except OSError as error:
            raise ValueError(f"cannot move the split into --out {out} ({error.strerror}); expected a new or empty "
                             "folder there") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    written = [out / LABEL_FILE_HARD, out / LABEL_FILE_EASY, out / "partition.json"]
    return {"hard": len(files[LABEL_FILE_HARD]), "easy": len(files[LABEL_FILE_EASY]), "kept": kept,
            "sandbox_files": linked, "files": [str(path) for path in written]}
