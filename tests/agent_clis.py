"""The real agentic CLIs of the npm registry, installed at their tested versions, once per machine.

The versions are the presets' own (``Harness.tested_version`` in
agenthorizon/judging/judges/presets.py, the one place they are written). They
are installed like a user's ``npm install -g``, into a prefix of their own
(``<prefix>/bin``, ``<prefix>/lib/node_modules``), in a per-user cache keyed by
the packages and versions, so a second run of the suite installs nothing:
``$AGENTHORIZON_TEST_CACHE`` or ``~/.cache/agenthorizon-tests``.

Node.js and npm come from Debian when missing (tests/debian_packages.py). Two
pytest-xdist workers never install at once: an exclusive lock file in the
cache serialises them, and a worker that waited finds the install done. An
install is complete only once its marker file is written, so an interrupted
one is redone, never half used.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from debian_packages import cache_root, ensure_debian_packages

from agenthorizon.judging.judges.presets import HARNESSES

_MARKER = "installed.txt"
_NODE_MAJOR = 20  # Gemini CLI 0.61 declares engines.node >= 20


def packages() -> list[str]:
    """``package@version`` of every npm preset, in the presets' order (OpenHands comes from PyPI)."""
    return [f"{harness.package}@{harness.tested_version}" for harness in HARNESSES.values() if harness.installer == "npm"]


def _node_ok() -> bool:
    if shutil.which("npm") is None or shutil.which("node") is None:
        return False
    done = subprocess.run(["node", "--version"], capture_output=True, text=True)
    try:
        return int(done.stdout.strip().lstrip("v").split(".")[0]) >= _NODE_MAJOR
    except ValueError:
        return False


def ensure_node() -> None:
    ensure_debian_packages(["nodejs", "npm"], lambda: shutil.which("npm") is not None, "the real-CLI tests")
    if not _node_ok():
        found = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
        pytest.fail(f"the real-CLI tests need Node.js {_NODE_MAJOR} or newer (Gemini CLI does); found {found}",
                    pytrace=False)


def install_clis() -> tuple[Path, float | None]:
    """The prefix holding the npm CLIs, installing them first if needed; and the install's seconds (``None``: cached)."""
    wanted = packages()
    key = hashlib.sha256("\n".join(wanted).encode()).hexdigest()[:12]
    root = cache_root() / f"npm-clis-{key}"
    marker = root / _MARKER
    if marker.is_file():
        return root, None
    ensure_node()
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.parent / f"npm-clis-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be installing right now
        if marker.is_file():
            return root, None
        shutil.rmtree(root, ignore_errors=True)  # what an interrupted install left
        started = time.monotonic()
        command = ["npm", "install", "--global", "--prefix", str(root), "--no-audit", "--no-fund",
                   "--loglevel=error", *wanted]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["no output"])[-3:]
            pytest.fail(f"`{' '.join(command)}` failed: {' / '.join(tail)}", pytrace=False)
        seconds = time.monotonic() - started
        marker.write_text("\n".join(wanted) + f"\ninstalled in {seconds:.1f} s\n", encoding="utf-8")
    return root, seconds
