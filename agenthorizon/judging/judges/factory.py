"""``make_judge(spec, **options)``: judges from the command line's specs.

The options of each kind (:func:`judge_option_names`) are read from the direct
judge's declared settings and the other judges' constructor keywords; the CLI
asks this module rather than keeping its own list.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from agenthorizon.judging.judges.base import BaseJudge
from agenthorizon.judging.judges.baselines import ConstantJudge, LexicalJudge, RandomJudge
from agenthorizon.judging.judges.codex_direct import CODEX_DIRECT_OPTIONS, CodexDirectJudge
from agenthorizon.judging.judges.command import CommandJudge
from agenthorizon.judging.judges.direct_preset import direct_preset
from agenthorizon.judging.judges.direct_settings import option_names
from agenthorizon.judging.judges.gemini_direct import GeminiDirectJudge
from agenthorizon.judging.judges.helper_options import HELPER_OPTIONS, with_helper
from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge
from agenthorizon.judging.judges.presets import HARNESSES, HarnessJudge

__all__ = ["JUDGE_KINDS", "JUDGE_SPECS", "judge_option_names", "make_judge"]

JUDGE_SPECS = (
    "lexical",
    "constant[:true|false]",
    "random[:SEED]",
    "openai:MODEL",
    "command:'CMD'",
    *(harness.spec_form for harness in HARNESSES.values()),
    "gemini-direct:MODEL",
    "codex-direct:MODEL",
)
JUDGE_KINDS: dict[str, type[BaseJudge]] = {
    "lexical": LexicalJudge,
    "constant": ConstantJudge,
    "random": RandomJudge,
    "openai": OpenAICompatibleJudge,
    "command": CommandJudge,
    **{name: HarnessJudge for name in HARNESSES},
    "gemini-direct": GeminiDirectJudge,
    "codex-direct": CodexDirectJudge,
}
"""Spec prefix -> judge class (the harness presets all run through :class:`HarnessJudge`)."""
# Constructor arguments that are not options: set by the spec.
_NOT_OPTIONS = {"command": {"command"}}
# Options the factory itself takes: a direct judge's preset (direct_preset.py), its helper model (helper_options.py).
_FACTORY_OPTIONS = {"openai": frozenset({"preset"}) | HELPER_OPTIONS, "gemini-direct": frozenset({"preset"}),
                    "codex-direct": frozenset({"preset"})}


def judge_option_names(kind: str) -> frozenset[str]:
    """The options ``make_judge`` accepts for judges of ``kind``.

    Baselines take none; harness presets take the command judge's and their
    own (``agent_tools``, ``reasoning_effort``, ``program``).

    >>> "base_url" in judge_option_names("openai"), "sandbox" in judge_option_names("command")
    (True, True)
    >>> "agent_tools" in judge_option_names("claude"), "agent_tools" in judge_option_names("command")
    (True, False)
    >>> judge_option_names("lexical")
    frozenset()
    """
    if kind in HARNESSES:
        own = inspect.signature(HarnessJudge.__init__).parameters
        extra = {name for name, p in own.items() if p.kind is p.KEYWORD_ONLY and name != "prompt"}
        return judge_option_names("command") | extra
    if kind == "gemini-direct":  # the OpenAI-compatible judge's options, over another API
        return (judge_option_names("openai") - {"structured_output"}) | {"thinking"}
    if kind == "codex-direct":  # the direct message's options, and the confined CLI's
        own = CODEX_DIRECT_OPTIONS | {"program"}
        return own | (judge_option_names("command") - {"nested_userns"}) | _FACTORY_OPTIONS[kind]
    if kind == "openai":  # declared once per setting, grouped into the judge's settings objects
        return option_names() | _FACTORY_OPTIONS[kind]
    if kind not in _NOT_OPTIONS:
        return frozenset()
    parameters = inspect.signature(JUDGE_KINDS[kind].__init__).parameters
    own = frozenset(name for name in parameters if name != "self" and name not in _NOT_OPTIONS[kind])
    return own | _FACTORY_OPTIONS.get(kind, frozenset())


def make_judge(spec: str, **options: Any) -> BaseJudge:
    """Build a judge from a command-line spec (one of :data:`JUDGE_SPECS`).

    ``options`` are those of :func:`judge_option_names`. An option left as
    ``None`` keeps the judge's default; a set option the judge does not take
    raises ``ValueError``, as do an unknown or malformed spec.

    >>> make_judge("constant:false").spec()["spec"]
    'constant:false'
    >>> make_judge("random:7").seed
    7
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"empty judge spec; expected one of {', '.join(JUDGE_SPECS)}")
    kind, _, argument = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in JUDGE_KINDS:
        raise ValueError(f"unknown judge spec {spec!r}; expected one of {', '.join(JUDGE_SPECS)}")
    given = {k: v for k, v in options.items() if v is not None}
    unused = sorted(set(given) - judge_option_names(kind))
    if unused:
        raise ValueError(f"judge {spec!r} does not take option(s) {', '.join(unused)}")
    return _BUILDERS.get(kind, _harness)(spec, argument.strip(), given)


def _lexical(spec: str, argument: str, options: dict[str, Any]) -> BaseJudge:
    if argument:
        raise ValueError(f"judge spec {spec!r}: lexical takes no argument")
    return LexicalJudge()


def _constant(spec: str, argument: str, options: dict[str, Any]) -> BaseJudge:
    value = argument.lower() or "true"
    if value not in ("true", "false"):
        raise ValueError(f"judge spec {spec!r}: expected constant:true or constant:false")
    return ConstantJudge(value == "true")


def _random(spec: str, argument: str, options: dict[str, Any]) -> BaseJudge:
    try:
        seed = int(argument) if argument else 0
    except ValueError:
        raise ValueError(f"judge spec {spec!r}: the seed must be an integer, e.g. random:7") from None
    return RandomJudge(seed)


def _openai(spec: str, argument: str, options: dict[str, Any], build: Any = OpenAICompatibleJudge.from_options) -> BaseJudge:
    kind = spec.strip().partition(":")[0].strip().lower()
    if not argument:
        raise ValueError(f"judge spec {spec!r}: expected {kind}:MODEL, e.g. {kind}:{_DIRECT_EXAMPLES[kind]}")
    name = options.pop("preset", None)
    helper = {key: options.pop(key) for key in list(options) if key in HELPER_OPTIONS}
    if name is None:
        return with_helper(build(argument, **options), helper)
    # A preset's values under the options given (they win); the judge records both.
    preset = direct_preset(name)
    effective = preset.judge_options(options)
    # Values this kind cannot take or has its own rule for (Gemini's output cap; Codex's sampling) stay
    # out unless given; the record still lists the preset's values.
    for option in _PRESET_KEEPS_OUT.get(kind, ()):
        if option not in options:
            effective.pop(option, None)
    judge = build(argument, **effective)
    judge.preset = preset.record(options)
    judge.run_defaults = dict(preset.run)
    return with_helper(judge, helper)


_DIRECT_EXAMPLES = {"openai": "Qwen/Qwen3-VL-8B-Instruct", "gemini-direct": "gemini-3.1-pro", "codex-direct": "gpt-5.5"}
_PRESET_KEEPS_OUT = {"gemini-direct": ("max_tokens",), "codex-direct": ("temperature", "max_tokens")}


def _command(spec: str, argument: str, options: dict[str, Any]) -> BaseJudge:
    if not argument:
        raise ValueError(f"judge spec {spec!r}: expected command:'CMD ARGS', e.g. command:'claude -p'")
    return CommandJudge(argument, **options)


def _harness(spec: str, argument: str, options: dict[str, Any]) -> BaseJudge:
    kind = spec.strip().partition(":")[0].strip().lower()
    if not argument:
        raise ValueError(f"judge spec {spec!r}: expected {HARNESSES[kind].spec_form}, e.g. {kind}:{HARNESSES[kind].example_model}")
    return HarnessJudge(kind, argument, **options)


_BUILDERS: dict[str, Callable[[str, str, dict[str, Any]], BaseJudge]] = {
    "lexical": _lexical,
    "constant": _constant,
    "random": _random,
    "openai": _openai,
    "command": _command,
    "gemini-direct": lambda spec, argument, options: _openai(spec, argument, options, GeminiDirectJudge.from_options),
    "codex-direct": lambda spec, argument, options: _openai(spec, argument, options, CodexDirectJudge.from_options),
}
