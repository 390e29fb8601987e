"""Optional extras: one error (:class:`MissingExtraError`), with install advice that works where the package was installed from.

The advice is the quoted requirement (zsh globs brackets), or ``pip install -e``
of the checkout's folder when the package runs from a source tree.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

__all__ = ["MissingExtraError", "install_advice", "require_extra"]


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message says how to install it."""


def _checkout() -> Path | None:
    """The source tree the package runs from (the folder with its pyproject.toml), if any."""
    top = Path(__file__).resolve().parents[2]
    pyproject = top / "pyproject.toml"
    try:
        if pyproject.is_file() and 'name = "agenthorizon"' in pyproject.read_text(encoding="utf-8"):
            return top
    except OSError:
        return None
    return None


def install_advice(extra: str) -> str:
    """The shell command that installs ``extra`` for this installation of agenthorizon.

    >>> install_advice("plot").startswith("pip install ")
    True
    >>> "'" in install_advice("plot")  # quoted: the brackets are a glob in zsh
    True
    """
    checkout = _checkout()
    if checkout is not None:
        return f"pip install -e '{checkout}[{extra}]'"
    return f"pip install 'agenthorizon[{extra}]'"


def require_extra(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingExtraError` naming ``purpose`` and the install command.

    >>> require_extra("json", "plot", "figures").__name__
    'json'
    >>> require_extra("not_a_module_xyz", "plot", "figures")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    agenthorizon.util.extras.MissingExtraError: figures need not_a_module_xyz, from the optional extra 'plot' of agenthorizon; install it with: pip install ...
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtraError(
            f"{purpose} need {module}, from the optional extra {extra!r} of agenthorizon; "
            f"install it with: {install_advice(extra)}"
        ) from error
