"""The package's stages import in one direction only, and judges never import label code.

The contracts live in pyproject.toml (``[tool.importlinter]``); this runs
import-linter's own checker on them, so a layering violation fails the suite
with import-linter's report naming the offending import chain.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_import_contracts_hold():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, "import-linter is part of the test extra: pip install -e '.[test]'"
    result = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    # Every contract was checked, none skipped: the counts are import-linter's own summary.
    assert "Contracts: 3 kept, 0 broken." in result.stdout, result.stdout
