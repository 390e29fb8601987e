"""Every docstring example in the package runs and shows what it claims.

Docstrings are documentation users copy from; an example that no longer runs
is a bug a user would hit.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import agenthorizon


def _module_names() -> list[str]:
    names = ["agenthorizon"]
    for info in pkgutil.walk_packages(agenthorizon.__path__, prefix="agenthorizon."):
        if info.name != "agenthorizon.__main__":  # importing it runs the command line
            names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", _module_names())
def test_docstring_examples_run(name: str, tmp_path, monkeypatch) -> None:
    # Examples that write files do so in the working directory: keep it private.
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed; run pytest --doctest-modules on it"
