"""The judge contract: every hook the runner calls, declared on :class:`BaseJudge` with its default.

A judge turns one blind :class:`~agenthorizon.judging.inputs.JudgeInput` into a
:class:`JudgeOutput` (raw text plus telemetry); the runner parses the text
with :func:`agenthorizon.scoring.verdicts.parse_verdict`, so every judge is held
to the same verdict rules. Objects with only ``ajudge`` and ``spec`` are
wrapped by :func:`as_judge`.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import asdict, dataclass, field, fields
import os
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from agenthorizon.judging.retry import RetryPolicy

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = [
    "DEFAULT_MAX_OUTPUT_BYTES",
    "BaseJudge",
    "Judge",
    "JudgeError",
    "JudgeOutput",
    "PreflightError",
    "TransientJudgeError",
    "TransportError",
    "as_judge",
    "run_sync",
]


def run_sync(coroutine: Any) -> Any:
    """Run ``coroutine`` to completion from synchronous code; inside a running loop (Jupyter), in a helper thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agenthorizon-loop") as pool:
        return pool.submit(asyncio.run, coroutine).result()


class JudgeError(RuntimeError):
    """A judge could not produce an output for an item (recorded as status ``error``).

    ``attempts``: the calls the judge made before it gave up, ``None`` when it
    does not count them; the runner adds its own and records the total.
    """

    attempts: int | None = None

    def counted(self, attempts: int) -> "JudgeError":
        """This error with ``attempts`` calls recorded; returns itself, to be raised."""
        self.attempts = attempts
        return self


class TransientJudgeError(JudgeError):
    """A failure worth retrying later: rate limit, server error, timeout, lost connection."""


class TransportError(TransientJudgeError):
    """The judge could not reach its model at all; ``breaker`` of them in a row stop the run."""


class PreflightError(JudgeError):
    """A judge cannot work at all (no server, key refused, unknown model, missing program): found before the first item."""


DEFAULT_MAX_OUTPUT_BYTES = 16 * 2**20
"""Bytes kept of one judge answer (agent stdout/stderr, HTTP answer): 16 MiB, ``--max-output-bytes``.

The end is kept (verdicts stand there); the result counts the bytes dropped.
"""

# Telemetry values that JudgeOutput.telemetry passes on as they are.
_PLAIN = (str, int, float, bool, type(None))


@dataclass
class JudgeOutput:
    """What a judge produced for one item.

    ``text`` is the answer verbatim. The rest is telemetry: tokens, latency
    (seconds, the whole call with retries) and cost (US dollars), each ``None``
    when unknown; ``attempts``, the calls made; ``extra``, other values.
    """

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_s: float | None = None
    cost_usd: float | None = None
    attempts: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    def telemetry(self) -> dict[str, Any]:
        """The telemetry block of a result file (see :mod:`agenthorizon.judging.runs.records`)."""
        data = {name: getattr(self, name) for name in _telemetry_names(type(self))}
        if all(type(value) in _PLAIN for value in (*data.values(), *self.extra, *self.extra.values())):
            # Plain values need no deep copy (asdict's walk is slow, and this runs per item).
            data.update(self.extra)
            return data
        data = asdict(self)  # copies nested values (and turns dataclasses into dicts)
        data.pop("text")
        data.update(data.pop("extra"))
        return data


@functools.lru_cache(maxsize=None)
def _telemetry_names(output_type: type) -> tuple[str, ...]:
    """The telemetry fields of a JudgeOutput class: every field but ``text`` and ``extra`` (read once per class)."""
    return tuple(f.name for f in fields(output_type) if f.name not in ("text", "extra"))


@runtime_checkable
class Judge(Protocol):
    """Everything the runner uses of a judge; :class:`BaseJudge` declares each member with its default."""

    name: str
    retry: RetryPolicy | None
    ablation: tuple[str, ...]
    reports_cost: bool | None

    @property
    def is_async(self) -> bool: ...

    @property
    def needs_release(self) -> bool: ...

    def judge(self, judge_input: JudgeInput) -> JudgeOutput: ...

    async def ajudge(self, judge_input: JudgeInput) -> JudgeOutput: ...

    def spec(self) -> dict[str, Any]: ...

    def bind_release(self, root: str | os.PathLike[str]) -> None: ...

    def preflight(self) -> None: ...

    async def apreflight(self) -> None: ...

    async def aclose(self) -> None: ...


class BaseJudge:
    """The base of every judge: the hooks the runner calls, each with a default.

    Implement ``judge`` *or* ``ajudge``; override the rest only when the
    default does not fit. In the order the runner uses them:

    ``name`` : str
        A short name, written into each result (``"judge"`` by default).
    ``needs_release`` : bool, default False
        True when the judge needs the release's own texts (``prompt="release"``):
        the runner then refuses to start without ``data_root``.
    ``bind_release(root)``, default: nothing
        Called once, first, with the local release root whenever the runner
        knows it: read the release's texts (prompt, framework files) here.
    ``preflight()``, default: nothing
        Blocking checks of local prerequisites before the run record is
        written; raise :class:`PreflightError` (``ValueError`` for bad settings).
    ``spec()`` -> dict
        A JSON-able description recorded in ``run.json``: ``name`` and ``spec``
        (the string ``make_judge`` builds it from) at least. ``model``,
        ``base_url``, ``prompt`` (``{"sha256", "text"}``), ``sampling`` and
        ``images`` are lifted to the top of the record and, with ``spec`` and
        the run's ablation, make the judge key: two runs are the same
        experiment exactly when these agree. Never put a secret here.
    ``ablation`` : tuple of str, default ()
        Parts of the input (:data:`agenthorizon.schema.ABLATION_PARTS`) the
        runner withholds from every input and records as the run's ablation.
    ``apreflight()``, default: nothing
        Awaited once before the first item, only when there is something to
        judge: does the model answer, is the key accepted; raise :class:`PreflightError`.
    ``judge(judge_input)`` / ``ajudge(judge_input)`` -> JudgeOutput
        One item: the raw text and its telemetry, ``None`` for what the judge
        cannot know (never 0); other values go in ``extra``, under the names of
        :class:`~agenthorizon.judging.runs.records.Telemetry` where one fits.
        Raise :class:`TransientJudgeError` for a failure worth retrying,
        :class:`TransportError` when the model could not be reached (the
        runner's breaker counts those); any other exception records the item
        as ``error``, judged again on resume.
    ``reports_cost`` : bool or None, default None
        Whether answers carry ``cost_usd``: ``True`` always; ``False`` never (a
        ``max_cost`` run is refused before it starts); ``None``: it depends (a
        ``max_cost`` run stops at the first answer without a cost).
    ``retry`` : RetryPolicy or None, default None
        ``None``: the runner retries a failed item (``retries=``). A judge that
        retries inside sets its own :class:`~agenthorizon.judging.retry.RetryPolicy`
        and the runner makes exactly one attempt.
    ``aclose()``, default: nothing
        Awaited once after the last item: release what is bound to the event loop.
    ``is_async`` : bool (derived)
        Whether ``ajudge`` is native (run on the event loop) or derived from
        ``judge`` (run in a worker thread).

    Examples
    --------
    >>> import json
    >>> class Always(BaseJudge):
    ...     name = "always"
    ...
    ...     def __init__(self, answer: bool) -> None:
    ...         self.answer = answer
    ...
    ...     def judge(self, judge_input):
    ...         return JudgeOutput(text=json.dumps({"success": self.answer}), input_tokens=0, cost_usd=0.0)
    ...
    ...     def spec(self):
    ...         return {"name": self.name, "spec": f"always:{self.answer}"}
    >>> judge = Always(True)
    >>> judge.judge(None).text, judge.is_async, judge.needs_release, judge.retry is None
    ('{"success": true}', False, False, True)
    """

    name: str = "judge"
    retry: RetryPolicy | None = None
    ablation: tuple[str, ...] = ()
    reports_cost: bool | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.judge is BaseJudge.judge and cls.ajudge is BaseJudge.ajudge:
            raise TypeError(f"{cls.__name__} must implement judge() or ajudge()")

    @property
    def is_async(self) -> bool:
        return type(self).ajudge is not BaseJudge.ajudge

    @property
    def needs_release(self) -> bool:
        """Whether the judge cannot work without :meth:`bind_release` (default: it can)."""
        return False

    def bind_release(self, root: str | os.PathLike[str]) -> None:
        """Read what the judge uses of the release under ``root`` before the first item (default: nothing)."""

    def judge(self, judge_input: JudgeInput) -> JudgeOutput:
        """Judge one item, blocking. Derived from :meth:`ajudge` when not overridden."""

        async def once() -> JudgeOutput:
            try:
                return await self.ajudge(judge_input)
            finally:
                await self.aclose()

        return run_sync(once())

    async def ajudge(self, judge_input: JudgeInput) -> JudgeOutput:
        """Judge one item on the event loop. Derived from :meth:`judge` (in a thread)."""
        return await asyncio.to_thread(self.judge, judge_input)

    async def aclose(self) -> None:
        """Release resources bound to the running event loop (HTTP connections); default: nothing."""

    def preflight(self) -> None:
        """Blocking checks of local prerequisites before the run record is written (default: none); raise :class:`PreflightError`."""

    async def apreflight(self) -> None:
        """Awaited once before the first item that needs judging: does the model answer (default: nothing); raise :class:`PreflightError`."""

    def spec(self) -> dict[str, Any]:
        """A JSON-able description of the judge, without secrets."""
        return {"name": self.name, "spec": self.name}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec().get('spec', self.name)!r})"


class _Adapted(BaseJudge):
    """An object with ``ajudge`` and ``spec``: its own members where it has them, :class:`BaseJudge`'s defaults otherwise."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped
        self.name = str(getattr(wrapped, "name", type(wrapped).__name__))
        retry = getattr(wrapped, "retry", None)
        self.retry = retry if isinstance(retry, RetryPolicy) else None
        self.ablation = tuple(getattr(wrapped, "ablation", ()) or ())
        reports_cost = getattr(wrapped, "reports_cost", None)
        self.reports_cost = reports_cost if isinstance(reports_cost, bool) else None
        self._sync = getattr(wrapped, "judge", None)

    @property
    def is_async(self) -> bool:
        return True

    @property
    def needs_release(self) -> bool:
        return bool(getattr(self.wrapped, "needs_release", False))

    def _hook(self, name: str) -> Any:
        hook = getattr(self.wrapped, name, None)
        return hook if callable(hook) else None

    def bind_release(self, root: str | os.PathLike[str]) -> None:
        if (hook := self._hook("bind_release")) is not None:
            hook(root)

    def judge(self, judge_input: JudgeInput) -> JudgeOutput:
        if callable(self._sync):
            return self._sync(judge_input)
        return super().judge(judge_input)

    async def ajudge(self, judge_input: JudgeInput) -> JudgeOutput:
        return await self.wrapped.ajudge(judge_input)

    def preflight(self) -> None:
        if (hook := self._hook("preflight")) is not None:
            hook()

    async def apreflight(self) -> None:
        if (hook := self._hook("apreflight")) is not None:
            await hook()

    async def aclose(self) -> None:
        if (hook := self._hook("aclose")) is not None:
            await hook()

    def spec(self) -> dict[str, Any]:
        return self.wrapped.spec()

    def __repr__(self) -> str:
        return repr(self.wrapped)


def as_judge(judge: Any) -> BaseJudge:
    """``judge`` as a :class:`BaseJudge`: itself, or wrapped when it has ``ajudge`` and ``spec``; ``ValueError`` otherwise.

    >>> class Duck:
    ...     async def ajudge(self, judge_input):
    ...         return JudgeOutput(text='{"success": false}')
    ...
    ...     def spec(self):
    ...         return {"name": "duck", "spec": "duck"}
    >>> judge = as_judge(Duck())
    >>> isinstance(judge, BaseJudge), judge.name, judge.is_async, judge.retry
    (True, 'Duck', True, None)
    >>> judge.judge(None).text
    '{"success": false}'
    """
    if isinstance(judge, BaseJudge):
        return judge
    if not callable(getattr(judge, "ajudge", None)) or not callable(getattr(judge, "spec", None)):
        raise ValueError(f"{judge!r} is not a judge: expected an object with judge/ajudge/spec (agenthorizon.judging.judges.Judge)")
    return _Adapted(judge)
