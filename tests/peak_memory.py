"""Peak resident memory of a child Python process, for tests that bound what untrusted input may cost."""

from __future__ import annotations

import json
import subprocess
import sys

# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent through fork and exec.
_REPORT = """
import json as _json, sys as _sys
def _report(result):
    status = open("/proc/self/status").read().split("VmHWM:")[1].split()
    print(_json.dumps({"result": result, "peak_bytes": int(status[0]) * 1024}))
"""


def run_measured(program: str, *args: str, timeout: float = 300) -> tuple[object, int]:
    """Run ``program`` (which calls ``_report(result)`` once, JSON-able) in a child; (result, its peak RSS in bytes)."""
    done = subprocess.run(
        [sys.executable, "-c", _REPORT + program, *args], capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return report["result"], report["peak_bytes"]


def baseline_peak(imports: str) -> int:
    """The peak RSS of a child that only runs ``imports``: what a measured child costs before its work."""
    return run_measured(imports + "\n_report(None)\n")[1]
