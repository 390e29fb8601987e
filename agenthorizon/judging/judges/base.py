"""The judge protocol: what the runner needs from any judge.

A judge turns one blind :class:`~agenthorizon.judging.inputs.JudgeInput` into a
:class:`JudgeOutput`: the raw text it produced plus telemetry. It does not
parse its own text; the runner does that with
:func:`agenthorizon.scoring.verdicts.parse_verdict`, so every judge is held to the same
strict verdict rules.

Write a judge by subclassing :class:`BaseJudge` and implementing *either*
``judge`` (blocking code: a local model, a subprocess) *or* ``ajudge``
(asyncio code: HTTP clients); the base class derives the other one.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = ["DEFAULT_MAX_OUTPUT_BYTES", "Judge", "BaseJudge", "JudgeOutput", "JudgeError", "PreflightError", "TransientJudgeError", "TransportError", "run_sync"]


def run_sync(coroutine: Any) -> Any:
    """Run ``coroutine`` to completion from synchronous code, even inside a running event loop.

    ``asyncio.run`` refuses to start when the calling thread already runs a
    loop -- which is always the case in Jupyter -- so there the coroutine gets
    its own loop in a helper thread, and the caller blocks until it finishes.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agenthorizon-loop") as pool:
        return pool.submit(asyncio.run, coroutine).result()


class JudgeError(RuntimeError):
    """A judge could not produce an output for an item (recorded as status ``error``)."""


class TransientJudgeError(JudgeError):
    """A failure worth retrying later: rate limit, server error, timeout, lost connection."""


class TransportError(TransientJudgeError):
    """The judge could not reach its model at all (connection refused, 5xx after every retry).

    The runner counts these across items: ``breaker`` of them in a row stop
    the run (a dead server), instead of failing every remaining item.
    """


class PreflightError(JudgeError):
    """A judge cannot work at all (no server, key refused, unknown model, missing program): found before the first item."""


DEFAULT_MAX_OUTPUT_BYTES = 16 * 2**20
"""How much of one judge answer is kept: an agent's stdout/stderr, an HTTP answer (16 MiB).

Every judge kind reads at most this many bytes of one answer (option
``max_output_bytes``, flag ``--max-output-bytes``); the rest is dropped and
the result says how many bytes were dropped. Verdicts stand at the end of an
answer, so the end is what is kept.
"""

# Telemetry values that JudgeOutput.telemetry passes on as they are.
_PLAIN = (str, int, float, bool, type(None))


@dataclass
class JudgeOutput:
    """What a judge produced for one item.

    ``text`` is the judge's answer verbatim. Token counts, latency (seconds,
    wall clock of the whole call including retries), cost (US dollars) and the
    number of attempts are telemetry: ``None`` when the judge cannot know them.
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
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("text", "extra")}
        if all(type(value) in _PLAIN for value in (*data.values(), *self.extra, *self.extra.values())):
            # Plain values need no copy; asdict's generic walk cost the runner 0.05 ms per item.
            data.update(self.extra)
            return data
        data = asdict(self)  # copies nested values (and turns dataclasses into dicts)
        data.pop("text")
        data.update(data.pop("extra"))
        return data


@runtime_checkable
class Judge(Protocol):
    """Anything the runner can run: a name, a spec, and sync + async judging."""

    name: str

    def judge(self, judge_input: JudgeInput) -> JudgeOutput: ...

    async def ajudge(self, judge_input: JudgeInput) -> JudgeOutput: ...

    def spec(self) -> dict[str, Any]: ...


class BaseJudge:
    """Base class deriving ``judge`` from ``ajudge`` or the other way round.

    Subclasses set ``name`` and implement one of the two methods. ``spec()``
    describes the judge for run records; override it to add settings, and never
    put a secret (API key, token) in it. Recognised keys the runner lifts to the
    top of ``run.json``: ``model``, ``base_url``, ``prompt`` (``{"sha256",
    "text"}``), ``sampling`` and ``images``.

    ``is_async`` tells the runner whether ``ajudge`` is native (run on the event
    loop) or derived (``judge`` runs in a worker thread).
    """

    name: str = "judge"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.judge is BaseJudge.judge and cls.ajudge is BaseJudge.ajudge:
            raise TypeError(f"{cls.__name__} must implement judge() or ajudge()")

    @property
    def is_async(self) -> bool:
        return type(self).ajudge is not BaseJudge.ajudge

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
        """Release resources bound to the running event loop (HTTP connections)."""

    def preflight(self) -> None:
        """Check the judge's local prerequisites once, before the run record is written (default: none).

        The runner calls it before anything else: a missing program (a command
        judge, a harness preset, which also records its version here) or a
        sandbox that cannot be built fails the run at once. Raise
        :class:`PreflightError` (or ``ValueError`` for bad settings).
        """

    async def apreflight(self) -> None:
        """Check, before the first item that needs judging, that the judge's model answers (default: nothing).

        The runner awaits it once per run, only when there is something to
        judge (a finished run resumes offline), so that a dead server, a
        refused key or an unknown model fails the run within seconds with one
        clear message instead of failing every item: raise :class:`PreflightError`.
        """

    def spec(self) -> dict[str, Any]:
        """A JSON-able description of the judge, without secrets."""
        return {"name": self.name, "spec": self.name}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec().get('spec', self.name)!r})"
