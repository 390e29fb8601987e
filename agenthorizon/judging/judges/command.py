"""A judge that pipes a prompt into any command: agentic CLIs, scripts, local tools.

For each item the judge builds a private working directory laid out like the
release sandbox, holding only that item's files::

    <workdir>/
      AGENTS.md, CLAUDE.md, GEMINI.md      (the release's judge framework)
      data/markdowns/<trajectory_id>.md
      data/jsons/<trajectory_id>.json
      data/media/images/<trajectory_id>/step_N.png

then runs the command there with the filled prompt on stdin and takes its
stdout as the answer. The framework files are the release's
``sandbox/AGENTS.md`` (and ``CLAUDE.md``; ``GEMINI.md`` holds the same text),
present once the judge is bound to the release it judges
(:meth:`CommandJudge.bind_release`; the runner does it), whatever the prompt.
Label files are never placed in it, nor any other item.
Images sit in a folder named after the trajectory id, not the release's
steps-id folder (a pairing field), and are copies (or, on request, hard links), never symbolic
links, so not even a link target reveals where they came from.

Examples of commands: ``claude -p``, ``codex exec -``, ``gemini``, or
``python my_judge.py``. The command line is split with :func:`shlex.split` and
run without a shell.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.judges.base import BaseJudge, JudgeError, JudgeOutput, TransientJudgeError
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

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = ["CommandJudge", "write_framework", "write_workdir"]

LINK_MODES = ("copy", "hardlink")
# Copy by default: agentic CLIs have file-writing tools, and a write through a
# hard link would change the release's own screenshot for every later item.
DEFAULT_LINK = "copy"


def write_workdir(judge_input: JudgeInput, root: Path, *, link: str = DEFAULT_LINK) -> Path:
    """Lay out ``judge_input`` under ``root`` like the release sandbox; return ``root``.

    Only screenshots that decode as images are placed (others are counted in
    a warning). ``link="copy"`` (the default) copies screenshot files; ``"hardlink"``
    hard-links them when the file system allows it (faster, but a command that
    writes to a screenshot in place then changes the release file) and copies
    them otherwise.
    """
    if link not in LINK_MODES:
        raise ValueError(f"command judge: link must be one of {LINK_MODES}, got {link!r}")
    trajectory_id = judge_input.trajectory_id
    data = root / "data"
    (data / "markdowns").mkdir(parents=True, exist_ok=True)
    (data / "jsons").mkdir(parents=True, exist_ok=True)
    images = data / "media" / "images" / trajectory_id
    images.mkdir(parents=True, exist_ok=True)
    (data / "markdowns" / f"{trajectory_id}.md").write_text(judge_input.markdown, encoding="utf-8")
    (data / "jsons" / f"{trajectory_id}.json").write_text(
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

    Parameters
    ----------
    command : str or list of str
        The command line (split with ``shlex`` when a string).
    prompt : str
        ``"project"`` (:data:`~agenthorizon.judging.judges.prompts.COMMAND_PROMPT`,
        the default: it tells an agent where the files are), ``"release"``
        (the release's ``sandbox/prompt.md``, read at run time), or a template
        with ``{{TRAJECTORY_ID}}`` and/or ``{{MARKDOWN}}`` (and ``{{INSTRUCTION}}``).
    timeout : float
        Seconds before the command (its whole process group) is killed; the
        item is then recorded as an error and retried on the next run.
    link : {"copy", "hardlink"}
        How screenshots reach the working directory: copies (default), or hard
        links, which are faster but let a command that edits a screenshot in
        place change the release file itself.
    workdir_root : str, optional
        Where per-item working directories are created (default: the system
        temporary directory). They are removed afterwards unless ``keep_workdir``.
    env : mapping, optional
        Extra environment variables for the command (the parent environment is
        inherited, since CLIs read their credentials from it).
    """

    name = "command"

    def __init__(
        self,
        command: str | list[str],
        *,
        prompt: str = COMMAND_PROMPT,
        timeout: float = 1800.0,
        link: str = DEFAULT_LINK,
        workdir_root: str | None = None,
        keep_workdir: bool = False,
        env: dict[str, str] | None = None,
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
        self.argv = argv
        # None until bind_release reads the release's prompt.md (prompt="release").
        self.prompt: str | None = None if prompt == PROMPT_RELEASE else prompt
        self.prompt_source = PROMPT_RELEASE if prompt == PROMPT_RELEASE else None
        self.release: ReleaseFiles | None = None
        self.timeout = float(timeout)
        self.link = link
        self.workdir_root = workdir_root
        self.keep_workdir = keep_workdir
        self.env = dict(env or {})

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
            # Only the names of extra variables: their values may be secrets.
            "env": sorted(self.env),
            "images": {"mode": "files", "layout": "data/media/images/<trajectory_id>/step_N.png"},
        }

    def _prompt_record(self) -> dict[str, Any]:
        if self.prompt is None:
            return {"sha256": None, "text": None, "source": PROMPT_RELEASE}
        return prompt_record(self.prompt, self.release if self.prompt_source == PROMPT_RELEASE else None)

    def bind_release(self, root: str | os.PathLike[str]) -> None:
        """Read the release's judge texts under ``root``: framework files for every item's directory,
        and with ``prompt="release"`` the prompt (``sandbox/prompt.md``).

        The runner calls this with the release it judges before the first
        item. A release without the texts is an error for ``prompt="release"``;
        otherwise items are judged without framework files, with a warning.
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

    def command_line(self, prompt: str, scratch: Path) -> tuple[list[str], str | None]:
        """The argv to run for one item and the text for its stdin (``None``: no stdin).

        ``scratch`` is a private directory outside the working directory for
        files the command writes (an answer file). This judge: its command,
        the prompt on stdin. Presets (:mod:`agenthorizon.judging.judges.presets`)
        override it.
        """
        return list(self.argv), prompt

    def read_answer(self, stdout: str, scratch: Path, latency: float, judge_input: JudgeInput) -> JudgeOutput:
        """Turn a successful run's output into a :class:`JudgeOutput` (this judge: stdout is the answer)."""
        return JudgeOutput(text=stdout, latency_s=latency, extra={"returncode": 0})

    def judge(self, judge_input: JudgeInput) -> JudgeOutput:
        if self.prompt is None:
            raise JudgeError(unbound_message(self.spec()["spec"]))
        # Files the command writes besides its stdout (an answer file) go
        # here, outside the working directory the agent explores.
        scratch = Path(tempfile.mkdtemp(prefix="agenthorizon-out-", dir=self.workdir_root))
        try:
            return self._judge_with(judge_input, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _judge_with(self, judge_input: JudgeInput, scratch: Path) -> JudgeOutput:
        prompt = render_prompt(self.prompt, judge_input)
        argv, stdin_text = self.command_line(prompt, scratch)
        workdir = Path(tempfile.mkdtemp(prefix="agenthorizon-judge-", dir=self.workdir_root))
        started = time.perf_counter()
        try:
            write_workdir(judge_input, workdir, link=self.link)
            if self.release is not None:
                write_framework(workdir, self.release)
            process = subprocess.Popen(
                argv,
                cwd=workdir,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, **self.env},
                text=True,
                encoding="utf-8",
                errors="replace",
                start_new_session=True,  # its own process group, so a timeout kills the children too
            )
            try:
                stdout, stderr = process.communicate(stdin_text, timeout=self.timeout)
            except subprocess.TimeoutExpired:
                _kill_group(process)
                process.communicate()
                raise TransientJudgeError(
                    f"command {self.argv[0]!r} timed out after {self.timeout:g} s on trajectory "
                    f"{judge_input.trajectory_id}"
                ) from None
        except FileNotFoundError as error:
            raise JudgeError(f"command judge: cannot run {self.argv[0]!r} ({error.strerror})") from None
        finally:
            if not self.keep_workdir:
                shutil.rmtree(workdir, ignore_errors=True)
        latency = time.perf_counter() - started
        if process.returncode != 0:
            tail = stderr.strip()[-500:]
            raise JudgeError(
                f"command {self.argv[0]!r} exited with status {process.returncode} on trajectory "
                f"{judge_input.trajectory_id}: {tail or '(no stderr)'}"
            )
        return self.read_answer(stdout, scratch, latency, judge_input)


def _check_template(prompt: str) -> None:
    if "{{TRAJECTORY_ID}}" not in prompt and "{{MARKDOWN}}" not in prompt:
        raise ValueError("command judge: the prompt template needs {{TRAJECTORY_ID}} or {{MARKDOWN}}")


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()
