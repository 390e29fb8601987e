"""The run record: ``run.json`` (or a shard's ``run-shard-I-of-N.json``) as a typed, versioned object.

:class:`RunRecord` says how a run was made -- the judge's open spec, its
:func:`judge_key`, the item :class:`~agenthorizon.release.splits.Selection`,
versions and counts -- and :func:`read_run_record` is the one reader of those
files. Version-1 records (written before typed records) are migrated here and
nowhere else. The format, with a JSON example, is in ``docs/reports.md``
("The run record"). Result files and whole folders are read through
:mod:`agenthorizon.judging.runs.records`, which re-exports this module's names.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from agenthorizon.release.splits import Selection
from agenthorizon.schema import CONFIG_NAMES

__all__ = [
    "FORMAT_VERSION",
    "RUN_RECORD_NAME",
    "RunRecord",
    "distinct_labels",
    "is_record_name",
    "judge_key",
    "read_run_record",
    "record_name",
]

FORMAT_VERSION = 2
"""Version of the run and result formats this release writes.

1: run records without ``selection`` / ``judge_key`` and results without
``judge_key`` (agenthorizon 0.1 before typed records); read by migration.
"""

RUN_RECORD_NAME = "run.json"
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


# --- validation helpers ------------------------------------------------------------------


def _expect(where: str, name: str, value: Any, kinds: tuple[type, ...], what: str) -> Any:
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ValueError(f"{where}: field {name!r}: expected {what}, got {type(value).__name__} {value!r:.80}")
    return value


def _optional(where: str, data: Mapping[str, Any], name: str, kinds: tuple[type, ...], what: str) -> Any:
    value = data.get(name)
    return None if value is None else _expect(where, name, value, kinds, f"{what} or null")


_TEXT = ((str,), "a string")
_OBJECT = ((dict,), "an object")
_TIME = ((str,), "an ISO time")
# Optional fields of each record: name -> (accepted types, what to expect in an error).
_RUN_FIELDS = {
    "model": _TEXT, "base_url": _TEXT, "prompt": ((dict,), 'an object {"sha256", "text"}'), "sampling": _OBJECT,
    "runner": _OBJECT, "shard": _OBJECT, "versions": _OBJECT, "git_revision": _TEXT, "started_at": _TIME,
    "finished_at": _TIME, "counts": ((dict,), "an object of counts"), "merging": _OBJECT, "interrupted": _OBJECT,
}


def _optional_fields(where: str, data: Mapping[str, Any], spec: Mapping[str, tuple[tuple[type, ...], str]]) -> dict[str, Any]:
    """Each optional field of ``spec`` from ``data``, type-checked (``None`` when absent or null)."""
    return {name: _optional(where, data, name, kinds, what) for name, (kinds, what) in spec.items()}


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
        version = _version(where, data)
        judge = _expect(where, "judge", data.get("judge"), (dict,), 'an object with "name" and "spec"')
        if not isinstance(judge.get("spec") or judge.get("name"), str):
            raise ValueError(f'{where}: field \'judge\': expected "spec" or "name" as a string, got {judge!r:.80}')
        run_data = _optional(where, data, "data", (dict,), "an object") or {}
        selection = _selection_of(where, data, run_data)
        known = {f.name for f in dataclasses.fields(cls)} | {"config", "judge_key", "label"}
        fields = _optional_fields(where, data, _RUN_FIELDS)
        fields["runner"], fields["versions"] = fields["runner"] or {}, fields["versions"] or {}
        return cls(
            judge=judge,
            selection=selection,
            images=data.get("images"),
            data=run_data,
            format_version=version,  # as read: to_dict() always writes the current version
            extra={key: value for key, value in data.items() if key not in known},
            **fields,
        )


def distinct_labels(records: Sequence[RunRecord]) -> list[str]:
    """A label per record that tells them apart: its label, else its spec, else the spec and key digits.

    Labels (model names) collide when one model runs under two harnesses or
    at two temperatures; the spec then names the harness, and the judge key's
    first 8 digits tell apart what the spec does not.

    >>> a = RunRecord.build({"name": "command", "spec": "codex:m", "model": "m"}, None)
    >>> b = RunRecord.build({"name": "command", "spec": "opencode:m", "model": "m"}, None)
    >>> c = RunRecord.build({"name": "openai", "spec": "openai:x", "model": "x"}, None)
    >>> distinct_labels([a, b, c])
    ['codex:m', 'opencode:m', 'x']
    """
    labels = [record.label for record in records]
    specs = [record.spec for record in records]
    out = []
    for record in records:
        if labels.count(record.label) == 1:
            out.append(record.label)
        elif specs.count(record.spec) == 1:
            out.append(record.spec)
        else:
            out.append(f"{record.spec} [{record.judge_key[:8]}]")
    return out


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


