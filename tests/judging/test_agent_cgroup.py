"""An agent's cgroup: made with its limits, entered before the agent starts, read back, removed.

The test machine's cgroup v2 offers no ``memory`` or ``pids`` controller (a hybrid host: cgroup v1
holds them), so the kernel's cgroup files cannot be had here; a folder of plain files stands in for
the harness's cgroup (the refusal path runs for real in tests/behaviour/test_agent_disk.py). What
this checks is the harness's side: which files it writes, how the agent enters, how counters read.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from agenthorizon.judging.judges import agent_cgroup
from agenthorizon.judging.judges.agent_cgroup import AgentCgroup, find_cgroup_parent
from agenthorizon.judging.judges.agent_limits import AgentEnd, AgentLimits, limit_reached


def stand_in(root: Path, own: str, offered: str, enabled: str = "") -> Path:
    parent = root / own.strip("/")
    parent.mkdir(parents=True, exist_ok=True)
    (parent / "cgroup.controllers").write_text(offered)
    (parent / "cgroup.subtree_control").write_text(enabled)
    return parent


def test_a_cgroup_without_the_controllers_is_refused_naming_them(tmp_path):
    own = Path("/proc/self/cgroup").read_text().split("0::", 1)[1].splitlines()[0]
    stand_in(tmp_path, own, "cpu io hugetlb\n")
    found = find_cgroup_parent(root=str(tmp_path))
    assert found.path is None and "offers no memory or pids controller" in found.reason


def test_an_agents_cgroup_gets_its_limits_holds_the_agent_and_its_counters_name_the_limit(tmp_path, monkeypatch):
    own = Path("/proc/self/cgroup").read_text().split("0::", 1)[1].splitlines()[0]
    parent = stand_in(tmp_path, own, "cpu memory pids\n")
    found = find_cgroup_parent(root=str(tmp_path))
    assert found.path == parent and (parent / "cgroup.subtree_control").read_text() == "+memory +pids"
    cgroup = AgentCgroup(parent, memory_max=256 * 2**20, pids_max=32)
    assert (cgroup.path / "memory.max").read_text() == str(256 * 2**20)
    assert (cgroup.path / "pids.max").read_text() == "32"
    # The agent's shell writes its own pid, then becomes the agent: the pid in cgroup.procs is the agent's.
    done = subprocess.run([*cgroup.join_argv(), "sh", "-c", "echo $$"], capture_output=True, text=True, check=True)
    assert (cgroup.path / "cgroup.procs").read_text().strip() == done.stdout.strip()
    (cgroup.path / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n")
    (cgroup.path / "pids.events").write_text("max 0\n")
    counters = cgroup.events()
    assert counters == {"oom_kill": 1, "memory_max": 4, "pids_max": 0}
    reached = limit_reached("", AgentLimits(processes=32, memory="256M"), sandboxed=True,
                            end=AgentEnd(137, cgroup=counters))
    assert reached == ("was killed for memory by its cgroup: the memory limit (256 MiB for all its processes; "
                       "--agent-max-memory)")
    # Removal kills what is left first (cgroupfs then lets the folder go: not shown by plain files).
    monkeypatch.setattr(agent_cgroup, "_REMOVE_WAIT_S", 0.05)
    cgroup.remove()
    assert (cgroup.path / "cgroup.kill").read_text() == "1"
