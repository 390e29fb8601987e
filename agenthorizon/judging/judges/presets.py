# Over 500 lines: HARNESSES is one table of every agentic CLI's flags and files; adding a harness is one entry here.
"""Presets for the paper's agentic harnesses (``codex:MODEL``, ``claude:MODEL``, ``pi:PROVIDER/MODEL``...).

Each preset is one :class:`Harness` entry of :data:`HARNESSES`; :class:`HarnessJudge`
runs it through :class:`~agenthorizon.judging.judges.command.CommandJudge` with a
private home. Argv placeholders: ``{model}``, ``{prompt}``, ``{answer_file}``
(outside the working directory), ``{screenshots}``, ``{tools}`` (the ``agent_tools``
setting's arguments), ``{effort}`` (the reasoning effort's, or nothing). What
each ``agent_tools`` setting allows per CLI: docs/judges.md.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from agenthorizon.judging.judges.agent_env import BASE_ENV, config_variables
from agenthorizon.judging.judges.agent_home import XDG_FOLDERS, ConfigFolder, make_agent_home
from agenthorizon.judging.judges.agent_network import NetworkPlan
from agenthorizon.judging.judges.base import JudgeError, JudgeOutput, PreflightError
from agenthorizon.judging.judges.command import AgentSetup, CommandJudge
from agenthorizon.judging.judges.evidence_readers import evidence_extra
from agenthorizon.judging.judges.harness_readers import READERS, Reading
from agenthorizon.judging.judges.release_prompt import PROMPT_RELEASE
from agenthorizon.judging.judges.sandbox import SANDBOX_BWRAP
from agenthorizon.schema import IMAGES_DIR, SANDBOX_DIR

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = [
    "AGENT_TOOLS", "HARNESSES", "READERS", "Harness", "HarnessJudge", "Reading", "harness_spec_rows", "harness_specs",
    "install_command",
]

ANSWER_FILE = "answer.txt"
AGENT_TOOLS = ("paper", "read-only")
"""The ``agent_tools`` settings: the authors' permission flags, or file-reading tools only."""
DEFAULT_AGENT_TOOLS = "paper"
_VERSION_TIMEOUT_S = 60.0
_CONFIG_READ_LIMIT = 2**20  # a config file is read this far for endpoints and variable names
_IMAGES = Path(IMAGES_DIR).relative_to(SANDBOX_DIR)
# Gemini CLI reads the prompt on stdin and appends its -p text to it (SPEC section 5).
_GEMINI_REQUEST = "Carry out the request above."
# The files OpenCode writes into its config folder at start; present beforehand, so that the
# folder can stay read-only (a writable one gets npm packages installed into it at every start).
_OPENCODE_GITIGNORE = "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore\n"


@dataclass(frozen=True)
class Harness:
    """One agentic CLI as data.

    ``name``: the spec prefix; ``title``: the CLI's name for people; ``package``,
    ``installer`` (``"npm"`` or ``"pip"`` with ``python``), ``tested_version``:
    what installs it, at the version the suite runs (written only here).
    ``argv``: the command line (placeholders: module docstring); ``stdin``:
    ``"{prompt}"`` or ``None``; ``reader``: a key of :data:`READERS`;
    ``answer_file``: the CLI writes its final message to ``{answer_file}``.
    ``tools`` / ``tools_env``: arguments and variables per :data:`AGENT_TOOLS`
    setting; ``env``: variables always set; ``sandboxed_env``: only in the
    sandbox; ``model_env``: the variable the model goes in, if any. ``home``:
    the login and settings files a private home gets; ``passed_env``: variables
    passed on besides :data:`~agenthorizon.judging.judges.agent_env.BASE_ENV`
    (names or ``PREFIX_*``); ``config_env``: regular expressions whose first
    group, in ``home``'s config files, names one more. ``endpoint_env`` /
    ``endpoint_keys`` / ``default_endpoints``: where the model server's URL is
    found, and its default. ``reports_cost``: ``True``, ``False`` (a
    ``--max-cost`` run is refused) or ``None`` (some models). ``nested_userns``:
    needs user namespaces in the sandbox. ``effort`` / ``efforts``: the
    ``{effort}`` arguments (``{value}`` is the effort) and accepted values.
    ``example_model`` / ``model_form``: for help and errors.
    """

    name: str
    title: str
    package: str
    tested_version: str
    argv: tuple[str, ...]
    stdin: str | None
    reader: str
    tools: Mapping[str, tuple[str, ...]]
    env: Mapping[str, str] = field(default_factory=dict)
    tools_env: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    sandboxed_env: Mapping[str, str] = field(default_factory=dict)
    home: tuple[ConfigFolder, ...] = ()
    answer_file: bool = False
    reports_cost: bool | None = None
    nested_userns: bool = False
    effort: tuple[str, ...] = ()
    efforts: tuple[str, ...] = ()
    model_env: str | None = None
    installer: str = "npm"
    python: str | None = None
    passed_env: tuple[str, ...] = ()
    config_env: tuple[str, ...] = ()
    endpoint_env: tuple[str, ...] = ()
    endpoint_keys: tuple[str, ...] = ()
    default_endpoints: tuple[str, ...] = ()
    example_model: str = "MODEL"
    model_form: str = "MODEL"

    @property
    def spec_form(self) -> str:
        """The spec for people: ``codex:MODEL``, ``pi:PROVIDER/MODEL``."""
        return f"{self.name}:{self.model_form}"

    @property
    def install(self) -> str:
        """The command that installs the CLI at the tested version."""
        if self.installer == "pip":
            return f"uv tool install --python {self.python} {self.package}=={self.tested_version}"
        return f"npm install -g {self.package}@{self.tested_version}"

    def describe(self) -> dict[str, Any]:
        """The harness block of the judge's spec (without the installed version)."""
        return {
            "name": self.name,
            "title": self.title,
            "argv": list(self.argv),
            "tools": {mode: list(arguments) for mode, arguments in self.tools.items()},
            "prompt_via": "stdin" if self.stdin == "{prompt}" else "argv",
            "answer": "answer file" if self.answer_file else "stdout",
            "reader": self.reader,
            "home_files": [f"{folder.path}/{name}".lstrip("/") for folder in self.home for name in folder.files],
            "install": self.install,
            "tested_version": self.tested_version,
            "effort": list(self.effort),
            "model_env": self.model_env,
        }


HARNESSES: dict[str, Harness] = {
    "codex": Harness(
        name="codex",
        title="Codex CLI",
        example_model="gpt-5.5",
        package="@openai/codex",
        tested_version="0.171.0",
        argv=("codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral", "{tools}", "-m", "{model}", "--",
              "{prompt}"),
        stdin=None,
        reader="codex_events",
        reports_cost=False,
        tools={"paper": (), "read-only": ("--sandbox", "read-only")},
        home=(ConfigFolder(".codex", ("config.toml", "auth.json"), env="CODEX_HOME"),),
        # Codex runs every shell command in a bubblewrap sandbox of its own (codex-linux-sandbox):
        # without user namespaces none of them runs.
        nested_userns=True,
        passed_env=("OPENAI_*", "CODEX_*", "AZURE_OPENAI_*"),
        config_env=(r'env_key\s*=\s*"([^"]+)"',),
        endpoint_env=("OPENAI_BASE_URL",),
        endpoint_keys=("base_url",),
        # The API, and ChatGPT's backend and login for a ChatGPT sign-in.
        default_endpoints=("https://api.openai.com", "https://chatgpt.com", "https://auth.openai.com"),
    ),
    "claude": Harness(
        name="claude",
        title="Claude Code",
        example_model="claude-opus-4-7",
        package="@anthropic-ai/claude-code",
        tested_version="2.1.197",
        argv=("claude", "-p", "{tools}", "--model", "{model}", "--output-format", "json", "--no-session-persistence",
              "--", "{prompt}"),
        stdin=None,
        reader="claude_json",
        reports_cost=True,
        tools={"paper": ("--dangerously-skip-permissions",), "read-only": ("--tools", "Read,Glob,Grep")},
        # Claude Code refuses --dangerously-skip-permissions as root unless told it is sandboxed; it is.
        sandboxed_env={"IS_SANDBOX": "1"},
        home=(
            ConfigFolder(".claude", (".credentials.json", "settings.json", ".claude.json"), env="CLAUDE_CONFIG_DIR"),
            ConfigFolder("", (".claude.json",)),
        ),
        passed_env=("ANTHROPIC_*", "CLAUDE_CODE_*", "DISABLE_*", "MAX_THINKING_TOKENS"),
        endpoint_env=("ANTHROPIC_BASE_URL",),
        endpoint_keys=("ANTHROPIC_BASE_URL",),  # settings.json's "env" block
        default_endpoints=("https://api.anthropic.com",),
    ),
    "gemini": Harness(
        name="gemini",
        title="Gemini CLI",
        example_model="gemini-3.1-pro",
        package="@google/gemini-cli",
        tested_version="0.61.0",
        argv=("gemini", "{tools}", "-m", "{model}", "--output-format", "json", "-p", _GEMINI_REQUEST),
        stdin="{prompt}",
        reader="gemini_json",
        reports_cost=False,
        tools={"paper": ("--approval-mode", "yolo", "--include-directories", "{screenshots}"),
               "read-only": ("--approval-mode", "default", "--include-directories", "{screenshots}")},
        # A fresh working folder is untrusted: without this, every item exits 55.
        env={"GEMINI_CLI_TRUST_WORKSPACE": "true"},
        home=(ConfigFolder(".gemini", ("settings.json", "oauth_creds.json", "google_accounts.json", ".env")),),
        passed_env=("GEMINI_*", "GOOGLE_*"),
        endpoint_env=("GOOGLE_GEMINI_BASE_URL",),
        endpoint_keys=("GOOGLE_GEMINI_BASE_URL",),  # its .env file
        # The Gemini API, and Code Assist and Google's login for a Google sign-in.
        default_endpoints=("https://generativelanguage.googleapis.com", "https://cloudcode-pa.googleapis.com",
                           "https://oauth2.googleapis.com"),
    ),
    "opencode": Harness(
        name="opencode",
        title="OpenCode",
        example_model="vllm/Qwen3.6-27B",
        package="opencode-ai",
        tested_version="1.18.33",
        argv=("opencode", "run", "--format", "json", "-m", "{model}", "{tools}", "--", "{prompt}"),
        stdin=None,
        reader="opencode_events",
        tools={"paper": (), "read-only": ()},
        env={"OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX": "65536"},
        tools_env={"read-only": {"OPENCODE_PERMISSION": '{"edit": "deny", "bash": "deny", "webfetch": "deny", "external_directory": "deny"}'}},
        home=(
            ConfigFolder(".config/opencode", ("opencode.json", "opencode.jsonc", "config.json"), xdg="XDG_CONFIG_HOME",
                         read_only=True, made={".gitignore": _OPENCODE_GITIGNORE}),
            ConfigFolder(".local/share/opencode", ("auth.json",), xdg="XDG_DATA_HOME"),
        ),
        passed_env=("OPENCODE_*",),
        config_env=(r"\{env:([^}]+)\}",),
        endpoint_keys=("baseURL",),
        # Its model catalogue, and the providers it knows by default (others: --agent-endpoint).
        default_endpoints=("https://models.dev", "https://api.openai.com", "https://api.anthropic.com"),
    ),
    "pi": Harness(
        name="pi",
        title="pi",
        example_model="vllm/Qwen3.6-27B",
        model_form="PROVIDER/MODEL",
        package="@mariozechner/pi-coding-agent",
        tested_version="0.73.1",
        # The prompt goes on stdin, which pi takes as the same first message as an argument: pi has
        # no "--", so an argument starting with "-" or "@" would be read as an option or a file.
        argv=("pi", "--mode", "json", "--print", "--no-extensions", "--no-skills", "--no-prompt-templates",
              "--no-themes", "--no-session", "{tools}", "--model", "{model}", "{effort}"),
        stdin="{prompt}",
        reader="pi_events",
        tools={"paper": (), "read-only": ("--tools", "read,grep,find,ls")},
        effort=("--thinking", "{value}"),
        efforts=("off", "minimal", "low", "medium", "high", "xhigh"),
        # No start-up network calls (version check, downloads of fd and ripgrep for its find and
        # grep tools); no install telemetry.
        env={"PI_OFFLINE": "1", "PI_TELEMETRY": "0"},
        home=(ConfigFolder(".pi/agent", ("models.json", "auth.json", "settings.json"), env="PI_CODING_AGENT_DIR"),),
        # A custom provider of models.json names its key's variable ("apiKey": "NAME") and its server ("baseUrl").
        passed_env=("PI_*", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"),
        config_env=(r'"apiKey"\s*:\s*"([A-Za-z_][A-Za-z0-9_]*)"',),
        endpoint_keys=("baseUrl",),
        default_endpoints=("https://api.openai.com", "https://api.anthropic.com"),
    ),
    "openhands": Harness(
        name="openhands",
        title="OpenHands CLI",
        example_model="openai/Qwen3.6-27B",
        package="openhands",
        tested_version="1.16.0",
        installer="pip",
        python="3.12",
        # --task=PROMPT is -t PROMPT of SPEC section 5 in the one form argparse never takes for an option
        # (a prompt starting with "-" after -t would be).
        argv=("openhands", "--headless", "--override-with-envs", "--json", "--task={prompt}"),
        stdin=None,
        reader="openhands_events",
        reports_cost=False,
        # Headless OpenHands approves every action; it has no read-only tool set.
        tools={"paper": ()},
        model_env="LLM_MODEL",
        # LiteLLM's price table from the package, not fetched at start.
        env={"LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        # Its settings, MCP servers and conversations live here; nothing is copied in: the model and
        # its key come from LLM_MODEL / LLM_API_KEY / LLM_BASE_URL (--override-with-envs).
        home=(ConfigFolder(".openhands", (), env="OPENHANDS_PERSISTENCE_DIR"),),
        passed_env=("LLM_*", "OPENHANDS_*", "LITELLM_*"),
        endpoint_env=("LLM_BASE_URL",),
        default_endpoints=("https://api.openai.com",),
    ),
}
"""The presets, by spec prefix."""


def harness_specs(separator: str = " | ") -> str:
    """Every preset's spec form, joined: what help texts list.

    >>> harness_specs()[:26]
    'codex:MODEL | claude:MODEL'
    """
    return separator.join(harness.spec_form for harness in HARNESSES.values())


def harness_spec_rows(width: int = 25) -> str:
    """The presets' rows of a reStructuredText table of specs (``judging/judges/__init__.py``'s docstring)."""
    return "".join(f"{'``' + h.spec_form + '``':<{width}}  :class:`HarnessJudge` running {h.title}\n"
                   for h in HARNESSES.values())


def install_command(names: tuple[str, ...] | None = None) -> str:
    """One ``npm install -g`` of the npm harnesses ``names`` (default: all of them) at their tested versions.

    >>> install_command(("codex", "claude"))
    'npm install -g @openai/codex@0.171.0 @anthropic-ai/claude-code@2.1.197'
    """
    chosen = [HARNESSES[name] for name in (names or tuple(HARNESSES))]
    return "npm install -g " + " ".join(f"{harness.package}@{harness.tested_version}" for harness in chosen
                                        if harness.installer == "npm")


class HarnessJudge(CommandJudge):
    """Run one of :data:`HARNESSES` (a key or a :class:`Harness`) non-interactively in each item's working directory.

    ``model`` is as the CLI names it (``provider/model`` for OpenCode, pi and
    OpenHands). ``prompt``: ``"release"`` (default, as the paper ran these),
    ``"project"`` or a template. ``agent_tools`` (``"paper"`` / ``"read-only"``)
    and ``reasoning_effort`` (``None``: the CLI's default) are part of the judge's
    identity. ``program``: the executable when not on ``PATH`` under its name.
    Other ``options`` are :class:`~agenthorizon.judging.judges.command.CommandJudge`'s.

    >>> judge = HarnessJudge("codex", "gpt-5.5")
    >>> judge.spec()["spec"], judge.spec()["harness"]["install"]
    ('codex:gpt-5.5 --agent-tools paper', 'npm install -g @openai/codex@0.171.0')
    """

    def __init__(
        self, harness: str | Harness, model: str, *, prompt: str = PROMPT_RELEASE,
        agent_tools: str = DEFAULT_AGENT_TOOLS, reasoning_effort: str | None = None, program: str | None = None,
        **options: Any,
    ) -> None:
        if isinstance(harness, str):
            if harness not in HARNESSES:
                raise ValueError(f"unknown harness {harness!r}; expected one of {', '.join(HARNESSES)}")
            harness = HARNESSES[harness]
        if harness.reader not in READERS:
            raise ValueError(f"harness {harness.name}: unknown reader {harness.reader!r}; expected one of {', '.join(READERS)}")
        if harness.stdin is None and not any("{prompt}" in part for part in harness.argv):
            raise ValueError(f"harness {harness.name}: no argument and no stdin holds {{prompt}}")
        if agent_tools not in AGENT_TOOLS or agent_tools not in harness.tools:
            offered = [mode for mode in AGENT_TOOLS if mode in harness.tools]
            raise ValueError(f"{harness.name} judge: agent_tools must be one of {', '.join(offered)} (the settings the "
                             f"{harness.title} has), got {agent_tools!r}")
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"{harness.name} judge: a model is required, e.g. {harness.name}:MODEL")
        if reasoning_effort is not None:
            if not harness.efforts:
                raise ValueError(f"{harness.name} judge: the {harness.title} has no reasoning-effort setting; "
                                 "leave reasoning_effort unset")
            if reasoning_effort not in harness.efforts:
                raise ValueError(f"{harness.name} judge: reasoning_effort must be one of {', '.join(harness.efforts)}, "
                                 f"got {reasoning_effort!r}")
        if program is not None and (not isinstance(program, str) or not program.strip()):
            raise ValueError(f"{harness.name} judge: program must be the path of the {harness.title}'s executable, "
                             f"got {program!r}")
        options.setdefault("nested_userns", harness.nested_userns)
        program = None if program is None else os.path.expanduser(program.strip())
        # The command judge runs argv[0]: the given program, else the CLI's name looked up on PATH.
        super().__init__([program or harness.argv[0], *harness.argv[1:]], prompt=prompt, **options)
        self.harness = harness
        self.model = model.strip()
        self.agent_tools = agent_tools
        self.reasoning_effort = reasoning_effort
        self.program = program
        self.name = harness.name
        self.reports_cost = harness.reports_cost
        self.version: str | None = None
        self.executable: str | None = None
        configs = self._user_configs()
        self.config_env = list(dict.fromkeys(
            name for _, text in configs for name in config_variables(text, harness.config_env)))
        self.network = NetworkPlan.build(self.network.mode, self._endpoint_urls(configs))

    def _user_configs(self) -> list[tuple[str, str]]:
        """``(path, text)`` of the user's config files an item's home copies (the first MiB of each)."""
        environ, found = self._environment(), []
        for folder in self.harness.home:
            source = folder.source(environ, Path(os.path.expanduser("~")))
            for name in folder.files:
                path = source / name
                try:
                    if path.is_file():
                        with path.open("rb") as handle:
                            found.append((str(path), handle.read(_CONFIG_READ_LIMIT).decode("utf-8", "replace")))
                except OSError:
                    continue
        return found

    def _endpoint_urls(self, configs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """``(url, source)`` of each endpoint: ``--agent-endpoint``, then those the harness's variables and the
        user's config name; the harness's defaults when neither names one."""
        environ = self._environment()
        derived = [(environ[name], name) for name in self.harness.endpoint_env if environ.get(name)]
        for path, text in configs:
            for key in self.harness.endpoint_keys:
                pattern = rf"[\"']?\b{re.escape(key)}[\"']?\s*[:=]\s*[\"']?(https?://[^\"'\s,}}]+)"
                derived += [(url, f"{path} ({key})") for url in re.findall(pattern, text)]
        defaults = [(url, f"{self.harness.title}'s default") for url in self.harness.default_endpoints]
        return [*((url, "--agent-endpoint") for url in self.agent_endpoints), *(derived or defaults)]

    def env_allowed(self) -> tuple[str, ...]:
        """:data:`~agenthorizon.judging.judges.agent_env.BASE_ENV`, the harness's own variables
        (:attr:`Harness.passed_env`) and those the user's config names (:attr:`Harness.config_env`)."""
        return (*BASE_ENV, *self.harness.passed_env, *self.config_env)

    def _harness_env(self) -> dict[str, str]:
        env = {**self.harness.env, **self.harness.tools_env.get(self.agent_tools, {})}
        if self.harness.model_env:
            env[self.harness.model_env] = self.model
        if self.sandbox == SANDBOX_BWRAP:
            env.update(self.harness.sandboxed_env)
        return env

    def spec(self) -> dict[str, Any]:
        spec = super().spec()
        spec.update(
            name=self.harness.name,
            spec=f"{self.harness.name}:{self.model} --agent-tools {self.agent_tools}"
                 + ("" if self.reasoning_effort is None else f" --reasoning-effort {self.reasoning_effort}"),
            model=self.model,
            agent_tools=self.agent_tools,
            reasoning_effort=self.reasoning_effort,
            command=self._argv(prompt="{prompt}", answer_file="{answer_file}", screenshots="{screenshots}"),
            env=sorted({*self.env, *self._harness_env()}),
            harness={**self.harness.describe(), "version": self.version, "executable": self.executable},
        )
        return spec

    def preflight(self) -> None:
        """Find the CLI (``program``, else on ``PATH``) and record its ``--version``; a missing CLI names its
        install command."""
        executable = shutil.which(self.program or self.harness.argv[0], path=self._environment().get("PATH"))
        if executable is None:
            where = (f"{self.program!r} is not an executable file" if self.program
                     else f"{self.harness.argv[0]!r} is not on PATH")
            raise FileNotFoundError(
                f"{where}: the {self.harness.name}:MODEL judge runs the "
                f"{self.harness.title}; install it with `{self.harness.install}` (and log in or set its API key)"
            )
        # In a throwaway home: some CLIs create their state folders at any start, --version included.
        with tempfile.TemporaryDirectory(prefix="agenthorizon-version-") as scratch:
            env = {**self._environment(), **{name: str(Path(scratch) / sub) for name, sub in XDG_FOLDERS.items()},
                   "HOME": scratch}
            try:
                done = subprocess.run(
                    [executable, "--version"], capture_output=True, text=True, timeout=_VERSION_TIMEOUT_S, check=False,
                    errors="replace", env=env, cwd=scratch,
                )
            except (OSError, subprocess.TimeoutExpired) as error:
                raise PreflightError(f"{executable} --version failed: {error}") from None
        lines = [line.strip() for line in (done.stdout or done.stderr).splitlines() if line.strip()]
        if done.returncode != 0 or not lines:
            raise PreflightError(
                f"{executable} --version exited with status {done.returncode}: "
                f"{(done.stderr or done.stdout).strip()[-300:] or '(no output)'}; is the {self.harness.title} installed correctly?"
            )
        self.executable, self.version = executable, lines[0]
        self.check_sandbox()

    def _argv(self, *, prompt: str, answer_file: str, screenshots: str) -> list[str]:
        values = {"{model}": self.model, "{prompt}": prompt, "{answer_file}": answer_file, "{screenshots}": screenshots}
        effort = () if self.reasoning_effort is None else tuple(
            piece.replace("{value}", self.reasoning_effort) for piece in self.harness.effort)
        expansions = {"{tools}": self.harness.tools[self.agent_tools], "{effort}": effort}
        argv = []
        for part in self.harness.argv:
            for piece in expansions.get(part, (part,)):
                for placeholder, value in values.items():
                    piece = piece.replace(placeholder, value)
                argv.append(piece)
        return argv

    def command_line(self, prompt: str, scratch: Path, workdir: Path, trajectory_id: str) -> tuple[list[str], str | None]:
        screenshots = workdir / _IMAGES / trajectory_id
        argv = self._argv(prompt=prompt, answer_file=str(scratch / ANSWER_FILE), screenshots=str(screenshots))
        if self.executable is not None:
            argv[0] = self.executable
        return argv, (None if self.harness.stdin is None else self.harness.stdin.replace("{prompt}", prompt))

    def agent_setup(self, base: Path, workdir: Path) -> AgentSetup:
        """The command judge's setup plus a private home (:func:`~agenthorizon.judging.judges.agent_home.make_agent_home`)
        and the harness's variables."""
        setup = super().agent_setup(base, workdir)
        home = make_agent_home(base / "home", self.harness.home, self._environment())
        return AgentSetup(
            # The user's own variables win over the preset's, the private home over both.
            env={**setup.env, **self._harness_env(), **self.env, **home.env},
            read_write=[*setup.read_write, home.path],
            read_only=[*setup.read_only, *home.read_only],
        )

    def planned_setup(self, base: Path, workdir: Path) -> AgentSetup:
        """The command judge's planned folders plus the private home (its copies are listed as the home)."""
        setup = super().planned_setup(base, workdir)
        return AgentSetup(env={}, read_write=[*setup.read_write, base / "home"])

    def mark_truncated(self, output: JudgeOutput, dropped: int) -> None:
        """Telemetry only (added to what an answer file lost): a harness's answer is the final message its
        reader found, kept whole."""
        output.extra["truncated_bytes"] = output.extra.get("truncated_bytes", 0) + dropped

    def failure_detail(self, stdout: str, stderr: str) -> str:
        """The CLI's own error report when its output format holds one (the CLIs print their errors
        on stdout in JSON mode), else the end of stderr."""
        try:
            READERS[self.harness.reader](stdout, None, self.harness.title)
        except JudgeError as error:
            return f"{error}" + (f"; stderr: {stderr.strip()[-300:]}" if stderr.strip() else "")
        except Exception:  # noqa: BLE001 - a reader must never hide the failure it is asked about
            pass
        return super().failure_detail(stdout, stderr)

    def read_answer(self, stdout: str, scratch: Path, latency: float, judge_input: JudgeInput) -> JudgeOutput:
        answer, answer_dropped = None, 0
        where = f"{self.harness.name}:{self.model} on trajectory {judge_input.trajectory_id}"
        if self.harness.answer_file:
            try:
                answer, answer_dropped = self.read_answer_file(scratch / ANSWER_FILE) or (None, 0)
            except JudgeError as error:
                raise JudgeError(f"{where}: {error}") from None
        reading = READERS[self.harness.reader](stdout, answer, where)
        return JudgeOutput(
            text=reading.text,
            input_tokens=reading.input_tokens,
            output_tokens=reading.output_tokens,
            cost_usd=reading.cost_usd,
            latency_s=latency,
            extra={"harness": self.harness.name, "agent_tools": self.agent_tools, **reading.extra,
                   # which of the item's files its tool calls opened, where the stream shows calls
                   **evidence_extra(self.harness.reader, stdout, judge_input.trajectory_id),
                   # the start of the answer file cut at --max-output-bytes, counted as stdout's cut is
                   **({"truncated_bytes": answer_dropped} if answer_dropped else {})},
        )
