"""``sweep status`` from the run folders, and ``sweep collect``: the grid's leaderboard, or exit 2 naming the cells."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agenthorizon.cli import main
from agenthorizon.judging.runs.folder import is_result_name
from agenthorizon.report.leaderboard import leaderboard
from sweep_files import sweep_status, COMMAND_JUDGE, command_judge_table, write_sweep

TWO_JUDGES = '[[judge]]\nspec = "lexical"\n' + command_judge_table()


def _run_all(path: Path, cells: range) -> None:
    for cell in cells:
        assert main(["sweep", "run", str(path), "--cell", str(cell)]) == 0


@pytest.mark.slow
def test_collect_equals_a_single_process_run_of_the_same_judges_item_for_item(tiny_root, tmp_path, capsys):
    path = write_sweep(tmp_path, tiny_root, judges=TWO_JUDGES)
    _run_all(path, range(8))
    from agenthorizon.sweeps.collect import collect
    from agenthorizon.cli.sweep import _grid

    grid, items, _ = _grid(str(path))
    collected = collect(grid, items)
    single = []
    for spec, name in (("lexical", "lexical"), (COMMAND_JUDGE, "cmd")):
        for config in ("AH", "AH-S"):
            out = tmp_path / "single" / name / config
            assert main(["judge", "--data", str(tiny_root), "--config", config, "--judge", spec, "--out", str(out),
                         "--sandbox", "none", "--no-progress"] if name == "cmd" else
                        ["judge", "--data", str(tiny_root), "--config", config, "--judge", spec, "--out", str(out),
                         "--no-progress"]) == 0
            single.append(out)
    reference = leaderboard(single, tiny_root)
    assert collected.board.predictions == reference.predictions  # item for item, each item once
    assert len(collected.board.predictions[collected.board[0].judge_key]) == 19
    rates = lambda board: [(row.judge_key, {c: r.balanced_accuracy for c, r in row.reports.items()}) for row in board]
    assert rates(collected.board) == rates(reference)
    assert collected.partial == []
    capsys.readouterr()
    assert main(["sweep", "collect", str(path), "--report", str(tmp_path / "pages")]) == 0
    out = capsys.readouterr().out
    assert "| lexical |" in out and "partial" not in out and "Ignored files" not in out
    for config in ("AH", "AH-S"):  # the report of each config holds both judges
        page = (tmp_path / "pages" / f"{config}.html").read_text(encoding="utf-8")
        assert "lexical" in page and "command:" in page


@pytest.mark.slow
def test_status_tells_pending_done_and_partial_cells_from_the_folders(tiny_root, tmp_path, capsys):
    slow = '[[judge]]\nspec = "lexical"\n' + command_judge_table(delay=0.5)
    path = write_sweep(tmp_path, tiny_root, judges=slow)
    assert set(sweep_status(path, capsys).values()) == {("pending", "0/4"), ("pending", "0/5"), ("pending", "0/6")}
    _run_all(path, range(2))
    # Cell 4 (cmd, AH, shard 1) is stopped as a scheduler stops a task: SIGTERM, after its first answers.
    folder = tmp_path / "runs" / "cmd" / "AH"
    process = subprocess.Popen([sys.executable, "-m", "agenthorizon", "sweep", "run", str(path), "--cell", "4"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not (folder.is_dir() and any(is_result_name(p) for p in folder.iterdir())):
        assert process.poll() is None and time.monotonic() < deadline, process.stderr.read().decode()
        time.sleep(0.05)
    states = sweep_status(path, capsys)
    assert states[4][0] == "running"
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) != 0
    states = sweep_status(path, capsys)
    assert states[0] == ("done", "4/4") and states[1] == ("done", "4/4") and states[2] == ("pending", "0/6")
    answered = int(states[4][1].split("/")[0])
    assert states[4][0] == "partial" and 1 <= answered < 4
    # Collect marks the partial cell; its missing items count as wrong, none is dropped.
    capsys.readouterr()
    _run_all(path, [2, 3, 5, 6, 7])
    assert main(["sweep", "collect", str(path)]) == 0
    assert "partial cells" in capsys.readouterr().out
    # Running the cell again resumes it: done, the answered items not judged again.
    kept = {p.name: p.stat().st_mtime_ns for p in folder.iterdir() if is_result_name(p)}
    _run_all(path, [4])
    assert sweep_status(path, capsys)[4] == ("done", "4/4")
    assert {name: (folder / name).stat().st_mtime_ns for name in kept} == kept


def test_status_names_the_cells_whose_plan_changed_after_submission(tiny_root, tmp_path, capsys):
    from agenthorizon.cli.sweep import _grid
    from agenthorizon.sweeps.state import SweepState, record_submission, write_state

    path = write_sweep(tmp_path, tiny_root, judges=TWO_JUDGES)
    grid, _, _ = _grid(str(path))
    state = SweepState()
    for judge in (0, 1):  # as `sweep submit` records its two arrays
        record_submission(state, "slurm", f"{100 + judge}", judge, grid.of_judge(judge))
    write_state(grid, state)
    sweep_status(path, capsys)
    assert main(["sweep", "status", str(path)]) == 0
    assert "changed" not in capsys.readouterr().out
    path.write_text(path.read_text().replace("concurrency = 1", "concurrency = 2"), encoding="utf-8")
    assert main(["sweep", "status", str(path)]) == 0
    out = capsys.readouterr().out
    assert "the sweep file changed after submission" in out
    assert "cell 4 (cmd/AH/shard-1-of-2), cell 5" in out and "cell 3 " not in out


def test_collect_refuses_missing_and_overlapping_shards_naming_the_cells(tiny_root, tmp_path, capsys):
    path = write_sweep(tmp_path, tiny_root, judges=TWO_JUDGES)
    _run_all(path, [0, 1, 2, 4, 5, 6, 7])
    capsys.readouterr()
    assert main(["sweep", "collect", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cell 3 (lexical/AH-S/shard-2-of-2): missing shard" in err and "cell 2 " not in err
    _run_all(path, [3])
    # A shard of another count in a sweep's folder overlaps its shards (made elsewhere, its record copied in:
    # the judge command itself may refuse to mix shard counts in one folder).
    folder = tmp_path / "runs" / "lexical" / "AH"
    other = tmp_path / "other"
    assert main(["judge", "--data", str(tiny_root), "--config", "AH", "--judge", "lexical", "--out", str(other),
                 "--shard", "1/3", "--no-progress"]) == 0
    shutil.copy(other / "run-shard-1-of-3.json", folder)
    capsys.readouterr()
    assert main(["sweep", "collect", str(path)]) == 2
    assert f"{folder}/run-shard-1-of-3.json: shard 1/3 overlaps the sweep's 2 shards" in capsys.readouterr().err


def test_collect_refuses_shards_of_one_cell_made_by_different_package_versions_or_releases(tiny_root, tmp_path, capsys):
    path = write_sweep(tmp_path, tiny_root, judges='[[judge]]\nspec = "lexical"\n', configs='["AH"]')
    _run_all(path, [0, 1])
    capsys.readouterr()
    assert main(["sweep", "collect", str(path)]) == 0
    # Shard 2 as another installation would have written it (edited: one machine has one version).
    manifest = tmp_path / "runs" / "lexical" / "AH" / "sweep" / "shard-2-of-2.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "package_version": "0.0.9"}))
    capsys.readouterr()
    assert main(["sweep", "collect", str(path)]) == 2
    err = capsys.readouterr().err
    assert "different package versions" in err and "cell 1 (lexical/AH/shard-2-of-2): 0.0.9" in err
    manifest.write_text(json.dumps({**data, "label_manifest_sha256": "0" * 64}))
    assert main(["sweep", "collect", str(path)]) == 2
    assert "different release label manifests" in capsys.readouterr().err
    manifest.write_text(json.dumps({**data, "judge_key": "0" * 16}))
    assert main(["sweep", "collect", str(path)]) == 2
    assert "cell 1 (lexical/AH/shard-2-of-2): judge key 0000000000000000 (manifest)" in capsys.readouterr().err
