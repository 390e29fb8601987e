"""A judge that pipes a prompt into any command: agentic CLIs, scripts, local tools.

For each item the judge builds a private working directory laid out like the
release sandbox, holding only that item's files::

    <workdir>/
      data/markdowns/<trajectory_id>.md
      data/jsons/<trajectory_id>.json
      data/media/images/<trajectory_id>/step_N.png

then runs the command there with the filled prompt on stdin and takes its
stdout as the answer. Label files are never placed in it, nor any other item.
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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.judges.base import BaseJudge, JudgeError, JudgeOutput, TransientJudgeError
from agenthorizon.judging.judges.prompts import COMMAND_PROMPT, prompt_sha256, render_prompt

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = ["CommandJudge", "write_workdir"]

LINK_MODES = ("copy", "hardlink")
# Copy by default: agentic CLIs have file-writing tools, and a write through a
# hard link would change the release's own screenshot for every later item.
DEFAULT_LINK = "copy"


def write_workdir(judge_input: JudgeInput, root: Path, *, link: str = DEFAULT_LINK) -> Path:
    """Lay out ``judge_input`` under ``root`` like the release sandbox; return ``root``.

    ``link="copy"`` (the default) copies screenshot files; ``"hardlink"``
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
    screens = judge_input.screenshots
    for index, step in enumerate(judge_input.steps):
        reference = step.get("screenshot")
        if reference is None or not screens.has(index):
            continue
        target = images / Path(reference).name
        if link == "hardlink" and screens.link_to(index, target):
            continue
        data_bytes = screens.read_bytes(index)
        target.write_bytes(data_bytes)
    return root


class CommandJudge(BaseJudge):
    """Run a command per item, prompt on stdin, answer on stdout.

    Parameters
    ----------
    command : str or list of str
        The command line (split with ``shlex`` when a string).
    prompt : str
        Template with ``{{TRAJECTORY_ID}}`` and/or ``{{MARKDOWN}}`` (and
        ``{{INSTRUCTION}}``); the default tells an agent where the files are.
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
        if "{{TRAJECTORY_ID}}" not in prompt and "{{MARKDOWN}}" not in prompt:
            raise ValueError("command judge: the prompt template needs {{TRAJECTORY_ID}} or {{MARKDOWN}}")
        if link not in LINK_MODES:
            raise ValueError(f"command judge: link must be one of {LINK_MODES}, got {link!r}")
        self.argv = argv
        self.prompt = prompt
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
            "prompt": {"sha256": prompt_sha256(self.prompt), "text": self.prompt},
            "timeout_s": self.timeout,
            # Only the names of extra variables: their values may be secrets.
            "env": sorted(self.env),
            "images": {"mode": "files", "layout": "data/media/images/<trajectory_id>/step_N.png"},
        }

    def judge(self, judge_input: JudgeInput) -> JudgeOutput:
        prompt = render_prompt(self.prompt, judge_input)
        workdir = Path(tempfile.mkdtemp(prefix="agenthorizon-judge-", dir=self.workdir_root))
        started = time.perf_counter()
        try:
            write_workdir(judge_input, workdir, link=self.link)
            process = subprocess.Popen(
                self.argv,
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
                stdout, stderr = process.communicate(prompt, timeout=self.timeout)
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
        return JudgeOutput(text=stdout, latency_s=latency, extra={"returncode": process.returncode})


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()
