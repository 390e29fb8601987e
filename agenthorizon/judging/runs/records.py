# Over 500 lines: every record of a run folder with its validation and migrations of the v1-v3 formats.
"""The records of a run folder, typed and versioned: ``run.json`` and each ``<trajectory_id>.json``.

Two records, frozen dataclasses whose ``from_dict`` validates a file's JSON
object (an error names the file and the field) and whose ``to_dict`` is what
is written:

- :class:`ResultRecord`, one item's result: parse status, verdict, the
  judge's raw text and its :class:`Telemetry`;
- :class:`RunRecord`, how a run was made and how it ended: the judge's spec
  and :func:`judge_key`, the item :class:`~agenthorizon.release.splits.Selection`,
  provenance, the run's ``status`` (:data:`RUN_STATUSES`) with its
  :class:`Interruption`, and its :class:`RunCounts`, :class:`Merging`,
  :class:`Reasking`, :class:`RunTotals` and :class:`ShardInfo`.

They stay objects from where they are made (the runner's loop) to where they
are read (the writer, the cost budget, the progress bar, the summary, the
report); they become JSON only in the writer, and dicts only at scoring's
boundary (:meth:`ResultRecord.prediction`). A file of an older version is
upgraded by :func:`_upgraded_run` before it is validated: the one migration.
This module does no I/O; reading and writing the files, and listing a
folder's records, is :mod:`agenthorizon.judging.runs.folder`'s. The formats,
with JSON examples, are in ``docs/reports.md`` ("The run record").

Over 500 lines on purpose: the records, their validation and their migration
are one file format, and a reader should find all of it in one place.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass, field
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agenthorizon.judging.ablation import describe_ablation, parse_ablation
from agenthorizon.release.splits import Selection
from agenthorizon.schema import (
    ABLATE_SCREENSHOTS,
    CONFIG_NAMES,
    LAYOUT_MARKDOWN,
    PARSE_STATUSES,
    STATUS_ERROR,
    STATUS_ID_MISMATCH,
    STATUS_JUDGE_MISMATCH,
    STATUS_OK,
)
from agenthorizon.scoring.predictions import result_prediction

__all__ = [
    "Answer",
    "FINISHED",
    "FORMAT_VERSION",
    "INTERRUPTED",
    "INTERRUPTION_CAUSES",
    "Interruption",
    "Merging",
    "RUNNING",
    "RUN_STATUSES",
    "Reasking",
    "ResultRecord",
    "RunCounts",
    "RunRecord",
    "RunTotals",
    "STOPPED",
    "ShardInfo",
    "Telemetry",
    "Total",
    "distinct_labels",
    "judge_key",
    "merge_shard_records",
    "needs_judging",
]

FORMAT_VERSION = 4
"""Version of the run-folder format (run and result records) this release writes.

1. Before typed records: run records without ``selection`` or ``judge_key``,
   results without ``judge_key``.
2. ``selection`` and ``judge_key``; a run's end told by ``finished_at`` plus
   ``interrupted: {at, reason}``; ``counts.invalid`` for unparseable answers.
3. ``status``, ``ended_at``, ``interruption: {cause, reason}``,
   ``counts.unparseable``, ``totals``; every declared :class:`Telemetry` field
   written in results (``null`` when unknown).
4. ``ablation``: the parts withheld from every judge input (``[]``: none;
   earlier versions withheld nothing). Re-asking (``reask``): results gain
   ``answers`` (every answer asked for the item, each with its parse status,
   tokens and cost) and the telemetry field ``answers`` (how many); run
   records gain ``reasking``. A version-3 file holds one answer per item and
   reads as such.

Older files are read through the migration; newer ones are refused.
"""

RUNNING = "running"
FINISHED = "finished"
STOPPED = "stopped"
INTERRUPTED = "interrupted"
RUN_STATUSES = (RUNNING, FINISHED, STOPPED, INTERRUPTED)
"""A run's ``status``: ``running`` from its start (and for good when its process
was killed outright), ``finished`` once every selected item was attempted,
``stopped`` when the runner ended it early for a reason it names (cost cap,
dead server, preflight, unwritable folder), ``interrupted`` when a signal or
an unexpected exception cut it short."""

# Why a run ended early -> the status that says so.
INTERRUPTION_CAUSES = {
    "max_cost": STOPPED,  # --max-cost: no new item may start
    "breaker": STOPPED,  # consecutive items failed to reach the judge's server
    "preflight": STOPPED,  # the judge's model or program is not usable
    "io_error": STOPPED,  # the run folder cannot be written (a full disk)
    "signal": INTERRUPTED,  # Ctrl-C or SIGTERM
    "exception": INTERRUPTED,  # anything else
}

# The judge settings that make two runs the same experiment (see judge_key); the
# spec keys lifted to the top of run.json.
_KEY_LENGTH = 16
_LIFTED = ("model", "base_url", "prompt", "sampling", "images")


# --- validation helpers ------------------------------------------------------------------


def _expect(where: str, name: str, value: Any, kinds: tuple[type, ...], what: str) -> Any:
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ValueError(f"{where}: field {name!r}: expected {what}, got {type(value).__name__} {value!r:.80}")
    return value


def _optional(where: str, data: Mapping[str, Any], name: str, kinds: tuple[type, ...], what: str) -> Any:
    value = data.get(name)
    return None if value is None else _expect(where, name, value, kinds, f"{what} or null")


def _count(where: str, name: str, value: Any) -> int:
    _expect(where, name, value, (int,), "a count (an integer >= 0)")
    if value < 0:
        raise ValueError(f"{where}: field {name!r}: expected a count (an integer >= 0), got {value}")
    return value


def _amount(where: str, name: str, value: Any) -> float:
    _expect(where, name, value, (int, float), "a number >= 0")
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{where}: field {name!r}: expected a finite number >= 0, got {value!r}")
    return value


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


def _one_of(where: str, name: str, value: Any, choices: Iterable[str]) -> str:
    """``value`` when it is one of ``choices``, else an error naming the file, the field and the choices."""
    if value not in choices:
        raise ValueError(f"{where}: field {name!r}: expected one of {', '.join(choices)}, got {value!r}")
    return value


def _object(where: str, data: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise ValueError(f"{where}: expected {what}, got {type(data).__name__}")
    return data


_TEXT = ((str,), "a string")
_OBJECT = ((dict,), "an object")
_TIME = ((str,), "an ISO time")


# --- telemetry ----------------------------------------------------------------------------

# Telemetry fields that are counts, amounts (seconds, dollars) and texts.
_TELEMETRY_COUNTS = ("input_tokens", "output_tokens", "reasoning_tokens", "cache_read_input_tokens", "cache_write_input_tokens",
                     "attempts", "answers", "turns", "tool_calls", "truncated_bytes")
_TELEMETRY_AMOUNTS = ("latency_s", "cost_usd")
_TELEMETRY_TEXTS = ("cost_source", "merge_reason")


@dataclass(frozen=True)
class Telemetry:
    """What one item's judging cost and how it went; every value ``None`` when the judge cannot know it.

    Written flat as a result's ``telemetry`` object: the fields below, then
    the keys of ``extra``. A judge reports them through its
    :class:`~agenthorizon.judging.judges.base.JudgeOutput` (fields or
    ``extra`` keys of these names); an unknown value is ``None``, never 0.

    >>> Telemetry(input_tokens=1200, output_tokens=80, cost_usd=None).to_dict()["cost_usd"] is None
    True
    >>> Telemetry.from_dict({"input_tokens": 5, "n_images": 8}, "r.json").extra
    {'n_images': 8}
    """

    input_tokens: int | None = None
    """Tokens the model read for this item, over all attempts."""
    output_tokens: int | None = None
    """Tokens the model wrote for this item, over all attempts."""
    reasoning_tokens: int | None = None
    """Reasoning (thinking) tokens, as the model's API counts them (part of ``output_tokens`` for most APIs)."""
    cache_read_input_tokens: int | None = None
    """Input tokens served from the provider's prompt cache (part of ``input_tokens``)."""
    cache_write_input_tokens: int | None = None
    """Input tokens written to the provider's prompt cache."""
    latency_s: float | None = None
    """Wall-clock seconds of the judge call, retries included."""
    cost_usd: float | None = None
    """US dollars this item cost; ``None`` when unknown (no price, or a harness that cannot know it)."""
    cost_source: str | None = None
    """What ``cost_usd`` is when the judge says: ``cli_estimate`` (an agentic CLI's own price table, not a bill), ``unknown``."""
    attempts: int | None = None
    """Calls made for this item (the runner's attempts or the judge's own retries); 0 when it never reached the judge."""
    answers: int | None = None
    """Answers asked for this item: 1, plus one per re-ask after an answer without a valid verdict (``reask``)."""
    turns: int | None = None
    """Model turns of an agentic harness."""
    tool_calls: int | None = None
    """Tool calls an agentic harness made."""
    truncated_bytes: int | None = None
    """Bytes of the answer dropped by the output cap (its start; the end, where verdicts are, is kept); 0: none."""
    merged: bool | None = None
    """Direct judges: whether the screenshots went as 2x2 mosaics; ``None``: no images, or not a direct judge."""
    merge_reason: str | None = None
    """Why they were merged: ``count`` (over ``max_images``), ``server_limit`` (the server refused), ...; else ``None``."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Values particular to one judge kind (``images_mode_used``, ``n_images``, a harness's ``returncode``...)."""

    def to_dict(self) -> dict[str, Any]:
        """The flat ``telemetry`` object of a result file: declared fields, then ``extra``'s keys."""
        out = {
            "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
            "reasoning_tokens": self.reasoning_tokens, "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_write_input_tokens": self.cache_write_input_tokens, "latency_s": self.latency_s, "cost_usd": self.cost_usd,
            "cost_source": self.cost_source, "attempts": self.attempts, "answers": self.answers, "turns": self.turns,
            "tool_calls": self.tool_calls,
            "truncated_bytes": self.truncated_bytes, "merged": self.merged, "merge_reason": self.merge_reason,
        }
        if self.extra:
            out.update(self.extra)
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Telemetry:
        """Validate a flat telemetry mapping: declared fields type-checked, other keys kept in ``extra``."""
        data = _object(where, data, "a telemetry object")
        values: dict[str, Any] = {}
        extra = {}
        for key, value in data.items():
            kinds = _TELEMETRY_TYPES.get(key)
            if kinds is None:
                extra[key] = value
            elif value is not None:
                # The common case checked inline (once per result, on the runner's event loop);
                # anything else goes through the checker that names what was expected.
                if type(value) not in kinds or kinds in _NUMBERS and not 0 <= value < math.inf:
                    value = _TELEMETRY_FIELDS[key](f"{where}: telemetry", key, value)
                values[key] = value
        # Every value is checked: fill the fields directly. A frozen dataclass's __init__ sets each
        # field through object.__setattr__, 6 us for these 16 fields, paid per result on the event loop.
        telemetry = object.__new__(cls)
        telemetry.__dict__.update(_TELEMETRY_DEFAULTS, **values, extra=extra)
        return telemetry

    @classmethod
    def from_output(cls, output: Any) -> Telemetry:
        """The telemetry of a judge's :class:`~agenthorizon.judging.judges.base.JudgeOutput` (``ValueError`` if a value has the wrong type)."""
        return cls.from_dict(output.telemetry(), "the judge's output")

    def replace(self, **changes: Any) -> Telemetry:
        """A copy with ``changes`` applied."""
        return dataclasses.replace(self, **changes)


_TELEMETRY_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Telemetry) if f.name != "extra"}
_FLAG, _TEXT_TYPE, _COUNT, _AMOUNT = (bool,), (str,), (int,), (int, float)
_NUMBERS = (_COUNT, _AMOUNT)
# Field -> the exact types a valid value has (no NaN, infinity or negative number besides).
_TELEMETRY_TYPES = {**{name: _COUNT for name in _TELEMETRY_COUNTS}, **{name: _AMOUNT for name in _TELEMETRY_AMOUNTS},
                    **{name: _TEXT_TYPE for name in _TELEMETRY_TEXTS}, "merged": _FLAG}
_TELEMETRY_FIELDS: dict[str, Any] = {
    **{name: _count for name in _TELEMETRY_COUNTS},
    **{name: _amount for name in _TELEMETRY_AMOUNTS},
    **{name: lambda where, name, value: _expect(where, name, value, (str,), "a string or null") for name in _TELEMETRY_TEXTS},
    "merged": lambda where, name, value: _expect(where, name, value, (bool,), "true, false or null"),
}


# --- result records ----------------------------------------------------------------------

@dataclass(frozen=True)
class Answer:
    """One answer the judge gave for an item, when the run re-asks after an answer without a valid verdict.

    >>> Answer("no verdict here", "no_json", input_tokens=900, output_tokens=40).to_dict()["parse_status"]
    'no_json'
    """

    raw_output: str
    """The answer, verbatim."""
    parse_status: str
    """Its parse status (``ok`` only for the last answer: an ``ok`` answer is not re-asked)."""
    parse_detail: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    latency_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Answer:
        data = _object(where, data, 'an answer object {"raw_output", "parse_status", ...}')
        status = _one_of(where, "answers.parse_status", data.get("parse_status"), PARSE_STATUSES)
        values = {name: None if data.get(name) is None else _count(where, f"answers.{name}", data[name])
                  for name in ("input_tokens", "output_tokens")}
        values.update({name: None if data.get(name) is None else _amount(where, f"answers.{name}", data[name])
                       for name in ("cost_usd", "latency_s")})
        return cls(
            raw_output=_expect(where, "answers.raw_output", data.get("raw_output"), (str,), "a string"),
            parse_status=status, parse_detail=_optional(where, data, "parse_detail", (str,), "a string"), **values,
        )


# Optional fields of a result file: name -> (accepted types, what to expect in an error).
_RESULT_FIELDS = {
    "verdict": ((dict,), "a verdict object"), "judge": _TEXT, "judge_key": _TEXT, "raw_output": _TEXT,
    "error": _TEXT, "parse_detail": _TEXT, "finished_at": _TIME,
}


@dataclass(frozen=True)
class ResultRecord:
    """One item's result: the content of ``<trajectory_id>.json``."""

    trajectory_id: str
    """The item (the file is named after it; a mismatch is ``id_mismatch``)."""
    parse_status: str
    """One of ``schema.PARSE_STATUSES``: ``ok``, an unparseable answer (``no_json``...), or ``error`` (the judge failed)."""
    verdict: Mapping[str, Any] | None = None
    """The parsed verdict object when ``parse_status`` is ``ok`` (``success``, ``mistake_type``, ``confidence``, ``reasoning``)."""
    judge: str | None = None
    """The judge's ``name``."""
    judge_key: str | None = None
    """:attr:`RunRecord.judge_key` of the run that wrote it (``None`` in version-1 files, trusted to their folder's run)."""
    raw_output: str | None = None
    """The judge's answer, verbatim (``None`` for an error)."""
    error: str | None = None
    """Why the judge failed, when ``parse_status`` is ``error`` (secrets scrubbed)."""
    parse_detail: str | None = None
    """What the verdict parser found wrong with an unparseable answer."""
    telemetry: Telemetry = field(default_factory=Telemetry)
    """Tokens, latency, cost, attempts... of this item."""
    finished_at: str | None = None
    """When the result was made (ISO time, UTC)."""
    answers: tuple[Answer, ...] = ()
    """With re-asking (``reask``), every answer asked for, in order; the last is ``raw_output``'s.
    Empty without re-asking (``raw_output`` is then the one answer)."""
    format_version: int = FORMAT_VERSION
    """The version the file was read as; :meth:`to_dict` always writes the current one."""

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
            "telemetry": self.telemetry.to_dict(),
            "finished_at": self.finished_at,
            "answers": [answer.to_dict() for answer in self.answers],
        }

    @classmethod
    def from_dict(cls, data: Any, where: str) -> ResultRecord:
        """Validate a result object; errors name ``where`` (the file) and the field."""
        data = _object(where, data, "a result JSON object")
        version = _version(where, data)
        trajectory_id = _expect(where, "trajectory_id", data.get("trajectory_id"), (str,), "a string")
        status = _one_of(where, "parse_status", data.get("parse_status"), PARSE_STATUSES)
        fields = _optional_fields(where, data, _RESULT_FIELDS)
        telemetry = data.get("telemetry")
        fields["telemetry"] = Telemetry() if telemetry is None else Telemetry.from_dict(telemetry, where)
        answers = _optional(where, data, "answers", (list,), "a list of answers") or ()
        fields["answers"] = tuple(Answer.from_dict(answer, where) for answer in answers)
        return cls(trajectory_id=trajectory_id, parse_status=status, format_version=version, **fields)

    def prediction(self) -> dict[str, Any]:
        """This result as scoring takes it: the result-record shape of :mod:`agenthorizon.scoring.predictions`."""
        return result_prediction(self.parse_status, None if self.verdict is None else dict(self.verdict))

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


def needs_judging(result: ResultRecord | None, trajectory_id: str, key: str) -> bool:
    """True when a resume must judge the item again: no trustworthy answer yet.

    Missing, unreadable, failed (``error``) and untrusted results are redone;
    an answered one (``ok`` or an unparseable-answer status) is kept, because
    asking again would change the experiment.
    """
    return result is None or result.parse_status == STATUS_ERROR or result.trust_problem(trajectory_id, key) is not None


# --- the parts of a run record -------------------------------------------------------------


@dataclass(frozen=True)
class RunCounts:
    """The selected items of a run by what their result says, as the run ended.

    ``ok + unparseable + error + missing`` is the number of selected items.
    ``unparseable`` is *not* a score's ``n_invalid``: that one counts every
    prediction but ``ok``, failed and missing ones included.

    >>> (RunCounts(ok=2, error=1) + RunCounts(ok=1, missing=1)).to_dict()
    {'ok': 3, 'unparseable': 0, 'error': 1, 'missing': 1, 'skipped': 0}
    """

    ok: int = 0
    """Answered with a valid verdict."""
    unparseable: int = 0
    """Answered, but the answer holds no valid verdict (``no_json``, ``malformed_json``, ``non_boolean``...)."""
    error: int = 0
    """The judge failed (timeout, crash, HTTP error); judged again on resume."""
    missing: int = 0
    """No trustworthy result (none yet, unreadable, or untrusted); judged again on resume."""
    skipped: int = 0
    """Already answered before the invocation that wrote the record, and kept."""

    def __add__(self, other: RunCounts) -> RunCounts:
        return RunCounts(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(self)})

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Any, where: str) -> RunCounts:
        data = _object(where, data, "an object of counts")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"{where}: field 'counts': unknown count(s) {', '.join(map(str, unknown))}; expected {', '.join(names)}")
        return cls(**{name: _count(where, f"counts.{name}", value) for name, value in data.items()})


@dataclass(frozen=True)
class Merging:
    """Items whose screenshots went to a direct judge as 2x2 mosaics (SPEC section 3), by reason."""

    merged_items: int = 0
    """Selected items whose result says ``merged``."""
    by_reason: Mapping[str, int] = field(default_factory=dict)
    """Those items by ``merge_reason`` (items merged without a reason are in ``merged_items`` only)."""

    def __add__(self, other: Merging) -> Merging:
        reasons = dict(self.by_reason)
        for reason, count in other.by_reason.items():
            reasons[reason] = reasons.get(reason, 0) + count
        return Merging(self.merged_items + other.merged_items, dict(sorted(reasons.items())))

    def to_dict(self) -> dict[str, Any]:
        return {"merged_items": self.merged_items, "by_reason": dict(self.by_reason)}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Merging:
        data = _object(where, data, "a merging object")
        reasons = _expect(where, "merging.by_reason", data.get("by_reason", {}), (dict,), "an object of counts")
        return cls(
            merged_items=_count(where, "merging.merged_items", data.get("merged_items", 0)),
            by_reason={str(k): _count(where, f"merging.by_reason.{k}", v) for k, v in reasons.items()},
        )


@dataclass(frozen=True)
class Reasking:
    """How often a run asked again after an answer without a valid verdict (``reask``), over its results.

    >>> Reasking.of([(2, "ok"), (1, "ok"), (3, "no_json")]).to_dict()
    {'items': 2, 'reasks': 3, 'recovered': 1}
    """

    items: int = 0
    """Items asked more than once."""
    reasks: int = 0
    """Answers asked for beyond each item's first."""
    recovered: int = 0
    """Items asked more than once whose last answer holds a valid verdict."""

    @classmethod
    def of(cls, answered: Iterable[tuple[int | None, str]]) -> Reasking:
        """The counts over ``(answers, parse_status)`` pairs of results (``answers`` ``None``: not recorded, one)."""
        items = reasks = recovered = 0
        for answers, status in answered:
            if answers is not None and answers > 1:
                items += 1
                reasks += answers - 1
                recovered += status == STATUS_OK
        return cls(items, reasks, recovered)

    def __add__(self, other: Reasking) -> Reasking:
        return Reasking(self.items + other.items, self.reasks + other.reasks, self.recovered + other.recovered)

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Reasking:
        data = _object(where, data, 'a reasking object {"items", "reasks", "recovered"}')
        return cls(**{name: _count(where, f"reasking.{name}", data.get(name, 0)) for name in ("items", "reasks", "recovered")})


@dataclass(frozen=True)
class Total:
    """A sum over a run's results of a value some results may not know (tokens, cost, turns).

    >>> Total(known=1.5, unknown_items=0).total, Total(known=1.5, unknown_items=2).total is None
    (1.5, True)
    """

    known: float = 0
    """The sum over the results that report the value."""
    unknown_items: int = 0
    """Results that do not report it."""

    @property
    def total(self) -> float | None:
        """The sum over every result; ``None`` when any result does not know its value."""
        return None if self.unknown_items else self.known

    def __add__(self, other: Total) -> Total:
        return Total(self.known + other.known, self.unknown_items + other.unknown_items)

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "known": self.known, "unknown_items": self.unknown_items}

    @classmethod
    def from_dict(cls, data: Any, where: str, name: str) -> Total:
        data = _object(f"{where}: field {name!r}", data, 'an object {"total", "known", "unknown_items"}')
        return cls(_amount(where, f"{name}.known", data.get("known", 0)),
                   _count(where, f"{name}.unknown_items", data.get("unknown_items", 0)))


# The telemetry values a run record totals.
TOTALLED = ("input_tokens", "output_tokens", "reasoning_tokens", "cache_read_input_tokens", "cache_write_input_tokens",
            "cost_usd", "latency_s", "turns", "tool_calls")


@dataclass(frozen=True)
class RunTotals:
    """A run's totals over the results its folder holds for the selected items (the same results as its counts).

    Each telemetry total is a :class:`Total`: null when any result does not
    know the value, with the part that is known and the count of unknowns.

    >>> totals = RunTotals.of([Telemetry(input_tokens=10, cost_usd=0.5), Telemetry(input_tokens=5)], wall_time_s=2.0)
    >>> totals.items, totals.input_tokens.total, totals.cost_usd.total, totals.cost_usd.known
    (2, 15, None, 0.5)
    """

    items: int = 0
    """Results counted: the selected items answered or failed (``ok + unparseable + error``)."""
    wall_time_s: float | None = None
    """Seconds the runs that wrote this record took, resumes added up; ``None`` when one of them is not known (a run killed outright, a record older than version 3)."""
    input_tokens: Total = field(default_factory=Total)
    output_tokens: Total = field(default_factory=Total)
    reasoning_tokens: Total = field(default_factory=Total)
    cache_read_input_tokens: Total = field(default_factory=Total)
    cache_write_input_tokens: Total = field(default_factory=Total)
    cost_usd: Total = field(default_factory=Total)
    """US dollars; its ``total`` is null as soon as one item's cost is unknown."""
    latency_s: Total = field(default_factory=Total)
    """The items' judging latencies added up (more than the wall time when items ran concurrently)."""
    turns: Total = field(default_factory=Total)
    tool_calls: Total = field(default_factory=Total)

    @classmethod
    def of(cls, telemetry: Iterable[Telemetry], wall_time_s: float | None) -> RunTotals:
        """The totals of these results' telemetry."""
        known = dict.fromkeys(TOTALLED, 0)
        unknown = dict.fromkeys(TOTALLED, 0)
        items = 0
        for one in telemetry:
            items += 1
            for name in TOTALLED:
                value = getattr(one, name)
                if value is None:
                    unknown[name] += 1
                else:
                    known[name] += value
        return cls(items, wall_time_s, **{name: Total(known[name], unknown[name]) for name in TOTALLED})

    def __add__(self, other: RunTotals) -> RunTotals:
        wall = None if self.wall_time_s is None or other.wall_time_s is None else self.wall_time_s + other.wall_time_s
        return RunTotals(self.items + other.items, wall,
                         **{name: getattr(self, name) + getattr(other, name) for name in TOTALLED})

    def to_dict(self) -> dict[str, Any]:
        return {"items": self.items, "wall_time_s": self.wall_time_s,
                **{name: getattr(self, name).to_dict() for name in TOTALLED}}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> RunTotals:
        data = _object(where, data, "a totals object")
        wall = data.get("wall_time_s")
        return cls(
            items=_count(where, "totals.items", data.get("items", 0)),
            wall_time_s=None if wall is None else _amount(where, "totals.wall_time_s", wall),
            **{name: Total.from_dict(data[name], where, f"totals.{name}") if name in data else Total() for name in TOTALLED},
        )


@dataclass(frozen=True)
class Interruption:
    """Why a run ended before judging every selected item.

    >>> Interruption("max_cost", "max cost reached: ...").status
    'stopped'
    """

    cause: str
    """One of :data:`INTERRUPTION_CAUSES`: ``max_cost``, ``breaker``, ``preflight``, ``io_error`` (the runner stopped it), ``signal``, ``exception`` (it was interrupted)."""
    reason: str
    """The message: what happened and how to resume (secrets scrubbed)."""

    def __post_init__(self) -> None:
        if self.cause not in INTERRUPTION_CAUSES:
            raise ValueError(f"interruption cause {self.cause!r}: expected one of {', '.join(INTERRUPTION_CAUSES)}")

    @property
    def status(self) -> str:
        """The run status this cause gives: ``stopped`` or ``interrupted``."""
        return INTERRUPTION_CAUSES[self.cause]

    def to_dict(self) -> dict[str, str]:
        return {"cause": self.cause, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Interruption:
        data = _object(where, data, 'an interruption object {"cause", "reason"}')
        cause = _one_of(where, "interruption.cause", data.get("cause"), INTERRUPTION_CAUSES)
        return cls(cause, _expect(where, "interruption.reason", data.get("reason"), (str,), "a string"))


@dataclass(frozen=True)
class ShardInfo:
    """Which shard of a run a record is: shard ``index`` of ``count`` (1-based), items assigned by ``assignment``."""

    index: int
    count: int
    assignment: str
    """How items were assigned (:data:`agenthorizon.judging.runs.shards.ASSIGNMENT`)."""

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "count": self.count, "assignment": self.assignment}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> ShardInfo:
        data = _object(where, data, 'a shard object {"index", "count", "assignment"}')
        index, count = _count(where, "shard.index", data.get("index")), _count(where, "shard.count", data.get("count"))
        if not 1 <= index <= count:
            raise ValueError(f"{where}: field 'shard': expected 1 <= index <= count, got {index} of {count}")
        return cls(index, count, _expect(where, "shard.assignment", data.get("assignment"), (str,), "a string"))


# --- the judge identity ------------------------------------------------------------------


def _identity(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The judge settings that make two runs the same experiment, from a judge's ``spec()``.

    The ablation counts only when something is withheld, and the protocol
    settings (a layout other than ``markdown``, a system prompt, re-asking)
    only when set, so that the keys of runs made before they existed stay
    what they were.
    """
    prompt = spec.get("prompt")
    identity = {
        "spec": spec.get("spec") or spec.get("name"),
        "model": spec.get("model"),
        "prompt_sha256": prompt.get("sha256") if isinstance(prompt, Mapping) else None,
        "sampling": spec.get("sampling"),
        "images": spec.get("images"),
    }
    ablation = spec.get("ablation")
    if ablation:
        identity["ablation"] = list(ablation)
    protocol: dict[str, Any] = {}
    if spec.get("layout") not in (None, LAYOUT_MARKDOWN):
        protocol["layout"] = spec["layout"]
    system = spec.get("system_prompt")
    if isinstance(system, Mapping):
        protocol["system_prompt_sha256"] = system.get("sha256")
    if spec.get("reask"):
        protocol["reask"] = spec["reask"]
    if spec.get("reask_when"):  # written only when not the default rule
        protocol["reask_when"] = spec["reask_when"]
    if spec.get("timestamps"):
        protocol["timestamps"] = True
    if protocol:
        identity["protocol"] = protocol
    return identity


def judge_key(judge: Mapping[str, Any]) -> str:
    """A short stable id of a judge's settings: 16 hex digits of a sha256.

    Two runs share a key exactly when their judge spec string, model, prompt
    sha256, sampling settings, image settings, ablation (``"ablation"``:
    the parts withheld from the judge input, absent or empty for none) and
    protocol (layout, step times, system prompt sha256, re-asks and their rule) are all equal; operational
    settings (timeouts, retries, the server URL, prices) do not count, since
    they do not change what the judge is asked or how it answers.

    ``judge`` is a judge's ``spec()`` (``prompt`` as ``{"sha256", "text"}``).

    >>> judge_key({"spec": "lexical", "name": "lexical"}) == judge_key({"spec": "lexical", "timeout_s": 5})
    True
    >>> judge_key({"spec": "openai:a"}) == judge_key({"spec": "openai:b"})
    False
    >>> judge_key({"spec": "lexical"}) == judge_key({"spec": "lexical", "ablation": ["instruction"]})
    False
    >>> judge_key({"spec": "lexical"}) == judge_key({"spec": "lexical", "ablation": []})
    True
    """
    text = json.dumps(list(_identity(judge).values()), sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:_KEY_LENGTH]


# --- the run record ----------------------------------------------------------------------

# Optional fields of a run record: name -> (accepted types, what to expect in an error).
_RUN_FIELDS = {
    "model": _TEXT, "base_url": _TEXT, "prompt": ((dict,), 'an object {"sha256", "text"}'), "sampling": _OBJECT,
    "images": _OBJECT, "runner": _OBJECT, "versions": _OBJECT, "git_revision": _TEXT, "started_at": _TIME,
    "ended_at": _TIME,
}
# Typed parts of a run record: name -> its class (from_dict(data, where)).
_RUN_PARTS = {"counts": RunCounts, "merging": Merging, "reasking": Reasking, "totals": RunTotals, "interruption": Interruption,
              "shard": ShardInfo}


@dataclass(frozen=True)
class RunRecord:
    """How a run was made and how it ended: the content of ``run.json``.

    Keys this release does not know are kept in ``extra`` and written back.
    """

    judge: Mapping[str, Any]
    """The judge's open ``spec()`` (``name`` and ``spec`` always, plus the judge's own keys) without the lifted keys below."""
    selection: Selection | None = None
    """Which items the run is about; every reader rebuilds them from it."""
    model: str | None = None
    base_url: str | None = None
    """The judge's server, without credentials."""
    prompt: Mapping[str, Any] | None = None
    """``{"sha256", "text", "source"...}`` of the judge's prompt."""
    sampling: Mapping[str, Any] | None = None
    """Temperature, token limit, extra request fields, response format."""
    images: Mapping[str, Any] | None = None
    """Screenshot settings (:class:`agenthorizon.data.images.ImageSettings`'s ``to_dict()``, or a command judge's layout);
    ``{"mode": "none"}`` when the screenshots are ablated."""
    ablation: tuple[str, ...] = ()
    """The parts withheld from every judge input (:data:`agenthorizon.schema.ABLATION_PARTS`, in that order); ``()``: none."""
    data: Mapping[str, Any] = field(default_factory=dict)
    """The release root, item counts and, for a Hub repo id, the repo, revision and commit."""
    runner: Mapping[str, Any] = field(default_factory=dict)
    """Concurrency, timeout, retries, limit."""
    shard: ShardInfo | None = None
    versions: Mapping[str, Any] = field(default_factory=dict)
    git_revision: str | None = None
    status: str = RUNNING
    """One of :data:`RUN_STATUSES`; set by :meth:`ended` only."""
    started_at: str | None = None
    ended_at: str | None = None
    """When the run finished, stopped or was interrupted; ``None`` while running."""
    interruption: Interruption | None = None
    """Why a ``stopped`` or ``interrupted`` run ended early; ``None`` otherwise."""
    counts: RunCounts | None = None
    """Written when the run ends."""
    merging: Merging | None = None
    """Written when the run ends."""
    reasking: Reasking | None = None
    """Written when the run ends (``None`` in records older than version 4)."""
    totals: RunTotals | None = None
    """Written when the run ends."""
    format_version: int = FORMAT_VERSION
    """The version the file was read as; :meth:`to_dict` always writes the current one."""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in RUN_STATUSES:
            raise ValueError(f"run status {self.status!r}: expected one of {', '.join(RUN_STATUSES)}")
        expected = None if self.interruption is None else self.interruption.status
        if self.status in (STOPPED, INTERRUPTED) and expected != self.status or self.status in (RUNNING, FINISHED) and expected:
            raise ValueError(
                f"run status {self.status!r} with interruption {self.interruption!r}: a stopped or interrupted run "
                "needs an interruption of that kind, a running or finished one has none"
            )

    @classmethod
    def build(
        cls, spec: Mapping[str, Any], selection: Selection | None, ablation: Sequence[str] = (), **fields: Any
    ) -> RunRecord:
        """A new record (status ``running``) from a judge's ``spec()``: lifts the shared keys to the top level.

        ``ablation`` is the run's (:func:`~agenthorizon.judging.ablation.parse_ablation`).
        With the screenshots withheld no image is sent or copied, so the
        judge's image settings say nothing about the run and are recorded as
        ``{"mode": "none"}``: runs that differ only in them are one experiment.
        """
        prompt = spec.get("prompt")
        ablation = parse_ablation(ablation)
        return cls(
            judge={k: v for k, v in spec.items() if k not in _LIFTED},
            selection=selection,
            model=spec.get("model"),
            base_url=spec.get("base_url"),
            prompt=dict(prompt) if isinstance(prompt, Mapping) else None,
            sampling=spec.get("sampling"),
            images={"mode": "none"} if ABLATE_SCREENSHOTS in ablation else spec.get("images"),
            ablation=ablation,
            **fields,
        )

    def ended(
        self, at: str, counts: RunCounts, merging: Merging, totals: RunTotals, interruption: Interruption | None = None,
        reasking: Reasking | None = None,
    ) -> RunRecord:
        """The record of the run once it ended: ``finished``, or the status of ``interruption``; the one place a status is set."""
        return dataclasses.replace(
            self, status=FINISHED if interruption is None else interruption.status, ended_at=at,
            interruption=interruption, counts=counts, merging=merging, totals=totals,
            reasking=Reasking() if reasking is None else reasking,
        )

    @property
    def config(self) -> str | None:
        """The config the run was made on (``None`` for a record that names none)."""
        return None if self.selection is None else self.selection.config

    @property
    def spec(self) -> str:
        """The judge spec string (``"openai:MODEL"``, ``"lexical"``...)."""
        return str(self.judge.get("spec") or self.judge.get("name"))

    def judge_spec(self) -> dict[str, Any]:
        """The judge's ``spec()`` as the judge gave it (``judge`` with the lifted keys put back), and the run's ``ablation``."""
        return {**self.judge, "model": self.model, "base_url": self.base_url, "prompt": self.prompt,
                "sampling": self.sampling, "images": self.images, "ablation": list(self.ablation)}

    @property
    def judge_key(self) -> str:
        """:func:`judge_key` of this run's judge settings."""
        return judge_key(self.judge_spec())

    @property
    def label(self) -> str:
        """A short human name: the model, else the judge spec; with the ablation said (``m (without screenshots)``)."""
        name = self.model or self.spec
        return f"{name} ({describe_ablation(self.ablation)})" if self.ablation else name

    def settings(self) -> dict[str, Any]:
        """The settings a resume must not change: the judge identity (see :func:`judge_key`), the ablation and the config."""
        return {**_identity(self.judge_spec()), "ablation": list(self.ablation), "config": self.config}

    def replace(self, **changes: Any) -> RunRecord:
        """A copy with ``changes`` applied."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object written to ``run.json``; ``from_dict(to_dict())`` is the identity."""
        def part(value: Any) -> Any:
            return None if value is None else value.to_dict()

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
            "ablation": list(self.ablation),
            # "config" stays at the top level for people and tools that read
            # run.json directly; the selection is what readers rebuild from.
            "config": self.config,
            "selection": part(self.selection),
            "data": dict(self.data),
            "runner": dict(self.runner),
            "shard": part(self.shard),
            "versions": dict(self.versions),
            "git_revision": self.git_revision,
            "status": self.status,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "interruption": part(self.interruption),
            "counts": part(self.counts),
            "merging": part(self.merging),
            "reasking": part(self.reasking),
            "totals": part(self.totals),
        }
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str) -> RunRecord:
        """Validate a run record object, upgrading an older version first; errors name ``where`` (the file) and the field."""
        data = _object(where, data, "a run record JSON object")
        version = _version(where, data)
        data = _upgraded_run(where, data, version)
        judge = _expect(where, "judge", data.get("judge"), (dict,), 'an object with "name" and "spec"')
        if not isinstance(judge.get("spec") or judge.get("name"), str):
            raise ValueError(f'{where}: field \'judge\': expected "spec" or "name" as a string, got {judge!r:.80}')
        status = data.get("status", RUNNING)
        if status not in RUN_STATUSES:
            raise ValueError(f"{where}: field 'status': expected one of {', '.join(RUN_STATUSES)}, got {status!r}")
        fields = _optional_fields(where, data, _RUN_FIELDS)
        fields["runner"], fields["versions"] = fields["runner"] or {}, fields["versions"] or {}
        parts = {name: None if data.get(name) is None else kind.from_dict(data[name], where)
                 for name, kind in _RUN_PARTS.items()}
        known = {f.name for f in dataclasses.fields(cls)} | {"config", "judge_key", "label"}
        selection = _selection_of(where, data)
        raw_ablation = _expect(where, "ablation", data.get("ablation"), (list,), "a list of part names ([] for none)")
        ablation = parse_ablation(raw_ablation, f"{where}: field 'ablation'")
        run_data = _optional(where, data, "data", (dict,), "an object") or {}
        try:
            return cls(
                judge=judge,
                selection=selection,
                ablation=ablation,
                data=run_data,
                status=status,
                format_version=version,  # as read: to_dict() always writes the current version
                extra={key: value for key, value in data.items() if key not in known},
                **fields,
                **parts,
            )
        except ValueError as error:  # a status contradicting its interruption
            raise ValueError(f"{where}: fields 'status'/'interruption': {error}") from None


def _selection_of(where: str, data: Mapping[str, Any]) -> Selection | None:
    raw, config = data.get("selection"), data.get("config")
    if raw is None:
        if config is not None:
            raise ValueError(f"{where}: field 'selection': expected the selection of config {config!r}, got null")
        return None
    selection = Selection.from_dict(raw, f"{where}: field 'selection'")
    if config is not None and config != selection.config:
        raise ValueError(f"{where}: field 'config': {config!r} contradicts selection.config {selection.config!r}")
    return selection


def merge_shard_records(records: Sequence[tuple[str, RunRecord]]) -> RunRecord:
    """One record for the shards of one run: counts, merging and totals summed; finished only when every shard is.

    ``records`` are ``(file name, record)`` pairs, the first one's provenance
    kept. Shards must agree on the judge key and the selection (a mismatch
    means two experiments in one folder, named in the error). Counts, merging
    and totals are ``None`` unless every shard has them (a shard still running
    has none). The status is the first unfinished shard's, with its
    interruption.
    """
    (first_name, merged), rest = records[0], records[1:]
    for name, record in rest:
        for what, mine, theirs in (("judge", record.judge_key, merged.judge_key),
                                   ("selection", record.selection, merged.selection)):
            if mine != theirs:
                shown = (record.spec, merged.spec) if what == "judge" else (mine, theirs)
                raise ValueError(
                    f"{name}: {what} {shown[0]!r} differs from {first_name}'s {shown[1]!r}; "
                    "expected the shards of one run (keep experiments in separate folders)"
                )
    every = [record for _, record in records]
    unfinished = [record for record in every if record.status != FINISHED]
    ends = [record.ended_at for record in every]

    def summed(name: str) -> Any:
        values = [getattr(record, name) for record in every]
        if any(value is None for value in values):
            return None
        total = values[0]
        for value in values[1:]:
            total = total + value
        return total

    return merged.replace(
        status=unfinished[0].status if unfinished else FINISHED,
        interruption=unfinished[0].interruption if unfinished else None,
        ended_at=None if None in ends else max(ends),
        counts=summed("counts"), merging=summed("merging"), reasking=summed("reasking"), totals=summed("totals"),
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


# --- migration of older versions ----------------------------------------------------------------


def _upgraded_run(where: str, data: Mapping[str, Any], version: int) -> Mapping[str, Any]:
    """A run record object of ``version`` in the current version's shape: the one migration.

    Version 1 spread the selection over ``config`` and ``data``
    (``manifest_sha256``, ``dev_groups``, ``exclude_dev``, ``dev_manifest``);
    versions 1 and 2 told a run's end by ``finished_at`` and ``interrupted:
    {at, reason}`` (the cause is read from the reason's text, as those
    versions wrote it) and named unparseable answers ``invalid`` in ``counts``.
    Versions 1 to 3 had no ablation: their runs showed the judge everything,
    so they read as ``ablation: []``.
    """
    if version >= FORMAT_VERSION:
        return data
    out = dict(data)
    out["ablation"] = []  # before version 4 every run gave its judge the complete input
    if version >= 3:
        return out
    if out.get("selection") is None and out.get("config") is not None:
        out["selection"] = _v1_selection(where, out).to_dict()
    interrupted = _optional(where, out, "interrupted", (dict,), 'an object {"at", "reason"}')
    finished_at = _optional(where, out, "finished_at", (str,), "an ISO time")
    out.pop("interrupted", None)
    out.pop("finished_at", None)
    if interrupted is not None:
        reason = _expect(where, "interrupted.reason", interrupted.get("reason"), (str,), "a string")
        cause = _v2_cause(reason)
        out.update(status=INTERRUPTION_CAUSES[cause], ended_at=interrupted.get("at"),
                   interruption={"cause": cause, "reason": reason})
    elif finished_at is not None:
        out.update(status=FINISHED, ended_at=finished_at)
    else:
        out["status"] = RUNNING
    counts = out.get("counts")
    if isinstance(counts, Mapping) and "invalid" in counts:
        out["counts"] = {("unparseable" if key == "invalid" else key): value for key, value in counts.items()}
    return out


def _v2_cause(reason: str) -> str:
    """The cause of a version-1/2 ``interrupted.reason``, as those versions' runner worded it."""
    if reason.startswith("max cost reached"):
        return "max_cost"
    for prefix, cause in (("RunAborted", "breaker"), ("PreflightError", "preflight"), ("RunIOError", "io_error"),
                          ("KeyboardInterrupt", "signal"), ("RunInterrupted", "signal")):
        if reason.startswith(prefix):
            return cause
    return "exception"


def _v1_selection(where: str, data: Mapping[str, Any]) -> Selection:
    config = data["config"]
    if config not in CONFIG_NAMES:
        raise ValueError(f"{where}: field 'config': expected one of {', '.join(CONFIG_NAMES)}, got {config!r}")
    run_data = _optional(where, data, "data", (dict,), "an object") or {}
    migrated = {"config": config, "label_manifest_sha256": run_data.get("manifest_sha256")}
    for key in ("dev_groups", "exclude_dev", "dev_manifest", "dev_manifest_sha256"):
        if run_data.get(key) is not None:
            migrated[key] = run_data[key]
    return Selection.from_dict(migrated, f"{where}: fields 'config'/'data'")
