"""The progress bar of every long wait outside a judge run (``sample``, ``verify``, ``export``, ``report``).

One tqdm bar on standard error that appears only after a second
(``delay``), so quick commands print nothing, and that is off when standard
error is not a terminal (``disable=None``), as tqdm users expect from a
command line. tqdm's own ``TQDM_*`` environment variables (``TQDM_DISABLE=1``,
``TQDM_DELAY=0``...) take precedence over these defaults. A leaf like
:mod:`agenthorizon.util.system`: every stage may import it; tqdm is imported on
first use.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["DELAY_S", "progress_bar"]

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
    from tqdm import tqdm

    defaults = {"delay": DELAY_S, "disable": None, "file": sys.stderr, "dynamic_ncols": True}
    # An explicit keyword would override tqdm's TQDM_* environment settings; leave those to tqdm.
    kwargs = {key: value for key, value in defaults.items() if f"TQDM_{key.upper()}" not in os.environ}
    kwargs.update(options)
    return tqdm(total=total, desc=desc, unit=unit, **kwargs)
