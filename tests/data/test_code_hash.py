"""The Arrow cache's code hash covers every module that shapes the table.

A module left out of the hash means a change to it reuses a stale cache:
rows built by the old code, served as if built by the new (the review found
``release/labels.py`` and ``release/splits.py``, which write ``pair_group_id``
and ``in_dev``, left out). The test traces a real build and asks that every
package module whose code ran is hashed.
"""

from __future__ import annotations

import ast
import sys
import threading
from pathlib import Path

import agenthorizon
import agenthorizon.data.builder as builder_module
from agenthorizon.data.builder import AgentHorizon, code_modules

PACKAGE = Path(agenthorizon.__file__).resolve().parent


def _modules_run_by_a_build(root: Path, cache: Path, config: str) -> set[Path]:
    """The package's source files with a function called while the builder builds ``config`` (one process)."""
    ran: set[Path] = set()
    prefix = str(PACKAGE)

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(prefix):
            ran.add(Path(frame.f_code.co_filename).resolve())

    builder = AgentHorizon(cache_dir=str(cache), config_name=config, data_dir=str(root))
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        builder.download_and_prepare()
        builder.as_dataset(split="test")
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return ran


def test_every_module_whose_code_builds_the_table_is_in_the_cache_hash(tiny_root, tmp_path):
    ran = _modules_run_by_a_build(tiny_root, tmp_path / "cache", "all")
    # The trace saw the build itself: the rows, the selection, the pair groups.
    assert {PACKAGE / "data" / "table.py", PACKAGE / "release" / "splits.py", PACKAGE / "release" / "labels.py"} <= ran
    hashed = set(code_modules())
    assert sorted(str(path.relative_to(PACKAGE)) for path in ran - hashed) == []


def test_the_modules_that_write_pair_group_id_and_in_dev_are_hashed():
    names = {path.relative_to(PACKAGE).as_posix() for path in code_modules()}
    assert {"release/labels.py", "release/splits.py", "release/item_selection.py", "data/table.py", "schema.py"} <= names
    assert "data/load.py" not in names  # the builder does not import it: derived, not a wider net


def test_a_change_to_a_hashed_module_changes_the_hash(monkeypatch):
    before = builder_module._code_hash()
    splits = PACKAGE / "release" / "splits.py"
    real_read = Path.read_bytes

    def edited(path: Path) -> bytes:
        data = real_read(path)
        return data + b"\n# edited\n" if path == splits else data

    builder_module._code_hash.cache_clear()
    monkeypatch.setattr(Path, "read_bytes", edited)
    try:
        assert builder_module._code_hash() != before
    finally:
        monkeypatch.undo()
        builder_module._code_hash.cache_clear()
    assert builder_module._code_hash() == before


def _ast_closure(start: Path) -> set[Path]:
    """The package modules ``start`` imports, transitively, read with the ``ast`` module (every Import node)."""

    def module_file(name: str) -> Path | None:
        parts = name.split(".")
        if parts[0] != "agenthorizon":
            return None
        base = PACKAGE.joinpath(*parts[1:])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    seen, pending = {start}, [start]
    while pending:
        tree = ast.parse(pending.pop().read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [f"{node.module}.{a.name}" if module_file(f"{node.module}.{a.name}") else node.module for a in node.names]
            else:
                continue
            for file in filter(None, map(module_file, names)):
                if file not in seen:
                    seen.add(file)
                    pending.append(file)
    return seen


def test_the_import_scan_finds_what_python_s_own_parser_finds():
    assert set(code_modules()) == _ast_closure(PACKAGE / "data" / "builder.py")
