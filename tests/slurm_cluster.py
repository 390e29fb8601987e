"""A real single-node Slurm cluster for the sweep tests: Debian's slurm-wlm and munge, started in a scratch folder.

:func:`start_cluster` installs the packages when missing (as root, through
:func:`debian_packages.ensure_debian_packages`; skipped with the reason when
not root or not installable), runs ``munged`` as the ``munge`` user and
``slurmctld`` and ``slurmd`` as root, each in the foreground as a child of
this process, from a ``slurm.conf`` in the scratch folder (this machine's
hostname the only node, ``CPUs=2``, ``proctrack/linuxproc``,
``task/none``; state, spool, logs and munge's socket in the scratch
folder). :meth:`SlurmCluster.stop` cancels every job, stops the three
daemons (waiting for each) and removes the folder: nothing is left behind.
The Debian package's own key (``/etc/munge/munge.key``) is read, not written.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGES = ("slurm-wlm", "munge")
_MUNGE_KEY = Path("/etc/munge/munge.key")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class SlurmCluster:
    """The running cluster: its scratch folder, ``slurm.conf`` and daemons."""

    folder: Path
    conf: Path
    processes: list[subprocess.Popen]

    @property
    def environ(self) -> dict[str, str]:
        """This process's environment with ``SLURM_CONF`` pointing at the cluster."""
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def command(self, *words: str, check: bool = True) -> str:
        """Run a Slurm client command (``squeue``, ``scancel``...) against the cluster; its output."""
        completed = subprocess.run(list(words), capture_output=True, text=True, env=self.environ, timeout=60)
        if check and completed.returncode != 0:
            raise AssertionError(f"{' '.join(words)} failed: {completed.stderr}")
        return completed.stdout

    def wait_idle(self, timeout: float = 300) -> None:
        """Wait until no job is queued or running."""
        deadline = time.monotonic() + timeout
        while self.command("squeue", "-h", "-o", "%i").strip():
            if time.monotonic() > deadline:
                raise AssertionError(f"jobs still queued after {timeout:g} s:\n{self.command('squeue')}")
            time.sleep(0.3)

    def stop(self) -> None:
        """Cancel every job, stop the daemons (slurmd, slurmctld, munged), remove the scratch folder."""
        try:
            self.command("scancel", "--full", "--user", pwd.getpwuid(os.getuid()).pw_name, check=False)
            self.wait_idle(timeout=60)
        except (AssertionError, OSError, subprocess.SubprocessError):
            pass
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=30)
        shutil.rmtree(self.folder, ignore_errors=True)


def _install() -> None:
    from debian_packages import ensure_debian_packages

    if os.geteuid() != 0:
        pytest.skip("the Slurm tests need root to install and run slurm-wlm and munge")
    try:
        ensure_debian_packages(list(PACKAGES), lambda: all(shutil.which(tool) for tool in ("slurmctld", "munged")),
                               "the Slurm sweep tests")
    except pytest.fail.Exception as error:
        pytest.skip(f"Slurm is not installable here: {error}")


def _config(folder: Path, host: str, socket_path: Path) -> str:
    return "\n".join([
        "ClusterName=agenthorizon-tests", f"SlurmctldHost={host}", "SlurmUser=root", "SlurmdUser=root",
        "AuthType=auth/munge", f"AuthInfo=socket={socket_path}", "CredType=cred/munge",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "MpiDefault=none",
        "SchedulerType=sched/backfill", "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
        "JobAcctGatherType=jobacct_gather/none", "AccountingStorageType=accounting_storage/none",
        # No slurmdbd: finished jobs' states go to a job completion log that `sacct --completion` reads.
        "JobCompType=jobcomp/filetxt", f"JobCompLoc={folder / 'jobcomp.log'}",
        f"StateSaveLocation={folder / 'state'}", f"SlurmdSpoolDir={folder / 'spool'}",
        f"SlurmctldPidFile={folder / 'slurmctld.pid'}", f"SlurmdPidFile={folder / 'slurmd.pid'}",
        f"SlurmctldLogFile={folder / 'slurmctld.log'}", f"SlurmdLogFile={folder / 'slurmd.log'}",
        f"SlurmctldPort={_free_port()}", f"SlurmdPort={_free_port()}", "ReturnToService=2",
        "KillWait=5", "MessageTimeout=30",
        f"NodeName={host} CPUs=2 State=UNKNOWN",
        f"PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP", "",
    ])


def start_cluster() -> SlurmCluster:
    """Install (if needed) and start the cluster; skips with the reason when that cannot be done here."""
    _install()
    munge = pwd.getpwnam("munge")
    # Not under the session's temporary folder: munged runs as the munge user and needs every
    # parent of its socket to be searchable by all.
    folder = Path(tempfile.mkdtemp(prefix="agenthorizon-slurm-", dir="/tmp"))
    processes: list[subprocess.Popen] = []
    cluster = SlurmCluster(folder, folder / "slurm.conf", processes)
    try:
        folder.chmod(0o755)
        for name in ("state", "spool"):
            (folder / name).mkdir()
        munge_dir = folder / "munge"
        munge_dir.mkdir(mode=0o755)
        os.chown(munge_dir, munge.pw_uid, munge.pw_gid)
        socket_path = munge_dir / "munge.socket"
        processes.append(subprocess.Popen(
            ["munged", "--foreground", f"--key-file={_MUNGE_KEY}", f"--socket={socket_path}",
             f"--pid-file={munge_dir / 'munged.pid'}", f"--log-file={munge_dir / 'munged.log'}",
             f"--seed-file={munge_dir / 'munged.seed'}"],
            user=munge.pw_uid, group=munge.pw_gid, extra_groups=[], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
        ))
        _wait(lambda: socket_path.exists(), 30, "munged's socket", munge_dir / "munged.log", processes[-1])
        host = socket.gethostname()
        cluster.conf.write_text(_config(folder, host, socket_path), encoding="utf-8")
        for daemon, log in (("slurmctld", "slurmctld.log"), ("slurmd", "slurmd.log")):
            processes.append(subprocess.Popen([daemon, "-D", "-f", str(cluster.conf)], env=cluster.environ,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
            if daemon == "slurmctld":
                _wait(lambda: subprocess.run(["sinfo", "-h"], env=cluster.environ, capture_output=True).returncode == 0,
                      60, "slurmctld", folder / log, processes[-1])
        _wait(lambda: "idle" in cluster.command("sinfo", "-h", "-o", "%T", check=False), 60, "the node to be idle",
              folder / "slurmd.log", processes[-1])
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _wait(ready, timeout: float, what: str, log: Path, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if process.poll() is not None or time.monotonic() > deadline:
            text = log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"
            raise RuntimeError(f"waiting for {what}: {'exited' if process.poll() is not None else 'timed out'}; log:\n{text}")
        time.sleep(0.2)
