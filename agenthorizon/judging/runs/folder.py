"""One runner per run folder: the lock, the resume check, the folder's record and results.

:class:`RunDirectory` is the runner's view of its output folder. Its lock
(``run.lock``, or ``run-shard-I-of-N.lock`` beside a shard's record) holds
the runner's pid, host and start time: a second runner on the same folder
and shard fails at once naming the holder, and the lock of a process that is
no longer alive on this host is taken over. Every file it reads or writes
goes through :mod:`agenthorizon.judging.runs.records`.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from agenthorizon.judging.runs import records
from agenthorizon.judging.runs.durable import remove_temp_files
from agenthorizon.judging.runs.records import RUN_RECORD_NAME, ResultRecord, RunRecord, is_record_name
from agenthorizon.judging.runs.run_record import _read_json

__all__ = ["LOCK_SUFFIX", "RunDirectory", "RunLockedError"]

LOCK_SUFFIX = ".lock"


class RunLockedError(ValueError):
    """Another live runner holds the run folder's lock."""


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True


def _differences(name: str, old: Any, new: Any) -> list[str]:
    """``"name.key: old there, new now"`` for each differing leaf of two settings.

    >>> _differences("sampling", {"temperature": 0.0, "max_tokens": 9}, {"temperature": 0.5, "max_tokens": 9})
    ['sampling.temperature: 0.0 there, 0.5 now']
    """
    if isinstance(old, dict) and isinstance(new, dict):
        return [line for key in sorted({*old, *new}, key=str)
                for line in _differences(f"{name}.{key}", old.get(key), new.get(key))]
    return [] if old == new else [f"{name}: {old!r} there, {new!r} now"]


@dataclass
class RunDirectory:
    """A run folder as one runner sees it: its lock, its record and its results.

    ``name`` is the record's file name (``run.json`` or a shard's); the lock
    is the same name with ``.lock``, so the shards of one run can work in one
    folder at once while two runners of the same shard cannot.
    """

    path: Path
    name: str = RUN_RECORD_NAME
    _locked: bool = field(default=False, repr=False)

    @property
    def record_path(self) -> Path:
        return self.path / self.name

    @property
    def lock_path(self) -> Path:
        return self.path / (Path(self.name).stem + LOCK_SUFFIX)

    def acquire(self) -> None:
        """Take the folder's lock, or fail at once naming its holder.

        The lock file holds the holder's pid, host and start time. A lock
        left by a process that is no longer alive on this host is stale and
        taken over; a lock of a live process, or of another host (whose
        processes cannot be checked from here), raises :class:`RunLockedError`.
        """
        import datetime
        import socket

        self.path.mkdir(parents=True, exist_ok=True)
        mine = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }
        fd, tmp_name = tempfile.mkstemp(prefix=".lock.", dir=self.path)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(mine, handle)
        try:
            for _ in range(2):
                try:
                    os.link(tmp_name, self.lock_path)  # atomic: fails when the lock exists
                    self._locked = True
                    return
                except FileExistsError:
                    holder = self._holder()
                    stale = holder is not None and holder.get("host") == mine["host"] and isinstance(
                        holder.get("pid"), int
                    ) and not _process_alive(holder["pid"])
                    if not stale:
                        shown = "unreadable" if holder is None else (
                            f"pid {holder.get('pid')} on host {holder.get('host')}, started {holder.get('started_at')}"
                        )
                        raise RunLockedError(
                            f"{self.path} is in use by another runner ({shown}; lock file {self.lock_path}); "
                            "wait for it to finish, or delete the lock file if that runner is gone"
                        ) from None
                    self.lock_path.unlink(missing_ok=True)  # the holder died: take the lock over
            raise RunLockedError(f"{self.lock_path}: could not take the lock; another runner is starting here")
        finally:
            os.unlink(tmp_name)

    def _holder(self) -> dict[str, Any] | None:
        try:
            holder = json.loads(self.lock_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return holder if isinstance(holder, dict) else None

    def release(self) -> None:
        """Give the lock back (only when this object holds it)."""
        if self._locked:
            holder = self._holder()
            if holder is not None and holder.get("pid") == os.getpid():
                self.lock_path.unlink(missing_ok=True)
            self._locked = False

    def check_resume(self, record: RunRecord) -> None:
        """Refuse to continue a run folder with different settings, naming the keys.

        Every run record in the folder (the shards' too) must have the same
        judge spec, model, prompt, config, sampling (temperature, token limit,
        extra request fields) and image settings as ``record``, and the same
        item selection.
        """
        for path in sorted(p for p in self.path.glob("run*.json") if is_record_name(p.name)):
            previous = RunRecord.from_dict(_read_json(path, "a run record object"), str(path))
            old, new = previous.settings(), record.settings()
            different = [line for key in old for line in _differences(key, old[key], new[key])]
            if previous.selection is not None and record.selection is not None:
                different += [f"selection {item}" for item in previous.selection.contradiction(record.selection)]
            if different:
                raise ValueError(
                    f"{self.path} already holds a different run ({path.name}: {'; '.join(different)}); "
                    "resume with the same settings, or use another output directory to keep experiments apart"
                )

    def remove_temp_files(self, trajectory_ids: Iterable[str]) -> int:
        """Remove the temporary files a killed runner left for these items' results and this record.

        A crash during a group commit (:mod:`~agenthorizon.judging.runs.durable`)
        leaves ``.<name>.<random>.tmp`` files; readers never take them for
        results, and the next runner of the same items removes them. Only
        this runner's names are touched: the shards of a run share a folder.
        """
        names = [records.result_path(self.path, tid).name for tid in trajectory_ids]
        return remove_temp_files(self.path, [*names, self.name])

    def load_results(self, trajectory_ids: Iterable[str]) -> dict[str, ResultRecord | None]:
        """The result of each id in this folder (``None``: missing or unreadable)."""
        try:
            # One listing instead of one failed open per item of a new run.
            present = {entry.name for entry in os.scandir(self.path)}
        except FileNotFoundError:
            present = set()
        return {
            trajectory_id: records.read_result(self.path, trajectory_id) if f"{trajectory_id}.json" in present else None
            for trajectory_id in trajectory_ids
        }

    def write_record(self, record: RunRecord) -> None:
        """Write the run record atomically, with spare bytes so that it can be rewritten in place on a full disk."""
        records.write_json_atomic(self.record_path, record.to_dict(), spare=records.RECORD_SPARE_BYTES)
