"""What one agent may use (processes, memory, open files, file size) and how much of its output is kept.

:class:`AgentLimits` becomes a ``prlimit`` prefix; :func:`limit_reached` names
the limit a failed agent hit; :func:`run_agent` runs it; :func:`read_tail` reads
its answer file. Limits and flags: docs/judges.md ("Limits").
"""

from __future__ import annotations

import asyncio
import errno
import os
import secrets
import shutil
import signal
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from agenthorizon.judging.judges.base import JudgeError, TransientJudgeError
from agenthorizon.judging.judges.output_cap import TailBuffer
from agenthorizon.judging.judges.agent_disk import DEFAULT_DISK_BYTES
from agenthorizon.judging.judges.sandbox import MARKER_VARIABLE, kill_agent
from agenthorizon.util.sizes import parse_size, size_text

__all__ = [
    "AgentEnd",
    "AgentLimits",
    "DEFAULT_MAX_FILES",
    "DEFAULT_MAX_MEMORY",
    "DEFAULT_MAX_PROCESSES",
    "drain",
    "largest_file",
    "limit_reached",
    "read_tail",
    "require_prlimit",
    "run_agent",
]

DEFAULT_MAX_PROCESSES = 1024
"""Processes and threads one agent may have at once (``RLIMIT_NPROC`` in its user namespace)."""
DEFAULT_MAX_MEMORY = 8 * 2**30
"""Bytes of heap and private writable memory per agent process (``RLIMIT_DATA``): 8 GiB."""
DEFAULT_MAX_FILES = 4096
"""Open files per agent process (``RLIMIT_NOFILE``)."""
_CHUNK = 1 << 16
_PIPE_GRACE_S = 5.0


def _positive(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{what}: expected a positive whole number, got {value!r}")
    return value


@dataclass(frozen=True)
class AgentLimits:
    """The resource limits of one agent: ``RLIMIT_NPROC`` (only when sandboxed), ``RLIMIT_DATA``, ``RLIMIT_NOFILE``, ``RLIMIT_FSIZE``.

    >>> limits = AgentLimits(processes=64, memory="512M", open_files=256, disk="1M")
    >>> limits.prlimit_argv(sandboxed=True)
    ['prlimit', '--nproc=64:64', '--data=536870912:536870912', '--nofile=256:256', '--fsize=1048576:1048576', '--']
    >>> limits.prlimit_argv(sandboxed=False)
    ['prlimit', '--data=536870912:536870912', '--nofile=256:256', '--fsize=1048576:1048576', '--']
    """

    processes: int = DEFAULT_MAX_PROCESSES
    memory: int | str = DEFAULT_MAX_MEMORY
    open_files: int = DEFAULT_MAX_FILES
    disk: int | str = DEFAULT_DISK_BYTES

    def __post_init__(self) -> None:
        _positive(self.processes, "agent_max_processes")
        object.__setattr__(self, "memory", parse_size(self.memory, "agent_max_memory"))
        _positive(self.open_files, "agent_max_files")
        object.__setattr__(self, "disk", parse_size(self.disk, "agent_max_disk"))

    def prlimit_argv(self, *, sandboxed: bool) -> list[str]:
        """The ``prlimit ... --`` prefix that sets the limits (soft = hard) for the agent's command."""
        argv = ["prlimit"]
        if sandboxed:
            argv.append(f"--nproc={self.processes}:{self.processes}")
        argv += [f"--data={self.memory}:{self.memory}", f"--nofile={self.open_files}:{self.open_files}",
                 f"--fsize={self.disk}:{self.disk}", "--"]
        return argv

    def record(self, *, sandboxed: bool) -> dict[str, int | None]:
        """The limits as the judge's spec records them (``None``: not set); ``disk_bytes`` is both the disk budget and ``RLIMIT_FSIZE``."""
        return {"processes": self.processes if sandboxed else None, "memory_bytes": int(self.memory),
                "open_files": self.open_files, "disk_bytes": int(self.disk)}

    def describe(self, kind: str) -> str:
        """One limit in words with the flag that raises it (``kind``: processes, memory, open_files, disk, file_size)."""
        if kind == "processes":
            return f"the process limit ({self.processes} processes and threads; --agent-max-processes)"
        if kind == "memory":
            return f"the memory limit ({size_text(int(self.memory))} per process; --agent-max-memory)"
        if kind == "disk":
            return f"the disk budget ({size_text(int(self.disk))} for all it writes in the sandbox; --agent-max-disk)"
        if kind == "file_size":
            return f"the file-size limit ({size_text(int(self.disk))} per file; --agent-max-disk)"
        return f"the open-file limit ({self.open_files} per process; --agent-max-files)"


# What a program says when the kernel refuses it one of the limits above, most specific first.
_SIGNS = (
    ("open_files", ("Too many open files", "EMFILE")),
    ("memory", ("MemoryError", "Cannot allocate memory", "out of memory", "Out of memory", "bad_alloc", "ENOMEM",
                "memory allocation", "allocation failed")),
    ("processes", ("Resource temporarily unavailable", "fork: retry", "Cannot fork", "can't fork", "EAGAIN",
                   "pthread_create", "BlockingIOError")),
)


def require_prlimit() -> None:
    """Raise ``RuntimeError`` with the fix when ``prlimit`` (util-linux), which sets the limits, is missing."""
    if shutil.which("prlimit") is None:
        raise RuntimeError("prlimit (util-linux) sets each agent's resource limits and is not installed; "
                           "install util-linux (Debian/Ubuntu: apt-get install util-linux)")


@dataclass(frozen=True)
class AgentEnd:
    """What the kernel and the sandbox say of how an agent ended: the facts :func:`limit_reached` reads first.

    ``returncode``: exit status (bubblewrap exits with 128 + the killing signal;
    unconfined, a negative signal number); ``disk``: ``{mount: (used, size)}`` in
    bytes at the end; ``largest_file``: bytes of the largest file in its answer
    folder; ``cgroup``: its counters ``oom_kill``, ``memory_max``, ``pids_max``
    (times the kernel killed a process for memory, refused memory, refused a fork).
    """

    returncode: int
    disk: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    largest_file: int = 0
    cgroup: Mapping[str, int] = field(default_factory=dict)

    def signal(self, *, sandboxed: bool) -> int | None:
        """The signal that killed the agent, if one did."""
        code = self.returncode
        return -code if code < 0 else code - 128 if sandboxed and 128 < code < 128 + 65 else None


_FULL_SLACK = 2**20  # a budget with less than this free is full: the failed write wanted more


def limit_reached(stderr: str, limits: AgentLimits, *, sandboxed: bool, end: AgentEnd | int = 1) -> str | None:
    """What a failed agent's end says of its limits, naming the limit and its flag; ``None``: nothing.

    Facts first (:class:`AgentEnd`: cgroup counters, a killing signal such as
    ``SIGXFSZ``, a full disk budget, a file at the size limit), then what the
    agent printed when the kernel refused it a process, memory or a file
    descriptor (said as "likely"), then a signal a runtime refused memory dies
    of. The process limit is named only when ``sandboxed``.

    >>> limits = AgentLimits(processes=64, memory="512M", disk="1G")
    >>> limit_reached("", limits, sandboxed=True, end=AgentEnd(128 + 25))
    'was killed by SIGXFSZ: it wrote past the file-size limit (1 GiB per file; --agent-max-disk)'
    >>> limit_reached("", limits, sandboxed=True, end=AgentEnd(1, disk={"/tmp": (2**30, 2**30)}))
    'filled the disk budget (1 GiB for all it writes in the sandbox; --agent-max-disk): 1 GiB of 1 GiB used at its end'
    >>> limit_reached("", limits, sandboxed=True, end=AgentEnd(137, cgroup={"oom_kill": 1}))
    'was killed for memory by its cgroup: the memory limit (512 MiB for all its processes; --agent-max-memory)'
    >>> limit_reached("BlockingIOError: [Errno 11] Resource temporarily unavailable", limits, sandboxed=True)
    'likely hit the process limit (64 processes and threads; --agent-max-processes)'
    >>> limit_reached("", limits, sandboxed=True, end=134)
    'died of SIGABRT, as a runtime refused memory does: possibly the memory limit (512 MiB per process; --agent-max-memory)'
    >>> limit_reached("no quota left", AgentLimits(), sandboxed=True) is None
    True
    """
    end = end if isinstance(end, AgentEnd) else AgentEnd(end)
    memory = size_text(int(limits.memory))
    if end.cgroup.get("oom_kill", 0) > 0 or end.cgroup.get("memory_max", 0) > 0 and end.signal(sandboxed=sandboxed):
        return (f"was killed for memory by its cgroup: the memory limit ({memory} for all its processes; "
                "--agent-max-memory)")
    if end.cgroup.get("pids_max", 0) > 0:
        return (f"was refused a process by its cgroup: the process limit ({limits.processes} processes and threads "
                "together; --agent-max-processes)")
    number = end.signal(sandboxed=sandboxed)
    if number == signal.SIGXFSZ:
        return f"was killed by SIGXFSZ: it wrote past {limits.describe('file_size')}"
    for used, size in end.disk.values():
        if size - used < min(_FULL_SLACK, size // 100 + 1):
            return f"filled {limits.describe('disk')}: {size_text(used)} of {size_text(size)} used at its end"
    if end.largest_file >= int(limits.disk):
        return f"wrote a file of {size_text(end.largest_file)} to its answer folder: {limits.describe('file_size')}"
    for kind, signs in _SIGNS:
        if kind == "processes" and not sandboxed:
            continue
        if any(sign in stderr for sign in signs):
            return f"likely hit {limits.describe(kind)}"
    if number in _MEMORY_SIGNALS:
        return (f"died of {signal.Signals(number).name}, as a runtime refused memory does: possibly "
                f"{limits.describe('memory')}")
    if number == signal.SIGKILL:  # not the harness's: its own kills (timeout, cancellation) never get here
        return (f"was killed by SIGKILL, as the kernel's out-of-memory killer does: possibly "
                f"{limits.describe('memory')}")
    return None


_MEMORY_SIGNALS = {signal.SIGABRT, signal.SIGTRAP, signal.SIGSEGV, signal.SIGBUS}


def largest_file(folder: Path, most: int = 10_000) -> int:
    """The size in bytes of the largest regular file under ``folder`` (0: none), looking at ``most`` entries at most.

    No link is followed (``lstat``): what the agent left is only measured, never read.
    """
    largest, seen, stack = 0, 0, [str(folder)]
    while stack and seen < most:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                seen += 1
                if seen > most:
                    break
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISDIR(info.st_mode):
                    stack.append(entry.path)
                elif stat.S_ISREG(info.st_mode):
                    largest = max(largest, info.st_size)
    return largest


async def drain(fd: int, tail: TailBuffer) -> None:
    """Read the pipe ``fd`` to its end into ``tail``, on the running event loop; ``fd`` is closed afterwards.

    A pipe of its own rather than ``asyncio``'s subprocess pipes: waiting for
    the process must not wait for the pipe (a descendant may hold it open).
    """
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_CHUNK)
    pipe = open(fd, "rb", buffering=0)  # noqa: SIM115 - the transport owns and closes it
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    try:
        while chunk := await reader.read(_CHUNK):
            tail.add(chunk)
    finally:
        transport.close()


_NOT_REGULAR = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)
# Never follow a link the agent planted, never wait on a FIFO, never take a terminal.
_ANSWER_FLAGS = (os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
                 | getattr(os, "O_CLOEXEC", 0))


def _refused(path: str, mode: int) -> JudgeError:
    kind = next((name for test, name in _NOT_REGULAR if test(mode)), "not a regular file")
    link = ""
    if stat.S_ISLNK(mode):
        try:
            link = f" to {os.readlink(path)[:200]!r}"
        except OSError:
            pass
    return JudgeError(f"answer file {path} is {kind}{link}; refused: the harness reads only a regular file "
                      "the agent wrote, never through a link, and never waits on a pipe")


def read_tail(path: str, cap: int) -> TailBuffer | None:
    """The last ``cap`` bytes of an agent's answer file ``path``, read without loading the rest; ``None``: no file.

    Only a regular file is read (``lstat``, ``O_NOFOLLOW | O_NONBLOCK``, then
    ``fstat``): a link, FIFO or device raises :class:`JudgeError` naming what it is.
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(mode):
        raise _refused(path, mode)
    try:
        fd = os.open(path, _ANSWER_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as error:  # ELOOP: a link swapped in since the lstat
        if error.errno == errno.ELOOP:
            raise _refused(path, stat.S_IFLNK) from None
        raise JudgeError(f"answer file {path}: cannot open it ({error.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _refused(path, info.st_mode)
        tail = TailBuffer(cap)
        start = max(0, info.st_size - cap)
        tail.skip(start)
        offset = start
        while offset < info.st_size and (chunk := os.pread(fd, info.st_size - offset, offset)):
            tail.add(chunk)
            offset += len(chunk)
        return tail
    finally:
        os.close(fd)


async def run_agent(
    argv: Sequence[str], *, cwd: Path, stdin: Path, env: Mapping[str, str], timeout: float, max_output_bytes: int,
    what: str,
) -> tuple[int, TailBuffer, TailBuffer]:
    """Run ``argv`` to its end, or kill it (and everything it started) after ``timeout`` seconds or on cancellation.

    Returns its exit status and the ends of its stdout and stderr (at most
    ``max_output_bytes`` each). ``what`` names the agent in errors. Its process
    group and every process marked with its per-run variable are killed when it
    ends, however it ends. A timeout raises :class:`TransientJudgeError`.
    """
    marker = secrets.token_hex(8)
    out, err = TailBuffer(max_output_bytes), TailBuffer(max_output_bytes)
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    try:
        with open(stdin, "rb") as stdin_file:
            process = await asyncio.create_subprocess_exec(
                *argv,
                cwd=cwd,
                stdin=stdin_file,
                stdout=out_write,
                stderr=err_write,
                env={**env, MARKER_VARIABLE: marker},
                start_new_session=True,  # its own process group: killed as one
            )
    except BaseException as error:
        os.close(out_read)
        os.close(err_read)
        if isinstance(error, (FileNotFoundError, PermissionError)):
            raise JudgeError(f"command judge: cannot run {argv[0]!r} ({error.strerror})") from None
        raise
    finally:
        os.close(out_write)  # the agent holds the writing ends now
        os.close(err_write)
    readers = [asyncio.ensure_future(drain(out_read, out)), asyncio.ensure_future(drain(err_read, err))]
    try:
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except asyncio.TimeoutError:
            raise TransientJudgeError(f"{what}: timed out after {timeout:g} s") from None
    finally:
        # Always, even after a normal exit: nothing the agent started outlives it.
        kill_agent(process.pid, marker)
        if process.returncode is None:
            await process.wait()
        # Everything holding the pipes is dead now (the sandbox's namespace, or the marked processes);
        # a descendant that escaped both cannot keep the item waiting past this grace.
        try:
            await asyncio.wait(readers, timeout=_PIPE_GRACE_S)
        finally:
            for reader in readers:
                reader.cancel()
    return process.returncode, out, err
