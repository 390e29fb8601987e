"""A tmpfs mounted in a test's own folder (root only): a small disk that really fills up, or a second file system."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest


def mounted_tmpfs(mount: Path, size: str) -> Iterator[Path]:
    """Mount a tmpfs of ``size`` (``mount``'s ``size=`` option) at ``mount``, yield it, unmount it.

    Skips the test when not root or when mounting is not allowed here.
    """
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
