"""Judges: the protocol, the baselines, model and command-line judges, and a factory.

``make_judge(spec)`` (:mod:`agenthorizon.judging.judges.factory`) turns the
command line's judge specs into judges:

=========================  ==============================================
spec                       judge
=========================  ==============================================
``lexical``                :class:`LexicalJudge` (no model)
``constant[:true|false]``  :class:`ConstantJudge` (default ``true``)
``random[:SEED]``          :class:`RandomJudge` (default seed 0)
``openai:MODEL``           :class:`OpenAICompatibleJudge`
``command:CMD``            :class:`CommandJudge` (``CMD`` split like a shell)
HARNESS_ROWS
=========================  ==============================================

The harness rows are made from :data:`HARNESSES` when the package is imported.
"""

from __future__ import annotations

from agenthorizon.judging.judges.base import (
    BaseJudge,
    Judge,
    JudgeError,
    JudgeOutput,
    PreflightError,
    TransientJudgeError,
    TransportError,
    as_judge,
)
from agenthorizon.judging.judges.baselines import ConstantJudge, LexicalJudge, RandomJudge
from agenthorizon.judging.judges.command import CommandJudge
from agenthorizon.judging.judges.factory import JUDGE_SPECS, judge_option_names, make_judge
from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge
from agenthorizon.judging.judges.presets import HARNESSES, HarnessJudge, harness_spec_rows
from agenthorizon.judging.judges.prompts import COMMAND_PROMPT, DIRECT_PROMPT, prompt_sha256, render_prompt

if __doc__:  # None under python -OO
    __doc__ = __doc__.replace("HARNESS_ROWS\n", harness_spec_rows())

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
    "PreflightError",
    "RandomJudge",
    "TransientJudgeError",
    "TransportError",
    "JUDGE_SPECS",
    "as_judge",
    "judge_option_names",
    "make_judge",
    "prompt_sha256",
    "render_prompt",
]
