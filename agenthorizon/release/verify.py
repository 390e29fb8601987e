"""Check a release on disk: everything loading reads, plus what only a whole-release check can see.

:func:`verify_release` uses the readers loading uses, so it never says OK for
a release that does not load, and collects all problems instead of stopping.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agenthorizon.util.progress import progress_bar
from agenthorizon.release.files import (
    escaping_screenshots,
    label_file_lines,
    link_out_message,
    local_root,
    open_confined,
    read_markdown,
    read_trajectory,
    screenshot_path,
)
from agenthorizon.release.image_files import ScreenshotError, check_image
from agenthorizon.release.labels import check_disjoint, check_label_file
from agenthorizon.release.trajectory import trajectory_problem
from agenthorizon.schema import FRAMEWORK_FILES, LABEL_FILES, PROMPT_FILE, json_relpath, markdown_relpath, screenshot_folder_relpath

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


def verify_release(root: str | os.PathLike[str], *, progress: bool = False) -> list[Problem]:
    """All problems of the release at ``root`` (an empty list when it is sound), in label-file, row, step order.

    Label files first (not empty, UTF-8, valid label lines, no shared ids; rows
    of a bad file are not followed). Then per row: the json exists and builds a
    row, the markdown exists and is UTF-8, every screenshot stays under
    ``sandbox/data/media/images/`` in its ``steps_id`` folder, exists, is no link
    out of the release, and has a readable header within the pixel budget
    (:func:`~agenthorizon.release.image_files.check_image`). Non-regular files
    are reported, never read. ``progress`` shows a bar on a terminal's standard
    error. Raises FileNotFoundError without a root or label file, ValueError for
    a file or the ``sandbox/`` folder given as root.

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
            with open_confined(root, path, "label file", "r", encoding="utf-8") as handle:
                label_file, file_problems = check_label_file(label_file_lines(handle), name)
        except UnicodeDecodeError as error:
            problems.append(Problem(name, str(path), f"not UTF-8 text ({error.reason}); expected JSON Lines"))
            continue
        except ValueError as error:  # a link out of the release
            problems.append(Problem(name, str(path), _strip_prefix(str(error), path)))
            continue
        problems.extend(Problem(name, str(path), message) for message in file_problems)
        if label_file is not None:
            label_files.append(label_file)
    try:
        check_disjoint(label_files)
    except ValueError as error:
        problems.append(Problem(", ".join(LABEL_FILES), str(root), str(error)))
    for relpath in (PROMPT_FILE, *FRAMEWORK_FILES):
        try:  # opened as the judges open them (a link out, a FIFO: refused), not read
            open_confined(root, root / relpath, "sandbox prompt file").close()
        except (FileNotFoundError, IsADirectoryError):
            pass  # optional here: the judges that need it say so
        except ValueError as error:
            problems.append(Problem(relpath, str(root / relpath), _strip_prefix(str(error), root / relpath)))
    total = sum(len(label_file.rows) for label_file in label_files)
    with progress_bar(total, "verify", "item", **({} if progress else {"disable": True})) as bar:
        for label_file in label_files:
            for index, row in enumerate(label_file.rows):
                problems.extend(_row_problems(root, row, label_file.location(index)))
                bar.update(1)
    return problems


def _row_problems(root: Path, row: dict[str, str], where: str) -> list[Problem]:
    trajectory_id = row["trajectory_id"]
    problems: list[Problem] = []
    markdown = root / markdown_relpath(trajectory_id)
    try:
        if read_markdown(root, trajectory_id, where) is None:
            problems.append(Problem(where, str(markdown), "markdown file not found"))
    except ValueError as error:
        problems.append(Problem(where, str(markdown), _strip_prefix(str(error), markdown, where)))
    json_path = root / json_relpath(trajectory_id)
    try:
        trajectory = read_trajectory(root, json_path, where)
    except (FileNotFoundError, ValueError) as error:
        problems.append(Problem(where, str(json_path), _strip_prefix(str(error), json_path, where)))
        return problems
    problem = trajectory_problem(trajectory, root, str(json_path), where)
    if problem is not None:
        problems.append(Problem(where, str(json_path), _strip_prefix(problem, json_path, where)))
    problems.extend(_screenshot_problems(root, row, trajectory["steps"], json_path, where))
    return problems


def _screenshot_problems(root: Path, row: dict[str, str], steps: list, json_path: Path, where: str) -> list[Problem]:
    """Reference, folder, link and image problems of a trajectory's screenshots."""
    problems: list[Problem] = []
    folder = os.path.normpath(root / screenshot_folder_relpath(row["steps_id"]))
    paths: list[str | None] = []
    for index, step in enumerate(steps):
        reference = step.get("screenshot") if isinstance(step, dict) else None
        path = None
        if reference is not None:
            try:
                path = screenshot_path(root, json_path, reference, f"step {index}")
            except ValueError as error:
                problems.append(Problem(where, str(json_path), str(error)))
        paths.append(path)
    elsewhere = [index for index, path in enumerate(paths) if path is not None and os.path.dirname(path) != folder]
    if elsewhere:
        problems.append(
            Problem(
                where,
                str(json_path),
                f"{len(elsewhere)} screenshot(s) (first: step {elsewhere[0]}, {paths[elsewhere[0]]}) are not in "
                f"the folder of the row's steps_id {row['steps_id']}; expected them under {folder}",
            )
        )
    escaping = {index: real for index, _, real in escaping_screenshots(root, paths)}
    for index, path in enumerate(paths):
        if path is None:
            continue
        if index in escaping:
            message = link_out_message(path, "screenshot", escaping[index], root).removeprefix(f"{path}: ")
        else:
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


def _strip_prefix(message: str, path: Path, where: str | None = None) -> str:
    # The readers' messages start with "<file> (<where>): " or "<file>: "; Problem holds both already.
    for prefix in (f"{path} ({where}) ", f"{path} ({where}): ", f"{path}: "):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message
