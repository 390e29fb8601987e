"""An Inspect log (``.eval``) of the task ``agenthorizon/agenthorizon`` read as a run: the same typed records.

:func:`read_log_record` gives its :class:`~agenthorizon.judging.runs.records.RunRecord`
(judge spec ``inspect:<model>``, sampling as sent, the task's recorded judge
settings, selection and provenance) and :func:`read_log_results` one
:class:`~agenthorizon.judging.runs.records.ResultRecord` per sample, its
answer parsed as the runner parses a judge's text; scores stored in the log
are not read. Logs of several epochs are refused; a log is untrusted and its
inflated size bounded (:func:`check_log_size`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, Mapping

from agenthorizon.judging.ablation import parse_ablation
from agenthorizon.judging.runs.records import (
    FINISHED,
    INTERRUPTED,
    RUNNING,
    Interruption,
    ResultRecord,
    RunRecord,
    RunTotals,
    ShardInfo,
)
from agenthorizon.judging.runs.shards import ASSIGNMENT
from agenthorizon.release.item_selection import Selection
from agenthorizon.util.sizes import size_text

__all__ = [
    "HARNESS",
    "IMAGE_KEYS",
    "IMAGE_SIZE",
    "JUDGE_NAME",
    "LOG_LIMIT",
    "LOG_SUFFIX",
    "MEMBER_LIMIT",
    "TASK_METADATA",
    "TASK_NAME",
    "check_log_size",
    "is_inspect_log",
    "judge_settings",
    "read_log_record",
    "read_log_results",
    "sent_sampling",
]

LOG_SUFFIX = ".eval"
"""The file suffix of Inspect's default log format, the one read as a run."""
TASK_NAME = "agenthorizon"
"""The task's name; Inspect registers it as ``agenthorizon/agenthorizon`` (package/name)."""
TASK_METADATA = "agenthorizon"
"""The key of the task metadata that holds what a run record needs (judge settings, selection, data)."""
JUDGE_NAME = "inspect"
"""The judge ``name`` of a run made by Inspect (spec ``inspect:<model>``)."""
HARNESS = "inspect_ai"
"""The ``runner.harness`` of a log's run record: what tells a log from a runner's run folder."""
IMAGE_KEYS = ("images_mode_used", "merged", "merge_reason", "n_images")
"""What a sample's metadata says about its screenshots: the telemetry keys the OpenAI judge records per item."""
IMAGE_SIZE = "image_size"
"""The sample metadata key of the screenshot size chosen under an image token budget (telemetry ``image_size``)."""
MEMBER_LIMIT = 256 * 2**20
"""The most one member of a log (a sample, the header) may inflate to: 256 MiB."""
LOG_LIMIT = 4 * 2**30
"""The most a whole log may inflate to: 4 GiB."""
_JUDGE_KEYS = ("images", "prompt", "layout", "timestamps", "system_prompt")
_DONE = {"success": None, "cancelled": ("signal", "the Inspect eval was cancelled"), "error": ("exception", None)}


def is_inspect_log(path: str | os.PathLike[str]) -> bool:
    """True for an existing ``.eval`` file: an Inspect log to read as a run.

    >>> is_inspect_log("runs/qwen"), is_inspect_log("no-such.eval")
    (False, False)
    """
    candidate = Path(path)
    return candidate.suffix == LOG_SUFFIX and candidate.is_file()


def judge_settings(spec: Mapping[str, Any]) -> dict[str, Any]:
    """What the task records of the judge that built its messages: image settings, prompt, layout, step times, system prompt.

    ``spec`` is that judge's ``spec()``; its model, server and sampling are
    left out (the log says those).

    >>> judge_settings({"model": "x", "images": {"mode": "none"}, "prompt": {"sha256": "ab"}, "layout": "interleaved",
    ...                 "timeout_s": 9})
    {'images': {'mode': 'none'}, 'prompt': {'sha256': 'ab'}, 'layout': 'interleaved'}
    """
    return {key: spec[key] for key in _JUDGE_KEYS if key in spec}


def _log_module() -> Any:
    from agenthorizon.util.extras import require_extra

    return require_extra("inspect_ai.log", "inspect", "Inspect logs (.eval)")


def check_log_size(path: str | os.PathLike[str]) -> None:
    """Raise ``ValueError`` naming the log and the member when the log would inflate past its bounds.

    Reads the zip archive's directory only: each member's declared inflated
    size (where ``zipfile`` stops inflating) at most :data:`MEMBER_LIMIT`, all
    of them at most :data:`LOG_LIMIT`. A file that is not a zip archive is
    left to Inspect's own error.

    >>> check_log_size("no-such.eval")
    Traceback (most recent call last):
    ...
    ValueError: no-such.eval: not a readable Inspect log (FileNotFoundError: No such file or directory)
    """
    import zipfile  # here, not at the top: every run folder reader imports this module, few read a log

    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except zipfile.BadZipFile:
        return
    except OSError as error:
        raise ValueError(f"{path}: not a readable Inspect log ({type(error).__name__}: {error.strerror})") from None
    total = 0
    for member in members:
        if member.file_size > MEMBER_LIMIT:
            raise ValueError(
                f"{path}: member {member.filename!r} inflates to {size_text(member.file_size)}; expected at most "
                f"{size_text(MEMBER_LIMIT)} per member of an Inspect log (refused unread)"
            )
        total += member.file_size
        if total > LOG_LIMIT:
            raise ValueError(
                f"{path}: its members inflate to more than {size_text(LOG_LIMIT)} (past member "
                f"{member.filename!r}); expected at most that for an Inspect log (refused unread)"
            )


def _header(path: Path) -> Any:
    check_log_size(path)
    try:
        return _log_module().read_eval_log(str(path), header_only=True)
    except Exception as error:  # Inspect raises its own and pydantic errors for a damaged file
        raise ValueError(f"{path}: not a readable Inspect log ({type(error).__name__}: {error})") from None


def _samples(path: Path) -> Iterator[Any]:
    """The log's samples one at a time (memory stays one sample, images left as attachment references)."""
    check_log_size(path)
    try:
        yield from _log_module().read_eval_log_samples(
            str(path), all_samples_required=False, exclude_fields={"attachments", "store", "messages"}
        )
    except Exception as error:
        raise ValueError(f"{path}: a sample is not readable ({type(error).__name__}: {error})") from None


def _task_record(path: Path, log: Any) -> Mapping[str, Any]:
    metadata = log.eval.metadata or {}
    record = metadata.get(TASK_METADATA)
    if not isinstance(record, Mapping):
        raise ValueError(
            f"{path}: an Inspect log of task {log.eval.task!r} without the task metadata {TASK_METADATA!r}; "
            f"expected a log of `inspect eval agenthorizon/{TASK_NAME}`"
        )
    for name in ("judge", "selection", "data"):
        if not isinstance(record.get(name), Mapping):
            raise ValueError(f"{path}: task metadata {TASK_METADATA}.{name}: expected an object, got {record.get(name)!r:.80}")
    epochs = log.eval.config.epochs
    if epochs is not None and epochs > 1:
        raise ValueError(f"{path}: an Inspect log of {epochs} epochs; expected one answer per item (--epochs 1)")
    return record


# Request fields that carry the conversation or the transport, not how the model samples.
_NOT_SAMPLING = frozenset({"model", "messages", "input", "tools", "tool_choice", "parallel_tool_calls", "extra_headers",
                           "extra_query", "stream", "stream_options", "timeout", "store", "include"})


def sent_sampling(request: Mapping[str, Any]) -> dict[str, Any]:
    """The sampling fields of a request Inspect sent (its log keeps each model call's request).

    What the server was asked, not always what the generate config says
    (Inspect's ``openai/`` provider drops ``temperature`` for reasoning models).

    >>> sent_sampling({"model": "m", "messages": [], "tools": None, "max_tokens": 2048, "temperature": 0.0})
    {'max_tokens': 2048, 'temperature': 0.0}
    """
    return {key: request[key] for key in sorted(request) if key not in _NOT_SAMPLING and request[key] is not None}


def _request(sample: Any) -> Mapping[str, Any] | None:
    for event in sample.events or []:
        call = getattr(event, "call", None) if getattr(event, "event", None) == "model" else None
        if call is not None and isinstance(call.request, Mapping):
            return call.request
    return None


def _sampling(log: Any, request: Mapping[str, Any] | None) -> dict[str, Any]:
    """The sampling of the first request the log holds; the generate config when it holds none."""
    if request is not None:
        return sent_sampling(request)
    return dict(sorted(log.plan.config.model_dump(exclude_none=True).items()))


def _status(log: Any) -> tuple[str, Interruption | None]:
    if log.status not in _DONE:
        return RUNNING, None
    cause = _DONE[log.status]
    if cause is None:
        return FINISHED, None
    reason = cause[1] or (log.error.message if log.error is not None else "the Inspect eval failed")
    return INTERRUPTED, Interruption(cause[0], reason)


def _seconds(start: str | None, end: str | None) -> float | None:
    import datetime as _dt  # here: only an Inspect log has times to subtract

    try:
        return (_dt.datetime.fromisoformat(end) - _dt.datetime.fromisoformat(start)).total_seconds()
    except (TypeError, ValueError):
        return None


def _base_record(path: Path, log: Any, request: Mapping[str, Any] | None) -> RunRecord:
    from agenthorizon.judging.judges.openai_protocol import public_url

    task = _task_record(path, log)
    judge = task["judge"]
    spec = {
        "name": JUDGE_NAME,
        "spec": f"{JUDGE_NAME}:{log.eval.model}",
        "model": log.eval.model,
        "base_url": public_url(log.eval.model_base_url) if log.eval.model_base_url else None,
        "sampling": _sampling(log, request),
        "images": judge.get("images"),
        "prompt": judge.get("prompt"),
        # As the runner records them, so that judge_key counts them the same way (under "protocol").
        **{key: judge[key] for key in ("layout", "timestamps", "system_prompt") if key in judge},
        "task": log.eval.task,
        "generate_config": log.plan.config.model_dump(exclude_none=True),
    }
    shard = task.get("shard")
    status, interruption = _status(log)
    return RunRecord.build(
        spec,
        Selection.from_dict(task["selection"], f"{path}: task metadata {TASK_METADATA}.selection"),
        parse_ablation(task.get("ablation") or [], f"{path}: task metadata {TASK_METADATA}.ablation"),
        data=dict(task["data"]),
        runner={"harness": HARNESS, "limit": task.get("limit"), "log": str(path), "eval_id": log.eval.eval_id},
        shard=None if not shard else ShardInfo(int(shard[0]), int(shard[1]), ASSIGNMENT),
        versions={**(task.get("versions") or {}), "inspect_ai": log.eval.packages.get("inspect_ai")},
        git_revision=task.get("git_revision"),
        started_at=log.stats.started_at or None,
    ).replace(status=status, interruption=interruption, ended_at=(log.stats.completed_at or None) if status != RUNNING else None)


def read_log_record(path: str | os.PathLike[str]) -> RunRecord:
    """The run record of an Inspect log of the task, with its counts, merging and totals.

    Raises
    ------
    ValueError
        The file is not a readable Inspect log, is a log of another task or
        of several epochs, or its task metadata is not the task's.
    """
    record, _ = _read_log(Path(path))
    return record


def read_log_results(path: str | os.PathLike[str]) -> dict[str, ResultRecord]:
    """Trajectory id -> the :class:`ResultRecord` of each sample of an Inspect log of the task.

    A sample Inspect marked as errored is an ``error`` result; a selected item without a sample is absent (missing).
    """
    _, results = _read_log(Path(path))
    return results


def _read_log(path: Path) -> tuple[RunRecord, dict[str, ResultRecord]]:
    from agenthorizon.judging.runs.summary import count_statuses, merging

    log = _header(path)
    _task_record(path, log)  # a log of another task fails here, before any sample is read
    request = None
    results: dict[str, ResultRecord] = {}
    for sample in _samples(path):
        request = request or _request(sample)
        result = _sample_result(sample)
        if result.trajectory_id in results:
            raise ValueError(f"{path}: two samples of item {result.trajectory_id}; expected each item once")
        results[result.trajectory_id] = result
    record = _base_record(path, log, request)
    # The key needs the sampling, known once a sample with a request was read.
    results = {tid: result.replace(judge_key=record.judge_key) for tid, result in results.items()}
    n_selected = record.data.get("n_selected")
    present = list(results.values())
    missing = max(0, n_selected - len(present)) if isinstance(n_selected, int) else 0
    record = record.replace(
        counts=count_statuses([*present, *([None] * missing)]),
        merging=merging(present),
        totals=RunTotals.of((result.telemetry for result in present), _seconds(record.started_at, record.ended_at)),
    )
    return record, results


def _sample_result(sample: Any) -> ResultRecord:
    """One sample as the runner would have recorded the judge's answer (or its failure)."""
    from agenthorizon.judging.judges.base import JudgeOutput
    from agenthorizon.judging.runs.results import result_record

    trajectory_id = str(sample.id)
    attempts = 1 + len(sample.error_retries or [])
    if sample.error is not None:
        result = result_record(trajectory_id, JUDGE_NAME, None, sample.error.message, attempts=attempts)
    else:
        usage = sample.output.usage
        extra = {name: sample.metadata[name] for name in (*IMAGE_KEYS, IMAGE_SIZE) if name in (sample.metadata or {})}
        if sample.output.model:
            extra["model"] = sample.output.model
        if usage is not None and usage.reasoning_tokens is not None:
            extra["reasoning_tokens"] = usage.reasoning_tokens
        output = JudgeOutput(
            text=sample.output.completion,
            input_tokens=None if usage is None else usage.input_tokens,
            output_tokens=None if usage is None else usage.output_tokens,
            latency_s=sample.total_time,
            cost_usd=None if usage is None else usage.total_cost,
            attempts=attempts,
            extra=extra,
        )
        result = result_record(trajectory_id, JUDGE_NAME, output, None)
    return result.replace(finished_at=sample.completed_at or result.finished_at)
