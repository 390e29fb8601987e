"""The progress bar of every long wait outside a judge run (``sample``, ``verify``, ``export``, ``report``).

One tqdm bar on standard error, drawn only after a second and only on a
terminal; tqdm's own ``TQDM_*`` environment variables take precedence over
these defaults. tqdm is imported only when a bar may be drawn.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["DELAY_S", "is_terminal", "progress_bar"]

DELAY_S = 1.0
"""Seconds a wait lasts before its bar is drawn."""


def progress_bar(total: int | None, desc: str, unit: str = "it", **options: Any) -> Any:
    """A ``tqdm`` bar of ``total`` steps named ``desc``; use it as a context manager and call ``update(n)``.

    >>> import io
    >>> drawn = io.StringIO()
    >>> with progress_bar(2, "items", disable=False, delay=0, file=drawn) as bar:
    ...     bar.update(2)
    >>> bar.n, "2/2" in drawn.getvalue()
    (2, True)
    """
    stream = options.get("file", sys.stderr)
    disable = options.get("disable")
    if disable is True or (disable is None and "TQDM_DISABLE" not in os.environ and not is_terminal(stream)):
        return _NoBar()  # tqdm would draw nothing either

    from tqdm import tqdm

    defaults = {"delay": DELAY_S, "disable": None, "file": sys.stderr, "dynamic_ncols": True}
    # An explicit keyword would override tqdm's TQDM_* environment settings; leave those to tqdm.
    kwargs = {key: value for key, value in defaults.items() if f"TQDM_{key.upper()}" not in os.environ}
    kwargs.update(options)
    return tqdm(total=total, desc=desc, unit=unit, **kwargs)


class _NoBar:
    """What :func:`progress_bar` returns when no bar is drawn: the calls its users make, counting only."""

    def __init__(self) -> None:
        self.n = 0

    def update(self, n: int = 1) -> None:
        self.n += n

    def close(self) -> None:
        pass

    def __enter__(self) -> "_NoBar":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def is_terminal(stream: Any) -> bool:
    """True when ``stream`` is a terminal (a bar can be drawn on it); False for a pipe, a file or a closed stream.

    >>> import io
    >>> is_terminal(io.StringIO())
    False
    """
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed, or not a real file
        return False
