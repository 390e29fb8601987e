"""Installing the Debian packages some tests need, once per machine, safely in parallel.

The suite runs under pytest-xdist, so two workers can want a package at the
same moment (the browser test wants Chromium while a sandbox test wants
bubblewrap); two apt-get processes would then fight over dpkg's lock and one
would fail. Installs are therefore serialised by an exclusive lock file, and a
worker that waited finds the package already there.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest



def cache_root() -> Path:
    """The per-user folder of what the tests install, shared by every worker and every run of the suite:
    ``$AGENTHORIZON_TEST_CACHE`` or ``~/.cache/agenthorizon-tests`` (the user's home from the password
    database: tests give CLIs a ``HOME`` of their own)."""
    configured = os.environ.get("AGENTHORIZON_TEST_CACHE")
    return Path(configured) if configured else Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "agenthorizon-tests"


# The Debian packages the suite installs (their own files under /etc, /usr and /var are theirs, not a test's).
INSTALLED_PACKAGES = ("bubblewrap", "chromium", "chromium-driver", "nodejs", "npm", "slurm-wlm", "munge")

# Not under the temporary folder: tests/conftest.py gives each xdist worker a temporary folder
# of its own, and a lock there would let two workers run apt-get at once.
_LOCK_NAME = "apt.lock"


def ensure_debian_packages(packages: Sequence[str], present: Callable[[], bool], why: str) -> None:
    """Install ``packages`` with apt-get (as root) unless ``present()``; fail with one line otherwise.

    ``why`` names the tests that need them, for the failure message.
    """
    if present():
        return
    wanted = f"Debian's {' and '.join(packages)} (apt-get install -y {' '.join(packages)})"
    if os.geteuid() != 0:
        pytest.fail(f"{why} need {wanted}; not root, so they cannot be installed here", pytrace=False)
    cache_root().mkdir(parents=True, exist_ok=True)
    with open(cache_root() / _LOCK_NAME, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be installing right now
        if present():
            return
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (["apt-get", "update"], ["apt-get", "install", "-y", *packages]):
            completed = subprocess.run(command, capture_output=True, text=True, env=env)
            if completed.returncode != 0:
                last = (completed.stderr.strip().splitlines() or ["no output"])[-1]
                pytest.fail(f"{why} need {wanted}; `{' '.join(command)}` failed: {last}", pytrace=False)
    if not present():
        pytest.fail(f"apt-get succeeded but {why} still lack {wanted}", pytrace=False)
