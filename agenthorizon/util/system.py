"""Facts about the machine the package runs on, defined once.

A leaf module (standard library only) so every stage may import it.
"""

from __future__ import annotations

import os

__all__ = ["available_cpus"]


def available_cpus() -> int:
    """CPUs this process may run on: at least 1.

    The scheduler's affinity mask where the platform has one (Linux: a
    container or ``taskset`` limit shows here, not in :func:`os.cpu_count`),
    otherwise :func:`os.cpu_count`; 1 when neither is known.

    Returns
    -------
    int
        In ``[1, os.cpu_count()]``.

    Examples
    --------
    >>> 1 <= available_cpus() <= (os.cpu_count() or 1)
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity mask on this platform (macOS, Windows)
        return os.cpu_count() or 1
