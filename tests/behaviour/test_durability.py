"""Crash safety of the runner's result writes, and the rows it reads in slices.

A result counts (progress bar, ``records``, the run record's counts, the
score) only once it is durable: its file fsynced, renamed, and the folder
fsynced. A runner killed at any moment leaves only complete result files
(and temporary files no reader takes for results), and the next run over the
same folder removes its debris and finishes with the score an uninterrupted
run gets. Rows read in slices are the rows ``dataset[i]`` gives.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.judges import BaseJudge, JudgeOutput
from agenthorizon.judging.runs import durable, progress
from agenthorizon.judging.runs.folder import is_result_name, read_results
from agenthorizon.judging.runs.records import ResultRecord
from agenthorizon.judging.runs.rows import RowReader
from agenthorizon.judging.runs.runner import run_judge

# A slow command judge whose verdict depends only on the item (so two runs agree).
SLOW_JUDGE = (
    "import hashlib, json, sys, time\n"
    "text = sys.stdin.read()\n"
    "time.sleep(0.15)\n"
    "success = hashlib.sha256(text.encode()).digest()[0] % 2 == 0\n"
    "print(json.dumps({'success': success, 'reasoning': 'by hash'}))\n"
)


@pytest.fixture(scope="module")
def dataset(tiny_root, tmp_path_factory):
    return agenthorizon.load_dataset(tiny_root, "all", split="test", cache_dir=tmp_path_factory.mktemp("cache"))


def _judge_argv(root: Path, script: Path, out: Path) -> list[str]:
    return ["judge", "--data", str(root), "--config", "all", "--judge", f"command:{sys.executable} {script}",
            "--sandbox", "none", "--concurrency", "4", "--out", str(out), "--bootstrap", "0", "--no-progress"]


def _score(root: Path, out: Path, capsys) -> dict:
    capsys.readouterr()
    assert main(["score", str(out), "--data", str(root), "--config", "all", "--format", "json", "--bootstrap", "0"]) == 0
    report = json.loads(capsys.readouterr().out)
    report.pop("results")  # names the folder
    # Wall time is measured, not judged: it differs between any two runs. Its counts must still agree.
    wall = report["runtime"]["wall_time_s"]
    report["runtime"]["wall_time_s"] = {"n_known": wall["n_known"], "n_unknown": wall["n_unknown"]}
    return report


@pytest.mark.slow
def test_a_killed_runner_leaves_only_valid_results_and_the_resume_scores_as_an_uninterrupted_run(
    tiny_root, tmp_path, capsys
):
    script = tmp_path / "slow_judge.py"
    script.write_text(SLOW_JUDGE)
    out = tmp_path / "killed"
    runner = subprocess.Popen(
        [sys.executable, "-m", "agenthorizon", *_judge_argv(tiny_root, script, out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )
    try:
        # Kill it once a few results are on disk and others are being judged and written.
        while len([p for p in out.glob("*.json") if is_result_name(p)]) < 3:
            assert runner.poll() is None, runner.communicate()
            time.sleep(0.01)  # polling for files; nothing is timed
        os.killpg(runner.pid, signal.SIGKILL)
    finally:
        runner.communicate()
    assert runner.returncode == -signal.SIGKILL

    on_disk = [p for p in out.iterdir() if is_result_name(p)]
    for path in on_disk:  # every result file is complete and valid: never a torn one
        ResultRecord.from_dict(json.loads(path.read_text(encoding="ascii")), str(path))
    found = read_results([out])
    assert not found.unreadable and not found.untrusted
    assert set(found.records) == {p.stem for p in on_disk}
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "running" and record["ended_at"] is None  # it never got to say it finished

    with pytest.warns(UserWarning):  # --sandbox none warns; not what is tested here
        assert main(_judge_argv(tiny_root, script, out)) == 0
    assert not [p.name for p in out.iterdir() if p.name.endswith(durable.TEMP_SUFFIX)]
    resumed = json.loads((out / "run.json").read_text())
    assert resumed["counts"]["skipped"] == len(on_disk)
    assert resumed["counts"]["ok"] == record["data"]["n_selected"]

    whole = tmp_path / "whole"
    with pytest.warns(UserWarning):
        assert main(_judge_argv(tiny_root, script, whole)) == 0
    assert _score(tiny_root, out, capsys) == _score(tiny_root, whole, capsys)
    verdicts = [{tid: r.verdict for tid, r in read_results([folder]).records.items()} for folder in (out, whole)]
    assert verdicts[0] == verdicts[1]


class Staggered(BaseJudge):
    """Answers after a delay that differs by item, so results arrive while others are being written."""

    name = "staggered"

    def __init__(self, ids):
        self.delay = {tid: 0.002 * (i % 5) for i, tid in enumerate(ids)}

    async def ajudge(self, judge_input):
        import asyncio

        await asyncio.sleep(self.delay[judge_input.trajectory_id])
        return JudgeOutput(text='{"success": true, "reasoning": "ok"}')

    def spec(self):
        return {"name": "staggered", "spec": "staggered"}


def _note(log: Path, line: str) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, (line + "\n").encode())
    os.close(fd)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="names open files through /proc")
def test_no_result_is_counted_before_its_file_and_the_folder_are_fsynced(dataset, tmp_path, monkeypatch):
    out, log = tmp_path / "run", tmp_path / "events.log"
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        real_fsync(fd)
        _note(log, "fsync " + os.readlink(f"/proc/self/fd/{fd}"))

    def replace(source, target):
        real_replace(source, target)
        _note(log, "rename " + os.fspath(target))

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    real_update = progress.Progress.update

    def update(self, result):
        tid = result.trajectory_id
        # Observed as the bar counts it: the file is already there, whole.
        assert ResultRecord.from_dict(json.loads((out / f"{tid}.json").read_text()), tid) == result
        _note(log, f"counted {tid}")
        real_update(self, result)

    monkeypatch.setattr(progress.Progress, "update", update)
    ids = list(dataset["trajectory_id"])
    summary = run_judge(Staggered(ids), dataset, out, progress=False, concurrency=8)
    assert summary.counts.ok == len(ids)

    events = [tuple(line.split(" ", 1)) for line in log.read_text().splitlines()]
    assert sorted(tid for kind, tid in events if kind == "counted") == sorted(ids)
    folder = str(out.resolve())
    for tid in ids:
        before = events[: events.index(("counted", tid))]
        synced = [i for i, (kind, name) in enumerate(before)
                  if kind == "fsync" and Path(name).name.startswith(f".{tid}.json.")]
        renamed = [i for i, event in enumerate(before) if event == ("rename", str(out / f"{tid}.json"))]
        assert synced and renamed and synced[-1] < renamed[-1], f"{tid}: counted before its file was fsynced and renamed"
        assert ("fsync", folder) in before[renamed[-1]:], f"{tid}: counted before the folder was fsynced"


def test_temporary_files_of_a_killed_write_are_ignored_and_removed_by_the_next_run_of_those_items(
    dataset, tmp_path
):
    out = tmp_path / "run"
    first = run_judge("constant:true", dataset, out, progress=False, shard="1/2")
    mine = sorted(tid for tid in dataset["trajectory_id"] if (out / f"{tid}.json").exists())
    theirs = sorted(set(dataset["trajectory_id"]) - set(mine))
    assert first.counts.ok == len(mine) and theirs
    # What a write killed between writing and renaming leaves: temporary files, one of them cut short.
    debris = [out / f".{mine[0]}.json.k3j_x9a1.tmp", out / f".{mine[1]}.json.0pq7zz2b.tmp", out / ".run-shard-1-of-2.json.aaaa1111.tmp"]
    debris[0].write_text('{"format_version": 2, "trajectory_id": "')
    debris[1].write_text(json.dumps({"trajectory_id": mine[1], "parse_status": "ok"}))
    debris[2].write_text("{")
    other_shard = out / f".{theirs[0]}.json.zzzz9999.tmp"  # the other shard's write in flight
    other_shard.write_text("{")
    (out / f"{mine[2]}.json").unlink()  # and one result that never made it

    found = read_results([out])
    assert set(found.records) == set(mine) - {mine[2]} and not found.unreadable
    assert {Path(p).name for p in found.ignored} >= {p.name for p in [*debris, other_shard]}

    again = run_judge("constant:true", dataset, out, progress=False, shard="1/2")
    assert again.judged == 1 and again.counts.ok == len(mine)
    assert not any(p.exists() for p in debris)
    assert other_shard.exists()


def test_a_write_that_fails_leaves_nothing_behind(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    with pytest.raises(FileNotFoundError):
        durable.write_durable(tmp_path / "missing" / "b.json", "{}\n")
    (folder / "a.json").write_text("older\n")
    os.chmod(folder, 0o500)  # no new file can be made there (root ignores modes: skipped below)
    try:
        if not os.access(folder, os.W_OK):
            with pytest.raises(PermissionError):
                durable.write_durable(folder / "a.json", "newer\n")
            assert [p.name for p in folder.iterdir()] == ["a.json"] and (folder / "a.json").read_text() == "older\n"
    finally:
        os.chmod(folder, 0o700)
    durable.write_durable(folder / "a.json", "newer\n")
    durable.write_durable(folder / "c.json", "{}\n")
    assert sorted(p.name for p in folder.iterdir()) == ["a.json", "c.json"]
    assert (folder / "a.json").read_text() == "newer\n"


def test_a_failed_folder_fsync_raises_and_never_removes_a_record(tmp_path, monkeypatch):
    """A run record rewritten in place must survive a failing folder fsync (it used to be deleted)."""
    folder = tmp_path / "run"
    folder.mkdir()
    record = folder / "run.json"
    record.write_text('{"old": true}\n')

    def failing_sync(directory):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(durable, "sync_directory", failing_sync)
    with pytest.raises(OSError) as raised:
        durable.write_durable(record, '{"new": true}\n')
    assert raised.value.errno == 5
    assert record.read_text() == '{"new": true}\n'  # complete, not acknowledged, not removed
    assert [p.name for p in folder.iterdir()] == ["run.json"]  # no temporary file left


def test_rows_read_in_slices_are_the_rows_of_the_dataset(tiny_root, dataset, tmp_path):
    blind = agenthorizon.load_dataset(tiny_root, "all", split="test", blind=True, cache_dir=tmp_path / "blind")
    paths = agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths", cache_dir=tmp_path / "paths")
    n = len(dataset)
    # Consecutive runs, gaps, a repeat and reversed order, as shards and resumes produce them.
    positions = [0, 1, 2, 3, 4, 5, 7, 8, 9, n - 1, 3, 2, 1]
    for rows, in_slices in ((dataset, True), (blind, True), (paths, True), (dataset.with_format("numpy"), False),
                            (dataset.to_list(), False)):
        reader = RowReader(rows, positions)
        assert (reader.slice_rows > 1) == in_slices
        got = []
        while (item := reader.next()) is not None:
            got.append(item)
        assert [position for position, _ in got] == positions
        for position, row in got:
            expected = rows[position]
            assert list(row) == list(expected)
            if in_slices or isinstance(rows, list):
                assert row == expected


def test_a_row_that_cannot_be_read_fails_only_its_item(dataset, tmp_path):
    class Rows(list):
        def __getitem__(self, index):
            if index == 2:
                raise ValueError("row 2 is damaged")
            return super().__getitem__(index)

    rows = Rows(dataset.to_list())
    summary = run_judge("constant:true", rows, tmp_path / "run", progress=False)
    assert summary.counts.error == 1 and summary.counts.ok == len(rows) - 1
    assert "row 2 is damaged" in summary.errors[list.__getitem__(rows, 2)["trajectory_id"]]


def test_overlapping_runs_in_one_process_each_write_every_result(dataset, tmp_path):
    """Two runs from two threads of one process (a notebook judging with two judges at once)."""
    import threading

    both_started = threading.Barrier(2, timeout=30)

    class Overlapping(BaseJudge):
        name = "overlapping"

        def __init__(self) -> None:
            self.first = True

        def judge(self, judge_input):
            if self.first:  # both runs are in their loop at once
                self.first = False
                both_started.wait()
            return JudgeOutput(text='{"success": true}')

    runs = [
        threading.Thread(target=run_judge, args=(Overlapping(), dataset, tmp_path / name),
                         kwargs={"progress": False, "concurrency": 1})
        for name in ("a", "b")
    ]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    assert not both_started.broken
    written = [sorted(p.name for p in (tmp_path / name).glob("*.json") if is_result_name(p)) for name in ("a", "b")]
    assert written[0] == written[1] == sorted(f"{tid}.json" for tid in dataset["trajectory_id"])


# An agent that hangs on the item named in AH_HANG (so the runner is killed with it in flight), answers at once otherwise.
HANGING_JUDGE = (
    "import json, os, sys, time\n"
    "text = sys.stdin.read()\n"
    "if os.environ['AH_HANG'] in text and os.path.exists(os.environ['AH_HANG_FLAG']):\n"
    "    open(os.environ['AH_STARTED'], 'w').close()\n"
    "    time.sleep(120)\n"
    "print(json.dumps({'success': True, 'reasoning': 'fine'}))\n"
)


@pytest.mark.slow
def test_item_folders_a_killed_runner_left_are_removed_when_the_run_resumes(dataset, tiny_root, tmp_path):
    """Before, every item folder in flight at a SIGKILL stayed in the workdir root for good."""
    from agenthorizon.judging.judges.command import CommandJudge

    script, root, flag, started = tmp_path / "hang.py", tmp_path / "items", tmp_path / "hang-flag", tmp_path / "started"
    script.write_text(HANGING_JUDGE)
    root.mkdir()
    flag.touch()
    hang = dataset[0]["trajectory_id"]
    env = {**os.environ, "AH_HANG": hang, "AH_HANG_FLAG": str(flag), "AH_STARTED": str(started)}
    program = (
        "import sys, agenthorizon, warnings\n"
        "from agenthorizon.judging.judges.command import CommandJudge\n"
        "from agenthorizon.judging.runs.runner import run_judge\n"
        "warnings.simplefilter('ignore')\n"
        "ds = agenthorizon.load_dataset(sys.argv[1], 'all', split='test', cache_dir=sys.argv[4])\n"
        "import os\n"
        "names = ('AH_HANG', 'AH_HANG_FLAG', 'AH_STARTED')  # an agent gets only the variables it is given\n"
        "judge = CommandJudge([sys.executable, sys.argv[2]], sandbox='none', workdir_root=sys.argv[3],\n"
        "                     env={name: os.environ[name] for name in names})\n"
        "run_judge(judge, ds.select(range(3)), sys.argv[5], progress=False, config='all')\n"
    )
    out = tmp_path / "run"
    runner = subprocess.Popen([sys.executable, "-c", program, str(tiny_root), str(script), str(root),
                               str(tmp_path / "cache"), str(out)], env=env, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while not started.exists():  # the hanging item's agent is running: its folder exists
            assert runner.poll() is None, runner.communicate()
            time.sleep(0.01)  # polling for a file; nothing is timed
        os.killpg(runner.pid, signal.SIGKILL)  # the runner and its agent
    finally:
        runner.communicate()
    left = sorted(path.name for path in root.iterdir())
    assert left and all(name.startswith("agenthorizon-judge-") for name in left), left
    other_run = root / "agenthorizon-judge-0123456789abcdef-1-keep"  # another run's folder (pid 1 is alive)
    other_run.mkdir()

    flag.unlink()
    variables = {"AH_HANG": hang, "AH_HANG_FLAG": str(flag), "AH_STARTED": str(started)}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in variables.items():
            patch.setenv(key, value)
        with pytest.warns(UserWarning):  # sandbox none warns; not what is tested here
            judge = CommandJudge([sys.executable, str(script)], sandbox="none", workdir_root=str(root), env=variables)
        summary = run_judge(judge, dataset.select(range(3)), out, progress=False, config="all")
    assert summary.counts.ok == 3
    assert sorted(path.name for path in root.iterdir()) == [other_run.name]
