# Over 500 lines: every record of a run folder with its validation and migrations of the v1-v3 formats.
"""The records of a run folder, typed and versioned: :class:`RunRecord` (``run.json``) and :class:`ResultRecord`.

Each is a frozen ``msgspec.Struct``; ``from_dict`` validates a file's JSON
object against the declaration, naming the file and the field, after an older
version is upgraded (:func:`_upgraded_run`). No I/O here
(:mod:`agenthorizon.judging.runs.folder`); the formats are in ``docs/reports.md``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal

import msgspec
from msgspec import Meta, Struct, field
from msgspec import inspect as mi

from agenthorizon.judging.ablation import describe_ablation, parse_ablation
from agenthorizon.judging.perturbation import describe_perturbation
from agenthorizon.judging.runs.record_validation import convert
from agenthorizon.release.item_selection import Selection
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
    "TOTALLED",
    "Telemetry",
    "Total",
    "distinct_labels",
    "judge_key",
    "merge_shard_records",
    "needs_judging",
]

FORMAT_VERSION = 4
"""Version of the run-folder format (run and result records) this release writes.

1. No ``selection`` or ``judge_key``.
2. ``selection`` and ``judge_key``; a run's end told by ``finished_at`` or
   ``interrupted: {at, reason}``; ``counts.invalid`` for unparseable answers.
3. ``status``, ``ended_at``, ``interruption: {cause, reason}``,
   ``counts.unparseable``, ``totals``.
4. ``ablation``; results gain ``answers``, run records ``reasking``.

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

# --- field types: the check and the error's wording come from these ---------------------------

Count = Annotated[int, Meta(ge=0)]
Amount = Annotated[float, Meta(ge=0, le=sys.float_info.max)]  # finite: no NaN, no infinity
Number = Count | Amount  # a whole number stays an int (token sums), a fraction a float
_TOTAL = Meta(extra={"totalled": True})  # a telemetry value that a run record totals (RunTotals)
ParseStatus = Literal[PARSE_STATUSES]  # type: ignore[valid-type]


class _Record(Struct, frozen=True):
    """A record's shared behaviour: read from a JSON object, written as one, copied with changes."""

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Any:
        """Validate a decoded JSON object; a ``ValueError`` names ``where`` (the file) and the field."""
        return convert(data, cls, where)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object written for this record."""
        return msgspec.to_builtins(self)

    def replace(self, **changes: Any) -> Any:
        """A copy with ``changes`` applied."""
        return msgspec.structs.replace(self, **changes)


def _sum(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None  # unknown on one side: unknown in the sum
    if isinstance(a, Mapping):
        return {key: a.get(key, 0) + b.get(key, 0) for key in sorted({*a, *b})}
    return a + b


class _Summed(_Record, frozen=True):
    """A record that adds up field by field (the shards of one run): ``a + b``."""

    def __add__(self, other: Any) -> Any:
        return type(self)(*(_sum(getattr(self, name), getattr(other, name)) for name in self.__struct_fields__))


# --- telemetry ----------------------------------------------------------------------------


class Telemetry(_Record, frozen=True):
    """What one item's judging cost and how it went; an unknown value is ``None``, never 0.

    Written flat as a result's ``telemetry`` object: the fields below, then
    the keys of ``extra``. Fields marked totalled are summed in :class:`RunTotals`.

    >>> Telemetry(input_tokens=1200, output_tokens=80, cost_usd=None).to_dict()["cost_usd"] is None
    True
    >>> Telemetry.from_dict({"input_tokens": 5, "n_images": 8}, "r.json").extra
    {'n_images': 8}
    """

    input_tokens: Annotated[Count | None, _TOTAL] = None
    """Tokens the model read for this item, over all attempts."""
    output_tokens: Annotated[Count | None, _TOTAL] = None
    """Tokens the model wrote for this item, over all attempts."""
    reasoning_tokens: Annotated[Count | None, _TOTAL] = None
    """Reasoning (thinking) tokens, as the model's API counts them (part of ``output_tokens`` for most APIs)."""
    cache_read_input_tokens: Annotated[Count | None, _TOTAL] = None
    """Input tokens served from the provider's prompt cache (part of ``input_tokens``)."""
    cache_write_input_tokens: Annotated[Count | None, _TOTAL] = None
    """Input tokens written to the provider's prompt cache."""
    latency_s: Annotated[Number | None, _TOTAL] = None
    """Wall-clock seconds of the judge call, retries included."""
    cost_usd: Annotated[Number | None, _TOTAL] = None
    """US dollars this item cost; ``None`` when unknown (no price, or a harness that cannot know it)."""
    cost_source: str | None = None
    """What ``cost_usd`` is when the judge says: ``cli_estimate`` (an agentic CLI's own price table, not a bill), ``unknown``."""
    attempts: Count | None = None
    """Calls made for this item (the runner's attempts or the judge's own retries); 0 when it never reached the judge."""
    answers: Count | None = None
    """Answers asked for this item: 1, plus one per re-ask after an answer without a valid verdict (``reask``)."""
    turns: Annotated[Count | None, _TOTAL] = None
    """Model turns of an agentic harness."""
    tool_calls: Annotated[Count | None, _TOTAL] = None
    """Tool calls an agentic harness made."""
    truncated_bytes: Count | None = None
    """Bytes of the answer dropped by the output cap (its start; the end, where verdicts are, is kept); 0: none."""
    merged: bool | None = None
    """Direct judges: whether the screenshots went as 2x2 mosaics; ``None``: no images, or not a direct judge."""
    merge_reason: str | None = None
    """Why they were merged: ``count`` (over ``max_images``), ``server_limit`` (the server refused), ...; else ``None``."""
    extra: dict[str, Any] = {}
    """Values particular to one judge kind (``images_mode_used``, ``n_images``, a harness's ``returncode``...)."""

    def to_dict(self) -> dict[str, Any]:
        """The flat ``telemetry`` object of a result file: declared fields, then ``extra``'s keys."""
        out = msgspec.structs.asdict(self)
        out.update(out.pop("extra"))
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Telemetry:
        """Validate a flat telemetry mapping: declared fields checked, other keys kept in ``extra``."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: expected a telemetry object, got {type(data).__name__}")
        extra = {key: value for key, value in data.items() if key not in _TELEMETRY_NAMES}
        if extra:
            data = {key: value for key, value in data.items() if key in _TELEMETRY_NAMES}
            data["extra"] = extra
        return convert(data, cls, f"{where}: telemetry")

    @classmethod
    def from_output(cls, output: Any) -> Telemetry:
        """The telemetry of a judge's :class:`~agenthorizon.judging.judges.base.JudgeOutput` (``ValueError`` if a value has the wrong type)."""
        return cls.from_dict(output.telemetry(), "the judge's output")


_TELEMETRY_NAMES = frozenset(Telemetry.__struct_fields__) - {"extra"}
TOTALLED = tuple(f.name for f in mi.type_info(Telemetry).fields if getattr(f.type, "extra", None) == _TOTAL.extra)
"""The telemetry values a run record totals, in :class:`Telemetry`'s order (its fields marked totalled)."""


# --- result records ----------------------------------------------------------------------


class Answer(_Record, frozen=True):
    """One answer the judge gave for an item, when the run re-asks (``reask``).

    >>> Answer("no verdict here", "no_json", input_tokens=900, output_tokens=40).to_dict()["parse_status"]
    'no_json'
    """

    raw_output: str
    """The answer, verbatim."""
    parse_status: ParseStatus
    """Its parse status (``ok`` only for the last answer: an ``ok`` answer is not re-asked)."""
    parse_detail: str | None = None
    input_tokens: Count | None = None
    output_tokens: Count | None = None
    cost_usd: Number | None = None
    latency_s: Number | None = None


class ResultRecord(_Record, frozen=True):
    """One item's result: the content of ``<trajectory_id>.json`` (its fields in the file's order)."""

    trajectory_id: str
    """The item (the file is named after it; a mismatch is ``id_mismatch``)."""
    parse_status: ParseStatus
    """One of ``schema.PARSE_STATUSES``: ``ok``, an unparseable answer (``no_json``...), or ``error`` (the judge failed)."""
    verdict: dict[str, Any] | None = None
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
        out = msgspec.to_builtins(self)
        out.update(format_version=FORMAT_VERSION, telemetry=self.telemetry.to_dict(), answers=list(out["answers"]))
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str) -> ResultRecord:
        """Validate a result object; errors name ``where`` (the file) and the field."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: expected a result JSON object, got {type(data).__name__}")
        values = {key: value for key, value in data.items() if value is not None}  # null reads as absent
        values["format_version"] = _version(where, data)
        telemetry = values.get("telemetry")
        if telemetry is not None:
            values["telemetry"] = Telemetry.from_dict(telemetry, where)  # flat, with extra keys of its own
        return convert(values, cls, where)

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
    """True when a resume must judge the item again: its result is missing, unreadable, ``error`` or untrusted.

    An answered one (``ok`` or an unparseable answer) is kept: asking again would change the experiment.
    """
    return result is None or result.parse_status == STATUS_ERROR or result.trust_problem(trajectory_id, key) is not None


def _version(where: str, data: Mapping[str, Any]) -> int:
    version = data.get("format_version", 1)
    if type(version) is not int:
        raise ValueError(f"{where}: field 'format_version': expected an integer, got {type(version).__name__} {version!r:.80}")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{where}: field 'format_version': {version} is newer than this agenthorizon reads "
            f"(<= {FORMAT_VERSION}); upgrade agenthorizon"
        )
    if version < 1:
        raise ValueError(f"{where}: field 'format_version': expected 1..{FORMAT_VERSION}, got {version}")
    return version


# --- the parts of a run record -------------------------------------------------------------


class RunCounts(_Summed, frozen=True, forbid_unknown_fields=True):
    """The selected items of a run by what their result says, as the run ended.

    ``ok + unparseable + error + missing`` is the number of selected items.
    ``unparseable`` is not a score's ``n_invalid``, which counts every
    prediction but ``ok``.

    >>> (RunCounts(ok=2, error=1) + RunCounts(ok=1, missing=1)).to_dict()
    {'ok': 3, 'unparseable': 0, 'error': 1, 'missing': 1, 'skipped': 0}
    """

    unknown_noun: ClassVar[str] = "count"  # an unknown key is "unknown count(s) ..." in an error

    ok: Count = 0
    """Answered with a valid verdict."""
    unparseable: Count = 0
    """Answered, but the answer holds no valid verdict (``no_json``, ``malformed_json``, ``non_boolean``...)."""
    error: Count = 0
    """The judge failed (timeout, crash, HTTP error); judged again on resume."""
    missing: Count = 0
    """No trustworthy result (none yet, unreadable, or untrusted); judged again on resume."""
    skipped: Count = 0
    """Already answered before the invocation that wrote the record, and kept."""


class Merging(_Summed, frozen=True):
    """Items whose screenshots went to a direct judge as 2x2 mosaics (SPEC section 3), by reason."""

    merged_items: Count = 0
    """Selected items whose result says ``merged``."""
    by_reason: dict[str, Count] = {}
    """Those items by ``merge_reason`` (items merged without a reason are in ``merged_items`` only)."""


class Reasking(_Summed, frozen=True):
    """How often a run asked again after an answer without a valid verdict (``reask``), over its results.

    >>> Reasking.of([(2, "ok"), (1, "ok"), (3, "no_json")]).to_dict()
    {'items': 2, 'reasks': 3, 'recovered': 1}
    """

    items: Count = 0
    """Items asked more than once."""
    reasks: Count = 0
    """Answers asked for beyond each item's first."""
    recovered: Count = 0
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


class Total(_Summed, frozen=True):
    """A sum over a run's results of a value some results may not know (tokens, cost, turns).

    >>> Total(known=1.5, unknown_items=0).total, Total(known=1.5, unknown_items=2).total is None
    (1.5, True)
    """

    known: Number = 0
    """The sum over the results that report the value."""
    unknown_items: Count = 0
    """Results that do not report it."""

    @property
    def total(self) -> float | None:
        """The sum over every result; ``None`` when any result does not know its value."""
        return None if self.unknown_items else self.known

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "known": self.known, "unknown_items": self.unknown_items}


class _TotalsOf(_Summed, frozen=True):
    """:class:`RunTotals`'s behaviour; its fields are :data:`TOTALLED`'s, made below."""

    @classmethod
    def of(cls, telemetry: Iterable[Telemetry], wall_time_s: float | None) -> Any:
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
        return cls(items, wall_time_s, *(Total(known[name], unknown[name]) for name in TOTALLED))

    def to_dict(self) -> dict[str, Any]:
        return {name: value.to_dict() if isinstance(value, Total) else value
                for name, value in zip(self.__struct_fields__, msgspec.structs.astuple(self))}


RunTotals = msgspec.defstruct(
    "RunTotals",
    [("items", Count, 0), ("wall_time_s", "Number | None", None),
     *((name, Total, field(default_factory=Total)) for name in TOTALLED)],
    bases=(_TotalsOf,), module=__name__, frozen=True,
)
RunTotals.__doc__ = """A run's totals over the results its folder holds for the selected items (the same results as its counts).

``items``: results counted, the selected items answered or failed (``ok +
unparseable + error``). ``wall_time_s``: seconds the runs that wrote this
record took, resumes added up (``None`` when one of them is not known: a run
killed outright, a record older than version 3). Then one :class:`Total` per
:data:`TOTALLED` telemetry value: null when any result does not know the
value, with the part that is known and the count of unknowns; ``latency_s``
adds up the items' latencies (more than the wall time when items ran
concurrently).

>>> totals = RunTotals.of([Telemetry(input_tokens=10, cost_usd=0.5), Telemetry(input_tokens=5)], wall_time_s=2.0)
>>> totals.items, totals.input_tokens.total, totals.cost_usd.total, totals.cost_usd.known
(2, 15, None, 0.5)
"""


class Interruption(_Record, frozen=True):
    """Why a run ended before judging every selected item.

    >>> Interruption("max_cost", "max cost reached: ...").status
    'stopped'
    """

    cause: Literal[tuple(INTERRUPTION_CAUSES)]  # type: ignore[valid-type]
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


class ShardInfo(_Record, frozen=True):
    """Which shard of a run a record is: shard ``index`` of ``count`` (1-based), items assigned by ``assignment``."""

    index: Count
    count: Count
    assignment: str
    """How items were assigned (:data:`agenthorizon.judging.runs.shards.ASSIGNMENT`)."""

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ValueError(f"expected 1 <= index <= count, got {self.index} of {self.count}")


# --- the judge identity ------------------------------------------------------------------


def _identity(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The judge settings that make two runs the same experiment, from a judge's ``spec()``.

    The ablation, perturbation and protocol settings count only when set, so
    that the keys of runs made without them stay what they were.
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
    if spec.get("perturbation"):  # presentation perturbations (judging/perturbation.py): a judge key of their own
        identity["perturbation"] = list(spec["perturbation"])
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
    sha256, sampling, image settings, ablation (absent or empty: none),
    perturbation and protocol (layout, step times, system prompt sha256,
    re-asks and their rule) are all equal. Operational settings (timeouts,
    retries, the server URL, prices) do not count. ``judge`` is a judge's
    ``spec()`` (``prompt`` as ``{"sha256", "text"}``).

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

_DERIVED = ("config", "judge_key", "label")  # written for readers of run.json, rebuilt from the fields


class RunRecord(_Record, frozen=True):
    """How a run was made and how it ended: the content of ``run.json``.

    Keys this release does not know are kept in ``extra`` and written back.
    """

    judge: dict[str, Any]
    """The judge's open ``spec()`` (``name`` and ``spec`` always, plus the judge's own keys) without the lifted keys below."""
    selection: Selection | None = None
    """Which items the run is about; every reader rebuilds them from it."""
    model: str | None = None
    base_url: str | None = None
    """The judge's server, without credentials."""
    prompt: dict[str, Any] | None = None
    """``{"sha256", "text", "source"...}`` of the judge's prompt."""
    sampling: dict[str, Any] | None = None
    """Temperature, token limit, extra request fields, response format."""
    images: dict[str, Any] | None = None
    """Screenshot settings (:class:`agenthorizon.data.images.ImageSettings`'s ``to_dict()``, or a command judge's layout);
    ``{"mode": "none"}`` when the screenshots are ablated."""
    ablation: tuple[str, ...] = ()
    """The parts withheld from every judge input (:data:`agenthorizon.schema.ABLATION_PARTS`, in that order); ``()``: none."""
    data: dict[str, Any] = {}
    """The release root, item counts and, for a Hub repo id, the repo, revision and commit."""
    runner: dict[str, Any] = {}
    """Concurrency, timeout, retries, limit."""
    shard: ShardInfo | None = None
    versions: dict[str, Any] = {}
    git_revision: str | None = None
    status: Literal[RUN_STATUSES] = RUNNING  # type: ignore[valid-type]
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
    totals: RunTotals | None = None  # type: ignore[valid-type]
    """Written when the run ends."""
    format_version: int = FORMAT_VERSION
    """The version the file was read as; :meth:`to_dict` always writes the current one."""
    extra: dict[str, Any] = {}

    def __post_init__(self) -> None:
        if self.status not in RUN_STATUSES:
            raise ValueError(f"field 'status': expected one of {', '.join(RUN_STATUSES)}, got {self.status!r}")
        expected = None if self.interruption is None else self.interruption.status
        if self.status in (STOPPED, INTERRUPTED) and expected != self.status or self.status in (RUNNING, FINISHED) and expected:
            raise ValueError(
                f"fields 'status'/'interruption': run status {self.status!r} with interruption {self.interruption!r}: "
                "a stopped or interrupted run needs an interruption of that kind, a running or finished one has none"
            )

    @classmethod
    def build(
        cls, spec: Mapping[str, Any], selection: Selection | None, ablation: Sequence[str] = (), **fields: Any
    ) -> RunRecord:
        """A new record (status ``running``) from a judge's ``spec()``: lifts the shared keys to the top level.

        With the screenshots ablated the image settings are recorded as
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
        self, at: str, counts: RunCounts, merging: Merging, totals: RunTotals, interruption: Interruption | None = None,  # type: ignore[valid-type]
        reasking: Reasking | None = None,
    ) -> RunRecord:
        """The record of the run once it ended: ``finished``, or the status of ``interruption``; the one place a status is set."""
        return self.replace(
            status=FINISHED if interruption is None else interruption.status, ended_at=at,
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
        said = [describe_ablation(self.ablation), describe_perturbation(self.judge.get("perturbation") or ())]
        return f"{name} ({'; '.join(part for part in said if part)})" if any(said) else name

    def settings(self) -> dict[str, Any]:
        """The settings a resume must not change: the judge identity (see :func:`judge_key`), the ablation and the config."""
        return {**_identity(self.judge_spec()), "ablation": list(self.ablation), "config": self.config}

    def to_dict(self) -> dict[str, Any]:
        """The JSON object written to ``run.json``; ``from_dict(to_dict())`` is the identity.

        ``judge_key``, ``label`` and ``config`` are written for readers of the file; ``from_dict`` rebuilds them.
        """
        fields = msgspec.to_builtins(self)
        del fields["format_version"], fields["extra"]
        out = {"format_version": FORMAT_VERSION, "judge_key": self.judge_key, "label": self.label, "config": self.config,
               **fields, "ablation": list(self.ablation), "totals": None if self.totals is None else self.totals.to_dict()}
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str) -> RunRecord:
        """Validate a run record object, upgrading an older version first; errors name ``where`` (the file) and the field."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: expected a run record JSON object, got {type(data).__name__}")
        version = _version(where, data)
        data = _upgraded_run(where, data, version)
        judge = data.get("judge")
        if not isinstance(judge, dict) or not isinstance(judge.get("spec") or judge.get("name"), str):
            raise ValueError(f'{where}: field \'judge\': expected an object with "spec" or "name" as a string, got {judge!r:.80}')
        ablation = data.get("ablation")
        if not isinstance(ablation, list):
            raise ValueError(f"{where}: field 'ablation': expected a list of part names ([] for none), got {ablation!r:.80}")
        fields = cls.__struct_fields__
        values = {key: value for key, value in data.items() if key in fields and value is not None}  # null reads as absent
        values.update(
            format_version=version,  # as read: to_dict() always writes the current version
            selection=_selection_of(where, data), ablation=parse_ablation(ablation, f"{where}: field 'ablation'"),
            extra={key: value for key, value in data.items() if key not in fields and key not in _DERIVED},
        )
        return convert(values, cls, where)


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
    """One record for the shards of one run: counts, merging, reasking and totals summed.

    ``records`` are ``(file name, record)`` pairs, the first one's provenance
    kept. Shards must agree on the judge key and the selection (else
    ``ValueError``). A sum is ``None`` unless every shard has it. The status
    is ``finished`` only when every shard is, else the first unfinished
    shard's, with its interruption.
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
    """A label per record that tells them apart: its label, else its spec, else the spec and 8 key digits.

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

    Version 1 spread the selection over ``config`` and ``data``; versions 1
    and 2 told a run's end by ``finished_at`` and ``interrupted`` (the cause
    read from the reason's text) and counted ``invalid``; versions 1 to 3
    read as ``ablation: []``.
    """
    if version >= FORMAT_VERSION:
        return data
    out = dict(data)
    out["ablation"] = []  # before version 4 every run gave its judge the complete input
    if version >= 3:
        return out
    if out.get("selection") is None and out.get("config") is not None:
        out["selection"] = _v1_selection(where, out).to_dict()
    interrupted = _checked(where, "interrupted", out.pop("interrupted", None), dict, 'an object {"at", "reason"}')
    finished_at = _checked(where, "finished_at", out.pop("finished_at", None), str, "an ISO time")
    if interrupted is not None:
        reason = interrupted.get("reason")
        if not isinstance(reason, str):
            raise ValueError(f"{where}: field 'interrupted.reason': expected a string, got {reason!r:.80}")
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
    run_data = _checked(where, "data", data.get("data"), dict, "an object") or {}
    migrated = {"config": config, "label_manifest_sha256": run_data.get("manifest_sha256")}
    for key in ("dev_groups", "exclude_dev", "dev_manifest", "dev_manifest_sha256"):
        if run_data.get(key) is not None:
            migrated[key] = run_data[key]
    return Selection.from_dict(migrated, f"{where}: fields 'config'/'data'")


def _checked(where: str, name: str, value: Any, kind: type, what: str) -> Any:
    """``value`` when it is a ``kind`` or null, else an error naming the file and the field (the migration's fields)."""
    if value is not None and not isinstance(value, kind):
        raise ValueError(f"{where}: field {name!r}: expected {what} or null, got {type(value).__name__} {value!r:.80}")
    return value
