# Over 500 lines: the run folder's names, readers, writers and lock: one on-disk format kept in one place.
"""Run folders: their file names, readers and writers, and the runner's lock (:class:`RunDirectory`).

A run folder holds one ``<trajectory_id>.json`` per finished item, the run
record ``run.json`` (``run-shard-I-of-N.json`` for a shard) and, while a
runner works in it, a lock file. Every reader goes through
:func:`read_results` and :func:`read_run_record`, which also take an Inspect
log (``.eval``) as a run. Nothing is trusted by name: a result whose
``trajectory_id`` is not its file name (``id_mismatch``) or whose
``judge_key`` is not its run's (``judge_mismatch``) is invalid.
"""

from __future__ import annotations

import errno
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from agenthorizon.judging.runs.durable import encode_json, remove_temp_files, write_durable
from agenthorizon.judging.runs.inspect_log import is_inspect_log, read_log_record, read_log_results
from agenthorizon.judging.runs.records import ResultRecord, RunRecord, merge_shard_records
from agenthorizon.release.item_files import read_bounded
from agenthorizon.schema import STATUS_ID_MISMATCH, STATUS_JUDGE_MISMATCH, STATUS_MALFORMED_JSON, UUID_PATTERN
from agenthorizon.scoring.predictions import is_result_record, result_prediction
from agenthorizon.util.sizes import size_text

__all__ = [
    "LOCK_SUFFIX",
    "RECORD_LIMIT",
    "RECORD_SPARE_BYTES",
    "RESULT_LIMIT",
    "RUN_RECORD_NAME",
    "ResultSet",
    "RunDirectory",
    "RunLockedError",
    "is_record_name",
    "is_result_name",
    "read_result",
    "read_results",
    "read_run_record",
    "record_name",
    "record_paths",
    "result_path",
    "run_records",
    "write_json_atomic",
]

RUN_RECORD_NAME = "run.json"
LOCK_SUFFIX = ".lock"
RECORD_SPARE_BYTES = 16384
"""Trailing spaces after a run record's JSON: room to rewrite it in place on a full disk."""
RESULT_LIMIT = 256 * 2**20
"""The largest result file (or JSONL line) read: 256 MiB. A larger one is refused unread, naming it."""
RECORD_LIMIT = 64 * 2**20
"""The largest run record read: 64 MiB."""
_LOCK_LIMIT = 64 * 1024
_SHARD_RECORD = re.compile(r"^run-shard-(\d+)-of-(\d+)\.json$")
_RESULT_NAME = re.compile(UUID_PATTERN.pattern + r"\.json")


# --- file names and the listing -----------------------------------------------------------


def record_name(shard: tuple[int, int] | None) -> str:
    """``run.json``, or ``run-shard-I-of-N.json`` for shard ``(I, N)``.

    >>> record_name(None), record_name((2, 4))
    ('run.json', 'run-shard-2-of-4.json')
    """
    return RUN_RECORD_NAME if shard is None else f"run-shard-{shard[0]}-of-{shard[1]}.json"


def is_record_name(name: str) -> bool:
    """True for ``run.json`` and ``run-shard-I-of-N.json``."""
    return name == RUN_RECORD_NAME or bool(_SHARD_RECORD.match(name))


def is_result_name(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is named ``<uuid>.json``: a per-item result file.

    >>> is_result_name("runs/a/0c9bd8c4-5f5e-4d1a-9a59-2d7f1b2b8f10.json"), is_result_name("run.json")
    (True, False)
    """
    return bool(_RESULT_NAME.fullmatch(os.path.basename(path)))


def result_path(run_dir: str | os.PathLike[str], trajectory_id: str) -> Path:
    """Where the result of ``trajectory_id`` lives in ``run_dir``."""
    return Path(run_dir) / f"{trajectory_id}.json"


def record_paths(run_dir: str | os.PathLike[str]) -> list[Path]:
    """The run records of a folder, sorted: ``run.json`` and every shard's record (the one listing of them)."""
    directory = Path(run_dir)
    # scandir: names and file types from the listing, no Path and no stat per result file (a run has thousands).
    with os.scandir(directory) as scan:
        return sorted(directory / entry.name for entry in scan if is_record_name(entry.name) and entry.is_file())


# --- writing -------------------------------------------------------------------------------


def write_json_atomic(path: Path, payload: Mapping[str, Any], *, spare: int = 0) -> None:
    """Write ``payload`` as JSON to ``path`` durably (:func:`~agenthorizon.judging.runs.durable.write_durable`).

    The text is ASCII with registered secrets scrubbed
    (:func:`~agenthorizon.judging.runs.durable.encode_json`). ``TypeError``/``ValueError``
    mean the payload (raised before the disk is touched), ``OSError`` the disk.
    ``spare`` adds that many trailing spaces; on a full disk, a file written
    with spare bytes is overwritten in place if the new text fits, so that a
    run record can still say why the run stopped.
    """
    text = encode_json(payload, spare=spare)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    try:
        write_durable(Path(path), text)
    except OSError as error:
        if not (spare and error.errno in _DISK_FULL and _overwrite_in_place(Path(path), text.rstrip(" "))):
            raise


_DISK_FULL = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}


def _overwrite_in_place(path: Path, text: str) -> bool:
    """Overwrite ``path``'s existing bytes with ``text`` padded by spaces to the same size; False if it does not fit."""
    try:
        size = path.stat().st_size
        if len(text) > size:
            return False
        with path.open("r+", encoding="ascii") as handle:
            handle.write(text + " " * (size - len(text)))
            handle.flush()
            os.fsync(handle.fileno())
    except OSError:
        return False
    return True


# --- reading ------------------------------------------------------------------------------


def _read_text(path: str | os.PathLike[str], limit: int) -> str:
    """The text of ``path``, at most ``limit`` bytes: a larger (or sparse) file is refused before it is read."""
    with open(path, "rb") as handle:
        return read_bounded(handle, limit, path, "a file of a run").decode("utf-8")


def _read_json(path: str | os.PathLike[str], what: str, limit: int = RESULT_LIMIT) -> Any:
    try:
        return json.loads(_read_text(path, limit))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not valid JSON ({error}); expected {what}") from None


def _read_record(path: Path) -> RunRecord:
    return RunRecord.from_dict(_read_json(path, "a run record object", RECORD_LIMIT), str(path))


def read_run_record(path: str | os.PathLike[str]) -> RunRecord | None:
    """The run record of a run folder: ``run.json``, else its shard records merged; or of an Inspect log.

    Shard records are merged by
    :func:`~agenthorizon.judging.runs.records.merge_shard_records`. A folder
    without any record gives ``None`` (its results are still scoreable).

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a directory.
    ValueError
        If a record is not valid JSON or not a valid record (file and field
        named), or shard records disagree.
    """
    if is_inspect_log(path):
        return read_log_record(path)
    directory = Path(path)
    if not directory.is_dir():
        raise FileNotFoundError(
            f"{directory}: run directory not found; expected a folder of <trajectory_id>.json results "
            "or an Inspect log (.eval)"
        )
    paths = record_paths(directory)
    main = directory / RUN_RECORD_NAME
    if main in paths:
        paths = [main]
    if not paths:
        return None
    return merge_shard_records([(p.name, _read_record(p)) for p in paths])


def read_result(run_dir: str | os.PathLike[str], trajectory_id: str) -> ResultRecord | None:
    """The result of ``trajectory_id`` in ``run_dir``; ``None`` when missing or unreadable."""
    path = result_path(run_dir, trajectory_id)
    try:
        return ResultRecord.from_dict(json.loads(_read_text(path, RESULT_LIMIT)), str(path))
    except (OSError, UnicodeDecodeError, ValueError):  # JSONDecodeError is a ValueError
        return None


@dataclass
class ResultSet:
    """Results read from one or more run directories, JSONL files or Inspect logs, by trajectory id.

    ``records``: runner results (:class:`ResultRecord`); ``values``: other
    predictions (a bare verdict file, a JSONL line's object); ``unreadable``:
    a message for result files that cannot be read (scored invalid,
    ``malformed_json``); ``untrusted``: ``(reason, message)`` for results
    that are not what their name claims (``id_mismatch``, ``judge_mismatch``);
    ``sources``: the file (and line) each came from; ``ignored``: a folder's
    files that are not ``<uuid>.json``; ``run_records``: each folder read
    (as named) -> its run record, ``None`` when it has none.
    """

    records: dict[str, ResultRecord] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)
    untrusted: dict[str, tuple[str, str]] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    run_records: dict[str, RunRecord | None] = field(default_factory=dict)

    def _claim(self, trajectory_id: str, where: str) -> None:
        if trajectory_id in self.sources:
            raise ValueError(
                f"{where}: duplicate result for trajectory {trajectory_id} "
                f"(already read from {self.sources[trajectory_id]}); "
                "expected each item once across all result paths"
            )
        self.sources[trajectory_id] = where

    def ids(self) -> set[str]:
        """Trajectory ids with a result, readable or not."""
        return set(self.records) | set(self.values) | set(self.unreadable) | set(self.untrusted)

    def predictions(self, wanted_ids: Iterable[str] | None = None) -> dict[str, Any]:
        """Trajectory id -> prediction, in the form :func:`agenthorizon.score` takes.

        An unreadable result is invalid (``malformed_json``), an untrusted one
        invalid with its own reason; neither is ever missing. Ids without any
        file are absent and score as ``missing``. ``wanted_ids`` keeps only those ids.
        """
        predictions: dict[str, Any] = {tid: record.prediction() for tid, record in self.records.items()}
        predictions.update(self.values)
        for trajectory_id in self.unreadable:
            predictions[trajectory_id] = result_prediction(STATUS_MALFORMED_JSON, None)
        for trajectory_id, (reason, _) in self.untrusted.items():
            predictions[trajectory_id] = result_prediction(reason, None)
        if wanted_ids is not None:
            wanted = set(wanted_ids)
            predictions = {key: value for key, value in predictions.items() if key in wanted}
        return predictions


def read_results(paths: Iterable[str | os.PathLike[str]]) -> ResultSet:
    """Read result directories, JSONL files and Inspect logs into one :class:`ResultSet`.

    A directory contributes every ``<uuid>.json`` in it: one shaped like a
    result record is validated and checked against its name and its folder's
    run record, any other object is a prediction for the scorer. A ``.jsonl``
    file contributes one object with a ``trajectory_id`` per non-blank line;
    an Inspect log (``.eval``) one result per sample. An item that appears
    twice raises ``ValueError``: keeping either copy would change a score.
    """
    found = ResultSet()
    for raw_path in paths:
        path = Path(raw_path)
        if path.is_dir():
            found.run_records[os.fspath(raw_path)] = _read_directory(path, found)
        elif is_inspect_log(path):
            for trajectory_id, result in read_log_results(path).items():
                found._claim(trajectory_id, f"{path}#{trajectory_id}")
                found.records[trajectory_id] = result
        elif path.is_file():
            _read_jsonl(path, found)
        else:
            raise FileNotFoundError(f"{path}: no such results directory, JSONL file or Inspect log (.eval)")
    return found


def _read_directory(path: Path, found: ResultSet) -> RunRecord | None:
    """Add the results of the run folder ``path`` to ``found``; its run record (``None``: it has none)."""
    record = read_run_record(path)
    expected_key = None if record is None else record.judge_key
    # scandir: a folder's listing says which entries are files without a stat each (links are still followed).
    with os.scandir(path) as scan:
        entries = sorted(scan, key=lambda entry: entry.name)
    for entry in entries:
        if not entry.is_file():
            continue
        # Plain strings from here: a Path per result file costs more than reading it.
        child, name = entry.path, entry.name
        if not is_result_name(name):
            found.ignored.append(child)
            continue
        stem = name[:-len(".json")]
        found._claim(stem, child)
        try:
            value = _read_json(child, "a result object")
            if not isinstance(value, dict):
                raise ValueError(f"{child}: expected a JSON object, got {type(value).__name__}")
            result = ResultRecord.from_dict(value, child) if is_result_record(value) else None
        except ValueError as error:
            found.unreadable[stem] = str(error)
            continue
        claimed = value.get("trajectory_id", stem) if result is None else result.trajectory_id
        if claimed != stem:
            found.untrusted[stem] = (STATUS_ID_MISMATCH, f"{child}: holds the result of {claimed}")
        elif result is None:
            found.values[stem] = value  # a bare verdict ({"success": ...}): the scorer judges it
        elif result.trust_problem(stem, expected_key) == STATUS_JUDGE_MISMATCH:
            found.untrusted[stem] = (
                STATUS_JUDGE_MISMATCH, f"{child}: written by judge key {result.judge_key}, the run's is {expected_key}"
            )
        else:
            found.records[stem] = result
    return record


def run_records(
    paths: Iterable[str | os.PathLike[str]], results: ResultSet | None = None
) -> dict[str, RunRecord | None]:
    """Each run folder or Inspect log among ``paths`` (as named) -> its run record; ``None``: a folder without one.

    JSONL files are left out. A folder read into ``results`` is not read again.

    >>> run_records([])
    {}
    """
    known = {} if results is None else results.run_records
    found: dict[str, RunRecord | None] = {}
    for path in paths:
        name = os.fspath(path)
        if name in known:
            found[name] = known[name]
        elif Path(path).is_dir() or is_inspect_log(path):
            found[name] = read_run_record(path)
    return found


def _read_jsonl(path: Path, found: ResultSet) -> None:
    with path.open(encoding="utf-8") as handle:
        # readline(n): a line without an end costs at most the limit, not the file.
        for line_number, line in enumerate(iter(lambda: handle.readline(RESULT_LIMIT + 1), ""), start=1):
            if len(line) > RESULT_LIMIT:
                raise ValueError(f"{path}:{line_number}: a line longer than {size_text(RESULT_LIMIT)}; expected "
                                 "one result object per line (refused unread)")
            if not line.strip():
                continue
            where = f"{path}:{line_number}"
            try:
                value = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(
                    f"{where}: not valid JSON ({error.msg}); expected one object per line "
                    "with a trajectory_id"
                ) from None
            trajectory_id = value.get("trajectory_id") if isinstance(value, dict) else None
            if not isinstance(trajectory_id, str) or not trajectory_id:
                raise ValueError(f"{where}: expected a JSON object with a string trajectory_id")
            found._claim(trajectory_id, where)
            found.values[trajectory_id] = value


# --- the runner's view ------------------------------------------------------------------------------


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


def _said(value: Any) -> str:
    """A setting's value in a sentence: ``not set`` for ``None``, ``key=value`` pairs for a mapping."""
    if value is None:
        return "not set"
    if isinstance(value, dict):
        return ", ".join(f"{key}={item!r}" for key, item in value.items()) or "empty"
    return repr(value)


def _differences(name: str, old: Any, new: Any) -> list[str]:
    """``"name.key is X in the folder's run and Y in this command"`` for each differing leaf of two settings.

    >>> _differences("sampling", {"temperature": 0.0, "max_tokens": 9}, {"temperature": 0.5, "max_tokens": 9})
    ["sampling.temperature is 0.0 in the folder's run and 0.5 in this command"]
    >>> _differences("protocol", None, {"reask": 1})
    ["protocol is not set in the folder's run and reask=1 in this command"]
    """
    if isinstance(old, dict) and isinstance(new, dict):
        return [line for key in sorted({*old, *new}, key=str)
                for line in _differences(f"{name}.{key}", old.get(key), new.get(key))]
    return [] if old == new else [f"{name} is {_said(old)} in the folder's run and {_said(new)} in this command"]


def _split(record: RunRecord) -> int | None:
    """How many shards the run of ``record`` is split into (``None``: not sharded)."""
    return None if record.shard is None else record.shard.count


def _split_text(record: RunRecord) -> str:
    """``--shard 1/2``, or ``a whole run (no --shard)``."""
    return "a whole run (no --shard)" if record.shard is None else f"--shard {record.shard.index}/{record.shard.count}"


@dataclass
class RunDirectory:
    """A run folder as one runner sees it: its lock, its record and its results.

    ``name`` is the record's file name (``run.json`` or a shard's); the lock
    is the same stem with ``.lock``, so the shards of one run can work in one
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

    def run_tag(self) -> str:
        """A short name of this run (folder and record name), for files it keeps elsewhere: 16 hex digits."""
        import hashlib

        return hashlib.sha256(f"{self.path.resolve()}\0{self.name}".encode()).hexdigest()[:16]

    def acquire(self) -> None:
        """Take the folder's lock (pid, host, start time), or raise :class:`RunLockedError` naming its holder.

        The lock of a process no longer alive on this host is taken over; one
        of another host (which cannot be checked from here) is not.
        """
        import datetime
        import socket

        self.path.mkdir(parents=True, exist_ok=True)
        mine = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }
        import tempfile  # only a writer locks; score and report import this module to read

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
            holder = json.loads(_read_text(self.lock_path, _LOCK_LIMIT))  # a planted huge lock: unreadable
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

    def check_resume(self, record: RunRecord) -> RunRecord | None:
        """Refuse to continue a run folder with different settings, naming the keys; the record this run continues.

        Every run record in the folder (the shards' too) must have the same
        :meth:`~agenthorizon.judging.runs.records.RunRecord.settings`, item
        selection and shard count as ``record`` (else ``ValueError``). Returns
        the folder's existing record of this runner's name (``None`` for a new run).
        """
        previous = None
        for path in record_paths(self.path) if self.path.is_dir() else []:
            existing = _read_record(path)
            if _split(existing) != _split(record):
                # Shards of another split overlap this one's items: the folder would hold two partial partitions.
                raise ValueError(
                    f"{self.path} already holds {_split_text(existing)} ({path.name}); this run is "
                    f"{_split_text(record)}: shards of one folder must split the items the same way; "
                    "use the same N, or another output directory"
                )
            old, new = existing.settings(), record.settings()
            different = [line for key in sorted({*old, *new}) for line in _differences(key, old.get(key), new.get(key))]
            if existing.selection is not None and record.selection is not None:
                different += [f"selection {item}" for item in existing.selection.contradiction(record.selection)]
            if different:
                raise ValueError(
                    f"{self.path} already holds a run with other settings ({path.name}): {'; '.join(different)}. "
                    "Either resume it with the settings it was made with, or write this run to a new folder "
                    "(another --out) to keep both experiments"
                )
            if path.name == self.name:
                previous = existing
        return previous

    def remove_temp_files(self, trajectory_ids: Iterable[str]) -> int:
        """Remove the temporary files (``.<name>.<random>.tmp``) a killed runner left for these items and this record.

        Only this runner's names are touched: the shards of a run share a folder.
        """
        names = [result_path(self.path, tid).name for tid in trajectory_ids]
        return remove_temp_files(self.path, [*names, self.name])

    def load_results(self, trajectory_ids: Iterable[str]) -> dict[str, ResultRecord | None]:
        """The result of each id in this folder (``None``: missing or unreadable)."""
        try:
            # One listing instead of one failed open per item of a new run.
            present = {entry.name for entry in os.scandir(self.path)}
        except FileNotFoundError:
            present = set()
        return {
            trajectory_id: read_result(self.path, trajectory_id) if f"{trajectory_id}.json" in present else None
            for trajectory_id in trajectory_ids
        }

    def write_record(self, record: RunRecord) -> None:
        """Write the run record atomically, with spare bytes so that it can be rewritten in place on a full disk."""
        write_json_atomic(self.record_path, record.to_dict(), spare=RECORD_SPARE_BYTES)
