"""A cgroup (v2) per agent where the machine offers one: memory and processes bounded for the agent as a whole.

A child cgroup of the harness's bounds all of an agent's processes together
(``memory.max``, ``memory.swap.max`` 0, ``pids.max``); its event counters are
what :func:`~agenthorizon.judging.judges.agent_limits.limit_reached` reads.
Without a writable cgroup v2 delegating ``memory`` and ``pids``,
:func:`find_cgroup_parent` says why and agents run without one.
"""

from __future__ import annotations

import errno
import os
import secrets
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

__all__ = ["AgentCgroup", "AgentCgroups", "CgroupParent", "find_cgroup_parent", "read_counters"]

CONTROLLERS = ("memory", "pids")
_REMOVE_WAIT_S = 5.0


def read_counters(text: str) -> dict[str, int]:
    """The ``key value`` lines of a cgroup events file (``memory.events``, ``pids.events``) as integers.

    >>> read_counters("low 0\\nhigh 0\\nmax 3\\noom 1\\noom_kill 1\\n")
    {'low': 0, 'high': 0, 'max': 3, 'oom': 1, 'oom_kill': 1}
    """
    found = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) == 2 and words[1].isdigit():
            found[words[0]] = int(words[1])
    return found


def _cgroup2_mount(mountinfo: str) -> str | None:
    """The mount point of the cgroup v2 file system in ``/proc/self/mountinfo``'s text, if one is mounted."""
    for line in mountinfo.splitlines():
        fields = line.split(" - ", 1)
        if len(fields) == 2 and fields[1].split()[:1] == ["cgroup2"]:
            return fields[0].split()[4]
    return None


def _v1_holders(mountinfo: str) -> list[str]:
    """The cgroup v1 hierarchies that hold one of :data:`CONTROLLERS` (a hybrid host)."""
    held = []
    for line in mountinfo.splitlines():
        fields = line.split(" - ", 1)
        if len(fields) == 2 and fields[1].split()[:1] == ["cgroup"]:
            options = fields[1].split()[-1].split(",")
            held += [name for name in CONTROLLERS if name in options]
    return held


@dataclass(frozen=True)
class CgroupParent:
    """Where agents' cgroups are made (``path``), or why they cannot be (``reason``)."""

    path: Path | None
    reason: str | None = None


def find_cgroup_parent(root: str | None = None) -> CgroupParent:
    """The harness's own cgroup v2 folder when its children can get :data:`CONTROLLERS`, or why not.

    ``root`` replaces the mount point found in ``/proc/self/mountinfo`` (for a test).
    """
    try:
        mountinfo = Path("/proc/self/mountinfo").read_text()
        own = next((line[3:] for line in Path("/proc/self/cgroup").read_text().splitlines()
                    if line.startswith("0::")), None)
    except OSError as error:
        return CgroupParent(None, f"cannot read this process's cgroups ({error.strerror})")
    mount = root or _cgroup2_mount(mountinfo)
    if mount is None or own is None:
        return CgroupParent(None, "no cgroup v2 file system is mounted")
    parent = Path(mount) / own.strip().lstrip("/")
    try:
        offered = (parent / "cgroup.controllers").read_text().split()
        enabled = (parent / "cgroup.subtree_control").read_text().split()
    except OSError as error:
        return CgroupParent(None, f"cannot read the harness's cgroup {parent} ({error.strerror})")
    missing = [name for name in CONTROLLERS if name not in offered]
    if missing:
        held = [name for name in _v1_holders(mountinfo) if name in missing]
        why = (f"; cgroup v1 hierarchies hold {', '.join(held)} on this host (a hybrid setup: boot with "
               "systemd.unified_cgroup_hierarchy=1 for cgroup v2 alone)") if held else ""
        return CgroupParent(None, f"the cgroup v2 file system at {mount} offers no {' or '.join(missing)} "
                                  f"controller to the harness's cgroup {parent}{why}")
    wanted = [name for name in CONTROLLERS if name not in enabled]
    if wanted:
        try:
            (parent / "cgroup.subtree_control").write_text(" ".join(f"+{name}" for name in wanted))
        except OSError as error:
            if error.errno == errno.EBUSY:
                return CgroupParent(None, f"the harness's cgroup {parent} holds processes, so its children cannot "
                                          "get controllers (cgroup v2's no-internal-process rule); run the harness "
                                          "in a delegated cgroup (systemd-run --user --scope -p Delegate=yes ...)")
            return CgroupParent(None, f"cannot enable {', '.join(wanted)} for the children of {parent} "
                                      f"({error.strerror}); the harness may not write its cgroup")
    return CgroupParent(parent)


class AgentCgroup:
    """One agent's cgroup under ``parent``, made with its limits; :meth:`remove` ends it.

    Raises ``OSError`` when it cannot be made (the caller runs the agent without it, saying why).
    """

    def __init__(self, parent: Path, *, memory_max: int, pids_max: int | None) -> None:
        self.path = parent / f"agenthorizon-{os.getpid()}-{secrets.token_hex(4)}"
        self.path.mkdir()
        try:
            (self.path / "memory.max").write_text(str(memory_max))
            if (self.path / "memory.swap.max").exists():
                (self.path / "memory.swap.max").write_text("0")
            if pids_max is not None:
                (self.path / "pids.max").write_text(str(pids_max))
        except OSError:
            self.remove()
            raise

    def join_argv(self) -> list[str]:
        """A prefix that moves the command into this cgroup before it starts."""
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.path / "cgroup.procs")]

    def events(self) -> dict[str, int]:
        """``oom_kill`` and ``memory_max`` (``memory.events``), ``pids_max`` (``pids.events``' ``max``)."""
        found = {}
        for name, keys in (("memory.events", ("oom_kill", "max")), ("pids.events", ("max",))):
            try:
                counters = read_counters((self.path / name).read_text())
            except OSError:
                continue
            for key in keys:
                found[f"{name.split('.')[0]}_{key}" if key == "max" else key] = counters.get(key, 0)
        return found

    def remove(self) -> None:
        """Kill everything left in the cgroup and remove it (errors ignored: never fatal)."""
        try:
            (self.path / "cgroup.kill").write_text("1")
        except OSError:
            pass
        deadline = time.monotonic() + _REMOVE_WAIT_S
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.02)


class AgentCgroups:
    """One judge's agent cgroups: where they are made (found on first use), their record, one per agent.

    >>> plan = AgentCgroups(memory_max=2**30, pids_max=64)
    >>> plan._parent = CgroupParent(None, "no cgroup v2 file system is mounted")
    >>> plan.record(), plan.make() is None
    ({'used': False, 'reason': 'no cgroup v2 file system is mounted'}, True)
    """

    def __init__(self, *, memory_max: int, pids_max: int | None) -> None:
        self.memory_max, self.pids_max = memory_max, pids_max
        self._parent: CgroupParent | None = None

    def parent(self) -> CgroupParent:
        """Where the cgroups are made, or why they cannot be (:func:`find_cgroup_parent`)."""
        if self._parent is None:
            self._parent = find_cgroup_parent()
        return self._parent

    def record(self) -> dict[str, object]:
        """Whether each agent runs in a cgroup of its own, with which limits, or why not (for the run record)."""
        parent = self.parent()
        if parent.path is None:
            return {"used": False, "reason": parent.reason}
        return {"used": True, "parent": str(parent.path), "memory_max_bytes": self.memory_max,
                "pids_max": self.pids_max}

    def make(self) -> AgentCgroup | None:
        """A new cgroup for one agent; ``None`` when none is offered or this one cannot be made (a warning)."""
        parent = self.parent()
        if parent.path is None:
            return None
        try:
            return AgentCgroup(parent.path, memory_max=self.memory_max, pids_max=self.pids_max)
        except OSError as error:
            warnings.warn(f"command judge: cannot make the agent's cgroup under {parent.path} ({error.strerror}); "
                          "this item runs without one", UserWarning, stacklevel=2)
            return None
