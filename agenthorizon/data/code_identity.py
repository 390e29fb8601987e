"""The code identity of a cache: the package modules a module imports, and a hash of their source.

:func:`imported_modules` follows imports transitively; :func:`source_hash`
hashes the files. The builder's Arrow cache is keyed by it, so a change to any module that shapes
the table builds a new cache. Reads source files only.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path
from typing import Iterable, Iterator

__all__ = ["imported_modules", "source_hash"]

_PACKAGE = Path(__file__).resolve().parents[1]  # the agenthorizon folder

# An import statement of a package module, at any indentation (imports inside
# functions count): `from agenthorizon.x import a, b` (names possibly in
# parentheses over several lines) or `import agenthorizon.x`. A regular
# expression, not `ast`: parsing every module is slow on a first load_dataset.
_FROM_IMPORT = re.compile(r"from[ \t]+(agenthorizon(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)")
_IMPORT = re.compile(r"import[ \t]+(agenthorizon(?:\.\w+)*)")


@functools.lru_cache(maxsize=None)
def _module_file(name: str) -> Path | None:
    """The source file of ``agenthorizon.<...>`` module ``name``; ``None`` when it is not one."""
    parts = name.split(".")
    if parts[0] != _PACKAGE.name:
        return None
    base = os.path.join(_PACKAGE, *parts[1:])
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(candidate):
            return Path(candidate)
    return None


def _import_statements(text: str) -> Iterator[tuple[str, list[str]]]:
    """``(module, names)`` of each package import statement that starts a line of ``text`` (names empty for ``import``)."""
    for keyword, statement in (("from agenthorizon", _FROM_IMPORT), ("import agenthorizon", _IMPORT)):
        at = text.find(keyword)
        while at != -1:
            line_start = text.rfind("\n", 0, at) + 1
            match = statement.match(text, at) if not text[line_start:at].strip(" \t") else None
            if match is not None:
                names = match.group(2).strip("()").split(",") if keyword.startswith("from") else []
                yield match.group(1), [name.split(" as ")[0].strip() for name in names if name.strip()]
            at = text.find(keyword, at + 1)


def _imported_files(path: Path) -> set[Path]:
    """Files of the package modules ``path`` imports anywhere in it (module level or inside a function)."""
    found: set[Path | None] = set()
    for module, names in _import_statements(path.read_text(encoding="utf-8")):
        # `from agenthorizon.data import table` imports the module table;
        # `from agenthorizon.data.table import build_table` the module itself.
        found.update(_module_file(f"{module}.{name}") or _module_file(module) for name in names)
        if not names:  # `import agenthorizon.x`
            found.add(_module_file(module))
    found.discard(None)
    return found  # type: ignore[return-value]


def imported_modules(start: Path) -> tuple[Path, ...]:
    """``start`` and the source file of every package module it imports, transitively: ``start`` first, then sorted.

    >>> [path.relative_to(_PACKAGE).as_posix() for path in imported_modules(_PACKAGE / "release" / "labels.py")]
    ['release/labels.py', 'schema.py', 'util/terminal_text.py']
    """
    start = start.resolve()
    seen, pending = {start}, [start]
    while pending:
        for file in _imported_files(pending.pop()):
            if file not in seen:
                seen.add(file)
                pending.append(file)
    return (start, *sorted(seen - {start}))


def source_hash(paths: Iterable[Path]) -> str:
    """16 hex digits of the sha256 of each file's package-relative path and bytes, in order."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]
