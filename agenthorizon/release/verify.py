"""Check a release on disk: every referenced file exists and every image reads.

:func:`verify_release` walks every label row of both label files and checks
the files the row refers to: its trajectory json (present, a valid trajectory
object), its markdown, and the screenshot of every step (present, inside the
release, with an image header that reads). Unlike loading, which stops at the
first bad item, it collects *all* problems so a broken download or a
hand-edited release can be fixed in one pass.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agenthorizon.release.image_files import ScreenshotError, check_image
from agenthorizon.release.labels import check_disjoint, check_label_file
from agenthorizon.schema import LABEL_FILES, json_relpath, markdown_relpath
from agenthorizon.release.source import local_root, read_trajectory, screenshot_path

__all__ = ["Problem", "verify_release"]


@dataclass(frozen=True)
class Problem:
    """One problem of a release: where it was found and what is wrong.

    ``where`` is the label row (``file:line``) or label file the problem
    belongs to, ``path`` the file concerned, ``message`` what was expected.
    """

    where: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.path}: {self.message}"


def verify_release(root: str | os.PathLike[str]) -> list[Problem]:
    """All problems of the release at ``root`` (an empty list when it is sound).

    Checks, for every label row: the json exists and is a trajectory object
    (``task.instruction`` string, ``steps`` list); the markdown exists; every
    step's screenshot path stays inside the release, exists, and its image
    header reads (``PIL.Image.open`` + ``verify()``: no pixel decoding). Label
    files are validated line by line first, and checked not to share ids;
    rows of a bad label file are not followed further, since their ids cannot
    be trusted. Unlike loading, it does not stop at the first problem.

    Parameters
    ----------
    root : str or path-like
        A local release root: the folder holding ``AgentHorizon.jsonl``,
        ``AgentHorizon-Simple.jsonl`` and ``sandbox/``.

    Returns
    -------
    list of Problem
        One entry per problem, in label-file then row then step order; each
        names the label row (``file:line``) or label file, the file concerned
        and what was expected. Empty when the release is sound.

    Raises
    ------
    FileNotFoundError
        If ``root`` does not exist or lacks a label file.
    ValueError
        If ``root`` is a file, or the ``sandbox/`` folder instead of its parent.

    See Also
    --------
    agenthorizon.release.labels.check_label_file : the per-line label checks.
    agenthorizon.release.sample.generate : writes a sound sample release.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from agenthorizon.release.sample import generate
    >>> root = generate(Path(tempfile.mkdtemp()) / "release", preset="tiny").root
    >>> verify_release(root)
    []
    >>> screenshot = sorted((root / "sandbox/data/media/images").rglob("*.png"))[0]
    >>> screenshot.write_bytes(b"not a png")
    9
    >>> problems = verify_release(root)
    >>> len(problems)  # the positive and the negative that show this trajectory
    2
    >>> problems[0].message.split(" (")[0]
    'step 0: image header does not read'
    """
    root = local_root(root)
    problems: list[Problem] = []
    label_files = []
    for name in LABEL_FILES:
        path = root / name
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            problems.append(Problem(name, str(path), f"not UTF-8 text ({error.reason}); expected JSON Lines"))
            continue
        label_file, file_problems = check_label_file(text, name)  # one pass: every problem, or the rows
        problems.extend(Problem(name, str(path), message) for message in file_problems)
        if label_file is not None:
            label_files.append(label_file)
    try:
        check_disjoint(label_files)
    except ValueError as error:
        problems.append(Problem(", ".join(LABEL_FILES), str(root), str(error)))
    for label_file in label_files:
        for index, row in enumerate(label_file.rows):
            problems.extend(_row_problems(root, row["trajectory_id"], label_file.location(index)))
    return problems


def _row_problems(root: Path, trajectory_id: str, where: str) -> list[Problem]:
    problems: list[Problem] = []
    markdown = root / markdown_relpath(trajectory_id)
    if not markdown.is_file():
        problems.append(Problem(where, str(markdown), "markdown file not found"))
    json_path = root / json_relpath(trajectory_id)
    try:
        trajectory = read_trajectory(json_path, where)
    except (FileNotFoundError, ValueError) as error:
        problems.append(Problem(where, str(json_path), _strip_prefix(str(error), json_path, where)))
        return problems
    for index, step in enumerate(trajectory["steps"]):
        if not isinstance(step, dict):
            problems.append(Problem(where, str(json_path), f"step {index}: expected a step object"))
            continue
        reference = step.get("screenshot")
        if reference is None:
            continue
        try:
            path = screenshot_path(root, json_path, reference, f"step {index}")
        except ValueError as error:
            problems.append(Problem(where, str(json_path), str(error)))
            continue
        message = _image_problem(path)
        if message:
            problems.append(Problem(where, path, f"step {index}: {message}"))
    return problems


def _image_problem(path: str) -> str | None:
    try:
        check_image(path)
    except ScreenshotError as error:
        # The Problem names the path already; keep what is wrong and what was expected.
        return str(error).removeprefix(f"{path}: ")
    return None


def _strip_prefix(message: str, json_path: Path, where: str) -> str:
    # read_trajectory's messages start with "<json> (<where>): "; Problem holds both already.
    prefix = f"{json_path} ({where}): "
    return message[len(prefix):] if message.startswith(prefix) else message
