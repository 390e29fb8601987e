# Over 500 lines: CommandJudge's per-item lifecycle (workdir, spawn, limits, parse, clean-up) is one state machine.
"""A judge that pipes a prompt into any command (agentic CLIs, scripts, local tools), one confined working folder per item.

Each item gets a private folder laid out like the release sandbox, holding
only that item's files::

    <workdir>/
      AGENTS.md, CLAUDE.md, GEMINI.md      (the release's judge framework)
      prompt.md                            (the release's request, as its sandbox holds it)
      data/markdowns/<trajectory_id>.md
      data/jsons/<trajectory_id>.json
      data/media/images/<trajectory_id>/step_N.png

The command (split with :func:`shlex.split`, no shell) runs there confined
with the prompt on stdin; its stdout is the answer. Images are copies or hard
links, never symbolic links; no label file or other item is placed. The folders
go when the command ends, times out or is cancelled (unless ``keep_workdir``).
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from agenthorizon.judging.judges.agent_cgroup import AgentCgroups
from agenthorizon.judging.judges.agent_disk import DEFAULT_DISK_BYTES, read_usage
from agenthorizon.judging.judges import agent_relay
from agenthorizon.judging.judges.agent_env import COMMAND_ENV, allowed
from agenthorizon.judging.judges.agent_forwarder import Forwarder, start_forwarder
from agenthorizon.judging.judges.agent_limits import (
    DEFAULT_MAX_FILES,
    DEFAULT_MAX_MEMORY,
    DEFAULT_MAX_PROCESSES,
    AgentEnd,
    AgentLimits,
    largest_file,
    limit_reached,
    read_tail,
    require_prlimit,
    run_agent,
)
from agenthorizon.judging.judges.agent_network import DEFAULT_AGENT_NETWORK, NETWORK_HOST, NetworkPlan
from agenthorizon.judging.judges.base import (
    DEFAULT_MAX_OUTPUT_BYTES,
    BaseJudge,
    JudgeError,
    JudgeOutput,
    PreflightError,
)
from agenthorizon.judging.judges.item_folders import item_prefix, stale_item_folders
from agenthorizon.judging.judges.output_cap import TailBuffer, truncation_note
from agenthorizon.judging.judges.prompts import COMMAND_PROMPT, render_prompt
from agenthorizon.judging.judges.release_prompt import (
    PROMPT_PROJECT,
    PROMPT_RELEASE,
    ReleaseFiles,
    command_template,
    framework_files,
    prompt_record,
    read_release_files,
    unbound_message,
)
from agenthorizon.judging.judges.sandbox import (
    SANDBOX_AUTO,
    SANDBOX_BWRAP,
    bwrap_argv,
    check_sandbox,
    exposure,
    hand_over,
    check_writable,
    program_paths,
    remove_item_folder,
    resolve_sandbox,
)
from agenthorizon.judging.secrets import register_environment
from agenthorizon.schema import IMAGES_DIR, JSONS_DIR, MARKDOWNS_DIR, SANDBOX_DIR

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = ["AgentSetup", "CommandJudge", "write_framework", "write_workdir"]

LINK_MODES = ("copy", "hardlink")
# Copy by default: agentic CLIs have file-writing tools, and a write through a
# hard link would change the release's own screenshot for every later item.
DEFAULT_LINK = "copy"
# The working directory mirrors the release's sandbox folder.
_JSONS, _MARKDOWNS, _IMAGES = (Path(d).relative_to(SANDBOX_DIR) for d in (JSONS_DIR, MARKDOWNS_DIR, IMAGES_DIR))


def write_workdir(judge_input: JudgeInput, root: Path, *, link: str = DEFAULT_LINK) -> Path:
    """Lay out ``judge_input`` under ``root`` like the release sandbox; return ``root``.

    Only screenshots that decode as images are placed (others are counted in a
    warning). ``link="hardlink"`` hard-links them where the file system allows
    (faster, but an agent writing a screenshot in place changes the release file).
    """
    if link not in LINK_MODES:
        raise ValueError(f"command judge: link must be one of {LINK_MODES}, got {link!r}")
    trajectory_id = judge_input.trajectory_id
    (root / _MARKDOWNS).mkdir(parents=True, exist_ok=True)
    (root / _JSONS).mkdir(parents=True, exist_ok=True)
    images = root / _IMAGES / trajectory_id
    images.mkdir(parents=True, exist_ok=True)
    (root / _MARKDOWNS / f"{trajectory_id}.md").write_text(judge_input.markdown, encoding="utf-8")
    (root / _JSONS / f"{trajectory_id}.json").write_text(
        json.dumps(judge_input.trajectory_json(), ensure_ascii=False, indent=2), encoding="utf-8"
    )
    from agenthorizon.data.images import ScreenshotError, check_image

    screens = judge_input.screenshots
    refused = []
    for index, step in enumerate(judge_input.steps):
        reference = step.get("screenshot")
        if reference is None or not screens.has(index):
            continue
        target = images / Path(reference).name
        data_bytes = screens.read_bytes(index)
        # Only images reach the agent: a release file that is not one (a label
        # file renamed step_1.png, a bomb) is left out, and said so.
        try:
            check_image(data_bytes, name=f"screenshot of step {step['step_id']}")
        except ScreenshotError as error:
            refused.append(str(error))
            continue
        if link == "hardlink" and screens.link_to(index, target):
            continue
        target.write_bytes(data_bytes)
    if refused:
        warnings.warn(
            f"trajectory {trajectory_id}: {len(refused)} screenshot(s) do not decode as images and were not "
            f"copied to the judge's working directory (first: {refused[0]})",
            UserWarning,
            stacklevel=2,
        )
    return root


def write_framework(root: Path, files: ReleaseFiles) -> None:
    """Write the release's framework files into a working directory (:func:`framework_files`)."""
    for name, text in framework_files(files).items():
        (root / name).write_text(text, encoding="utf-8")


class CommandJudge(BaseJudge):
    """Run a command per item, prompt on stdin, answer on stdout.

    ``prompt``: ``"project"`` (:data:`~agenthorizon.judging.judges.prompts.COMMAND_PROMPT`),
    ``"release"`` (``sandbox/prompt.md``) or a template with ``{{TRAJECTORY_ID}}``,
    ``{{MARKDOWN}}``, ``{{INSTRUCTION}}``. ``timeout``: seconds before the whole
    sandbox is killed (an error, retried next run). ``link``: ``"copy"`` or
    ``"hardlink"`` (:func:`write_workdir`). ``env``: variables besides
    :data:`~agenthorizon.judging.judges.agent_env.COMMAND_ENV`; nothing else of the
    harness's environment reaches the agent. ``agent_endpoints``: URLs it may
    reach (:mod:`~agenthorizon.judging.judges.agent_network`; none by default);
    ``agent_network``: ``"isolated"`` or ``"host"``. ``sandbox``: ``"auto"``,
    ``"bwrap"`` or ``"none"``. ``config_dirs``: the harness's login folders,
    read-write; ``read_only_paths``: more paths read-only.
    ``max_output_bytes``, ``agent_max_processes``, ``agent_max_memory``,
    ``agent_max_files``, ``agent_max_disk``: the limits of
    :mod:`~agenthorizon.judging.judges.agent_limits` (docs/judges.md, "Limits").
    ``nested_userns``: let the agent create user namespaces (the Codex preset).
    """

    name = "command"
    reports_cost = False  # stdout is the answer: no cost in it (a --max-cost run is refused)

    def __init__(
        self,
        command: str | list[str],
        *,
        prompt: str = COMMAND_PROMPT,
        timeout: float = 1800.0,
        link: str = DEFAULT_LINK,
        workdir_root: str | None = None,
        keep_workdir: bool = False,
        env: Mapping[str, str] | None = None,
        sandbox: str = SANDBOX_AUTO,
        config_dirs: Sequence[str] = (),
        read_only_paths: Sequence[str] = (),
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        agent_max_processes: int = DEFAULT_MAX_PROCESSES,
        agent_max_memory: int | str = DEFAULT_MAX_MEMORY,
        agent_max_files: int = DEFAULT_MAX_FILES,
        agent_max_disk: int | str = DEFAULT_DISK_BYTES,
        nested_userns: bool = False,
        agent_endpoints: Sequence[str] = (),
        agent_network: str = DEFAULT_AGENT_NETWORK,
    ) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ValueError("command judge: the command is empty; expected e.g. command:'claude -p'")
        if prompt == PROMPT_PROJECT:
            prompt = COMMAND_PROMPT
        if prompt != PROMPT_RELEASE:
            _check_template(prompt)
        if link not in LINK_MODES:
            raise ValueError(f"command judge: link must be one of {LINK_MODES}, got {link!r}")
        if not timeout or timeout <= 0:
            raise ValueError(f"command judge: timeout must be a positive number of seconds, got {timeout!r}")
        self.argv = argv
        # None until bind_release reads the release's prompt.md (prompt="release").
        self.prompt: str | None = None if prompt == PROMPT_RELEASE else prompt
        self.prompt_source = PROMPT_RELEASE if prompt == PROMPT_RELEASE else None
        self.release: ReleaseFiles | None = None
        self.timeout = float(timeout)
        self.link = link
        self.workdir_root = workdir_root
        self.keep_workdir = keep_workdir
        self.run_tag: str | None = None  # set by bind_run: item folders are named after their run
        self.env = dict(env or {})
        self.sandbox = resolve_sandbox(sandbox)
        self.config_dirs = [Path(os.path.expanduser(d)).absolute() for d in config_dirs]
        self.read_only_paths = [Path(os.path.expanduser(p)).absolute() for p in read_only_paths]
        if isinstance(max_output_bytes, bool) or not isinstance(max_output_bytes, int) or max_output_bytes <= 0:
            raise ValueError(f"command judge: max_output_bytes must be a positive number of bytes, got {max_output_bytes!r}")
        self.max_output_bytes = max_output_bytes
        self.limits = AgentLimits(agent_max_processes, agent_max_memory, agent_max_files, agent_max_disk)
        self.cgroups = AgentCgroups(memory_max=int(self.limits.memory), pids_max=self.limits.processes)
        self.nested_userns = bool(nested_userns)
        self.agent_endpoints = [str(url) for url in agent_endpoints]
        self.network = NetworkPlan.build(agent_network, [(url, "--agent-endpoint") for url in self.agent_endpoints])
        if self.network.mode == NETWORK_HOST and self.sandbox == SANDBOX_BWRAP:
            warnings.warn(
                "--agent-network host: agents share this machine's network; they can reach every service on "
                "127.0.0.1 and each other's sockets", stacklevel=2,
            )
        # The secret-looking values of this environment and of env=: scrubbed from everything written.
        register_environment(os.environ)
        register_environment(self.env)

    def spec(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "spec": f"command:{shlex.join(self.argv)}",
            "command": list(self.argv),
            "prompt": self._prompt_record(),
            "framework": None if self.release is None else {
                "files": list(framework_files(self.release)),
                "sha256": dict(self.release.sha256),
            },
            "timeout_s": self.timeout,
            "sandbox": self.sandbox,
            "max_output_bytes": self.max_output_bytes,
            "limits": self.limits.record(sandboxed=self.sandbox == SANDBOX_BWRAP),
            "cgroup": self.cgroups.record(),
            "exposure": self.exposure(),
            "network": self.network.record(sandboxed=self.sandbox == SANDBOX_BWRAP),
            # Only the names of extra variables: their values may be secrets.
            "env": sorted(self.env),
            "env_allowed": list(self.env_allowed()),
            "images": {"mode": "files", "layout": f"{_IMAGES.as_posix()}/<trajectory_id>/step_N.png"},
        }

    def _prompt_record(self) -> dict[str, Any]:
        if self.prompt is None:
            return {"sha256": None, "text": None, "source": PROMPT_RELEASE}
        return prompt_record(self.prompt, self.release if self.prompt_source == PROMPT_RELEASE else None)

    @property
    def needs_release(self) -> bool:
        """Whether the judge cannot work without :meth:`bind_release`: with ``prompt="release"``."""
        return self.prompt_source == PROMPT_RELEASE

    def bind_release(self, root: str | os.PathLike[str]) -> None:
        """Read the release's judge texts under ``root``: framework files, and with ``prompt="release"`` the prompt.

        Missing texts raise ``FileNotFoundError`` for ``prompt="release"``, else only warn.
        """
        try:
            release = read_release_files(root)
        except FileNotFoundError:
            if self.prompt_source == PROMPT_RELEASE:
                raise
            import warnings

            warnings.warn(
                f"{root}: no sandbox/prompt.md or sandbox/AGENTS.md; the command judge's working directories "
                "will hold no framework file",
                UserWarning,
                stacklevel=2,
            )
            return
        self.release = release
        if self.prompt_source == PROMPT_RELEASE:
            template = command_template(release)
            _check_template(template)
            self.prompt = template

    def command_line(self, prompt: str, scratch: Path, workdir: Path, trajectory_id: str) -> tuple[list[str], str | None]:
        """The argv of one item and its stdin (``None``: none); ``scratch`` takes files the command writes."""
        return list(self.argv), prompt

    def agent_setup(self, base: Path, workdir: Path) -> AgentSetup:
        """One item's agent environment and folders under ``base``: ``TMPDIR`` and ``PWD`` (presets add a home)."""
        tmp = base / "tmp"
        tmp.mkdir()
        return AgentSetup(env={"TMPDIR": str(tmp), "PWD": str(workdir)}, read_write=[tmp])

    def failure_detail(self, stdout: str, stderr: str) -> str:
        """What a failed run said about its failure (this judge: the end of its stderr)."""
        return stderr.strip()[-500:] or "(no stderr)"

    def read_answer(self, stdout: str, scratch: Path, latency: float, judge_input: JudgeInput) -> JudgeOutput:
        """Turn a successful run's output into a :class:`JudgeOutput` (this judge: stdout is the answer)."""
        return JudgeOutput(text=stdout, latency_s=latency, extra={"returncode": 0})

    def _environment(self) -> dict[str, str]:
        """The harness's environment and ``env``: where programs and the user's config are looked up."""
        return {**os.environ, **self.env}

    def env_allowed(self) -> tuple[str, ...]:
        """The patterns of the harness's variables the agent gets (names, or prefixes ending in ``*``)."""
        return COMMAND_ENV

    def agent_environment(self) -> dict[str, str]:
        """The variables an agent starts with: the allowed ones of the harness's, ``env``, the network's proxy's."""
        env = {**allowed(os.environ, self.env_allowed()), **self.env}
        if self.sandbox == SANDBOX_BWRAP:
            env.update(self.network.agent_env())
        return env

    def preflight(self) -> None:
        """Before the first item: the program resolves on ``PATH``, and the sandbox can be built here."""
        if shutil.which(self.argv[0], path=self._environment().get("PATH")) is None:
            raise PreflightError(
                f"command judge: program {self.argv[0]!r} not found (not on PATH and not an executable file); "
                "install it or give its full path"
            )
        self.check_sandbox()

    def check_sandbox(self) -> None:
        """Raise :class:`PreflightError` with the fix when the limits cannot be set, a ``config_dirs`` folder
        is not writable by the agent's user, or bubblewrap cannot build a sandbox here."""
        parent = self.cgroups.parent()
        if parent.path is None:
            warnings.warn(f"command judge: agents run without a cgroup of their own, so their memory limit is per "
                          f"process and nothing bounds their total: {parent.reason}", UserWarning, stacklevel=2)
        try:
            require_prlimit()
            if self.sandbox != SANDBOX_BWRAP:
                return
            check_writable(self.config_dirs)
            probe = Path(tempfile.mkdtemp(prefix="agenthorizon-probe-", dir=self.workdir_root))
            try:
                hand_over(probe)
                check_sandbox(probe, nested_userns=self.nested_userns, unshare_net=self.network.isolated)
            finally:
                shutil.rmtree(probe, ignore_errors=True)
        except RuntimeError as error:
            raise PreflightError(f"command judge: {error}") from None

    def write_workdir(self, judge_input: JudgeInput, workdir: Path) -> None:
        """Lay out one item's files in ``workdir``: its trajectory, and the release's framework files."""
        write_workdir(judge_input, workdir, link=self.link)
        if self.release is not None:
            write_framework(workdir, self.release)

    def confine(self, argv: list[str], workdir: Path, scratch: Path, setup: AgentSetup | None = None,
                usage: Path | None = None) -> list[str]:
        """``argv`` under its limits, in bubblewrap when sandboxed: ``scratch`` and the config folders read-write
        on the host, ``workdir`` and the setup's folders on the disk budget, the budget's reading to ``usage``."""
        sandboxed = self.sandbox == SANDBOX_BWRAP
        limits = self.limits.prlimit_argv(sandboxed=sandboxed)
        if not sandboxed:
            return [*limits, *argv]
        setup = setup or AgentSetup()
        read_only = [*program_paths(argv, self._environment()), *self.read_only_paths]
        # The endpoints' listeners start first, run by this very interpreter (read-only, its stdlib only).
        python = os.path.realpath(sys.executable)
        relay = self.network.relay_argv(python, Path(agent_relay.__file__), workdir.parent / "net")
        if relay:
            read_only += [*program_paths([python], {}), Path(agent_relay.__file__), workdir.parent / "net"]
        return [*bwrap_argv(workdir, read_only=read_only, read_write=[*self.config_dirs, scratch],
                            read_only_over=setup.read_only, private=setup.read_write, disk_bytes=int(self.limits.disk),
                            usage=usage, nested_userns=self.nested_userns, limits=limits,
                            unshare_net=self.network.isolated),
                *relay, *argv]

    def exposure(self) -> dict[str, Any] | None:
        """Which host paths an item's agent gets, read from the argv it runs under (``None``: unconfined).

        The item's folders show as ``/<item>/work``, ``/<item>/out`` and so on. Printed by
        ``agenthorizon judge --dry-run``, kept in the run record.
        """
        if self.sandbox != SANDBOX_BWRAP:
            return None
        # Planned where items are made: under /tmp or not decides where the disk budget's file systems go.
        item = Path(self.workdir_root or tempfile.gettempdir()).absolute() / "<item>"
        workdir, scratch = item / "work", item / "out"
        argv, _ = self.command_line("{prompt}", scratch, workdir, "<trajectory_id>")
        shown = exposure(self.confine(argv, workdir, scratch, self.planned_setup(item, workdir), item / "usage"))
        for kind in ("read_only", "read_write", "private"):
            shown[kind] = [path.replace(str(item), "/<item>", 1) if path.startswith(str(item)) else path
                           for path in shown[kind]]
        return shown

    def planned_setup(self, base: Path, workdir: Path) -> AgentSetup:
        """The folders :meth:`agent_setup` would make under ``base``, without making them (for :meth:`exposure`)."""
        return AgentSetup(env={}, read_write=[base / "tmp"])

    async def ajudge(self, judge_input: JudgeInput) -> JudgeOutput:
        if self.prompt is None:
            raise JudgeError(unbound_message(self.spec()["spec"]))
        if shutil.which(self.argv[0], path=self._environment().get("PATH")) is None:
            raise JudgeError(f"command judge: cannot run {self.argv[0]!r} (not found on PATH)")
        # <base>/work is the agent's directory; <base>/out (scratch) takes files it writes
        # besides stdout (an answer file); its stdin file stays in <base>, outside the sandbox.
        base = Path(tempfile.mkdtemp(prefix=item_prefix(self.run_tag), dir=self.workdir_root))
        workdir, scratch = base / "work", base / "out"
        started = time.perf_counter()
        forwarder: Forwarder | None = None
        try:
            workdir.mkdir()
            scratch.mkdir()
            prompt = render_prompt(self.prompt, judge_input)
            argv, stdin_text = self.command_line(prompt, scratch, workdir, judge_input.trajectory_id)
            await asyncio.to_thread(self.write_workdir, judge_input, workdir)
            setup = await asyncio.to_thread(self.agent_setup, base, workdir)
            (base / "stdin").write_text(stdin_text or "", encoding="utf-8")
            sandboxed = self.sandbox == SANDBOX_BWRAP
            usage = base / "usage" if sandboxed else None
            if sandboxed:
                # The endpoints' sockets first: hand_over gives them to the agent's user too.
                forwarder = await start_forwarder(self.network, base / "net")
                await asyncio.to_thread(hand_over, base)  # the agent's user owns the item's folders
                usage.touch(mode=0o600)  # after hand_over: the harness's, not the agent's
            env = {**self.agent_environment(), **setup.env}
            confined = self.confine(argv, workdir, scratch, setup, usage)
            cgroup = self.cgroups.make()
            try:
                returncode, out, err = await self._run(
                    [*(cgroup.join_argv() if cgroup else ()), *confined], base, workdir, judge_input.trajectory_id,
                    env,
                )
                counters = cgroup.events() if cgroup else {}
            except JudgeError as error:  # a timeout: say what its network refused, often why it waited
                raise type(error)(f"{error}{forwarder.note() if forwarder else ''}") from None
            finally:
                if cgroup:
                    await asyncio.to_thread(cgroup.remove)
            stdout, stderr = out.take_text(whole_lines=True), err.take_text(whole_lines=True)
            if returncode != 0:
                end = AgentEnd(returncode, disk=read_usage(usage) if usage else {},
                               largest_file=await asyncio.to_thread(largest_file, scratch), cgroup=counters)
                reached = limit_reached(stderr[-4000:], self.limits, sandboxed=sandboxed, end=end)
                reached = f"the agent {reached}; " if reached else ""
                raise JudgeError(
                    f"command {self.argv[0]!r} exited with status {returncode} on trajectory "
                    f"{judge_input.trajectory_id}: {reached}{self.failure_detail(stdout, stderr)}"
                    f"{forwarder.note() if forwarder else ''}"
                )
            output = self.read_answer(stdout, scratch, time.perf_counter() - started, judge_input)
            if out.dropped:
                self.mark_truncated(output, out.dropped)
            return output
        finally:
            if forwarder is not None:
                await forwarder.close()
            if not self.keep_workdir:
                remove_item_folder(base)  # whatever the agent left, at any depth, no link followed

    def bind_run(self, run_tag: str) -> int:
        """Name this judge's item folders after the run ``run_tag``; remove those a killed runner of it left.

        Called once the runner holds the run folder's lock; nothing is removed
        with ``keep_workdir``. Returns how many were removed.
        """
        self.run_tag = run_tag
        if self.keep_workdir:
            return 0
        stale = stale_item_folders(self.workdir_root or tempfile.gettempdir(), run_tag)
        for folder in stale:
            remove_item_folder(folder)  # whatever the agent left, at any depth, no link followed
        return len(stale)

    def mark_truncated(self, output: JudgeOutput, dropped: int) -> None:
        """Say in ``output`` that the first ``dropped`` bytes of stdout were not kept: ``truncated_bytes`` in its
        telemetry (added to what an answer file lost) and a first line of its text."""
        output.extra["truncated_bytes"] = output.extra.get("truncated_bytes", 0) + dropped
        output.text = truncation_note(dropped, self.max_output_bytes) + output.text  # as the OpenAI judge says it

    def read_answer_file(self, path: Path) -> tuple[str, int] | None:
        """The end of the agent's answer file (at most ``max_output_bytes``) and the bytes not kept; ``None``: no file. A non-regular file raises :class:`JudgeError`."""
        tail = read_tail(str(path), self.max_output_bytes)
        if tail is None:
            return None
        text = tail.take_text(whole_lines=True)
        return text, tail.dropped

    async def _run(
        self, argv: list[str], base: Path, workdir: Path, trajectory_id: str, env: Mapping[str, str]
    ) -> tuple[int, TailBuffer, TailBuffer]:
        """Run one agent (:func:`~agenthorizon.judging.judges.agent_limits.run_agent`)."""
        return await run_agent(
            argv, cwd=workdir, stdin=base / "stdin", env=env, timeout=self.timeout,
            max_output_bytes=self.max_output_bytes, what=f"command {self.argv[0]!r} on trajectory {trajectory_id}",
        )


@dataclass(frozen=True)
class AgentSetup:
    """What one item's agent gets besides its working directory: ``env``, ``read_write`` folders and ``read_only`` mounts.

    In the sandbox ``read_write`` folders are on the disk budget; ``read_only`` paths are mounted on top.
    """

    env: dict[str, str] = field(default_factory=dict)
    read_write: list[Path] = field(default_factory=list)
    read_only: list[Path] = field(default_factory=list)


def _check_template(prompt: str) -> None:
    if "{{TRAJECTORY_ID}}" not in prompt and "{{MARKDOWN}}" not in prompt:
        raise ValueError("command judge: the prompt template needs {{TRAJECTORY_ID}} or {{MARKDOWN}}")
