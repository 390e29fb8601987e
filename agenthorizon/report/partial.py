"""What an unfinished run says first: how many items were judged, why it stopped, how to resume.

Such a run is scored strictly (missing items are wrong); ``score`` and the
report put :meth:`PartialRun.lines` first and mark the headline with
:meth:`PartialRun.headline`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from agenthorizon.judging.runs.inspect_log import HARNESS as INSPECT_HARNESS
from agenthorizon.judging.runs.inspect_log import TASK_NAME
from agenthorizon.judging.runs.records import FINISHED, RUNNING, RunRecord

INSPECT_TASK = f"agenthorizon/{TASK_NAME}"

__all__ = ["PartialRun", "partial_run", "rerun_advice"]


@dataclass(frozen=True)
class PartialRun:
    """An unfinished run (or runs): items judged of the total, why, and what completes it.

    Examples
    --------
    >>> p = partial_run(3, 10, {"runs/a": None})
    >>> p.headline()
    'PARTIAL: 3 of 10 items judged'
    >>> print(p.lines()[0])
    Partial run: 3 of 10 items judged (30.0%); the 7 others count as invalid (wrong), so the numbers below are not the judge's accuracy on the config.
    """

    judged: int
    total: int
    reasons: tuple[str, ...]
    resume: str

    def headline(self) -> str:
        """The mark a partial headline carries."""
        return f"PARTIAL: {self.judged} of {self.total} items judged"

    def lines(self, run: str | None = None) -> list[str]:
        """The lines said first: the count, each run's reason, how to complete it.

        ``run`` names the run in the first line, where several runs share a page.

        >>> partial_run(3, 10, {}).lines("judge-a")[0][:36]
        'Partial run judge-a: 3 of 10 items j'
        """
        share = 100 * self.judged / self.total if self.total else 0.0
        whose = "this run's numbers are" if run else "the numbers below are"
        first = (f"Partial run{f' {run}' if run else ''}: {self.judged} of {self.total} items judged ({share:.1f}%); "
                 f"the {self.total - self.judged} others count as invalid (wrong), so {whose} not the judge's "
                 "accuracy on the config.")
        return [
            first,
            *(f"Why: {reason}" for reason in self.reasons),
            f"To complete it: {self.resume}",
        ]


def _reason(where: str, record: RunRecord | None) -> str:
    if record is None:
        return f"{where} has no run record (run.json), so why it has no result for the others is unknown"
    if record.status == RUNNING:
        return (
            f"{where}/run.json says 'running': the run is still going, or its process was killed "
            "before it could record why it stopped"
        )
    if record.status != FINISHED and record.interruption is not None:
        return f"{where} {record.status} ({record.interruption.cause}): {record.interruption.reason}"
    limits = []
    if record.shard is not None:
        limits.append(f"it is shard {record.shard.index} of {record.shard.count}")
    if (record.runner or {}).get("limit") is not None:
        flag = "-T limit" if _is_inspect_log(record) else "--limit"
        limits.append(f"it judged at most {flag} {record.runner['limit']} items")
    if limits:
        return f"{where} finished, but " + " and ".join(limits)
    return f"{where} finished, but result files are missing (removed since, or never written)"


def _is_inspect_log(record: RunRecord) -> bool:
    return (record.runner or {}).get("harness") == INSPECT_HARNESS


def _inspect_resume(logs: list[RunRecord]) -> str:
    """The advice for Inspect logs: an eval is not resumed by ``agenthorizon judge``, it is run again."""
    record = logs[0]
    config = record.selection.config if record.selection is not None else record.config
    data = (record.data or {}).get("repo_id") or (record.data or {}).get("root") or "ROOT"
    command = f"inspect eval {INSPECT_TASK} --model {record.model} -T data={data} -T config={config}"
    if any(one.shard is not None for one in logs):
        return f"run `{command} -T shard=I/N` for each missing shard and score every shard's log together"
    limited = [one for one in logs if (one.runner or {}).get("limit") is not None]
    which = ", ".join(str((one.runner or {}).get("log")) for one in logs)
    return (f"re-run the Inspect eval that wrote {which}, `{command}` with its other -T options, "
            f"{'without -T limit (or with a larger one)' if limited else 'to the end'}; Inspect does not resume a "
            "log: the new eval judges every item and writes a new log")


def rerun_advice(records: Mapping[str, RunRecord | None]) -> str | None:
    """What judges the items of Inspect logs again (their ``inspect eval`` command), ``None`` for runner runs."""
    logs = [record for record in records.values() if record is not None and _is_inspect_log(record)]
    return _inspect_resume(logs) if logs else None


def partial_run(judged: int, total: int, records: Mapping[str, RunRecord | None]) -> PartialRun:
    """The :class:`PartialRun` of results for ``judged`` of ``total`` items, from the runs' ``records``.

    ``records`` maps each run folder to its record (``None``: it has none);
    empty for predictions files, which no run resumes.

    >>> partial_run(1, 2, {}).resume
    'add predictions for the missing items to the predictions file'
    """
    reasons = tuple(_reason(where, record) for where, record in records.items())
    logs = rerun_advice(records)
    if not records:
        resume = "add predictions for the missing items to the predictions file"
    elif logs is not None:
        resume = logs
    elif any(record is not None and record.shard is not None for record in records.values()):
        resume = (
            "run the missing shards (`agenthorizon judge ... --shard I/N`) and score every shard's folder together; "
            "re-running a shard's own command into its folder resumes that shard"
        )
    else:
        # A run that stopped at its --limit stops there again: the same command cannot complete it.
        limited = any(record is not None and (record.runner or {}).get("limit") is not None for record in records.values())
        resume = (
            "re-run the same `agenthorizon judge` command (the same --data, --config and --judge, and --out the run's "
            f"folder){' without --limit (or with a larger one)' if limited else ''}: items already judged are kept and "
            "only the others are judged"
        )
    return PartialRun(judged=judged, total=total, reasons=reasons, resume=resume)
