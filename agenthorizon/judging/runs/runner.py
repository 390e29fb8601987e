"""Run a judge over a dataset: concurrent, resumable, one result file per item (:func:`run_judge`).

The steps in order: prepare the judge, write the run record, judge the items
(:mod:`~agenthorizon.judging.runs.loop`), write the record again (:func:`_finish`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from agenthorizon.judging.ablation import parse_ablation
from agenthorizon.judging.perturbation import parse_perturbation, perturbation_of
from agenthorizon.judging.judges.base import BaseJudge, PreflightError, as_judge, run_sync
from agenthorizon.judging.retry import RetryPolicy
from agenthorizon.judging.runs.folder import RunDirectory, record_name
from agenthorizon.judging.runs.loop import DEFAULT_BREAKER, RunAborted, RunInterrupted, RunIOError, RunSignals, judge_items
from agenthorizon.judging.runs.progress import Progress
from agenthorizon.judging.runs.reask import REASK_INVALID, check_reask_rule
from agenthorizon.judging.runs.provenance import data_root_record, git_revision, now, versions
from agenthorizon.judging.runs.records import Interruption, RunRecord, ShardInfo, needs_judging
from agenthorizon.judging.runs.selection import PROVENANCE_OPTIONS, config_name, resolve_references, select_items
from agenthorizon.judging.runs.shards import ASSIGNMENT, parse_shard
from agenthorizon.judging.runs.summary import RunResults, RunSummary
from agenthorizon.judging.secrets import scrub
from agenthorizon.release.splits import Selection
from agenthorizon.schema import CONFIG_ALL

if TYPE_CHECKING:
    from agenthorizon.judging.judges.base import Judge
    from agenthorizon.scoring.metrics import ScoreReport

__all__ = ["RunSummary", "run_judge"]


def _local_root(data_root: Any, config: str | None, data_options: Mapping[str, Any] | None) -> Any:
    """``data_root`` as a local folder: a Hub repo id becomes its snapshot, once, for every later use.

    References, the judge's release texts and the run record then all read one folder.
    """
    if data_root is None or os.path.exists(data_root):
        return data_root
    from agenthorizon.release.hub import resolve_release

    dev = {k: v for k, v in (data_options or {}).items() if k in ("dev_groups", "dev_manifest")}
    return resolve_release(data_root, config or CONFIG_ALL, images=None, **dev)


def _sweep_item_folders(judge: BaseJudge, directory: RunDirectory) -> None:
    """Tell a judge with item folders (command judges) which run it works for, so that it names its folders
    after it and removes those a killed runner of the same run left (it holds the run's lock by now)."""
    bind_run = getattr(judge, "bind_run", None)
    if callable(bind_run):
        bind_run(directory.run_tag())  # housekeeping, silent as the removal of stray temporary files is


def _prepare_judge(judge: BaseJudge, data_root: Any) -> None:
    """Give the judge the release it judges (``bind_release``), then run its ``preflight`` before any item."""
    if data_root is not None:
        judge.bind_release(data_root)  # a local folder: run_judge resolved a Hub repo id to its snapshot
    elif judge.needs_release:
        raise ValueError(
            f"{judge!r} uses the release's own prompt (prompt='release'), read from the release it judges: "
            "pass data_root= (the release root or Hub repo id) to run_judge"
        )
    judge.preflight()


def run_judge(
    judge: Judge | str,
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
    ablate: str | Sequence[str] | None = None,
    perturb: str | Sequence[str] | None = None,
    reask: int | None = None,
    reask_when: str | None = None,
) -> RunSummary:
    """Judge every selected item of ``dataset`` into ``out_dir``; resumable.

    Each selected row becomes a blind input
    (:func:`agenthorizon.judging.inputs.build_judge_input`, minus ``ablate``)
    and is judged with up to ``concurrency`` items in flight. Its parsed
    verdict is written to ``out_dir/<trajectory_id>.json`` as soon as it is
    known (write, fsync, rename) and counted only once durable: a crash loses
    at most the items in flight and never leaves a partial file. The run
    record (``run.json``, or ``run-shard-I-of-N.json``) says ``running`` from
    the start, and ``finished``, ``stopped`` or ``interrupted`` (with its
    ``interruption``) at the end. The folder (and shard) is locked for the run.

    Running again into the same ``out_dir`` with the same judge settings and
    selection keeps answered items (``ok`` or an unparseable answer: asking
    again would change the experiment) and judges again those whose result is
    missing, unreadable, untrusted or ``error``; other settings are refused,
    naming the keys that differ. With labels, the selected items are scored
    strictly: an invalid or failed prediction counts as incorrect.

    Parameters
    ----------
    judge : Judge or str
        A judge object (see :func:`~agenthorizon.judging.judges.base.as_judge`)
        or a spec for :func:`agenthorizon.judging.judges.make_judge`
        (``"lexical"``, ``"openai:MODEL"``...).
    dataset : datasets.Dataset or sequence of rows
        Rows of :func:`agenthorizon.load_dataset` (full or blind), each with a
        unique ``trajectory_id``.
    out_dir : str or path-like
        Run directory, created when missing.
    config : str, optional
        Config name for the run record (default: the dataset's config name).
    concurrency : int, default=8
        Items judged at the same time; at least 1.
    shard : "i/n" or (int, int), optional
        Judge only shard ``i`` of ``n``, 1 <= i <= n
        (:mod:`agenthorizon.judging.runs.shards`).
    limit : int, optional
        Judge at most the first ``limit`` selected items (dataset order); >= 0.
    timeout : float or None, default=900.0
        Seconds allowed per attempt on one item; ``None``: no limit. A command
        judge's agent (its whole sandbox) is killed when it runs out. A judge
        with its own ``retry`` and a ``timeout_s`` in its spec bounds each
        request itself and gets no limit here; its own is recorded.
    retries : int, default=2
        Extra attempts after a timeout or a transient judge error; >= 0 (0:
        one attempt). A judge with its own ``retry``
        (:class:`~agenthorizon.judging.retry.RetryPolicy`) gets one attempt here.
    backoff_base : float, default=2.0
        Base of the exponential backoff (seconds, with jitter) between attempts.
    progress : bool, default=True
        Show a progress bar (tqdm) on standard error.
    data_root : str or path-like, optional
        Release root (or Hub repo id); recorded, used for labels when
        ``dataset`` is blind, and where judges that read the release's own
        texts find them (command judges, ``prompt="release"``).
    bootstrap : int, default=0
        Bootstrap resamples for the score's intervals (0: none).
    data_options : mapping, optional
        ``dev_groups``, ``dev_manifest``, ``exclude_dev`` (as given to
        ``load_dataset``; recorded in the run's ``selection``) and ``repo_id``,
        ``revision``, ``commit`` (recorded under ``data``). Any other key is
        an error.
    breaker : int or None, default=5
        Stop the run (:class:`~agenthorizon.judging.runs.loop.RunAborted`) after
        this many consecutive items failed to reach the judge's server
        (``None``: never).
    max_cost : float, optional
        US dollars the run folder's items may cost; the rule is
        :class:`~agenthorizon.judging.runs.limits.CostBudget`'s. When no more
        items fit, the run ends ``stopped``, cause ``max_cost``. A judge that
        never reports a cost (``reports_cost`` false) is refused; an answer
        without a cost stops the run.
    ablate : str or sequence of str, optional
        Parts withheld from every input (paper Table 9): ``"instruction"``,
        ``"actions"``, ``"screenshots"``, plus the judge's own ``ablation``
        (``images="none"``). Part of the judge key: its own leaderboard row.
    perturb : str or sequence of str, optional
        Presentation perturbations applied to every input
        (:data:`agenthorizon.judging.perturbation.PERTURBATIONS`); part of the judge key.
    reask : int, optional
        Default 0, or the judge's preset's (``paper-direct``: 2). Ask again,
        in a fresh call, after an answer without a valid verdict, up to
        ``reask`` more times per item (:mod:`~agenthorizon.judging.runs.reask`).
        The last answer is scored; it is part of the judge key.
    reask_when : {"invalid", "no-success-key"}, optional
        Default ``"invalid"``, or the judge's preset's: which answers are
        asked again (:func:`~agenthorizon.judging.runs.reask.wants_reask`).
        Part of the judge key when not the default.

    Returns
    -------
    RunSummary
        Counts (:class:`~agenthorizon.judging.runs.records.RunCounts`), the run
        record and its path, and the strict
        :class:`~agenthorizon.scoring.metrics.ScoreReport` of the selected items
        (``None`` for a blind dataset without ``data_root``).

    Raises
    ------
    ValueError
        If ``judge`` is not a judge (or an unknown spec), ``concurrency``,
        ``limit``, ``retries`` or ``shard`` is out of range, ``max_cost`` is
        set for a judge that reports no cost, the rows have no
        ``trajectory_id`` or repeat one (named), or ``out_dir`` already holds
        a different run. A failing judge does not raise: its items get status
        ``error`` and are judged again on the next run.
    RunLockedError
        If another runner holds ``out_dir`` (a ``ValueError``;
        :mod:`agenthorizon.judging.runs.folder`).
    PreflightError
        If the judge cannot work at all (missing program, dead server, refused
        key), before any item.
    RunAborted, RunIOError, RunInterrupted
        If ``breaker`` consecutive items could not reach the judge's server,
        the run folder cannot be written, or Ctrl-C / SIGTERM stopped the run.
        The run record is rewritten first, saying why.

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
    >>> summary.counts.ok, summary.record.status, summary.score.balanced_accuracy
    (8, 'finished', 0.5)
    >>> run_judge("constant:true", dataset, tmp / "run", progress=False).counts.skipped  # resumed
    8
    """
    from agenthorizon.judging.judges.factory import make_judge  # the factory imports every judge kind

    judge = as_judge(make_judge(judge) if isinstance(judge, str) else judge)
    reask, reask_when, preset = _reask_settings(judge, reask, reask_when)
    judge = _checked_judge(judge, concurrency=concurrency, retries=retries, breaker=breaker, max_cost=max_cost, reask=reask)
    ablation = parse_ablation([*parse_ablation(ablate), *parse_ablation(judge.ablation, f"{judge!r}: ablation")])
    parsed_shard = parse_shard(shard)
    started = time.perf_counter()

    ids, positions = select_items(dataset, parsed_shard, limit)
    selected_ids = [ids[p] for p in positions]
    config = config_name(dataset, config)
    data_root = _local_root(data_root, config, data_options)
    references, selection = resolve_references(dataset, ids, config, data_root, data_options)
    _prepare_judge(judge, data_root)
    if judge.retry is not None and isinstance(judge.spec().get("timeout_s"), (int, float)):
        timeout = None  # the judge bounds each of its requests (and retries them) itself
    directory = RunDirectory(Path(out_dir), record_name(parsed_shard))
    record = _start_record(
        judge, selection, ablation, data_root, data_options, parsed_shard, n_items=len(ids), n_selected=len(selected_ids),
        runner={"concurrency": concurrency, "timeout_s": timeout, "retries": retries, "limit": limit}, reask=reask,
        reask_when=reask_when, preset=preset, perturbation=parse_perturbation(perturb, "perturb"),
    )
    directory.acquire()  # one runner per folder (and shard), or a clear error naming the holder
    try:
        previous = directory.check_resume(record)
        _sweep_item_folders(judge, directory)
        results, todo = _load_trusted(directory, selected_ids, ids, positions, record.judge_key)
        outcome = _judge_and_finish(
            judge, dataset, directory, record, results, ids, todo,
            _Clock(started, _earlier_wall_time(previous)),
            concurrency=concurrency, timeout=timeout, retries=retries, backoff_base=backoff_base,
            progress=progress, breaker=breaker, max_cost=max_cost, reask=reask, reask_when=reask_when,
        )
    finally:
        directory.release()
    return RunSummary(
        out_dir=directory.path,
        record_path=directory.record_path,
        record=outcome.record,
        counts=outcome.record.counts,
        n_selected=len(selected_ids),
        judged=outcome.results.judged,
        score=None if references is None else _score(outcome.results, references, selected_ids, bootstrap),
        wall_time_s=time.perf_counter() - started,
        errors=outcome.results.errors,
        earlier_errors=outcome.results.earlier_errors,
    )


def _reask_settings(judge: Any, reask: int | None, reask_when: str | None) -> tuple[Any, str, dict[str, Any] | None]:
    """``reask`` and ``reask_when`` as given, else the preset's, else 0 and ``invalid``; and the preset's record
    (its ``overridden`` gains the options given that differ from the preset's)."""
    defaults = getattr(judge, "run_defaults", None) or {}
    given = {name: value for name, value in (("reask", reask), ("reask_when", reask_when)) if value is not None}
    effective = {"reask": 0, "reask_when": REASK_INVALID, **defaults, **given}
    preset = getattr(judge, "preset", None)
    if isinstance(preset, Mapping):
        values = preset.get("values", {})
        changed = [name for name, value in given.items() if name in values and values[name] != value]
        preset = {**preset, "overridden": sorted({*preset.get("overridden", ()), *changed})}
    else:
        preset = None
    return effective["reask"], check_reask_rule(effective["reask_when"]), preset


def _checked_judge(judge: Any, *, concurrency: Any, retries: int, breaker: Any, max_cost: float | None, reask: Any = 0) -> BaseJudge:
    """The judge ``judge`` names (a spec string goes through ``make_judge``; see :func:`as_judge`), once the run settings are valid."""
    from agenthorizon.judging.judges.factory import make_judge  # the factory imports every judge kind

    judge = as_judge(make_judge(judge) if isinstance(judge, str) else judge)
    if not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a positive integer, got {concurrency!r}")
    if retries < 0:
        raise ValueError(f"retries must be >= 0, got {retries}")
    if not isinstance(reask, int) or isinstance(reask, bool) or reask < 0:
        raise ValueError(f"reask must be an integer >= 0 (0: one answer per item), got {reask!r}")
    if breaker is not None and (not isinstance(breaker, int) or breaker < 1):
        raise ValueError(f"breaker must be a positive integer or None, got {breaker!r}")
    if max_cost is not None and not max_cost >= 0:
        raise ValueError(f"max_cost must be >= 0 US dollars, got {max_cost!r}")
    if max_cost is not None and judge.reports_cost is False:
        raise ValueError(
            f"max_cost ${max_cost:g} cannot be enforced: the judge {judge.spec().get('spec') or judge.name} reports "
            "no cost per item "
            "(its answers carry no cost_usd); give it prices where it takes them (openai: --price-in/--price-out) "
            "or run without a cost limit"
        )
    return judge


def _start_record(
    judge: BaseJudge,
    selection: Selection | None,
    ablation: tuple[str, ...],
    data_root: str | os.PathLike[str] | None,
    data_options: Mapping[str, Any] | None,
    shard: tuple[int, int] | None,
    *,
    n_items: int,
    n_selected: int,
    runner: dict[str, Any],
    reask: int = 0,
    reask_when: str = REASK_INVALID,
    preset: dict[str, Any] | None = None,
    perturbation: tuple[str, ...] = (),
) -> RunRecord:
    """The run record as the run starts (status ``running``)."""
    return RunRecord.build(
        # The rule only when not the default: the keys of earlier runs stay as they were.
        {
            **judge.spec(), "reask": reask, **({"reask_when": reask_when} if reask_when != REASK_INVALID else {}),
            **({"preset": preset} if preset is not None else {}),
            **({"perturbation": list(perturbation)} if perturbation else {}),  # only when set: earlier keys stay
        },
        selection,
        ablation,  # the ablation is part of the judge key
        data={
            **data_root_record(data_root),
            "n_items": n_items,
            "n_selected": n_selected,
            # Where the data came from (a Hub repo id, revision and commit);
            # the selection options are recorded in the selection instead.
            **{key: value for key, value in (data_options or {}).items() if key in PROVENANCE_OPTIONS},
        },
        runner=runner,
        shard=None if shard is None else ShardInfo(shard[0], shard[1], ASSIGNMENT),
        versions=versions(),
        git_revision=git_revision(),
        started_at=now(),
    )


def _score(results: RunResults, references: list[dict[str, Any]], selected_ids: list[str], bootstrap: int) -> ScoreReport:
    """The strict :class:`~agenthorizon.scoring.metrics.ScoreReport` of the selected items."""
    from agenthorizon.scoring.metrics import score  # numpy, only when there are labels to score against

    wanted = set(selected_ids)
    return score(results.predictions(), [row for row in references if row["trajectory_id"] in wanted], bootstrap=bootstrap)


@dataclass(frozen=True)
class RunOutcome:
    """What judging a run folder came to: the record as last written, and every selected item's result."""

    record: RunRecord
    results: RunResults


@dataclass(frozen=True)
class _Clock:
    """The wall time a record states: this invocation's, plus the earlier invocations' (``None``: not known)."""

    started: float
    earlier_s: float | None

    def wall_time_s(self) -> float | None:
        return None if self.earlier_s is None else self.earlier_s + time.perf_counter() - self.started


def _earlier_wall_time(previous: RunRecord | None) -> float | None:
    """Seconds the earlier invocations spent on the record (0 for a new run, ``None`` when not known)."""
    if previous is None:
        return 0.0
    if previous.totals is None:  # killed outright (status running), or written before version 3
        return None
    return previous.totals.wall_time_s


def _load_trusted(
    directory: RunDirectory, selected_ids: list[str], ids: list[str], positions: list[int], key: str
) -> tuple[RunResults, list[int]]:
    """The folder's trustworthy results of the selected items, and the positions still to judge.

    Each result file is read once, here, after a killed run's temporary files are removed.
    """
    directory.remove_temp_files(selected_ids)
    loaded = directory.load_results(selected_ids)
    trusted = {tid: result for tid, result in loaded.items() if result is not None and not result.trust_problem(tid, key)}
    redo = {tid for tid, result in loaded.items() if needs_judging(result, tid, key)}
    return RunResults(selected_ids, trusted), [p for p in positions if ids[p] in redo]


def _judge_and_finish(
    judge: BaseJudge,
    dataset: Any,
    directory: RunDirectory,
    record: RunRecord,
    results: RunResults,
    ids: list[str],
    todo: list[int],
    clock: _Clock,
    *,
    concurrency: int,
    timeout: float | None,
    retries: int,
    backoff_base: float,
    progress: bool,
    breaker: int | None,
    max_cost: float | None,
    reask: int = 0,
    reask_when: str = REASK_INVALID,
) -> RunOutcome:
    """Judge the dataset positions ``todo`` into ``results``; write the run record at the start and the end.

    A run that stops on an exception rewrites the record, saying why, and re-raises.
    """
    skipped = len(results.selected_ids) - len(todo)
    directory.write_record(record)  # a record exists even if the run is killed
    bar = Progress(len(results.selected_ids), skipped, progress, record.spec)
    # Ctrl-C / SIGTERM stop the run cleanly; a second one cannot cut the record below short (RunSignals).
    with RunSignals() as signals:
        try:
            stop = run_sync(
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
                    results=results,
                    judge_key=record.judge_key,
                    ablation=record.ablation,
                    perturbation=perturbation_of(record.judge),
                    breaker=breaker,
                    max_cost=max_cost,
                    signals=signals,
                    reask=reask,
                    reask_when=reask_when,
                )
            )
        except BaseException as error:
            if isinstance(error, KeyboardInterrupt) and not isinstance(error, RunInterrupted) and signals.received:
                error = RunInterrupted(signals.received)  # SIGTERM must not read as Ctrl-C
                _finish(directory, record, results, skipped, clock, _interruption(error))
                raise error from None
            _finish(directory, record, results, skipped, clock, _interruption(error))
            raise
        finally:
            bar.close()
    return RunOutcome(_finish(directory, record, results, skipped, clock, stop), results)


def _finish(
    directory: RunDirectory, record: RunRecord, results: RunResults, skipped: int, clock: _Clock,
    interruption: Interruption | None,
) -> RunRecord:
    """Write the record of the ended run: the one place a run's status is set (:meth:`RunRecord.ended`)."""
    final = record.ended(
        now(), results.counts(skipped), results.merging(), results.totals(clock.wall_time_s()), interruption,
        reasking=results.reasking(),
    )
    directory.write_record(final)
    return final


def _interruption(stop: BaseException) -> Interruption:
    """Why an exception stopped the run, as ``run.json`` states it (secrets scrubbed)."""
    if isinstance(stop, KeyboardInterrupt) and getattr(stop, "signal_name", "SIGINT") == "SIGINT":
        return Interruption("signal", "KeyboardInterrupt")  # Ctrl-C
    reason = scrub(f"{type(stop).__name__}: {stop}".rstrip(": "))
    for kind, cause in ((KeyboardInterrupt, "signal"), (RunAborted, "breaker"), (RunIOError, "io_error"),
                        (PreflightError, "preflight")):
        if isinstance(stop, kind):
            return Interruption(cause, reason)
    return Interruption("exception", reason)
