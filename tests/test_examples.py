"""Every example runs on the sample corpus: the notebooks (through a real kernel) and the scripts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))
SCRIPTS = sorted(EXAMPLES.glob("*.py"))


def test_there_are_examples():
    names = {p.name for p in NOTEBOOKS}
    assert {"01_load_and_explore.ipynb", "02_build_and_evaluate_a_judge.ipynb", "03_compare_two_judges.ipynb"} <= names
    assert "custom_judge.py" in {p.name for p in SCRIPTS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, small_root, tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    book = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in book.cells if cell.cell_type == "code"), "store notebooks without outputs"
    # The kernel inherits this environment: the sample corpus, offline HF settings.
    monkeypatch.setenv("AGENTHORIZON_DATA", str(small_root))
    client = NotebookClient(book, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [o for cell in book.cells for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    text = "".join(o.get("text", "") for cell in book.cells for o in cell.get("outputs", []))
    assert text.strip(), "the notebook printed nothing"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_script_runs(path, small_root, tmp_path):
    source = path.read_text(encoding="utf-8")
    argv = []
    if "IMAGE_DIR" in source:  # takes one trajectory's screenshot folder
        argv = [str(sorted((small_root / "sandbox" / "data" / "media" / "images").iterdir())[0])]
    elif "sys.argv" in source:  # takes a release root
        argv = [str(small_root)]
    env = {**os.environ, "AGENTHORIZON_DATA": str(small_root), "MPLBACKEND": "Agg"}
    result = subprocess.run([sys.executable, str(path), *argv], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip()
