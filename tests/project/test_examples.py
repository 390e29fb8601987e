"""Every example runs on the sample corpus: the notebooks (through a real kernel, and stored with
current outputs that a code-hosting site renders) and the scripts."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TOOLS = EXAMPLES.parent / "tools"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))
SCRIPTS = sorted(EXAMPLES.glob("*.py"))


def test_there_are_examples():
    names = {p.name for p in NOTEBOOKS}
    assert {"01_load_and_explore.ipynb", "02_build_and_evaluate_a_judge.ipynb", "03_compare_two_judges.ipynb"} <= names
    assert "custom_judge.py" in {p.name for p in SCRIPTS}


def _notebook_tool():
    """tools/execute_notebooks.py, the script that stores the notebooks' outputs."""
    spec = importlib.util.spec_from_file_location("execute_notebooks", TOOLS / "execute_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stored_text(book) -> str:
    """Every text a stored notebook shows: its streams and the text forms of its displays."""
    return "\n".join(
        output.get("text", "") + "".join(str(output.get("data", {}).get(kind, "")) for kind in ("text/plain", "text/html"))
        for cell in book.cells for output in cell.get("outputs", [])
    )


@pytest.mark.slow  # a kernel per notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_with_current_outputs_and_runs(path, small_root, tmp_path, monkeypatch):
    import nbformat

    tool = _notebook_tool()
    stored = nbformat.read(path, as_version=4)
    stale = tool.stale_cells(stored)
    assert not stale, f"{path.name}: " + "; ".join(stale) + "; run `python tools/execute_notebooks.py`"
    # A fresh kernel on the same sample corpus: no error, and the same kinds of output per
    # cell (a table stays a table, a plot a plot) as the stored ones.
    # The kernel's temporary folder, to see what the notebook leaves there.
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    fresh = tool.execute(path, small_root, tmp_path)
    assert tool.errors(fresh) == []
    assert sorted(p.name for p in temp.iterdir()) == [], f"{path.name} leaves files in the temporary folder"
    # What a reader sees names no folder of the run that stored it.
    for place in ("/tmp/", str(tmp_path), "agenthorizon-runs-", "agenthorizon-sample-", "agenthorizon-notebook-"):
        assert place not in stored_text(stored), f"{path.name}'s stored outputs show {place!r}"
    assert tool.output_kinds(fresh) == tool.output_kinds(stored), "run `python tools/execute_notebooks.py`"
    shown = " ".join(stream for kinds in tool.output_kinds(stored) for stream in kinds)
    assert "stream:stderr" not in shown, "a stored notebook shows warnings"
    assert "text/html" in shown, "every notebook shows a table"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_outputs_say_they_are_about_a_synthetic_sample(path):
    # The notebooks are stored from the sample corpus: its numbers must never read as the benchmark's.
    import nbformat

    text = stored_text(nbformat.read(path, as_version=4))
    assert "data: a synthetic sample corpus" in text, f"{path.name}: the stored outputs do not say the data is synthetic"
    assert "release root: AGENTHORIZON_DATA" not in text


def test_notebooks_show_a_screenshot_and_a_plot():
    import nbformat

    tool = _notebook_tool()
    images = {
        path.name: sum("image/png" in kind for kinds in tool.output_kinds(nbformat.read(path, as_version=4)) for kind in kinds)
        for path in NOTEBOOKS
    }
    assert images["01_load_and_explore.ipynb"] >= 1  # a decoded screenshot
    assert images["03_compare_two_judges.ipynb"] >= 1  # the judge comparison figure


@pytest.mark.slow  # a process per script; inspect_eval.py alone takes about a minute
@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_script_runs(path, small_root, tmp_path):
    source = path.read_text(encoding="utf-8")
    argv = []
    if "IMAGE_DIR" in source:  # takes one trajectory's screenshot folder
        argv = [str(sorted((small_root / "sandbox" / "data" / "media" / "images").iterdir())[0])]
    elif "OUT_DIR" in source:  # takes the folder to write its report into
        argv = [str(tmp_path / "out")]
    elif "sys.argv" in source:  # takes a release root
        argv = [str(small_root)]
    temp, work = tmp_path / "temp", tmp_path / "work"
    temp.mkdir()
    work.mkdir()
    # The script's temporary folder and working folder, to see what it leaves there.
    env = {**os.environ, "AGENTHORIZON_DATA": str(small_root), "MPLBACKEND": "Agg", "TMPDIR": str(temp)}
    result = subprocess.run([sys.executable, str(path), *argv], cwd=work, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip()
    assert sorted(p.name for p in temp.iterdir()) == [], f"{path.name} leaves files in the temporary folder"
    assert sorted(p.name for p in work.iterdir()) == [], f"{path.name} leaves files in the working folder"

