"""A cell's own model server: started before its judge, waited for, stopped whatever happens.

:func:`model_server` runs the server in a process group of its own and, on
leaving the block, terminates the whole group (SIGTERM, then SIGKILL after a
grace period), so no server outlives its cell.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Iterator

__all__ = ["ServerError", "free_port", "model_server"]

_GRACE_S = 10.0
_POLL_S = 0.2


class ServerError(RuntimeError):
    """The model server did not come up: it exited, or did not answer in time (the log's path is named)."""


def free_port() -> int:
    """A TCP port of 127.0.0.1 that is free now (the server binds it soon after)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers(url: str) -> bool:
    import urllib.error  # here: `sweep plan` and `status` import this module for its error type only
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _stop(process: subprocess.Popen) -> None:
    """Terminate the server's process group, then kill what is left of it after the grace period."""
    for sig, wait in ((signal.SIGTERM, _GRACE_S), (signal.SIGKILL, _GRACE_S)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        # The leader is gone; children of the group may not be.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        return


@contextlib.contextmanager
def model_server(command: str, port: int, log_path: str | os.PathLike[str], timeout: float) -> Iterator[str]:
    """Run ``command`` (shell-quoted, run without a shell; ``{port}`` filled in) for the duration of the block; yields its base URL ``…/v1``.

    Output is appended to ``log_path``; ``/v1/models`` must answer 200 within
    ``timeout`` seconds, else :class:`ServerError` (also when it exits first).
    """
    words = [word.replace("{port}", str(port)) for word in shlex.split(command)]
    if not words:
        raise ValueError("the judge's server command is empty; expected e.g. \"vllm serve MODEL --port {port}\"")
    log_path = Path(log_path)
    base = f"http://127.0.0.1:{port}/v1"
    with open(log_path, "ab") as log:
        log.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {shlex.join(words)}\n".encode())
        log.flush()
        try:
            process = subprocess.Popen(words, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       start_new_session=True)
        except OSError as error:
            raise ServerError(f"could not start the model server {words[0]!r}: {error}") from None
    previous = _stop_on_sigterm()
    try:
        deadline = time.monotonic() + timeout
        while not _answers(base + "/models"):
            if process.poll() is not None:
                raise ServerError(f"the model server exited with status {process.returncode} before "
                                  f"{base}/models answered; its log: {log_path}")
            if time.monotonic() > deadline:
                raise ServerError(f"the model server did not answer {base}/models within {timeout:g} s; "
                                  f"its log: {log_path}")
            time.sleep(_POLL_S)
        yield base
    finally:
        _stop(process)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt("SIGTERM")


def _stop_on_sigterm() -> object | None:
    """Turn SIGTERM into ``KeyboardInterrupt`` while the server runs, so a scheduler's stop during the wait
    still stops it; returns the handler to restore (``None`` off the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, _terminated)
    return previous
