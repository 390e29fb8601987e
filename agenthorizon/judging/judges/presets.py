"""Ready presets for the paper's agentic harnesses: ``codex:MODEL``, ``claude:MODEL``,
``gemini:MODEL``, ``opencode:MODEL``.

Each preset is one :class:`Harness` entry of :data:`HARNESSES` -- data, not
code: the CLI's argv template, whether the prompt goes on stdin or in the
argv, whether the CLI writes its final message to a file, which
:data:`READERS` entry turns its output into the answer plus tokens and cost,
and the npm package that installs it. A new harness is one more entry (and a
reader only if its output format is new). :class:`HarnessJudge` runs an entry
through :class:`~agenthorizon.judging.judges.command.CommandJudge`: per item a
private working directory laid out like the release sandbox (framework files
``AGENTS.md`` / ``CLAUDE.md`` / ``GEMINI.md``, the trajectory Markdown and JSON,
the screenshots), the release's prompt by default, no label or pairing data.

Argv templates use ``{model}``, ``{prompt}`` and ``{answer_file}`` (a path in a
private directory outside the working directory). The flags come from each
CLI's documentation of its non-interactive mode:

* Codex: ``codex exec`` reads the prompt from stdin when given ``-``,
  ``--output-last-message FILE`` writes the final message, ``--json`` prints
  JSONL events whose ``turn.completed`` carries ``usage`` (``input_tokens``,
  ``cached_input_tokens``, ``output_tokens``); ``--sandbox read-only`` lets it
  read but not write or reach the network; ``--skip-git-repo-check`` because
  the working directory is not a git repository.
* Claude Code: ``claude -p`` (print mode) takes the prompt on stdin;
  ``--output-format json`` prints one object with ``result``, ``is_error``,
  ``usage`` and ``total_cost_usd``; ``--allowedTools Read,Glob,Grep`` grants
  the read-only tools without a permission prompt.
* Gemini CLI: ``--prompt`` runs headless; ``--output-format json`` prints
  ``{"response", "stats": {"models": {NAME: {"tokens": {...}}}}, "error"?}``.
* OpenCode: ``opencode run MESSAGE`` with ``--format json`` prints JSONL
  events: ``text`` parts hold the answer, ``step_finish`` parts ``tokens``
  and ``cost``.

``preflight()`` (run by the runner before the first item) finds the
executable on ``PATH`` -- a missing one fails with its install command -- and
records its ``--version``; the run record's judge block holds the harness
name, version, argv template (never the environment's values) and install
command.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from agenthorizon.judging.judges.base import JudgeError, JudgeOutput
from agenthorizon.judging.judges.command import CommandJudge
from agenthorizon.judging.judges.release_prompt import PROMPT_RELEASE

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = ["HARNESSES", "READERS", "Harness", "HarnessJudge", "Reading"]

ANSWER_FILE = "answer.txt"
_VERSION_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Reading:
    """What a reader found in a CLI's output: the answer text, tokens, cost (USD), more telemetry."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Harness:
    """One agentic CLI as data.

    Parameters
    ----------
    name : str
        The preset's spec prefix (``codex`` in ``codex:MODEL``).
    title : str
        The CLI's name for people (``Codex CLI``).
    argv : tuple of str
        The command line; ``argv[0]`` is the executable. ``{model}``,
        ``{prompt}`` and ``{answer_file}`` are replaced per item.
    prompt_on_stdin : bool
        Send the prompt on stdin (else it must appear in ``argv`` as ``{prompt}``).
    reader : str
        Key of :data:`READERS`: how the answer, tokens and cost are read.
    package : str
        The npm package that installs the CLI.
    answer_file : bool
        The CLI writes its final message to ``{answer_file}``; the reader gets its text.
    config_dirs : tuple of str
        Where the CLI keeps its login and settings (``~`` expanded): passed
        read-write into the command judge's sandbox so that the CLI stays
        logged in (:mod:`agenthorizon.judging.judges.sandbox`).
    """

    name: str
    title: str
    argv: tuple[str, ...]
    prompt_on_stdin: bool
    reader: str
    package: str
    answer_file: bool = False
    config_dirs: tuple[str, ...] = ()

    @property
    def install(self) -> str:
        """The command that installs the CLI."""
        return f"npm install -g {self.package}"

    def describe(self) -> dict[str, Any]:
        """The harness block of the judge's spec (without the version)."""
        return {
            "name": self.name,
            "title": self.title,
            "argv": list(self.argv),
            "prompt_via": "stdin" if self.prompt_on_stdin else "argv",
            "answer": "answer file" if self.answer_file else "stdout",
            "reader": self.reader,
            "install": self.install,
        }


HARNESSES: dict[str, Harness] = {
    "codex": Harness(
        name="codex",
        title="Codex CLI",
        argv=(
            "codex", "exec", "--skip-git-repo-check", "--sandbox", "read-only", "--model", "{model}",
            "--json", "--output-last-message", "{answer_file}", "-",
        ),
        prompt_on_stdin=True,
        reader="codex_events",
        package="@openai/codex",
        answer_file=True,
        config_dirs=("~/.codex",),
    ),
    "claude": Harness(
        name="claude",
        title="Claude Code",
        argv=("claude", "-p", "--model", "{model}", "--output-format", "json", "--allowedTools", "Read,Glob,Grep"),
        prompt_on_stdin=True,
        reader="claude_json",
        package="@anthropic-ai/claude-code",
        config_dirs=("~/.claude", "~/.claude.json"),
    ),
    "gemini": Harness(
        name="gemini",
        title="Gemini CLI",
        argv=("gemini", "--model", "{model}", "--output-format", "json", "--prompt", "{prompt}"),
        prompt_on_stdin=False,
        reader="gemini_json",
        package="@google/gemini-cli",
        config_dirs=("~/.gemini",),
    ),
    "opencode": Harness(
        name="opencode",
        title="OpenCode",
        argv=("opencode", "run", "--model", "{model}", "--format", "json", "{prompt}"),
        prompt_on_stdin=False,
        reader="opencode_events",
        package="opencode-ai",
        config_dirs=("~/.config/opencode", "~/.local/share/opencode"),
    ),
}
"""The presets, by spec prefix."""


# --- readers: output -> Reading ------------------------------------------------------------


def _json_object(stdout: str, where: str) -> dict[str, Any]:
    """The JSON object a CLI printed (text before its first ``{``, such as a notice, is skipped)."""
    start = stdout.find("{")
    try:
        value, _ = json.JSONDecoder().raw_decode(stdout[start:]) if start >= 0 else (None, 0)
    except json.JSONDecodeError as error:
        raise JudgeError(f"{where}: expected one JSON object on stdout, got invalid JSON ({error.msg}): {stdout[:300]!r}") from None
    if not isinstance(value, dict):
        raise JudgeError(f"{where}: expected one JSON object on stdout, got {stdout[:300]!r}")
    return value


def _events(stdout: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL stream; lines that are not JSON objects are skipped."""
    events = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def read_codex_events(stdout: str, answer: str | None, where: str) -> Reading:
    """Codex: the answer file's text; tokens summed over the ``turn.completed`` events.

    >>> out = '{"type": "turn.completed", "usage": {"input_tokens": 10, "cached_input_tokens": 4, "output_tokens": 3}}'
    >>> reading = read_codex_events(out, '{"success": true}', "codex")
    >>> reading.text, reading.input_tokens, reading.output_tokens, reading.extra
    ('{"success": true}', 10, 3, {'cached_input_tokens': 4, 'turns': 1})
    """
    if answer is None:
        raise JudgeError(f"{where}: codex wrote no answer file (--output-last-message); stdout: {stdout[-300:]!r}")
    turns = [event for event in _events(stdout) if event.get("type") == "turn.completed"]
    usages = [event.get("usage") if isinstance(event.get("usage"), dict) else {} for event in turns]
    if not usages:
        return Reading(answer)
    return Reading(
        answer,
        input_tokens=sum(_int(usage.get("input_tokens")) for usage in usages),
        output_tokens=sum(_int(usage.get("output_tokens")) for usage in usages),
        extra={"cached_input_tokens": sum(_int(usage.get("cached_input_tokens")) for usage in usages), "turns": len(turns)},
    )


def read_claude_json(stdout: str, answer: str | None, where: str) -> Reading:
    """Claude Code: ``result`` of its JSON object; input tokens include cache reads and writes.

    ``modelUsage`` names the models that answered (recorded as ``models``).

    >>> out = json.dumps({"type": "result", "is_error": False, "result": "ok", "total_cost_usd": 0.25, "num_turns": 4,
    ...                   "usage": {"input_tokens": 5, "cache_read_input_tokens": 100, "output_tokens": 7},
    ...                   "modelUsage": {"claude-opus-4-7": {"inputTokens": 5}}})
    >>> reading = read_claude_json(out, None, "claude")
    >>> reading.text, reading.input_tokens, reading.output_tokens, reading.cost_usd, reading.extra["models"]
    ('ok', 105, 7, 0.25, ['claude-opus-4-7'])
    """
    payload = _json_object(stdout, where)
    if payload.get("is_error"):
        raise JudgeError(f"{where}: Claude Code reported an error: {str(payload.get('result'))[:300]}")
    usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return Reading(
        str(payload.get("result") or ""),
        input_tokens=sum(_int(usage.get(key)) for key in keys) if usage else None,
        output_tokens=_int(usage.get("output_tokens")) if usage else None,
        cost_usd=_number(payload.get("total_cost_usd")),
        extra={
            "num_turns": payload.get("num_turns"),
            "cache_read_input_tokens": _int(usage.get("cache_read_input_tokens")),
            "models": sorted(payload["modelUsage"]) if isinstance(payload.get("modelUsage"), dict) else None,
        },
    )


def read_gemini_json(stdout: str, answer: str | None, where: str) -> Reading:
    """Gemini CLI: ``response`` of its JSON object; tokens summed over ``stats.models``.

    >>> out = json.dumps({"response": "ok", "stats": {"models": {"gemini-x": {"tokens": {
    ...     "prompt": 50, "candidates": 6, "cached": 20, "thoughts": 9}}}}})
    >>> reading = read_gemini_json(out, None, "gemini")
    >>> reading.text, reading.input_tokens, reading.output_tokens, reading.extra
    ('ok', 50, 6, {'thoughts_tokens': 9, 'cached_input_tokens': 20, 'models': ['gemini-x']})
    """
    payload = _json_object(stdout, where)
    error = payload.get("error")
    if error:
        message = error.get("message") if isinstance(error, dict) else error
        raise JudgeError(f"{where}: Gemini CLI reported an error: {str(message)[:300]}")
    stats = payload.get("stats") if isinstance(payload.get("stats"), dict) else {}
    models = stats.get("models") if isinstance(stats.get("models"), dict) else {}
    tokens = [m.get("tokens") for m in models.values() if isinstance(m, dict) and isinstance(m.get("tokens"), dict)]
    if not tokens:
        return Reading(str(payload.get("response") or ""))
    return Reading(
        str(payload.get("response") or ""),
        input_tokens=sum(_int(t.get("prompt")) for t in tokens),
        output_tokens=sum(_int(t.get("candidates")) for t in tokens),
        extra={
            "thoughts_tokens": sum(_int(t.get("thoughts")) for t in tokens),
            "cached_input_tokens": sum(_int(t.get("cached")) for t in tokens),
            "models": sorted(models),
        },
    )


def read_opencode_events(stdout: str, answer: str | None, where: str) -> Reading:
    """OpenCode: its ``text`` parts joined; tokens and cost summed over ``step_finish`` parts.

    >>> out = "\\n".join(json.dumps(e) for e in [
    ...     {"type": "text", "part": {"type": "text", "text": '{"success": false}'}},
    ...     {"type": "step_finish", "part": {"cost": 0.5, "tokens": {"input": 30, "output": 4}}}])
    >>> reading = read_opencode_events(out, None, "opencode")
    >>> reading.text, reading.input_tokens, reading.output_tokens, reading.cost_usd
    ('{"success": false}', 30, 4, 0.5)
    """
    texts, steps = [], []
    for event in _events(stdout):
        part = event.get("part") if isinstance(event.get("part"), dict) else {}
        kind = event.get("type")
        if kind == "error":
            raise JudgeError(f"{where}: OpenCode reported an error: {json.dumps(event.get('error', event))[:300]}")
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "step_finish":
            steps.append(part)
    tokens = [step.get("tokens") for step in steps if isinstance(step.get("tokens"), dict)]
    costs = [_number(step.get("cost")) for step in steps]
    return Reading(
        "\n".join(texts),
        input_tokens=sum(_int(t.get("input")) for t in tokens) if tokens else None,
        output_tokens=sum(_int(t.get("output")) for t in tokens) if tokens else None,
        cost_usd=sum(c for c in costs if c is not None) if any(c is not None for c in costs) else None,
        extra={"steps": len(steps)},
    )


def read_text(stdout: str, answer: str | None, where: str) -> Reading:
    """A CLI without a JSON mode: the answer file's text when there is one, else stdout; no usage.

    >>> read_text("Verdict: {'success': true}", None, "cli").text, read_text("log", "the answer", "cli").text
    ("Verdict: {'success': true}", 'the answer')
    """
    return Reading(stdout if answer is None else answer)


READERS: dict[str, Callable[[str, str | None, str], Reading]] = {
    "text": read_text,
    "codex_events": read_codex_events,
    "claude_json": read_claude_json,
    "gemini_json": read_gemini_json,
    "opencode_events": read_opencode_events,
}
"""Output rules: ``(stdout, answer file text or None, where) -> Reading``."""


class HarnessJudge(CommandJudge):
    """Run one of :data:`HARNESSES` non-interactively in each item's working directory.

    Parameters
    ----------
    harness : str or Harness
        A key of :data:`HARNESSES` (``codex``, ``claude``, ``gemini``,
        ``opencode``) or a :class:`Harness` of your own.
    model : str
        The model as the CLI names it (``gpt-5.5``, ``claude-opus-4-7``,
        ``gemini-3.1-pro``, ``provider/model`` for OpenCode).
    prompt : str
        ``"release"`` (default: the release's ``sandbox/prompt.md``, as the
        paper ran these harnesses), ``"project"`` or a template.
    **options
        ``timeout``, ``link``, ``workdir_root``, ``keep_workdir``, ``env``, ``sandbox``, ``config_dirs``, ``read_only_paths``:
        as for :class:`~agenthorizon.judging.judges.command.CommandJudge`.

    >>> judge = HarnessJudge("codex", "gpt-5.5")
    >>> judge.spec()["spec"], judge.spec()["harness"]["install"]
    ('codex:gpt-5.5', 'npm install -g @openai/codex')
    """

    def __init__(self, harness: str | Harness, model: str, *, prompt: str = PROMPT_RELEASE, **options: Any) -> None:
        if isinstance(harness, str):
            if harness not in HARNESSES:
                raise ValueError(f"unknown harness {harness!r}; expected one of {', '.join(HARNESSES)}")
            harness = HARNESSES[harness]
        if harness.reader not in READERS:
            raise ValueError(f"harness {harness.name}: unknown reader {harness.reader!r}; expected one of {', '.join(READERS)}")
        if not harness.prompt_on_stdin and not any("{prompt}" in part for part in harness.argv):
            raise ValueError(f"harness {harness.name}: the prompt goes in the argv, but no argument holds {{prompt}}")
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"{harness.name} judge: a model is required, e.g. {harness.name}:MODEL")
        options["config_dirs"] = (*harness.config_dirs, *options.get("config_dirs", ()))
        super().__init__(list(harness.argv), prompt=prompt, **options)
        self.harness = harness
        self.model = model.strip()
        self.name = harness.name
        self.version: str | None = None
        self.executable: str | None = None

    def spec(self) -> dict[str, Any]:
        spec = super().spec()
        spec.update(
            name=self.harness.name,
            spec=f"{self.harness.name}:{self.model}",
            model=self.model,
            command=self._argv(prompt="{prompt}", answer_file="{answer_file}"),
            harness={**self.harness.describe(), "version": self.version, "executable": self.executable},
        )
        return spec

    def preflight(self) -> None:
        """Find the CLI on ``PATH`` and record its ``--version``; a missing CLI names its install command."""
        executable = shutil.which(self.harness.argv[0], path=(self.env or {}).get("PATH"))
        if executable is None:
            raise FileNotFoundError(
                f"{self.harness.argv[0]!r} is not on PATH: the {self.harness.name}:MODEL judge runs the "
                f"{self.harness.title}; install it with `{self.harness.install}` (and log in or set its API key)"
            )
        try:
            done = subprocess.run(
                [executable, "--version"], capture_output=True, text=True, timeout=_VERSION_TIMEOUT_S, check=False,
                errors="replace",
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise ValueError(f"{executable} --version failed: {error}") from None
        lines = [line.strip() for line in (done.stdout or done.stderr).splitlines() if line.strip()]
        if done.returncode != 0 or not lines:
            raise ValueError(
                f"{executable} --version exited with status {done.returncode}: "
                f"{(done.stderr or done.stdout).strip()[-300:] or '(no output)'}; is the {self.harness.title} installed correctly?"
            )
        self.executable, self.version = executable, lines[0]
        self.check_sandbox()

    def _argv(self, *, prompt: str, answer_file: str) -> list[str]:
        values = {"{model}": self.model, "{prompt}": prompt, "{answer_file}": answer_file}
        argv = []
        for part in self.harness.argv:
            for placeholder, value in values.items():
                part = part.replace(placeholder, value)
            argv.append(part)
        return argv

    def command_line(self, prompt: str, scratch: Path) -> tuple[list[str], str | None]:
        argv = self._argv(prompt=prompt, answer_file=str(scratch / ANSWER_FILE))
        if self.executable is not None:
            argv[0] = self.executable
        return argv, (prompt if self.harness.prompt_on_stdin else None)

    def read_answer(self, stdout: str, scratch: Path, latency: float, judge_input: JudgeInput) -> JudgeOutput:
        answer = None
        if self.harness.answer_file:
            path = scratch / ANSWER_FILE
            answer = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
        where = f"{self.harness.name}:{self.model} on trajectory {judge_input.trajectory_id}"
        reading = READERS[self.harness.reader](stdout, answer, where)
        return JudgeOutput(
            text=reading.text,
            input_tokens=reading.input_tokens,
            output_tokens=reading.output_tokens,
            cost_usd=reading.cost_usd,
            latency_s=latency,
            extra={"harness": self.harness.name, **reading.extra},
        )
