"""Run folders: the one module that names, reads and writes their files.

A run folder holds one ``<trajectory_id>.json`` per finished item (a
:class:`ResultRecord`), the run record ``run.json`` (``run-shard-I-of-N.json``
for a shard; a :class:`RunRecord`) and, while a runner works in it, the lock
file ``run.lock``. Every reader -- the runner's resume, ``score``,
``leaderboard``, ``report``, ``plot``, the demo -- goes through this module,
so a file is validated the same way wherever it is read, and a run folder
written by an older release is migrated here and nowhere else.

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
rename), so a crash leaves either the old file, the new file or nothing, never
a truncated one. Files whose stem is not a UUID (run records, notes) are not
results.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from agenthorizon.release.splits import Selection
from agenthorizon.schema import (
    CONFIG_NAMES,
    PARSE_STATUSES,
    STATUS_ERROR,
    STATUS_ID_MISMATCH,
    STATUS_JUDGE_MISMATCH,
    STATUS_MALFORMED_JSON,
    UUID_PATTERN,
)

__all__ = [
    "FORMAT_VERSION",
    "LOCK_NAME",
    "RUN_RECORD_NAME",
    "ResultRecord",
    "ResultSet",
    "RunDirectory",
    "RunLockedError",
    "RunRecord",
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

FORMAT_VERSION = 2
"""Version of the run and result formats this release writes.

1: run records without ``selection`` / ``judge_key`` and results without
``judge_key`` (agenthorizon 0.1 before typed records); read by migration.
"""

RUN_RECORD_NAME = "run.json"
LOCK_NAME = "run.lock"
_SHARD_RECORD = re.compile(r"^run-shard-(\d+)-of-(\d+)\.json$")
# The judge settings that make two runs the same experiment (see judge_key).
_KEY_FIELDS = ("spec", "model", "prompt_sha256", "sampling", "images")
_KEY_LENGTH = 16


# --- file names ------------------------------------------------------------------------


def record_name(shard: tuple[int, int] | None) -> str:
    """``run.json``, or ``run-shard-I-of-N.json`` for shard ``(I, N)``.

    >>> record_name(None), record_name((2, 4))
    ('run.json', 'run-shard-2-of-4.json')
    """
    return RUN_RECORD_NAME if shard is None else f"run-shard-{shard[0]}-of-{shard[1]}.json"


def is_record_name(name: str) -> bool:
    """True for ``run.json`` and ``run-shard-I-of-N.json``."""
    return name == RUN_RECORD_NAME or bool(_SHARD_RECORD.match(name))


def is_result_name(path: Path) -> bool:
    """True when ``path`` is named ``<uuid>.json``: a per-item result file."""
    return path.suffix == ".json" and bool(UUID_PATTERN.match(path.stem))


def result_path(run_dir: str | os.PathLike[str], trajectory_id: str) -> Path:
    """Where the result of ``trajectory_id`` lives in ``run_dir``."""
    return Path(run_dir) / f"{trajectory_id}.json"


def write_json_atomic(path: Path, payload: Mapping[str, Any]) -> None:
    """Write ``payload`` as JSON to ``path`` so that readers never see a partial file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, ensure_ascii=False, indent=1)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        # Leave nothing behind: a stray temp file would look like debris to users.
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise


# --- validation helpers ------------------------------------------------------------------


def _expect(where: str, name: str, value: Any, kinds: tuple[type, ...], what: str) -> Any:
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ValueError(f"{where}: field {name!r}: expected {what}, got {type(value).__name__} {value!r:.80}")
    return value


def _optional(where: str, data: Mapping[str, Any], name: str, kinds: tuple[type, ...], what: str) -> Any:
    value = data.get(name)
    return None if value is None else _expect(where, name, value, kinds, f"{what} or null")


def _version(where: str, data: Mapping[str, Any]) -> int:
    version = data.get("format_version", 1)
    _expect(where, "format_version", version, (int,), "an integer")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{where}: field 'format_version': {version} is newer than this agenthorizon reads "
            f"(<= {FORMAT_VERSION}); upgrade agenthorizon"
        )
    if version < 1:
        raise ValueError(f"{where}: field 'format_version': expected 1..{FORMAT_VERSION}, got {version}")
    return version


# --- the judge identity ------------------------------------------------------------------


def judge_key(judge: Mapping[str, Any]) -> str:
    """A short stable id of a judge's settings: 16 hex digits of a sha256.

    Two runs share a key exactly when their judge spec string, model, prompt
    sha256, sampling settings and image settings are all equal; operational
    settings (timeouts, retries, the server URL, prices) do not count, since
    they do not change what the judge is asked or how it answers.

    ``judge`` is a judge's ``spec()`` (``prompt`` as ``{"sha256", "text"}``).

    >>> judge_key({"spec": "lexical", "name": "lexical"}) == judge_key({"spec": "lexical", "timeout_s": 5})
    True
    >>> judge_key({"spec": "openai:a"}) == judge_key({"spec": "openai:b"})
    False
    """
    prompt = judge.get("prompt")
    identity = {
        "spec": judge.get("spec") or judge.get("name"),
        "model": judge.get("model"),
        "prompt_sha256": prompt.get("sha256") if isinstance(prompt, Mapping) else None,
        "sampling": judge.get("sampling"),
        "images": judge.get("images"),
    }
    text = json.dumps([identity[name] for name in _KEY_FIELDS], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:_KEY_LENGTH]


# --- the run record ----------------------------------------------------------------------


@dataclass(frozen=True)
class RunRecord:
    """How a run was made: the content of ``run.json``.

    ``judge`` is the judge's open ``spec()`` mapping (``name`` and ``spec``
    always; judges add their own keys) without the keys lifted to the top
    level: ``model``, ``base_url``, ``prompt`` (``{"sha256", "text"}``),
    ``sampling`` and ``images``. ``selection`` says which items the run is
    about (:class:`agenthorizon.release.splits.Selection`); ``data`` holds the
    item counts and the release root; ``counts``, ``merging``,
    ``finished_at`` and ``interrupted`` are filled in as the run ends.
    Keys this release does not know are kept in ``extra`` and written back.
    """

    judge: Mapping[str, Any]
    selection: Selection | None = None
    model: str | None = None
    base_url: str | None = None
    prompt: Mapping[str, Any] | None = None
    sampling: Mapping[str, Any] | None = None
    images: Any = None
    data: Mapping[str, Any] = field(default_factory=dict)
    runner: Mapping[str, Any] = field(default_factory=dict)
    shard: Mapping[str, Any] | None = None
    versions: Mapping[str, Any] = field(default_factory=dict)
    git_revision: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    counts: Mapping[str, int] | None = None
    merging: Mapping[str, Any] | None = None
    interrupted: Mapping[str, Any] | None = None
    format_version: int = FORMAT_VERSION
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def build(cls, spec: Mapping[str, Any], selection: Selection | None, **fields: Any) -> RunRecord:
        """A new record from a judge's ``spec()``: lifts the shared keys to the top level."""
        lifted = ("model", "base_url", "prompt", "sampling", "images")
        prompt = spec.get("prompt")
        return cls(
            judge={k: v for k, v in spec.items() if k not in lifted},
            selection=selection,
            model=spec.get("model"),
            base_url=spec.get("base_url"),
            prompt=dict(prompt) if isinstance(prompt, Mapping) else None,
            sampling=spec.get("sampling"),
            images=spec.get("images"),
            **fields,
        )

    @property
    def config(self) -> str | None:
        """The config the run was made on (``None`` for a record that names none)."""
        return None if self.selection is None else self.selection.config

    @property
    def spec(self) -> str:
        """The judge spec string (``"openai:MODEL"``, ``"lexical"``...)."""
        return str(self.judge.get("spec") or self.judge.get("name"))

    @property
    def judge_key(self) -> str:
        """:func:`judge_key` of this run's judge settings."""
        return judge_key({**self.judge, "model": self.model, "prompt": self.prompt,
                          "sampling": self.sampling, "images": self.images})

    @property
    def label(self) -> str:
        """A short human name: the model, else the judge spec."""
        return self.model or self.spec

    def settings(self) -> dict[str, Any]:
        """The settings a resume must not change: identity plus sampling, images and tokens."""
        return {
            "spec": self.spec,
            "model": self.model,
            "prompt_sha256": None if self.prompt is None else self.prompt.get("sha256"),
            "config": self.config,
            "sampling": self.sampling,
            "images": self.images,
        }

    def replace(self, **changes: Any) -> RunRecord:
        """A copy with ``changes`` applied."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object written to ``run.json``; ``from_dict(to_dict())`` is the identity."""
        out: dict[str, Any] = {
            "format_version": FORMAT_VERSION,
            "judge": dict(self.judge),
            "judge_key": self.judge_key,
            "label": self.label,
            "model": self.model,
            "base_url": self.base_url,
            "prompt": None if self.prompt is None else dict(self.prompt),
            "sampling": self.sampling,
            "images": self.images,
            # "config" stays at the top level for people and tools that read
            # run.json directly; the selection is what readers rebuild from.
            "config": self.config,
            "selection": None if self.selection is None else self.selection.to_dict(),
            "data": dict(self.data),
            "runner": dict(self.runner),
            "shard": self.shard,
            "versions": dict(self.versions),
            "git_revision": self.git_revision,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "counts": None if self.counts is None else dict(self.counts),
            "merging": self.merging,
            "interrupted": self.interrupted,
        }
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str) -> RunRecord:
        """Validate a run record object; errors name ``where`` (the file) and the field.

        Version-1 records (no ``selection``) are migrated: their selection is
        rebuilt from ``config`` and ``data`` (``dev_groups``, ``exclude_dev``,
        ``manifest_sha256``).
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: expected a run record JSON object, got {type(data).__name__}")
        _version(where, data)
        judge = _expect(where, "judge", data.get("judge"), (dict,), 'an object with "name" and "spec"')
        if not isinstance(judge.get("spec") or judge.get("name"), str):
            raise ValueError(f'{where}: field \'judge\': expected "spec" or "name" as a string, got {judge!r:.80}')
        run_data = _optional(where, data, "data", (dict,), "an object") or {}
        selection = _selection_of(where, data, run_data)
        known = {f.name for f in dataclasses.fields(cls)} | {"config", "judge_key", "label"}
        return cls(
            judge=judge,
            selection=selection,
            model=_optional(where, data, "model", (str,), "a string"),
            base_url=_optional(where, data, "base_url", (str,), "a string"),
            prompt=_optional(where, data, "prompt", (dict,), 'an object {"sha256", "text"}'),
            sampling=_optional(where, data, "sampling", (dict,), "an object"),
            images=data.get("images"),
            data=run_data,
            runner=_optional(where, data, "runner", (dict,), "an object") or {},
            shard=_optional(where, data, "shard", (dict,), "an object"),
            versions=_optional(where, data, "versions", (dict,), "an object") or {},
            git_revision=_optional(where, data, "git_revision", (str,), "a string"),
            started_at=_optional(where, data, "started_at", (str,), "an ISO time"),
            finished_at=_optional(where, data, "finished_at", (str,), "an ISO time"),
            counts=_optional(where, data, "counts", (dict,), "an object of counts"),
            merging=_optional(where, data, "merging", (dict,), "an object"),
            interrupted=_optional(where, data, "interrupted", (dict,), "an object"),
            extra={key: value for key, value in data.items() if key not in known},
        )


def _selection_of(where: str, data: Mapping[str, Any], run_data: Mapping[str, Any]) -> Selection | None:
    raw = data.get("selection")
    config = data.get("config")
    if raw is not None:
        selection = Selection.from_dict(raw, f"{where}: field 'selection'")
        if config is not None and config != selection.config:
            raise ValueError(f"{where}: field 'config': {config!r} contradicts selection.config {selection.config!r}")
        return selection
    if config is None:
        return None
    if config not in CONFIG_NAMES:
        raise ValueError(f"{where}: field 'config': expected one of {', '.join(CONFIG_NAMES)}, got {config!r}")
    # Version 1: the selection's parts were spread over "config" and "data".
    migrated = {"config": config, "label_manifest_sha256": run_data.get("manifest_sha256")}
    for key in ("dev_groups", "exclude_dev", "dev_manifest", "dev_manifest_sha256"):
        if run_data.get(key) is not None:
            migrated[key] = run_data[key]
    return Selection.from_dict(migrated, f"{where}: fields 'config'/'data'")


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not valid JSON ({error}); expected {what}") from None


def read_run_record(path: str | os.PathLike[str]) -> RunRecord | None:
    """The run record of a run folder: ``run.json``, else its shard records merged.

    Shard records must agree on the judge key and the selection (a mismatch
    means two experiments in one folder, named in the error); their counts
    are summed. A folder without any record gives ``None`` (its results alone
    are still scoreable).

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a directory.
    ValueError
        If a record is not valid JSON or not a valid record (file and field
        named), or shard records disagree.
    """
    directory = Path(path)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: run directory not found; expected a folder of <trajectory_id>.json results")
    main = directory / RUN_RECORD_NAME
    paths = [main] if main.is_file() else sorted(p for p in directory.iterdir() if _SHARD_RECORD.match(p.name))
    records = [(p, RunRecord.from_dict(_read_json(p, "a run record object"), str(p))) for p in paths]
    if not records:
        return None
    first_path, merged = records[0]
    for record_path, record in records[1:]:
        # Shards of one run share these; a mismatch means two runs in one folder.
        for name, mine, theirs in (("judge", record.judge_key, merged.judge_key),
                                   ("selection", record.selection, merged.selection)):
            if mine != theirs:
                shown = (record.spec, merged.spec) if name == "judge" else (mine, theirs)
                raise ValueError(
                    f"{record_path}: {name} {shown[0]!r} differs from {first_path.name}'s {shown[1]!r}; "
                    "expected the shards of one run (keep experiments in separate folders)"
                )
        if merged.counts is not None and record.counts is not None:
            counts = {k: merged.counts.get(k, 0) + record.counts.get(k, 0) for k in {**merged.counts, **record.counts}}
            merged = merged.replace(counts=counts)
    return merged


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
        return cls(
            trajectory_id=trajectory_id,
            parse_status=status,
            verdict=_optional(where, data, "verdict", (dict,), "a verdict object"),
            judge=_optional(where, data, "judge", (str,), "a string"),
            judge_key=_optional(where, data, "judge_key", (str,), "a string"),
            raw_output=_optional(where, data, "raw_output", (str,), "a string"),
            error=_optional(where, data, "error", (str,), "a string"),
            parse_detail=_optional(where, data, "parse_detail", (str,), "a string"),
            telemetry=_optional(where, data, "telemetry", (dict,), "an object") or {},
            finished_at=_optional(where, data, "finished_at", (str,), "an ISO time"),
            format_version=version,
        )

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



# --- one runner per run folder -----------------------------------------------------------


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
        return self.path / (Path(self.name).stem + ".lock")

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
            different = [f"{key}: {old[key]!r} there, {new[key]!r} now" for key in old if old[key] != new[key]]
            if previous.selection is not None and record.selection is not None:
                different += [f"selection {item}" for item in previous.selection.contradiction(record.selection)]
            if different:
                raise ValueError(
                    f"{self.path} already holds a different run ({path.name}: {'; '.join(different)}); "
                    "resume with the same settings, or use another output directory to keep experiments apart"
                )

    def load_results(self, trajectory_ids: Iterable[str]) -> dict[str, ResultRecord | None]:
        """The result of each id in this folder (``None``: missing or unreadable)."""
        return {trajectory_id: read_result(self.path, trajectory_id) for trajectory_id in trajectory_ids}

    def write_record(self, record: RunRecord) -> None:
        """Write the run record atomically."""
        write_json_atomic(self.record_path, record.to_dict())
