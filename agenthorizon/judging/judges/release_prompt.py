"""The release's own judge texts, ``sandbox/prompt.md`` and ``sandbox/AGENTS.md``, composed into judge prompts.

With ``prompt="release"`` scores are like-for-like with the paper. The texts
are read at run time from the release judged (:func:`read_release_files`),
never copied into the package.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from agenthorizon.release.confine import open_confined
from agenthorizon.release.item_files import ITEM_FILE_LIMIT, read_bounded
from agenthorizon.schema import FRAMEWORK_FILES, PROMPT_FILE, PROMPT_PLACEHOLDER, WORKDIR_FRAMEWORK_NAMES

__all__ = [
    "PROMPT_PROJECT",
    "PROMPT_RELEASE",
    "PROMPT_SOURCES",
    "ReleaseFiles",
    "command_template",
    "direct_template",
    "framework_files",
    "prompt_option",
    "prompt_record",
    "read_release_files",
    "unbound_message",
]

PROMPT_PROJECT = "project"
PROMPT_RELEASE = "release"
PROMPT_SOURCES = (PROMPT_PROJECT, PROMPT_RELEASE)
"""``prompt=`` values naming a prompt rather than giving a template: this project's
default, or the release's own texts."""

# The bridge from the release's request (which tells an agent to open files) to a direct judge, which
# gets the file inline. This project's text, covered by the recorded sha256.
_DIRECT_BRIDGE = f"""

---

## data/markdowns/{PROMPT_PLACEHOLDER}.md

You cannot open files in this conversation: the content of that file follows,
and the screenshots it links are attached after it when they are sent.{{{{IMAGE_NOTE}}}}

{{{{MARKDOWN}}}}
"""


@dataclass(frozen=True)
class ReleaseFiles:
    """The judge-facing texts of one release, as read from its ``sandbox/``.

    ``framework`` is ``sandbox/AGENTS.md``; ``claude`` is ``sandbox/CLAUDE.md``
    (the release ships it as an identical copy; ``AGENTS.md``'s text when
    absent); ``prompt`` is ``sandbox/prompt.md``. ``sha256`` maps each file
    read (release-relative path) to the hex sha256 of its bytes.
    """

    root: str
    prompt: str
    framework: str
    claude: str
    sha256: dict[str, str]


def _read(root: Path, relpath: str, *, required: bool) -> tuple[str, str] | None:
    path = root / relpath
    try:  # confined to the release, and a regular file (a FIFO would block the run forever)
        with open_confined(root, path, "release judge text") as handle:
            data = read_bounded(handle, ITEM_FILE_LIMIT, path, "a judge text")
    except FileNotFoundError:
        if not required:
            return None
        raise FileNotFoundError(
            f"{path} not found: the release's judge texts ({PROMPT_FILE}, {FRAMEWORK_FILES[0]}) are needed by "
            "prompt='release' and by command judges; pass the release root (the folder holding sandbox/)"
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text ({error.reason}); expected the release's Markdown") from None
    return text, hashlib.sha256(data).hexdigest()


def read_release_files(root: str | os.PathLike[str]) -> ReleaseFiles:
    """Read ``sandbox/prompt.md``, ``sandbox/AGENTS.md`` (and ``CLAUDE.md``) under ``root``.

    Each must be a regular file confined to ``root``. Raises
    ``FileNotFoundError`` naming a missing required file, and ``ValueError``
    for text that is not UTF-8 or a ``prompt.md`` without ``{{TRAJECTORY_ID}}``.

    >>> import pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "sandbox").mkdir()
    >>> _ = (root / "sandbox/prompt.md").write_text("Judge {{TRAJECTORY_ID}}.")
    >>> _ = (root / "sandbox/AGENTS.md").write_text("# Framework")
    >>> files = read_release_files(root)
    >>> files.prompt, files.claude, sorted(files.sha256)
    ('Judge {{TRAJECTORY_ID}}.', '# Framework', ['sandbox/AGENTS.md', 'sandbox/prompt.md'])
    """
    base = Path(root)
    prompt, prompt_sha = _read(base, PROMPT_FILE, required=True)
    framework, framework_sha = _read(base, FRAMEWORK_FILES[0], required=True)
    if PROMPT_PLACEHOLDER not in prompt:
        raise ValueError(f"{base / PROMPT_FILE}: expected the {PROMPT_PLACEHOLDER} placeholder in the release prompt")
    sha256 = {PROMPT_FILE: prompt_sha, FRAMEWORK_FILES[0]: framework_sha}
    claude = framework
    for relpath in FRAMEWORK_FILES[1:]:
        found = _read(base, relpath, required=False)
        if found is not None:
            claude, sha256[relpath] = found
    return ReleaseFiles(root=str(base), prompt=prompt, framework=framework, claude=claude, sha256=sha256)


def direct_template(files: ReleaseFiles) -> str:
    """The direct judge's template: framework, request, then the inline Markdown.

    Placeholders left for :func:`~agenthorizon.judging.judges.prompts.render_prompt`:
    ``{{TRAJECTORY_ID}}``, ``{{MARKDOWN}}`` and ``{{IMAGE_NOTE}}``.

    >>> files = ReleaseFiles("r", "Judge {{TRAJECTORY_ID}}.", "# Framework", "# Framework", {})
    >>> template = direct_template(files)
    >>> template.startswith("# Framework"), "Judge {{TRAJECTORY_ID}}." in template, template.count("{{MARKDOWN}}")
    (True, True, 1)
    """
    return files.framework.rstrip("\n") + "\n\n---\n\n" + files.prompt.rstrip("\n") + _DIRECT_BRIDGE


def command_template(files: ReleaseFiles) -> str:
    """The agentic judge's template: the release's ``prompt.md`` without surrounding whitespace.

    The authors' harness strips it the same way (SPEC section 5).

    >>> command_template(ReleaseFiles("r", "\\nJudge {{TRAJECTORY_ID}}.\\n", "F", "F", {}))
    'Judge {{TRAJECTORY_ID}}.'
    """
    return files.prompt.strip()


def framework_files(files: ReleaseFiles) -> dict[str, str]:
    """File name -> text for a command judge's working directory.

    ``AGENTS.md``, ``CLAUDE.md`` and ``prompt.md`` as the release's sandbox
    holds them (the prompt file as it is, placeholder included), and
    ``GEMINI.md`` with the framework text too (Gemini CLI's context file).

    >>> sorted(framework_files(ReleaseFiles("r", "p {{TRAJECTORY_ID}}", "F", "F", {})))
    ['AGENTS.md', 'CLAUDE.md', 'GEMINI.md', 'prompt.md']
    """
    texts = {"AGENTS.md": files.framework, "CLAUDE.md": files.claude}
    placed = {name: texts.get(name, files.framework) for name in WORKDIR_FRAMEWORK_NAMES}
    placed[PurePosixPath(PROMPT_FILE).name] = files.prompt
    return placed


def prompt_record(template: str, files: ReleaseFiles | None) -> dict[str, Any]:
    """The run record's ``prompt`` block: sha256 and text of ``template``, and its source.

    ``source`` is ``release`` (with ``root`` and each file's sha256) when the
    template was built from ``files``, ``project`` for this project's default
    prompts, and ``custom`` for any other template.

    >>> from agenthorizon.judging.judges.prompts import DIRECT_PROMPT
    >>> prompt_record(DIRECT_PROMPT, None)["source"], prompt_record("Judge {{TRAJECTORY_ID}}", None)["source"]
    ('project', 'custom')
    """
    from agenthorizon.judging.judges.prompts import COMMAND_PROMPT, DIRECT_PROMPT, prompt_sha256

    record: dict[str, Any] = {"sha256": prompt_sha256(template), "text": template}
    if files is None:
        record["source"] = PROMPT_PROJECT if template in (DIRECT_PROMPT, COMMAND_PROMPT) else "custom"
    else:
        record.update(source=PROMPT_RELEASE, root=files.root, files=dict(files.sha256))
    return record


def unbound_message(judge: str) -> str:
    """The error when a judge asked for the release's texts has not been given a release."""
    return (
        f"{judge}: prompt='release' reads sandbox/prompt.md and sandbox/AGENTS.md from the release being judged; "
        "run it with run_judge(..., data_root=ROOT) (agenthorizon judge --data ROOT does), or call "
        "judge.bind_release(ROOT) first"
    )


def prompt_option(value: str | None, option: str = "--prompt") -> str | None:
    """A prompt option's value as judges take it: a source name as it is, a template file's text.

    Used by ``agenthorizon judge --prompt`` and the Inspect task's ``prompt``; ``option`` names the option in errors.

    >>> prompt_option("release"), prompt_option(None)
    ('release', None)
    >>> prompt_option("no-such-file.md")
    Traceback (most recent call last):
    ...
    ValueError: --prompt 'no-such-file.md': expected project or release, or a template file (no such file no-such-file.md)
    """
    if value is None or value in PROMPT_SOURCES:
        return value
    path = Path(value)
    if not path.is_file():
        raise ValueError(
            f"{option} {value!r}: expected {' or '.join(PROMPT_SOURCES)}, or a template file (no such file {path})"
        )
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{option} {path}: not UTF-8 text ({error.reason}); expected a prompt template") from None
