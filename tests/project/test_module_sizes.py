"""No module of the package is over 500 lines without a one-line reason at its top (issue 35 item 6)."""

from __future__ import annotations

from pathlib import Path

import agenthorizon

LIMIT = 500
REASON = "# Over 500 lines: "


def test_every_long_module_says_why_on_its_first_line():
    package = Path(agenthorizon.__file__).parent
    unexplained = []
    for path in sorted(package.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > LIMIT and not (lines[0].startswith(REASON) and len(lines[0]) > len(REASON) + 10):
            unexplained.append(f"{path.relative_to(package)} ({len(lines)} lines)")
    assert not unexplained, f"modules over {LIMIT} lines need a first line '{REASON}<why>': {unexplained}"
