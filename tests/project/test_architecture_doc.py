"""docs/architecture.md names every module of the package, so the map a newcomer reads stays the code's."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "agenthorizon"


def _folder_rows(doc: str) -> dict[str, list[str]]:
    """Table rows whose first cell names a folder (`` `judging/judges/` ``), by folder."""
    rows: dict[str, list[str]] = {}
    for line in doc.splitlines():
        if line.startswith("| `"):
            for folder in re.findall(r"`([\w/]+/)`", line.split("|")[1]):
                rows.setdefault(folder, []).append(line)
    return rows


def unnamed_modules(doc: str) -> list[str]:
    """Modules (paths under agenthorizon/) the page does not name.

    A module is named by its path (``report/html.py``), or by its file name
    in the row of a folder holding it (``presets.py`` in the
    ``judging/judges/`` row); a package's ``__init__.py`` by its folder.
    """
    rows = _folder_rows(doc)
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative in doc:
            continue
        if path.name == "__init__.py":
            folder = relative[: -len("__init__.py")]
            if (folder and folder in doc) or (not folder and "agenthorizon/__init__.py" in doc):
                continue
        parts = relative.split("/")
        folders = ["/".join(parts[:depth]) + "/" for depth in range(1, len(parts))]
        if any(f"`{path.name}`" in row for folder in folders for row in rows.get(folder, [])):
            continue
        missing.append(relative)
    return missing


def test_every_module_is_named_in_the_architecture_page():
    doc = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert unnamed_modules(doc) == [], "name these modules in docs/architecture.md (a row, or in their folder's row)"


def test_a_module_left_out_is_found():
    doc = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert unnamed_modules(doc.replace("`report/notes.py`", "`report/`")) == ["report/notes.py"]
    assert unnamed_modules(doc.replace("`server_check.py`", "server_check")) == ["judging/judges/server_check.py"]
