"""``agenthorizon_loader.py`` and ``agenthorizon.load_dataset`` on ``datasets`` 3.x, end to end.

The loading script claims to serve users still on ``datasets`` < 4 (the last
versions that run loading scripts). This test proves it in a separate virtual
environment holding an exact ``datasets`` 3.x release (``DATASETS_3``) and this
checkout installed with ``--no-deps`` (editable, so a cached environment always
runs the current code): it loads ``AH`` of the tiny corpus through
``datasets.load_dataset("agenthorizon_loader.py", ...)`` and through
``agenthorizon.load_dataset``, and checks that both give exactly the rows that
``datasets`` 5 gives in this session, and that screenshots decode lazily.

The environment is built once per requirement set and cached under pytest's
cache directory (``.pytest_cache/d/``), so repeat runs only pay for the two
loads. Building it needs the package registry (or pip's cache): when pip
cannot install the requirements the test fails, saying so.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

DATASETS_3 = "datasets==3.6.0"
"""The ``datasets`` 3.x release verified to work (3.5.0 passes test_builder and release/test_files too)."""

# The other runtime dependencies the builder imports, pinned to the versions of
# this session so the only difference between the two runs is `datasets`.
_SAME_AS_SESSION = ("huggingface_hub", "pyarrow", "pillow", "numpy", "tqdm", "httpx", "orjson")

_PROBE = r"""
import json, sys
import datasets, PIL.Image
import agenthorizon

loader, root, cache = sys.argv[1:4]
opened = []
_open = PIL.Image.open
def counting_open(path, *args, **kwargs):
    opened.append(str(getattr(path, "name", path)))  # a path, or the regular file opened for it
    return _open(path, *args, **kwargs)
PIL.Image.open = counting_open  # every decode, by datasets or by LazyScreenshots, goes through it

script = datasets.load_dataset(
    loader, "AH", data_dir=root, trust_remote_code=True, cache_dir=cache + "/script", split="test"
)
library = agenthorizon.load_dataset(root, "AH", split="test", cache_dir=cache + "/library")

def columns(dataset):
    return {name: values for name, values in dataset[:].items() if name != "screenshots"}

row = library[0]
lazy_paths = [list(shots.paths) for shots in library[:]["screenshots"]]
decodes_before_indexing = len(opened)
k = next(i for i, path in enumerate(row["screenshots"].paths) if path is not None)
image = row["screenshots"][k]
print(json.dumps({
    "datasets_version": datasets.__version__,
    "script_columns": columns(script),
    "script_paths": [[s and s["path"] for s in shots] for shots in script[:]["screenshots"]],
    "library_columns": columns(library),
    "library_paths": lazy_paths,
    "decodes_before_indexing": decodes_before_indexing,
    "decoded": opened[decodes_before_indexing:],
    "indexed_path": row["screenshots"].paths[k],
    "image_size": list(image.size),
}))
"""


def _requirements() -> list[str]:
    return [DATASETS_3, *(f"{name}=={version(name)}" for name in _SAME_AS_SESSION)]


def _run(command: list[str], what: str, timeout: float, *, detail: bool = False) -> subprocess.CompletedProcess[str]:
    """Run ``command``; on failure fail the test with one line (what failed and the tool's
    last word), or with the output's last 25 lines when ``detail`` (a failing probe is a
    real failure whose traceback matters; a failing install is a missing prerequisite)."""
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        lines = (result.stdout + result.stderr).strip().splitlines() or ["no output"]
        if detail:
            pytest.fail(f"{what} failed (exit {result.returncode}):\n" + "\n".join(lines[-25:]), pytrace=False)
        last = ((result.stderr.strip() or result.stdout.strip()).splitlines() or ["no output"])[-1]
        pytest.fail(f"{what} failed (exit {result.returncode}): {last}", pytrace=False)
    return result


@pytest.fixture(scope="module")
def datasets3_python(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Python of a venv with ``DATASETS_3`` and this checkout (``--no-deps``, editable)."""
    from filelock import FileLock

    requirements = _requirements()
    key = hashlib.sha256(json.dumps([requirements, sys.version, str(REPO)]).encode()).hexdigest()[:12]
    cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    base = cache.mkdir(f"agenthorizon-datasets3-{key}") if cache is not None else tmp_path_factory.mktemp("datasets3")
    venv, ready = base / "venv", base / "ready"
    python = venv / "bin" / "python"
    # Two sessions (or xdist workers) may want the environment at once.
    with FileLock(str(base / "lock")):
        if not ready.exists():
            shutil.rmtree(venv, ignore_errors=True)
            _run([sys.executable, "-m", "venv", str(venv)], "creating a venv", timeout=120)
            pip = [str(python), "-m", "pip", "install", "--quiet", "--timeout", "60", "--retries", "2"]
            _run(
                [*pip, *requirements],
                f"pip install of {' '.join(requirements)} (this test needs the package registry, "
                "PyPI, or a pip cache holding those wheels)",
                timeout=900,
            )
            _run([*pip, "--no-deps", "--editable", str(REPO)], "pip install --no-deps of this checkout", timeout=300)
            ready.write_text("\n".join(requirements) + "\n", encoding="utf-8")
    return python


@pytest.mark.slow
def test_loading_script_and_load_dataset_work_on_datasets_3(datasets3_python, tiny_root, tmp_path):
    import agenthorizon

    completed = _run(
        [str(datasets3_python), "-c", _PROBE, str(REPO / "agenthorizon_loader.py"), str(tiny_root), str(tmp_path)],
        f"loading AH with {DATASETS_3}",
        timeout=300,
        detail=True,
    )
    probe = json.loads(completed.stdout.strip().splitlines()[-1])
    assert probe["datasets_version"] == DATASETS_3.split("==")[1]

    # The rows datasets 5 gives in this session, as JSON values like the probe's.
    reference = agenthorizon.load_dataset(tiny_root, "AH", split="test", cache_dir=tmp_path / "reference")
    columns = reference[:]
    expected = json.loads(json.dumps({name: values for name, values in columns.items() if name != "screenshots"}))
    expected_paths = [list(shots.paths) for shots in columns["screenshots"]]
    label_ids = [
        json.loads(line)["trajectory_id"]
        for line in (tiny_root / "AgentHorizon.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert expected["trajectory_id"] == label_ids

    # Both ways of loading on datasets 3.x give every field of every row, in label order.
    assert probe["script_columns"] == expected
    assert probe["library_columns"] == expected
    assert probe["script_paths"] == expected_paths
    assert probe["library_paths"] == expected_paths

    # Lazy on datasets 3.x: reading a row and the whole screenshot column decodes
    # nothing; indexing one screenshot decodes exactly that file.
    assert probe["decodes_before_indexing"] == 0
    assert probe["decoded"] == [probe["indexed_path"]]
    assert probe["image_size"][0] > 0 and probe["image_size"][1] > 0
