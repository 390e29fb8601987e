"""Execute the example notebooks on the sample corpus and store them with their outputs.

Run it after changing a notebook or anything its outputs show::

    python tools/execute_notebooks.py            # every examples/*.ipynb, rewritten in place
    python tools/execute_notebooks.py --check    # execute copies; report stored notebooks that are stale

Each notebook runs top to bottom in a fresh ``python3`` kernel (``nbclient``)
on the ``small`` sample corpus (``AGENTHORIZON_DATA``), offline, with progress
bars off so the stored outputs are the tables, screenshots, plots and text a
reader should see (a code-hosting site renders them without running anything).
Every code cell gets ``metadata.agenthorizon.source_sha256``, the hash of the
source its outputs came from: :func:`stale_cells` compares it with the cell's
current source, so an edited cell whose outputs were not regenerated is
caught (tests/project/test_examples.py).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
TIMEOUT_S = 600


def notebooks() -> list[Path]:
    return sorted(EXAMPLES.glob("*.ipynb"))


def source_sha256(source: str) -> str:
    """Hash of a cell's source, as stored in ``metadata.agenthorizon.source_sha256``."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def kernel_environment(data_root: Path, hf_home: Path) -> dict[str, str]:
    """The environment the kernel inherits: the sample corpus, offline HF settings, no progress bars;
    its Jupyter and IPython state beside ``hf_home``."""
    return {
        "AGENTHORIZON_DATA": str(data_root),
        "HF_HOME": str(hf_home),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_HUB_DISABLE_PROGRESS_BARS": "1",
        # datasets draws its own bars (tqdm.auto: widgets where ipywidgets is installed);
        # stored outputs must not depend on which extras the executing venv has.
        "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
        "TQDM_DISABLE": "1",
        # The kernel's connection file and IPython's profile and history go to the run's folder, not the home.
        "JUPYTER_RUNTIME_DIR": str(hf_home.parent / "jupyter-runtime"),
        "IPYTHONDIR": str(hf_home.parent / "ipython"),
        # matplotlib's font cache and config too (it would write ~/.cache/matplotlib and ~/.config/matplotlib).
        "MPLCONFIGDIR": str(hf_home.parent / "matplotlib"),
    }


def execute(path: Path, data_root: Path, workdir: Path) -> Any:
    """The notebook at ``path`` executed in a fresh kernel; its code cells stamped with their source hash.

    The kernel inherits this process's environment updated with
    :func:`kernel_environment`, and runs in ``workdir``.
    """
    import nbformat
    from nbclient import NotebookClient

    book = nbformat.read(path, as_version=4)
    saved = dict(os.environ)
    os.environ.update(kernel_environment(data_root, workdir / "hf-home"))
    try:
        client = NotebookClient(
            book,
            timeout=TIMEOUT_S,
            kernel_name="python3",
            resources={"metadata": {"path": str(workdir)}},
            record_timing=False,  # no per-cell timestamps: a re-run changes only what the code shows
        )
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    for cell in book.cells:
        cell.metadata.pop("execution", None)  # timestamps of an earlier run
        if cell.cell_type == "code":
            cell.metadata["agenthorizon"] = {"source_sha256": source_sha256(cell.source)}
    return book


def errors(book: Any) -> list[str]:
    """``ename: evalue`` of every error output."""
    return [
        f"cell {index}: {output.get('ename')}: {output.get('evalue')}"
        for index, cell in enumerate(book.cells)
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]


def stale_cells(book: Any) -> list[str]:
    """What makes a stored notebook's outputs untrustworthy, one line per cell.

    A code cell is stale when it was never executed by this script (no
    ``source_sha256``), when its source changed since (hash differs), or when
    it stored an error.
    """
    problems = []
    for index, cell in enumerate(book.cells):
        if cell.cell_type != "code":
            continue
        stamp = cell.metadata.get("agenthorizon", {}).get("source_sha256")
        if stamp is None:
            problems.append(f"cell {index}: no stored outputs from tools/execute_notebooks.py")
        elif stamp != source_sha256(cell.source):
            problems.append(f"cell {index}: source changed since its outputs were stored")
    return problems + errors(book)


def output_kinds(book: Any) -> list[list[str]]:
    """Per code cell, the kinds of output it shows: stream names and MIME types (no text)."""
    kinds = []
    for cell in book.cells:
        if cell.cell_type != "code":
            continue
        shown = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                shown.append(f"stream:{output.get('name')}")
            elif output.get("output_type") in ("display_data", "execute_result"):
                shown.append("+".join(sorted(output.get("data", {}))))
            else:
                shown.append(output.get("output_type", "?"))
        kinds.append(sorted(set(shown)))
    return kinds


def sample_corpus(base: Path) -> Path:
    """The ``small`` sample corpus (seed 0), the one the notebooks are stored with."""
    from agenthorizon.release.sample import generate

    root = base / "release"
    generate(root, preset="small", seed=0)
    return root


def main(argv: list[str] | None = None) -> int:
    import nbformat

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="do not write; exit 1 if a stored notebook is stale")
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: examples/*.ipynb)")
    args = parser.parse_args(argv)
    failed = False
    with tempfile.TemporaryDirectory(prefix="agenthorizon-notebooks-") as temp:
        base = Path(temp)
        data_root = sample_corpus(base / "corpus")
        for path in args.paths or notebooks():
            workdir = base / path.stem
            workdir.mkdir()
            book = execute(path, data_root, workdir)
            problems = errors(book)
            if args.check:
                stored = nbformat.read(path, as_version=4)
                problems += stale_cells(stored)
                if output_kinds(stored) != output_kinds(book):
                    problems.append("stored outputs differ in kind from a fresh run's")
            elif not problems:
                nbformat.write(book, path)
            failed |= bool(problems)
            print(f"{path.name}: " + ("; ".join(problems) if problems else "ok" if args.check else "written"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
