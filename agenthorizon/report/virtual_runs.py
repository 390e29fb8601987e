"""Majority-vote virtual runs: "majority of k runs" of one judge, or an ensemble of different judges.

:func:`majority_run` builds one in memory (a run record and one result per
item); :func:`write_virtual_run` writes it as a run folder that every command
taking runs reads unchanged.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from agenthorizon.judging.runs.folder import RUN_RECORD_NAME, record_paths, result_path, write_json_atomic
from agenthorizon.judging.runs.records import Merging, ResultRecord, RunCounts, RunRecord, RunTotals, Telemetry
from agenthorizon.report.runs import JudgedRun, RunSet
from agenthorizon.schema import STATUS_ERROR, STATUS_OK
from agenthorizon.scoring.agreement import majority_vote, verdict_categories

__all__ = ["VirtualRun", "majority_run", "write_virtual_run"]

MAJORITY_JUDGE = "majority"
"""The ``name`` of a majority-vote virtual run's judge."""


@dataclass(frozen=True)
class VirtualRun:
    """A run made from member runs: its record and one result per reference item, in the references' order."""

    record: RunRecord
    results: list[ResultRecord]

    def predictions(self) -> dict[str, Any]:
        """Trajectory id -> prediction, as :func:`agenthorizon.score` takes it (a tie is invalid, reason ``error``)."""
        return {result.trajectory_id: result.prediction() for result in self.results}


def _member_key(run: JudgedRun) -> str:
    # A run folder without run.json has no judge key: it is named by its folder, so two such folders differ.
    return run.record.judge_key if run.record is not None else f"folder:{run.path.name}"


def _summed(values: list[Any]) -> Any:
    # An ensemble's item cost is its members' costs added up; unknown as soon as one member's is.
    return None if any(value is None for value in values) else sum(values)


def majority_run(runs: RunSet, *, name: str | None = None) -> VirtualRun:
    """The strict majority vote of ``runs`` on their shared references, as a run.

    An item's verdict is ``success`` (or ``failure``) when more than half of
    the member runs gave that valid verdict
    (:func:`agenthorizon.scoring.agreement.majority_vote`); otherwise (a tie,
    too many invalid answers) its result has status ``error`` and scores as
    wrong, never dropped. Tokens and cost per item are the members' sums,
    ``None`` when a member does not know its own.

    The record's judge is ``{"name": "majority", "spec": "majority:K1+K2+..."}``
    with the members' judge keys sorted (repeats kept: three runs of one judge
    are ``K+K+K``), so it never shares a judge key with a member or with an
    ensemble of different judges; ``members`` lists (label, judge key, folder); its
    ``model`` is ``name`` (default ``majority of k runs of LABEL`` when the
    members share one judge key, else ``majority of A, B, C``).

    Examples
    --------
    Given ``runs = load_runs([r1, r2, r3], root)`` (three runs of one
    selection), ``score(majority_run(runs).predictions(), runs.rows)``
    scores the vote like any run.
    """
    if len(runs.runs) < 2:
        raise ValueError(f"a majority vote needs at least two member runs, got {len(runs.runs)}")
    ids = [row["trajectory_id"] for row in runs.rows]
    member_predictions = [run.predictions() for run in runs.runs]
    codes = np.stack([verdict_categories(predictions, runs.rows) for predictions in member_predictions], axis=1)
    votes = majority_vote(codes)
    keys = [_member_key(run) for run in runs.runs]
    distinct = sorted(set(keys))
    if name is None:
        labels = [run.label for run in runs.runs]
        name = (f"majority of {len(keys)} runs of {runs.runs[0].record.label if runs.runs[0].record else labels[0]}"
                if len(distinct) == 1 else f"majority of {', '.join(labels)}")
    spec = {
        "name": MAJORITY_JUDGE, "spec": f"{MAJORITY_JUDGE}:{'+'.join(sorted(keys))}",
        "members": [{"label": run.label, "judge_key": key, "path": str(run.path)} for run, key in zip(runs.runs, keys)],
        "rule": "more than half of the members' valid verdicts; otherwise no verdict (counted wrong)",
        "model": name,
    }
    record = RunRecord.build(spec, runs.selection)
    key = record.judge_key
    results = []
    for position, (trajectory_id, vote) in enumerate(zip(ids, votes)):
        tally = Counter(int(code) for code in codes[position])
        said = f"{tally[0]} success, {tally[1]} failure, {tally[2]} without a valid verdict, of {len(keys)} runs"
        telemetry = [run.results.records.get(trajectory_id) for run in runs.runs]
        member_telemetry = [Telemetry() if result is None else result.telemetry for result in telemetry]
        summed = Telemetry(
            input_tokens=_summed([t.input_tokens for t in member_telemetry]),
            output_tokens=_summed([t.output_tokens for t in member_telemetry]),
            cost_usd=_summed([t.cost_usd for t in member_telemetry]),
            cost_source="sum of the member runs' costs",
        )
        if vote is None:
            results.append(ResultRecord(trajectory_id, STATUS_ERROR, judge=MAJORITY_JUDGE, judge_key=key,
                                        error=f"no majority: {said}", telemetry=summed))
        else:
            results.append(ResultRecord(trajectory_id, STATUS_OK, verdict={**vote, "reasoning": f"majority: {said}"},
                                        judge=MAJORITY_JUDGE, judge_key=key, raw_output=None, telemetry=summed))
    ok = sum(result.parse_status == STATUS_OK for result in results)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    record = record.replace(started_at=now).ended(
        now, RunCounts(ok=ok, error=len(results) - ok), Merging(),
        RunTotals.of([result.telemetry for result in results], None),
    )
    return VirtualRun(record=record, results=results)


def write_virtual_run(run: VirtualRun, out_dir: str | os.PathLike[str]) -> Path:
    """Write ``run`` as a run folder (``run.json`` and one ``<trajectory_id>.json`` per item); returns the folder.

    The folder must be new or empty, else ``ValueError`` naming it: a virtual
    run is never written over another run's results.
    """
    folder = Path(out_dir)
    if folder.exists():
        if not folder.is_dir():
            raise ValueError(f"{folder}: exists and is not a folder; expected a new or empty folder for the virtual run")
        if record_paths(folder) or any(folder.iterdir()):
            raise ValueError(f"{folder}: not empty; expected a new or empty folder for the virtual run "
                             "(never written over another run)")
    folder.mkdir(parents=True, exist_ok=True)
    for result in run.results:
        write_json_atomic(result_path(folder, result.trajectory_id), result.to_dict())
    write_json_atomic(folder / RUN_RECORD_NAME, run.record.to_dict())
    return folder

