"""Run folders: the module every reader of their files goes through.

A run folder holds one ``<trajectory_id>.json`` per finished item (a
:class:`ResultRecord`, defined here), the run record ``run.json``
(``run-shard-I-of-N.json`` for a shard; a
:class:`~agenthorizon.judging.runs.run_record.RunRecord`, defined in
``run_record.py`` and offered here too) and, while a runner works in it, a
lock file (:mod:`agenthorizon.judging.runs.folder`). Every reader -- the
runner's resume, ``score``, ``leaderboard``, ``report``, ``plot``, the demo --
reads through these functions, so a file is validated the same way wherever
it is read, and a run folder written by an older release is migrated in one
place.

A result file is a JSON object::

    {
      "format_version": 2,
      "trajectory_id": "010f92ae-...",
      "judge": "openai",
      "judge_key": "3f9a0c1d2e4b5a69",    # RunRecord.judge_key of the run that wrote it
      "parse_status": "ok",               # schema.PARSE_STATUSES
      "verdict": {"success": true, "mistake_type": null,
                  "confidence": "high", "reasoning": "..."},   # or null
      "raw_output": "...",                # the judge's text, verbatim
      "error": null,                       # message when parse_status == "error"
      "parse_detail": null,
      "telemetry": {"input_tokens": 0, "output_tokens": 0, "latency_s": 0.1,
                    "cost_usd": null, "attempts": 1},
      "finished_at": "2026-11-30T03:00:00+00:00"
    }

The run record is shown in ``docs/reports.md`` ("The run record").

Nothing is trusted by name: a result file whose ``trajectory_id`` is not its
file name is invalid (reason ``id_mismatch``), and one whose ``judge_key`` is
not its run's is invalid (reason ``judge_mismatch``); both are shown in a
score and judged again on resume.

Files are written atomically (temporary file in the same directory, fsync,
rename, directory fsync; :mod:`agenthorizon.judging.runs.durable`), so a
crash leaves either the old file, the new file or nothing, never a truncated
one; a temporary file left by a crash (``.<name>.<random>.tmp``) is not a
result, and the runner removes its own when it resumes. Files whose stem is
not a UUID (run records, notes) are not results.
"""

from __future__ import annotations

import errno
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from agenthorizon.judging.runs.durable import commit_texts, encode_json
from agenthorizon.judging.runs.run_record import (
    _OBJECT,
    _TEXT,
    _TIME,
    FORMAT_VERSION,
    RUN_RECORD_NAME,
    RunRecord,
    _optional_fields,
    _read_json,
    _expect,
    _version,
    distinct_labels,
    is_record_name,
    judge_key,
    read_run_record,
    record_name,
)
from agenthorizon.schema import (
    PARSE_STATUSES,
    STATUS_ERROR,
    STATUS_ID_MISMATCH,
    STATUS_JUDGE_MISMATCH,
    STATUS_MALFORMED_JSON,
    UUID_PATTERN,
)

# The run record's names are defined in run_record.py and offered here too:
# this module is the one place readers of run folders import from.
__all__ = [
    "FORMAT_VERSION",
    "RUN_RECORD_NAME",
    "ResultRecord",
    "ResultSet",
    "RunRecord",
    "distinct_labels",
    "is_record_name",
    "is_result_name",
    "judge_key",
    "needs_judging",
    "read_result",
    "read_results",
    "read_run_record",
    "record_name",
    "result_path",
    "status_of",
    "write_json_atomic",
]


# Optional fields of a result file: name -> (accepted types, what to expect in an error).
_RESULT_FIELDS = {
    "verdict": ((dict,), "a verdict object"), "judge": _TEXT, "judge_key": _TEXT, "raw_output": _TEXT,
    "error": _TEXT, "parse_detail": _TEXT, "telemetry": _OBJECT, "finished_at": _TIME,
}


# --- file names ------------------------------------------------------------------------


def is_result_name(path: Path) -> bool:
    """True when ``path`` is named ``<uuid>.json``: a per-item result file."""
    return path.suffix == ".json" and bool(UUID_PATTERN.fullmatch(path.stem))


def result_path(run_dir: str | os.PathLike[str], trajectory_id: str) -> Path:
    """Where the result of ``trajectory_id`` lives in ``run_dir``."""
    return Path(run_dir) / f"{trajectory_id}.json"


RECORD_SPARE_BYTES = 16384
"""Trailing spaces after a run record's JSON: room to rewrite it in place on a full disk."""


def write_json_atomic(path: Path, payload: Mapping[str, Any], *, spare: int = 0) -> None:
    """Write ``payload`` as JSON to ``path`` durably, so that readers never see a partial file.

    The text is :func:`~agenthorizon.judging.runs.durable.encode_json`'s:
    ASCII, registered secrets scrubbed (:mod:`agenthorizon.judging.secrets`).
    Encoding happens before the disk is touched, so ``TypeError``/``ValueError``
    mean the payload, ``OSError`` the disk. One file is one group commit of
    :func:`~agenthorizon.judging.runs.durable.commit_texts`; the runner
    commits its result files in batches instead.

    ``spare`` adds that many trailing spaces (still valid JSON). When the disk
    is full, a file written with spare bytes is overwritten in place instead
    (no new blocks needed) if the new text fits: how a run record still says
    why the run stopped.
    """
    text = encode_json(payload, spare=spare)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    _, error = commit_texts([(Path(path), text)])
    if error is not None:
        if not (spare and error.errno in _DISK_FULL and _overwrite_in_place(Path(path), text.rstrip(" "))):
            raise error


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


# --- result records ----------------------------------------------------------------------


@dataclass(frozen=True)
class ResultRecord:
    """One item's result: the content of ``<trajectory_id>.json``.

    ``parse_status`` is one of ``schema.PARSE_STATUSES``; ``verdict`` is the
    parsed verdict when it is ``"ok"``. ``judge_key`` ties the result to its
    run (``None`` in version-1 files, which are trusted to their folder's run).
    """

    trajectory_id: str
    parse_status: str
    verdict: Mapping[str, Any] | None = None
    judge: str | None = None
    judge_key: str | None = None
    raw_output: str | None = None
    error: str | None = None
    parse_detail: str | None = None
    telemetry: Mapping[str, Any] = field(default_factory=dict)
    finished_at: str | None = None
    format_version: int = FORMAT_VERSION

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the result file."""
        return {
            "format_version": FORMAT_VERSION,
            "trajectory_id": self.trajectory_id,
            "judge": self.judge,
            "judge_key": self.judge_key,
            "parse_status": self.parse_status,
            "verdict": None if self.verdict is None else dict(self.verdict),
            "raw_output": self.raw_output,
            "error": self.error,
            "parse_detail": self.parse_detail,
            "telemetry": dict(self.telemetry),
            "finished_at": self.finished_at,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str) -> ResultRecord:
        """Validate a result object; errors name ``where`` (the file) and the field."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: expected a result JSON object, got {type(data).__name__}")
        version = _version(where, data)
        trajectory_id = _expect(where, "trajectory_id", data.get("trajectory_id"), (str,), "a string")
        status = data.get("parse_status")
        if status not in PARSE_STATUSES:
            raise ValueError(f"{where}: field 'parse_status': expected one of {', '.join(PARSE_STATUSES)}, got {status!r}")
        fields = _optional_fields(where, data, _RESULT_FIELDS)
        fields["telemetry"] = fields["telemetry"] or {}
        return cls(trajectory_id=trajectory_id, parse_status=status, format_version=version, **fields)

    def trust_problem(self, expected_id: str, expected_key: str | None) -> str | None:
        """Why this result cannot be trusted as ``expected_id``'s in a run of ``expected_key``.

        ``None`` when it can; otherwise ``id_mismatch`` or ``judge_mismatch``.
        A version-1 result carries no key and is trusted to its folder's run.
        """
        if self.trajectory_id != expected_id:
            return STATUS_ID_MISMATCH
        if expected_key is not None and self.judge_key is not None and self.judge_key != expected_key:
            return STATUS_JUDGE_MISMATCH
        return None


def read_result(run_dir: str | os.PathLike[str], trajectory_id: str) -> ResultRecord | None:
    """The result of ``trajectory_id`` in ``run_dir``; ``None`` when missing or unreadable."""
    path = result_path(run_dir, trajectory_id)
    try:
        return ResultRecord.from_dict(json.loads(path.read_text(encoding="utf-8")), str(path))
    except (OSError, UnicodeDecodeError, ValueError):  # JSONDecodeError is a ValueError
        return None


@dataclass
class ResultSet:
    """Results read from one or more run directories or JSONL files.

    ``results`` maps trajectory id to the JSON object of its result (a
    :class:`ResultRecord`'s ``to_dict()`` for run folders, the line's object
    for JSONL); ``unreadable`` maps trajectory id to a message for result
    files that exist but cannot be read as a result (they score as invalid,
    reason ``malformed_json``); ``untrusted`` maps trajectory id to
    ``(reason, message)`` for results that are not what their name claims
    (reason ``id_mismatch`` or ``judge_mismatch``); ``sources`` maps
    trajectory id to the file (and line) it came from.
    """

    results: dict[str, Any] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)
    untrusted: dict[str, tuple[str, str]] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)

    def _claim(self, trajectory_id: str, where: str) -> None:
        if trajectory_id in self.sources:
            raise ValueError(
                f"{where}: duplicate result for trajectory {trajectory_id} "
                f"(already read from {self.sources[trajectory_id]}); "
                "expected each item once across all result paths"
            )
        self.sources[trajectory_id] = where

    def ids(self) -> set[str]:
        """Trajectory ids with a result file, readable or not."""
        return set(self.results) | set(self.unreadable) | set(self.untrusted)

    def predictions(self, wanted_ids: Iterable[str] | None = None) -> dict[str, Any]:
        """Trajectory id -> prediction, in the form :func:`agenthorizon.score` takes.

        A result file that exists but cannot be read is an invalid prediction
        (``malformed_json``), an untrusted one is invalid with its own reason;
        neither is ever a missing one. Ids without any file are absent here and
        score as ``missing``. ``wanted_ids`` keeps only those ids.
        """
        predictions: dict[str, Any] = dict(self.results)
        for trajectory_id in self.unreadable:
            predictions[trajectory_id] = {"parse_status": STATUS_MALFORMED_JSON, "verdict": None}
        for trajectory_id, (reason, _) in self.untrusted.items():
            predictions[trajectory_id] = {"parse_status": reason, "verdict": None}
        if wanted_ids is not None:
            wanted = set(wanted_ids)
            predictions = {key: value for key, value in predictions.items() if key in wanted}
        return predictions


def read_results(paths: Iterable[str | os.PathLike[str]]) -> ResultSet:
    """Read result directories and/or JSONL files into one :class:`ResultSet`.

    A directory contributes every ``<uuid>.json`` in it (other files are listed
    in ``ignored``), each validated as a :class:`ResultRecord` and checked
    against its name and its folder's run record (``untrusted``); a ``.jsonl``
    file contributes one object per non-blank line, each carrying
    ``trajectory_id``. An item that appears twice raises, because silently
    keeping either copy would change a score.
    """
    found = ResultSet()
    for raw_path in paths:
        path = Path(raw_path)
        if path.is_dir():
            _read_directory(path, found)
        elif path.is_file():
            _read_jsonl(path, found)
        else:
            raise FileNotFoundError(f"{path}: no such results directory or JSONL file")
    return found


def _read_directory(path: Path, found: ResultSet) -> None:
    record = read_run_record(path)
    expected_key = None if record is None else record.judge_key
    for child in sorted(path.iterdir()):
        if not child.is_file():
            continue
        if not is_result_name(child):
            found.ignored.append(str(child))
            continue
        found._claim(child.stem, str(child))
        try:
            value = _read_json(child, "a result object")
            if not isinstance(value, dict):
                raise ValueError(f"{child}: expected a JSON object, got {type(value).__name__}")
            # A folder may hold bare verdicts ({"success": ...}) instead of
            # runner results; those are predictions for the scorer to judge.
            result = ResultRecord.from_dict(value, str(child)) if "parse_status" in value else None
        except ValueError as error:
            found.unreadable[child.stem] = str(error)
            continue
        claimed = value.get("trajectory_id", child.stem) if result is None else result.trajectory_id
        if claimed != child.stem:
            found.untrusted[child.stem] = (STATUS_ID_MISMATCH, f"{child}: holds the result of {claimed}")
        elif result is None:
            found.results[child.stem] = value
        elif result.trust_problem(child.stem, expected_key) == STATUS_JUDGE_MISMATCH:
            found.untrusted[child.stem] = (
                STATUS_JUDGE_MISMATCH, f"{child}: written by judge key {result.judge_key}, the run's is {expected_key}"
            )
        else:
            found.results[child.stem] = result.to_dict()


def _read_jsonl(path: Path, found: ResultSet) -> None:
    with path.open(encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
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
            found.results[trajectory_id] = value


def status_of(result: ResultRecord | None) -> str | None:
    """A result's ``parse_status`` for counting; ``None`` when there is none."""
    return None if result is None else result.parse_status


def needs_judging(result: ResultRecord | None, trajectory_id: str, key: str) -> bool:
    """True when a resume must judge the item again: no trustworthy answer yet.

    Missing, unreadable, failed (``error``) and untrusted results are redone;
    an answered one (``ok`` or an invalid-answer status) is kept, because
    asking again would change the experiment.
    """
    return result is None or result.parse_status == STATUS_ERROR or result.trust_problem(trajectory_id, key) is not None



