"""Files of a run and of a release are read under a size bound, and say which file broke it (issue 30 §4.5, §4.6).

Each command runs in a child process whose peak resident memory (VmHWM) is
measured against the same child doing nothing.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agenthorizon.cli import main
from agenthorizon.release.files import read_labels
from peak_memory import baseline_peak, run_measured

_MIB = 2**20
_COMMAND = """
import contextlib, io, sys
from agenthorizon.cli import main
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
        code = main(sys.argv[1:])
    except SystemExit as stop:
        code = stop.code
_report([code, out.getvalue()[-200000:], err.getvalue()[-4000:]])
"""


def _command(*argv: str) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, growth of peak memory in bytes) of ``agenthorizon ARGV`` in a child."""
    (code, out, err), peak = run_measured(_COMMAND, *argv)
    return code, out, err, peak - _baseline()


_BASELINE: list[int] = []


def _baseline() -> int:
    if not _BASELINE:
        _BASELINE.append(baseline_peak("from agenthorizon.cli import main"))
    return _BASELINE[0]


@pytest.fixture(scope="module")
def run(tiny_root, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bounded") / "run"
    assert main(["judge", "--data", str(tiny_root), "--config", "AH", "--judge", "lexical", "--out", str(out),
                 "--no-progress", "--bootstrap", "0"]) == 0
    return out


def _readers(run: Path, root: Path, tmp: Path) -> dict[str, list[str]]:
    return {
        "score": ["score", str(run), "--data", str(root)],
        "leaderboard": ["leaderboard", str(run), "--data", str(root)],
        "report": ["report", str(run), "--data", str(root), "--out", str(tmp / "report.html")],
        "partition": ["partition", str(run), "--data", str(root), "--threshold", "0", "--out", str(tmp / "split")],
    }


@pytest.mark.slow
def test_a_sparse_2_gib_run_record_is_refused_by_every_reader_naming_it(run, tiny_root, tmp_path):
    """Before the bound each reader read the 2 GiB of zeros whole: 4,130 MiB at its peak."""
    folder = tmp_path / "run"
    shutil.copytree(run, folder)
    record = folder / "run.json"
    os.truncate(record, 2**31)  # sparse: nothing more on disk
    for name, argv in _readers(folder, tiny_root, tmp_path).items():
        code, out, err, grown = _command(*argv)
        assert code == 2, (name, out, err)
        assert (f"{record}: a file of a run of 2,147,483,648 bytes; expected at most 67,108,864 (refused unread)"
                in err), (name, err)
        assert grown < 64 * _MIB, f"{name} grew by {grown // _MIB} MiB"


@pytest.mark.slow
def test_a_sparse_2_gib_result_file_is_an_unreadable_result_named_in_the_score(run, tiny_root, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(run, folder)
    result = sorted(folder.glob("*-*-*-*-*.json"))[0]
    os.truncate(result, 2**31)
    code, out, err, grown = _command("score", str(folder), "--data", str(tiny_root), "--format", "json")
    assert code == 1, err  # an item without a valid result: the run is incomplete
    report = json.loads(out)
    assert report["invalid_by_reason"]["malformed_json"] == 1
    assert any(f"{result}: a file of a run of 2,147,483,648 bytes; expected at most 268,435,456" in note
               for note in report["notes"]), report["notes"]
    assert grown < 64 * _MIB, f"score grew by {grown // _MIB} MiB"


@pytest.mark.slow
def test_a_jsonl_line_without_an_end_is_refused_at_its_bound_naming_the_file_and_line(tiny_root, tmp_path):
    results = tmp_path / "results.jsonl"
    with results.open("wb") as handle:
        handle.write(b'{"trajectory_id": "x", "success": true}\n')
        handle.write(b'{"trajectory_id": "y", "reasoning": "')
        handle.truncate(2**31)  # one sparse line of 2 GiB
    code, out, err, grown = _command("score", str(results), "--data", str(tiny_root))
    assert code == 2, (out, err)
    assert f"{results}:2: a line longer than 256 MiB; expected one result object per line" in err
    assert grown < 600 * _MIB, f"score grew by {grown // _MIB} MiB"  # the line's first 256 MiB, as text


@pytest.fixture
def release_copy(tiny_root, tmp_path) -> Path:
    copy = tmp_path / "release"
    shutil.copytree(tiny_root, copy)
    return copy


@pytest.mark.slow
def test_a_million_row_label_file_stops_at_its_bad_row_9_having_read_no_further(release_copy, tmp_path):
    """Before streaming, ``judge`` read and split all 280 MB first: 92 s and 2.8 GiB before naming row 9."""
    labels = release_copy / "AgentHorizon.jsonl"
    rows = labels.read_text().splitlines()
    filler = json.loads(rows[0]) | {"trajectory_id": "00000000-0000-4000-8000-000000000000"}
    argv = ("judge", "--data", str(release_copy), "--config", "AH", "--judge", "lexical", "--out", str(tmp_path / "run"),
            "--no-progress")

    def judge_with(filler_rows: int) -> tuple[int, str, int]:
        with labels.open("w") as handle:
            handle.write("\n".join(rows[:8]) + "\n")
            handle.write('{"trajectory_id": "not-a-uuid"}\n')  # row 9
            line = json.dumps(filler) + "\n"
            handle.writelines(line for _ in range(filler_rows))
        (code, out, err), peak = run_measured(_COMMAND, *argv)
        return code, err, peak

    code, err, peak = judge_with(1_000_000)
    assert code == 2, err
    assert "AgentHorizon.jsonl:9: missing label" in err, err
    _, _, nine_rows_peak = judge_with(0)  # the same error in a file of nine rows: what the command itself costs
    grown = peak - nine_rows_peak
    assert grown < 32 * _MIB, f"judge grew by {grown // _MIB} MiB more on a million rows before naming row 9"


@pytest.mark.slow
def test_ids_of_the_wrong_shape_or_length_fail_verify_naming_the_row(release_copy):
    """Before, a 100 MB instruction_id (and any non-empty one) passed ``verify``."""
    from agenthorizon.release.verify import verify_release

    labels = release_copy / "AgentHorizon.jsonl"
    rows = [json.loads(line) for line in labels.read_text().splitlines()]
    positive = next(index for index, row in enumerate(rows) if row["label"] == "positive")
    negative = next(index for index, row in enumerate(rows) if row["label"] == "negative")
    rows[positive]["instruction_id"] = rows[positive]["steps_id"] = "9" * 100_000_000
    rows[negative]["steps_id"] = "../../../etc"
    with labels.open("w") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)
    messages = [problem.message for problem in verify_release(release_copy)]
    assert (f"AgentHorizon.jsonl:{positive + 1}: a line longer than 4096 characters; expected one label object of "
            "seven short fields per line") in messages, messages
    assert (f"AgentHorizon.jsonl:{negative + 1}: steps_id '../../../etc' is not a deliverable id; expected four "
            "dash-separated groups of digits such as 000234004-234004-0000-000000234004") in messages, messages
    with pytest.raises(ValueError, match=rf"AgentHorizon\.jsonl:{min(positive, negative) + 1}: "):
        read_labels(release_copy)


def test_the_sample_corpus_has_ids_of_the_release_s_shape(tiny_root):
    from agenthorizon.release.verify import verify_release

    assert verify_release(tiny_root) == []


def test_sparse_item_files_and_judge_texts_are_refused_unread_naming_them(release_copy, tmp_path):
    """A 2 GiB sparse trajectory json, Markdown or prompt.md was read whole by every loader and judge."""
    from agenthorizon.judging.judges.release_prompt import read_release_files
    from agenthorizon.release.verify import verify_release

    row = read_labels(release_copy)[0]
    jsons = release_copy / "sandbox" / "data" / "jsons" / f"{row['trajectory_id']}.json"
    markdown = release_copy / "sandbox" / "data" / "markdowns" / f"{row['trajectory_id']}.md"
    prompt = release_copy / "sandbox" / "prompt.md"
    for path in (jsons, markdown):
        os.truncate(path, 2**31)
    problems = {(problem.path, problem.message) for problem in verify_release(release_copy)}
    for path, what in ((jsons, "a trajectory json"), (markdown, "a markdown file")):
        assert (str(path), f"{what} of 2,147,483,648 bytes; expected at most 67,108,864 (refused unread)") in problems
    os.truncate(prompt, 2**31)
    with pytest.raises(ValueError, match=r"prompt\.md: a judge text of 2,147,483,648 bytes; expected at most"):
        read_release_files(release_copy)


@pytest.mark.slow
def test_a_sparse_2_gib_lock_file_is_an_unreadable_holder_not_read_whole(tmp_path):
    """A planted lock file is read to name its holder: at most 64 KiB of it."""
    folder = tmp_path / "run"
    folder.mkdir()
    lock = folder / "run.lock"
    lock.touch()
    os.truncate(lock, 2**31)
    program = """
import sys
from pathlib import Path
from agenthorizon.judging.runs.folder import RunDirectory
try:
    RunDirectory(Path(sys.argv[1])).acquire()
except Exception as error:
    _report(f"{type(error).__name__}: {error}")
"""
    error, peak = run_measured(program, str(folder))
    grown = peak - baseline_peak("from agenthorizon.judging.runs.folder import RunDirectory")
    assert error.startswith(f"RunLockedError: {folder} is in use by another runner (unreadable; lock file {lock})")
    assert grown < 64 * _MIB, f"taking the lock grew by {grown // _MIB} MiB"


def test_a_sparse_dev_manifest_is_refused_unread_naming_it(tmp_path):
    from agenthorizon.release.files import read_dev_manifest

    manifest = tmp_path / "dev.txt"
    manifest.touch()
    os.truncate(manifest, 2**31)
    with pytest.raises(ValueError, match=rf"{manifest}: a dev manifest of 2,147,483,648 bytes; expected at most"):
        read_dev_manifest(manifest)
