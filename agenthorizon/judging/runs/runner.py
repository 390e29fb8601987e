"""Run a judge over a dataset: concurrent, resumable, one result file per item.

:func:`run_judge` is the one loop every judge goes through:

1. each selected row becomes a blind input through
   :func:`agenthorizon.judging.inputs.build_judge_input` (and nothing else);
2. ``concurrency`` workers judge items at the same time (async judges on the
   event loop; blocking judges in a thread pool of the same size), each call
   bounded by a per-item ``timeout``; timeouts and
   :class:`~agenthorizon.judging.judges.base.TransientJudgeError` are retried
   ``retries`` times with exponential backoff and jitter;
3. the answer is parsed with :func:`agenthorizon.scoring.verdicts.parse_verdict` and
   written atomically to ``<out_dir>/<trajectory_id>.json`` (format in
   :mod:`agenthorizon.judging.runs.records`) as soon as it is known, so a crash loses at
   most the items in flight and never leaves a partial file;
4. ``run.json`` (``run-shard-I-of-N.json`` for a shard; a
   :class:`~agenthorizon.judging.runs.records.RunRecord`) records how the run
   was made (judge spec without secrets, its judge key, prompt hash and
   text, sampling, image preprocessing, the item selection with its label
   manifest sha256, versions, git revision, times, counts, how many items had
   their screenshots merged into mosaics);
   it is written when the run starts and again when it ends. A run stopped
   by an exception (Ctrl-C included) still rewrites it on the way out, with
   the counts so far, ``finished_at`` null and ``interrupted`` saying when and
   why; the exception is then re-raised.

One runner at a time: the run folder is locked for the run (``run.lock``,
per shard record), and a second runner fails at once naming the holder.

Resume: running again into the same ``out_dir`` with the same judge
settings (spec, model, prompt, sampling, images) and selection skips items
whose result file parsed (status ``ok`` or an invalid-answer status such as
``no_json``: the judge answered, re-asking would change the experiment) and
judges again the items whose file is missing, unreadable, untrusted (another
item's result, or another judge key's) or has status ``error`` (the judge
failed: timeout, HTTP error, crash). Other settings are refused, naming the
keys that differ.

Shards: ``shard="i/n"`` (1 <= i <= n) selects the items whose position in the
*sorted* list of the dataset's trajectory ids is congruent to ``i - 1`` modulo
``n``. The assignment depends only on the set of ids, not on the dataset's
order; the ``n`` shards partition the items and differ in size by at most one.
"""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from agenthorizon.judging.runs.folder import RunDirectory
from agenthorizon.judging.runs.loop import DEFAULT_BREAKER, RunInterrupted, RunSignals, judge_items
from agenthorizon.judging.runs.retry import RetryPolicy
from agenthorizon.judging.runs.records import (
    RunRecord,
    needs_judging,
    read_result,
    record_name as _record_file_name,
)
from agenthorizon.release.splits import Selection
from agenthorizon.schema import CONFIG_ALL, DEV_GROUPS, LABEL_FIELDS, STATUS_ERROR, STATUS_OK, UUID_PATTERN

__all__ = ["RunSummary", "run_judge", "parse_shard", "shard_ids", "record_name", "result_status"]

# data_options that select items (recorded in the run's Selection); other keys are provenance.
_SELECTION_OPTIONS = ("dev_groups", "dev_manifest", "exclude_dev")
_VERSIONED_PACKAGES = ("agenthorizon", "datasets", "huggingface_hub", "numpy", "pillow", "httpx", "pyarrow")




def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def parse_shard(shard: str | tuple[int, int] | None) -> tuple[int, int] | None:
    """``"2/4"`` -> ``(2, 4)``; shards are numbered from 1.

    >>> parse_shard("2/4"), parse_shard(None)
    ((2, 4), None)
    """
    if shard is None:
        return None
    if isinstance(shard, tuple):
        index, count = shard
    else:
        text = str(shard).strip()
        try:
            left, right = text.split("/")
            index, count = int(left), int(right)
        except ValueError:
            raise ValueError(f"shard {shard!r}: expected I/N with integers, e.g. 1/4") from None
    if count < 1 or not 1 <= index <= count:
        raise ValueError(f"shard {shard!r}: expected 1 <= I <= N (shards are numbered 1..N)")
    return index, count


def shard_ids(trajectory_ids: Sequence[str], shard: str | tuple[int, int] | None) -> set[str]:
    """The ids of ``trajectory_ids`` that belong to ``shard`` (all of them when ``None``).

    >>> sorted(shard_ids(["c", "a", "b", "d"], "1/2")), sorted(shard_ids(["c", "a", "b", "d"], "2/2"))
    (['a', 'c'], ['b', 'd'])
    """
    parsed = parse_shard(shard)
    if parsed is None:
        return set(trajectory_ids)
    index, count = parsed
    return {tid for position, tid in enumerate(sorted(trajectory_ids)) if position % count == index - 1}


def record_name(shard: str | tuple[int, int] | None) -> str:
    """``run.json``, or ``run-shard-I-of-N.json`` for a shard (``"I/N"`` accepted)."""
    return _record_file_name(parse_shard(shard))


def _status_of(record: Mapping[str, Any] | None) -> str | None:
    return None if record is None else record.get("parse_status")


def result_status(path: Path) -> str | None:
    """The ``parse_status`` of an existing result file; ``None`` when missing or unreadable."""
    result = read_result(Path(path).parent, Path(path).stem)
    return None if result is None else result.parse_status


def _merge_of(record: Mapping[str, Any] | None) -> str | bool:
    """Whether a result's screenshots were merged into mosaics: its ``merge_reason``, True, or False."""
    telemetry = (record or {}).get("telemetry")
    if not isinstance(telemetry, Mapping) or telemetry.get("merged") is not True:
        return False
    reason = telemetry.get("merge_reason")
    return reason if isinstance(reason, str) else True


def _merging(records: Mapping[str, Mapping[str, Any] | None], selected_ids: Sequence[str]) -> dict[str, Any]:
    """``run.json``'s ``merging``: items whose screenshots went as 2x2 mosaics, by reason.

    >>> merged = lambda reason: {"telemetry": {"merged": True, "merge_reason": reason}}
    >>> records = {"a": merged("count"), "b": {"telemetry": {"merged": False}}, "c": merged("server_limit"), "d": merged(None)}
    >>> _merging(records, ["a", "b", "c", "d", "e"])
    {'merged_items': 3, 'by_reason': {'count': 1, 'server_limit': 1}}
    """
    reasons = [_merge_of(records.get(tid)) for tid in selected_ids]
    by_reason: dict[str, int] = {}
    for reason in reasons:
        if isinstance(reason, str):
            by_reason[reason] = by_reason.get(reason, 0) + 1
    return {"merged_items": sum(reason is not False for reason in reasons), "by_reason": dict(sorted(by_reason.items()))}


@dataclass
class RunSummary:
    """What a run did: where, how many, and the score when labels were available.

    ``counts`` covers every selected item after the run (``ok``, ``invalid``,
    ``error``, ``missing``) plus ``skipped``: items already finished before this
    invocation. ``score`` is a :class:`~agenthorizon.scoring.metrics.ScoreReport` of
    the selected items (``None`` for a blind dataset without ``data_root``).
    """

    out_dir: Path
    record_path: Path
    record: RunRecord
    counts: dict[str, int]
    n_selected: int
    judged: int
    score: Any = None
    wall_time_s: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)
    stopped: str | None = None

    def __str__(self) -> str:
        c = self.counts
        text = (
            f"{self.record.spec} on {self.record.config}: "
            f"{self.n_selected} items, {c['ok']} ok, {c['invalid']} invalid, {c['error']} error "
            f"({c['skipped']} already done, {self.judged} judged now) in {self.wall_time_s:.1f} s -> {self.out_dir}"
        )
        if self.stopped is not None:
            text += f"\nstopped early: {self.stopped}"
        if self.score is not None and self.score.balanced_accuracy is not None:
            text += f"\nbalanced accuracy {100 * self.score.balanced_accuracy:.1f}%"
        return text


# --- selection and references ----------------------------------------------------------


def _column(dataset: Any, name: str) -> list[Any] | None:
    """A column of a ``datasets.Dataset`` or a list of rows, without decoding other columns."""
    column_names = getattr(dataset, "column_names", None)
    if column_names is not None:
        # [:] reads the column as one batch; iterating datasets' Column formats row by row
        return list(dataset[name][:]) if name in column_names else None
    values = []
    for index, row in enumerate(dataset):
        if not isinstance(row, Mapping):
            raise ValueError(f"dataset item {index}: expected a row mapping, got {type(row).__name__}")
        if name not in row:
            return None
        values.append(row[name])
    return values


def _label_rows(dataset: Any) -> list[dict[str, Any]] | None:
    """Label rows (label fields + pair_group_id when present) when the dataset is not blind."""
    if _column(dataset, "label") is None:
        return None
    missing = [n for n in LABEL_FIELDS if _column(dataset, n) is None]
    if missing:
        # Scoring and the run record's label manifest need all seven fields;
        # a half-labelled row would otherwise fail deep inside hashing.
        raise ValueError(
            f"dataset rows have 'label' but not the label fields {', '.join(missing)}; expected full rows "
            "of agenthorizon.load_dataset, or rows without 'label' (blind rows, scored from data_root)"
        )
    names = [n for n in (*LABEL_FIELDS, "pair_group_id") if _column(dataset, n) is not None]
    if getattr(dataset, "column_names", None) is not None:
        return dataset.select_columns(names).to_list()
    return [{n: row[n] for n in names} for row in dataset]


def _config_name(dataset: Any, config: str | None) -> str | None:
    if config is not None:
        return config
    info = getattr(dataset, "info", None)
    return getattr(info, "config_name", None) or None


def _data_root_record(data_root: str | os.PathLike[str] | None) -> dict[str, Any]:
    """``data.root`` of the run record; for a Hub snapshot also the repo id and commit it holds.

    A release fetched from the Hub lives in huggingface_hub's cache as
    ``<cache>/datasets--<org>--<name>/snapshots/<commit>`` (``--`` cannot occur in
    a repo id, so the folder name gives it back), which says exactly which
    release files a run judged, however the branch moves later.

    >>> _data_root_record("/c/hub/datasets--ServiceNow--AgentHorizon/snapshots/0a1b")["commit"]
    '0a1b'
    """
    if data_root is None:
        return {"root": None}
    root = Path(data_root).resolve()
    record: dict[str, Any] = {"root": str(root)}
    storage = root.parent.parent.name
    if root.parent.name == "snapshots" and storage.startswith("datasets--") and storage.count("--") == 2:
        record.update(repo_id=storage[len("datasets--"):].replace("--", "/"), commit=root.name)
    return record


def _git_revision() -> str | None:
    package_dir = Path(__file__).resolve().parent
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=package_dir, capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    revision = result.stdout.strip()
    return revision if result.returncode == 0 and revision else None


def _versions() -> dict[str, str | None]:
    from importlib import metadata

    versions: dict[str, str | None] = {"python": sys.version.split()[0]}
    for name in _VERSIONED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def _prepare_judge(judge: Any, data_root: Any, config: str | None, data_options: Mapping[str, Any] | None) -> None:
    """Give the judge the release it judges, then let it check its own prerequisites.

    A judge with ``bind_release(root)`` (command judges, ``prompt="release"``)
    reads the release's judge texts from the local root ``data_root`` names
    (for a Hub repo id, its snapshot: fetched by the loader already, so this
    costs the label requests only); one with ``preflight()`` (the harness
    presets: is the CLI installed, which version) runs it before any item,
    so a missing tool fails the run at once instead of every item.
    """
    bind = getattr(judge, "bind_release", None)
    if callable(bind) and getattr(judge, "wants_release", True):
        if data_root is not None:
            from agenthorizon.release.hub import resolve_release

            dev = {k: v for k, v in (data_options or {}).items() if k in ("dev_groups", "dev_manifest")}
            bind(resolve_release(data_root, config or CONFIG_ALL, images=None, **dev))
        elif getattr(judge, "prompt", "") is None:
            raise ValueError(
                f"{judge!r} uses the release's own prompt (prompt='release'), read from the release it judges: "
                "pass data_root= (the release root or Hub repo id) to run_judge"
            )
    preflight = getattr(judge, "preflight", None)
    if callable(preflight):
        preflight()


# --- the run -------------------------------------------------------------------------------


class _Progress:
    """tqdm bar with tokens and cost in its postfix; a no-op when disabled."""

    # tqdm redraws a few times a second; formatting the postfix for every item
    # would only cost event-loop time.
    POSTFIX_INTERVAL_S = 0.1

    def __init__(self, total: int, initial: int, enabled: bool, description: str) -> None:
        self.tokens = 0
        self.cost = 0.0
        self.errors = 0
        self.bar = None
        self.postfix_at = 0.0
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, initial=initial, desc=description, unit="item", dynamic_ncols=True)

    def update(self, payload: Mapping[str, Any]) -> None:
        telemetry = payload.get("telemetry") or {}
        self.tokens += (telemetry.get("input_tokens") or 0) + (telemetry.get("output_tokens") or 0)
        self.cost += telemetry.get("cost_usd") or 0.0
        self.errors += payload["parse_status"] == STATUS_ERROR
        if self.bar is not None:
            now = time.monotonic()
            if now - self.postfix_at >= self.POSTFIX_INTERVAL_S:
                self.postfix_at = now
                self._set_postfix()
            self.bar.update(1)

    def _set_postfix(self) -> None:
        postfix = {"tokens": f"{self.tokens:,}", "errors": self.errors}
        if self.cost:
            postfix["cost"] = f"${self.cost:.2f}"
        self.bar.set_postfix(postfix, refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self._set_postfix()  # the final line shows the final totals
            self.bar.close()


def _count(records: Mapping[str, Mapping[str, Any] | None], selected_ids: Sequence[str]) -> dict[str, int]:
    """Counts by parse status of the results of ``selected_ids`` (``None``: missing or unreadable)."""
    counts = {"ok": 0, "invalid": 0, "error": 0, "missing": 0}
    for trajectory_id in selected_ids:
        status = _status_of(records.get(trajectory_id))
        if status is None:
            counts["missing"] += 1
        elif status == STATUS_OK:
            counts["ok"] += 1
        elif status == STATUS_ERROR:
            counts["error"] += 1
        else:
            counts["invalid"] += 1
    return counts


def _select_items(dataset: Any, shard: tuple[int, int] | None, limit: int | None) -> tuple[list[str], list[int]]:
    """Every row's trajectory id, and the positions of the rows this run judges (shard, then limit)."""
    if limit is not None and (not isinstance(limit, int) or limit < 0):
        raise ValueError(f"limit must be >= 0, got {limit}")
    ids = _column(dataset, "trajectory_id")
    if ids is None:
        raise ValueError("dataset rows have no 'trajectory_id'; expected rows from agenthorizon.load_dataset")
    seen: set[str] = set()
    for position, trajectory_id in enumerate(ids):
        # Result files are named <trajectory_id>.json: only a UUID keeps them inside out_dir.
        if not isinstance(trajectory_id, str) or not UUID_PATTERN.fullmatch(trajectory_id):
            raise ValueError(
                f"dataset item {position}: trajectory_id {trajectory_id!r} is not a UUID; "
                "expected rows from agenthorizon.load_dataset"
            )
        if trajectory_id in seen:
            raise ValueError(f"dataset item {position}: duplicate trajectory_id {trajectory_id}; expected each item once")
        seen.add(trajectory_id)
    in_shard = shard_ids(ids, shard)
    positions = [p for p, tid in enumerate(ids) if tid in in_shard]
    return ids, positions if limit is None else positions[:limit]




def _resolve_references(
    dataset: Any,
    ids: Sequence[str],
    config: str | None,
    data_root: str | os.PathLike[str] | None,
    data_options: Mapping[str, Any] | None,
) -> tuple[list[dict[str, Any]] | None, Selection | None]:
    """The label rows of the dataset's items (from the rows, else from ``data_root``) and the run's selection.

    ``None`` references for a blind dataset without ``data_root``; ``None``
    selection when no config is known.
    """
    options = {key: value for key, value in (data_options or {}).items() if key in _SELECTION_OPTIONS}
    references = _label_rows(dataset)
    if references is None and data_root is not None and config is not None:
        from agenthorizon.release.files import load_references

        references = load_references(data_root, config, **options)
    manifest = None
    if references is not None:
        from agenthorizon.release.labels import manifest_sha256

        wanted = set(ids)
        manifest = manifest_sha256([row for row in references if row["trajectory_id"] in wanted])
    if config is None:
        return references, None
    dev_manifest = options.get("dev_manifest")
    selection = Selection(
        config,
        dev_groups=int(options.get("dev_groups", DEV_GROUPS)),
        dev_manifest=None if dev_manifest is None else str(Path(dev_manifest).resolve()),
        dev_manifest_sha256=None if dev_manifest is None else _file_sha256(Path(dev_manifest)),
        exclude_dev=bool(options.get("exclude_dev", False)),
        label_manifest_sha256=manifest,
    )
    return references, selection


def _file_sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_judge(
    judge: Any,
    dataset: Any,
    out_dir: str | os.PathLike[str],
    *,
    config: str | None = None,
    concurrency: int = 8,
    shard: str | tuple[int, int] | None = None,
    limit: int | None = None,
    timeout: float | None = 900.0,
    retries: int = 2,
    backoff_base: float = 2.0,
    progress: bool = True,
    data_root: str | os.PathLike[str] | None = None,
    bootstrap: int = 0,
    data_options: Mapping[str, Any] | None = None,
    breaker: int | None = DEFAULT_BREAKER,
    max_cost: float | None = None,
) -> RunSummary:
    """Judge every selected item of ``dataset`` into ``out_dir``; resumable.

    Each selected row becomes a blind input
    (:func:`agenthorizon.judging.inputs.build_judge_input`), is judged with up to
    ``concurrency`` items in flight, and its parsed verdict is written
    atomically to ``out_dir/<trajectory_id>.json`` as soon as it is known;
    the run record (``run.json``, or ``run-shard-I-of-N.json``) is written at
    the start and the end. Running again into the same ``out_dir`` skips the
    items already answered and judges again those that failed (module
    docstring). When labels are available, the selected items are scored
    strictly: an invalid or failed prediction counts as incorrect.

    Parameters
    ----------
    judge : Judge or str
        A judge object (see :mod:`agenthorizon.judging.judges`) or a spec for
        :func:`agenthorizon.judging.judges.make_judge` (``"lexical"``, ``"openai:MODEL"``...).
    dataset : datasets.Dataset or sequence of rows
        Rows of :func:`agenthorizon.load_dataset` (full or blind), each with a
        unique ``trajectory_id``.
    out_dir : str or path-like
        Run directory, created when missing: one ``<trajectory_id>.json`` per
        item plus the run record. It must not hold a run of another judge,
        model, prompt or config.
    config : str, optional
        Config name for the run record (default: the dataset's config name).
    concurrency : int, default=8
        Items judged at the same time; at least 1.
    shard : "i/n" or (int, int), optional
        Judge only shard ``i`` of ``n``, 1 <= i <= n (see the module docstring).
    limit : int, optional
        Judge at most the first ``limit`` selected items (dataset order); >= 0.
    timeout : float or None, default=900.0
        Seconds allowed per attempt on one item; ``None``: no limit. A command
        judge's agent is killed (its whole sandbox) when it runs out.
    retries : int, default=2
        Extra attempts after a timeout or a transient judge error; >= 0 (0:
        one attempt). Judges with their own
        :class:`~agenthorizon.judging.runs.retry.RetryPolicy` (``judge.retry``,
        the OpenAI-compatible judge) retry inside and get one attempt here.
    backoff_base : float, default=2.0
        Base of the exponential backoff (seconds, with jitter) between attempts.
    progress : bool, default=True
        Show a progress bar (tqdm) on standard error.
    data_root : str or path-like, optional
        Release root (or Hub repo id); recorded, used for labels when
        ``dataset`` is blind, and where judges that read the release's own
        texts find them (``bind_release``: command judges' framework files,
        ``prompt="release"``).
    bootstrap : int, default=0
        Bootstrap resamples for the score's intervals (0: none).
    data_options : mapping, optional
        How the dataset's items were selected besides the config --
        ``dev_groups``, ``dev_manifest``, ``exclude_dev`` (as given to
        ``load_dataset``), recorded in the run's ``selection``, which every
        reader (``score``, ``leaderboard``, ``report``, ``plot``) rebuilds --
        and where the data came from (e.g. ``repo_id``, ``revision``,
        ``commit``), recorded under ``data``.
    breaker : int or None, default=5
        Stop the run (:class:`~agenthorizon.judging.runs.loop.RunAborted`) after
        this many consecutive items failed to reach the judge's server
        (``None``: never).
    max_cost : float, optional
        US dollars: no new item starts once the recorded cost (this run folder's
        results) plus the expected cost of the items in flight would pass it;
        the run record then says so under ``interrupted``.

    Returns
    -------
    RunSummary
        Counts (``ok``, ``invalid``, ``error``, ``missing``, ``skipped``), the
        run record and its path, and the strict
        :class:`~agenthorizon.scoring.metrics.ScoreReport` of the selected items
        (``None`` for a blind dataset without ``data_root``).

    Raises
    ------
    ValueError
        If ``judge`` is not a judge (or an unknown spec), ``concurrency``,
        ``limit``, ``retries`` or ``shard`` is out of range, the rows have no
        ``trajectory_id`` or repeat one (named), or ``out_dir`` already holds
        a different run. A failing judge does not raise: its items get status
        ``error`` and are judged again on the next run.

    See Also
    --------
    agenthorizon.judging.judges.make_judge : judges from a spec string.
    agenthorizon.judging.runs.records : the result-file format.
    agenthorizon.scoring.metrics.score : the metrics of ``RunSummary.score``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from agenthorizon import load_dataset
    >>> from agenthorizon.release.sample import generate
    >>> tmp = Path(tempfile.mkdtemp())
    >>> root = generate(tmp / "release", preset="tiny").root
    >>> dataset = load_dataset(root, "AH", split="test", cache_dir=tmp / "cache")
    >>> summary = run_judge("constant:true", dataset, tmp / "run", progress=False)
    >>> summary.counts["ok"], summary.score.balanced_accuracy
    (8, 0.5)
    >>> run_judge("constant:true", dataset, tmp / "run", progress=False).counts["skipped"]  # resumed
    8
    """
    from agenthorizon.judging.judges import make_judge
    from agenthorizon.judging.judges.base import run_sync

    if isinstance(judge, str):
        judge = make_judge(judge)
    if not callable(getattr(judge, "ajudge", None)) or not callable(getattr(judge, "spec", None)):
        raise ValueError(f"{judge!r} is not a judge: expected an object with judge/ajudge/spec (agenthorizon.judging.judges.Judge)")
    if not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a positive integer, got {concurrency!r}")
    if retries < 0:
        raise ValueError(f"retries must be >= 0, got {retries}")
    if breaker is not None and (not isinstance(breaker, int) or breaker < 1):
        raise ValueError(f"breaker must be a positive integer or None, got {breaker!r}")
    if max_cost is not None and not max_cost >= 0:
        raise ValueError(f"max_cost must be >= 0 US dollars, got {max_cost!r}")
    parsed_shard = parse_shard(shard)
    started = time.perf_counter()

    ids, positions = _select_items(dataset, parsed_shard, limit)
    selected_ids = [ids[p] for p in positions]
    config_name = _config_name(dataset, config)
    references, selection = _resolve_references(dataset, ids, config_name, data_root, data_options)
    _prepare_judge(judge, data_root, config_name, data_options)
    directory = RunDirectory(Path(out_dir), record_name(parsed_shard))
    record = RunRecord.build(
        judge.spec(),
        selection,
        data={
            **_data_root_record(data_root),
            "n_items": len(ids),
            "n_selected": len(selected_ids),
            # Where the data came from (e.g. a Hub repo id, revision and commit);
            # the selection options are recorded in the selection instead.
            **{key: value for key, value in (data_options or {}).items() if key not in _SELECTION_OPTIONS},
        },
        runner={"concurrency": concurrency, "timeout_s": timeout, "retries": retries, "limit": limit},
        shard=None if parsed_shard is None else {"index": parsed_shard[0], "count": parsed_shard[1], "assignment": "sorted-id position mod count"},
        versions=_versions(),
        git_revision=_git_revision(),
        started_at=_now(),
    )
    directory.acquire()  # one runner per folder (and shard), or a clear error naming the holder
    try:
        directory.check_resume(record)
        summary = _judge_into(
            judge, dataset, directory, record, ids, positions,
            concurrency=concurrency, timeout=timeout, retries=retries, backoff_base=backoff_base,
            progress=progress, run_sync=run_sync, breaker=breaker, max_cost=max_cost,
        )
    finally:
        directory.release()
    records, judged, errors, record, stopped = summary
    report = None
    if references is not None:
        from agenthorizon.scoring.metrics import score

        wanted = set(selected_ids)
        # After a complete run every selected item has a record (skipped ones
        # were read at the start, the others were just written).
        predictions = {tid: records[tid] for tid in selected_ids if records[tid] is not None}
        report = score(predictions, [row for row in references if row["trajectory_id"] in wanted], bootstrap=bootstrap)
    return RunSummary(
        out_dir=directory.path,
        record_path=directory.record_path,
        record=record,
        counts=dict(record.counts or {}),
        n_selected=len(selected_ids),
        judged=judged,
        score=report,
        wall_time_s=time.perf_counter() - started,
        errors=errors,
        stopped=stopped,
    )


def _judge_into(
    judge: Any,
    dataset: Any,
    directory: RunDirectory,
    record: RunRecord,
    ids: list[str],
    positions: list[int],
    *,
    concurrency: int,
    timeout: float | None,
    retries: int,
    backoff_base: float,
    progress: bool,
    run_sync: Any,
    breaker: int | None,
    max_cost: float | None,
) -> tuple[dict[str, Mapping[str, Any] | None], int, dict[str, str], RunRecord, str | None]:
    """Judge the items of ``positions`` that need it, writing results and the run record.

    Returns every selected item's result (``None``: none), how many were
    judged now, the failures by id, the final record and why the run stopped
    early (``None``: it did not).
    """
    selected_ids = [ids[p] for p in positions]
    key = record.judge_key
    # Every selected item's result (None: no trustworthy file), read once here
    # and replaced by each payload as it is written: the counts, the merging
    # counts (SPEC section 3) and the score at the end are derived from it,
    # so no result file is read twice.
    loaded = directory.load_results(selected_ids)
    redo = {tid for tid, result in loaded.items() if needs_judging(result, tid, key)}
    records: dict[str, Mapping[str, Any] | None] = {
        tid: None if result is None or result.trust_problem(tid, key) else result.to_dict()
        for tid, result in loaded.items()
    }
    todo = [p for p in positions if ids[p] in redo]
    skipped = len(positions) - len(todo)
    directory.write_record(record)  # a record exists even if the run is killed

    def finish(**state: Any) -> RunRecord:
        counts = _count(records, selected_ids)
        counts["skipped"] = skipped
        final = record.replace(counts=counts, merging=_merging(records, selected_ids), **state)
        directory.write_record(final)
        return final

    bar = _Progress(len(positions), skipped, progress, record.spec)
    # Ctrl-C / SIGTERM stop the run cleanly; a second one cannot cut short the
    # record below (see RunSignals).
    with RunSignals() as signals:
        try:
            judged, errors, stopped = run_sync(
                judge_items(
                    judge,
                    dataset,
                    todo,
                    ids,
                    directory.path,
                    concurrency=concurrency,
                    timeout=timeout,
                    retry=RetryPolicy(retries, backoff_base, backoff_max=max(60.0, backoff_base)),
                    progress=bar,
                    records=records,
                    judge_key=key,
                    breaker=breaker,
                    max_cost=max_cost,
                    signals=signals,
                )
            )
        except BaseException as stop:
            # Ctrl-C, SIGTERM, or a failure outside any one item (a full disk):
            # the results written so far are intact; the record says the run
            # did not finish, why, and what it had done (finished_at stays null).
            if isinstance(stop, KeyboardInterrupt) and not isinstance(stop, RunInterrupted) and signals.received:
                stop = RunInterrupted(signals.received)  # SIGTERM must not read as Ctrl-C
                finish(interrupted={"at": _now(), "reason": _stop_reason(stop)})
                raise stop from None
            finish(interrupted={"at": _now(), "reason": _stop_reason(stop)})
            raise
        finally:
            bar.close()
    if stopped is not None:  # stopped on purpose (--max-cost): not finished, and run.json says why
        return records, judged, errors, finish(interrupted={"at": _now(), "reason": stopped}), stopped
    return records, judged, errors, finish(finished_at=_now(), interrupted=None), None


def _stop_reason(stop: BaseException) -> str:
    """run.json's ``interrupted.reason`` for an exception that stopped the run (secrets scrubbed)."""
    from agenthorizon.judging.secrets import scrub

    if isinstance(stop, KeyboardInterrupt) and getattr(stop, "signal_name", "SIGINT") == "SIGINT":
        return "KeyboardInterrupt"  # Ctrl-C
    return scrub(f"{type(stop).__name__}: {stop}".rstrip(": "))
