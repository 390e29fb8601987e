"""Judges: the protocol, the baselines, model and command-line judges, and a factory.

``make_judge(spec)`` turns the command line's judge specs into judges:

=========================  ==============================================
spec                       judge
=========================  ==============================================
``lexical``                :class:`LexicalJudge` (no model)
``constant[:true|false]``  :class:`ConstantJudge` (default ``true``)
``random[:SEED]``          :class:`RandomJudge` (default seed 0)
``openai:MODEL``           :class:`OpenAICompatibleJudge`
``command:CMD``            :class:`CommandJudge` (``CMD`` split like a shell)
``codex:MODEL``            :class:`HarnessJudge` running Codex CLI
``claude:MODEL``           :class:`HarnessJudge` running Claude Code
``gemini:MODEL``           :class:`HarnessJudge` running Gemini CLI
``opencode:MODEL``         :class:`HarnessJudge` running OpenCode
=========================  ==============================================
"""

from __future__ import annotations

from typing import Any

from agenthorizon.judging.judges.base import BaseJudge, Judge, JudgeError, JudgeOutput, TransientJudgeError
from agenthorizon.judging.judges.baselines import ConstantJudge, LexicalJudge, RandomJudge
from agenthorizon.judging.judges.command import CommandJudge
from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge
from agenthorizon.judging.judges.presets import HARNESSES, HarnessJudge
from agenthorizon.judging.judges.prompts import COMMAND_PROMPT, DIRECT_PROMPT, prompt_sha256, render_prompt

__all__ = [
    "BaseJudge",
    "COMMAND_PROMPT",
    "CommandJudge",
    "ConstantJudge",
    "DIRECT_PROMPT",
    "HARNESSES",
    "HarnessJudge",
    "Judge",
    "JudgeError",
    "JudgeOutput",
    "LexicalJudge",
    "OpenAICompatibleJudge",
    "RandomJudge",
    "TransientJudgeError",
    "JUDGE_SPECS",
    "make_judge",
    "prompt_sha256",
    "render_prompt",
]

JUDGE_SPECS = (
    "lexical",
    "constant[:true|false]",
    "random[:SEED]",
    "openai:MODEL",
    "command:'CMD'",
    *(f"{name}:MODEL" for name in HARNESSES),
)

_OPENAI_OPTIONS = frozenset(
    {
        "base_url",
        "api_key_env",
        "temperature",
        "max_tokens",
        "images",
        "image_budget",
        "max_images",
        "image_size",
        "image_quality",
        "image_strategy",
        "cache_dir",
        "retries",
        "backoff_base",
        "backoff_max",
        "timeout",
        "prompt",
        "price_input_per_1m",
        "price_output_per_1m",
        "extra_body",
        "structured_output",
    }
)
_COMMAND_OPTIONS = frozenset({"prompt", "timeout", "link", "workdir_root", "keep_workdir", "env"})
_EXAMPLE_MODELS = {"codex": "gpt-5.5", "claude": "claude-opus-4-7", "gemini": "gemini-3.1-pro", "opencode": "vllm/Qwen3.6-27B"}


def make_judge(spec: str, **options: Any) -> BaseJudge:
    """Build a judge from a command-line spec.

    ``options`` configure model and command judges (``base_url``,
    ``api_key_env``, ``temperature``, ``max_tokens``, ``images``,
    ``image_budget``, ``timeout``, ``prompt``, ...); options left as ``None``
    keep the judge's default, and options a judge does not take are ignored
    only when ``None`` (a set option the judge cannot use raises, so a typo
    never goes unnoticed).

    >>> make_judge("constant:false").spec()["spec"]
    'constant:false'
    >>> make_judge("random:7").seed
    7
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"empty judge spec; expected one of {', '.join(JUDGE_SPECS)}")
    kind, _, argument = spec.strip().partition(":")
    kind = kind.strip().lower()
    given = {k: v for k, v in options.items() if v is not None}

    def reject_options(allowed: frozenset[str] = frozenset()) -> None:
        unused = sorted(set(given) - allowed)
        if unused:
            raise ValueError(f"judge {spec!r} does not take option(s) {', '.join(unused)}")

    if kind == "lexical":
        reject_options()
        if argument:
            raise ValueError(f"judge spec {spec!r}: lexical takes no argument")
        return LexicalJudge()
    if kind == "constant":
        reject_options()
        value = argument.strip().lower() or "true"
        if value not in ("true", "false"):
            raise ValueError(f"judge spec {spec!r}: expected constant:true or constant:false")
        return ConstantJudge(value == "true")
    if kind == "random":
        reject_options()
        try:
            seed = int(argument) if argument.strip() else 0
        except ValueError:
            raise ValueError(f"judge spec {spec!r}: the seed must be an integer, e.g. random:7") from None
        return RandomJudge(seed)
    if kind == "openai":
        reject_options(_OPENAI_OPTIONS)
        if not argument.strip():
            raise ValueError(f"judge spec {spec!r}: expected openai:MODEL, e.g. openai:Qwen/Qwen3-VL-8B-Instruct")
        return OpenAICompatibleJudge(argument.strip(), **given)
    if kind == "command":
        reject_options(_COMMAND_OPTIONS)
        if not argument.strip():
            raise ValueError(f"judge spec {spec!r}: expected command:'CMD ARGS', e.g. command:'claude -p'")
        return CommandJudge(argument.strip(), **given)
    if kind in HARNESSES:
        reject_options(_COMMAND_OPTIONS)
        if not argument.strip():
            raise ValueError(f"judge spec {spec!r}: expected {kind}:MODEL, e.g. {kind}:{_EXAMPLE_MODELS[kind]}")
        return HarnessJudge(kind, argument.strip(), **given)
    raise ValueError(f"unknown judge spec {spec!r}; expected one of {', '.join(JUDGE_SPECS)}")
