"""What a new user trips on, through the real command line: each mistake gets its own message and exit code.

Every run here is made by the real runner (a stub judge answers from the test,
never from its input); the commands run through ``agenthorizon.cli.main`` or,
where a terminal matters, a subprocess on a pseudo-terminal.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from agenthorizon.cli import main
from agenthorizon.data.load import load_dataset
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.release.files import load_references
from agenthorizon.release.sample import generate
from agenthorizon.schema import CONFIG_AH, CONFIG_AH_S, FRAMEWORK_FILES, IMAGES_DIR, POSITIVE
from agenthorizon.scoring.metrics import score
from stub_judges import InterruptedJudge

INTERRUPT_AFTER = 3


def _answers(rows) -> dict[str, bool]:
    return {row["trajectory_id"]: row["label"] == POSITIVE for row in rows}


@pytest.fixture(scope="module")
def runs(tiny_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A finished run on AH and an interrupted one (INTERRUPT_AFTER results), both by the real runner."""
    base = tmp_path_factory.mktemp("first-mistakes")
    rows = load_references(tiny_root, CONFIG_AH)
    dataset = load_dataset(tiny_root, CONFIG_AH, split="test", images="paths", cache_dir=base / "cache")
    run_judge(InterruptedJudge(None, _answers(rows)), dataset, base / "finished", config=CONFIG_AH, data_root=tiny_root,
              progress=False, concurrency=1)
    with pytest.raises(KeyboardInterrupt):
        run_judge(InterruptedJudge(INTERRUPT_AFTER + 1, _answers(rows)), dataset, base / "interrupted", config=CONFIG_AH,
                  data_root=tiny_root, progress=False, concurrency=1)
    return {"finished": base / "finished", "interrupted": base / "interrupted"}


def _jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps({"trajectory_id": r["trajectory_id"], "success": r["label"] == POSITIVE}) + "\n"
                            for r in rows), encoding="utf-8")
    return path


# --- score: the wrong items, a config to guess, an unfinished run -------------------------------


def test_a_run_scored_against_another_release_is_refused_with_counts_and_examples(runs, tmp_path, capsys):
    other = generate(tmp_path / "other", preset="tiny", seed=1, images=False).root
    code = main(["score", str(runs["finished"]), "--data", str(other)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""  # no table of zeros
    err = captured.err
    n_other = len(load_references(other, CONFIG_AH))
    assert f"matched 0 of {n_other} items of AH" in err
    assert re.search(r"unknown \d+ \(e\.g\. [0-9a-f-]{36}, in no label file of the release\)", err)
    assert re.search(rf"missing {n_other} \(e\.g\. [0-9a-f-]{{36}}\)", err)
    # The advice that can fix it; not "re-run judge into the same --out", which cannot.
    assert "check that --data is the release the run was made on" in err and "same --out" not in err


def test_leaderboard_and_partition_refuse_a_run_of_another_release(runs, tmp_path, capsys):
    # The same mistake through the commands that pool runs: no row of zeros, no split where every item is hard.
    other = generate(tmp_path / "other", preset="tiny", seed=1, images=False).root
    for argv in (["leaderboard", str(runs["finished"]), "--data", str(other)],
                 ["partition", str(runs["finished"]), "--data", str(other), "--threshold", "0",
                  "--out", str(tmp_path / "split")]):
        code = main(argv)
        captured = capsys.readouterr()
        assert code == 2, (argv[0], captured)
        assert "holds results for other items than config" in captured.err and "matched 0 of" in captured.err
    assert not (tmp_path / "split").exists()


def test_predictions_of_another_config_are_refused_with_the_config_they_are(tiny_root, tmp_path, capsys):
    predictions = _jsonl(tmp_path / "ahs.jsonl", load_references(tiny_root, CONFIG_AH_S))
    assert main(["score", str(predictions), "--data", str(tiny_root), "--config", CONFIG_AH]) == 2
    err = capsys.readouterr().err
    assert "holds results for other items than config AH: matched 0 of" in err
    assert "pass --config AH-S" in err and "agenthorizon judge" not in err


def test_predictions_without_config_get_the_config_their_ids_are(tiny_root, tmp_path, capsys):
    rows = load_references(tiny_root, CONFIG_AH_S)
    predictions = _jsonl(tmp_path / "ahs.jsonl", rows)
    assert main(["score", str(predictions), "--data", str(tiny_root), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["selection"]["config"] == CONFIG_AH_S and data["n"] == len(rows) and data["balanced_accuracy"] == 1.0
    assert any(note.startswith("Config AH-S: the results' ids are exactly its items") for note in data["notes"])


def test_predictions_without_config_that_fit_several_list_the_candidates(tiny_root, tmp_path, capsys):
    rows = load_references(tiny_root, CONFIG_AH)
    predictions = _jsonl(tmp_path / "some.jsonl", rows[:2])
    assert main(["score", str(predictions), "--data", str(tiny_root)]) == 2
    err = capsys.readouterr().err
    assert f"candidates (configs holding every id): AH (2 of {len(rows)} items)" in err and "pass --config" in err
    assert "all (2 of " in err


def test_an_interrupted_run_is_scored_strictly_and_says_so_first(tiny_root, runs, capsys):
    rows = load_references(tiny_root, CONFIG_AH)
    n = len(rows)
    assert main(["score", str(runs["interrupted"]), "--data", str(tiny_root)]) == 1
    captured = capsys.readouterr()
    lines = [line for line in captured.out.splitlines() if line.strip()]
    assert f"PARTIAL: {INTERRUPT_AFTER} of {n} items judged" in lines[0]  # the headline says it
    text = captured.out
    first_note = text.index(f"Partial run: {INTERRUPT_AFTER} of {n} items judged")
    assert first_note < text.index("Results found")  # said before the other notes
    assert "interrupted (signal): KeyboardInterrupt" in text
    assert "re-run the same `agenthorizon judge` command" in text and "without --limit" not in text
    assert main(["score", str(runs["interrupted"]), "--data", str(tiny_root), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["partial"]["judged"] == INTERRUPT_AFTER and data["partial"]["total"] == n
    # Strict: the missing items count as wrong, in the full denominator.
    judged = {path.stem: json.loads(path.read_text())["verdict"] for path in runs["interrupted"].glob("*-*-*-*-*.json")}
    assert data["n"] == n and data["balanced_accuracy"] == pytest.approx(score(judged, rows).balanced_accuracy)
    assert data["invalid_by_reason"]["missing"] == n - INTERRUPT_AFTER


def test_a_run_stopped_at_its_limit_is_told_to_resume_without_it(tiny_root, tmp_path, capsys):
    # The same command would stop at the same --limit again: the advice must say what completes the run.
    rows = load_references(tiny_root, CONFIG_AH)
    out = tmp_path / "limited"
    assert main(["judge", "--data", str(tiny_root), "--config", CONFIG_AH, "--judge", "constant:true", "--out", str(out),
                 "--limit", "2", "--bootstrap", "0", "--no-progress"]) in (0, 1)
    capsys.readouterr()
    assert main(["score", str(out), "--data", str(tiny_root)]) == 1
    text = capsys.readouterr().out
    assert f"PARTIAL: 2 of {len(rows)} items judged" in text and "it judged at most --limit 2 items" in text
    assert "without --limit (or with a larger one)" in text


def test_a_finished_run_is_not_partial(tiny_root, runs, capsys):
    assert main(["score", str(runs["finished"]), "--data", str(tiny_root), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["partial"] is None and data["balanced_accuracy"] == 1.0


# --- export of a sample corpus -------------------------------------------------------------------


def test_the_export_of_a_sample_says_it_is_synthetic_and_offers_no_publishing(tiny_copy, tmp_path, capsys):
    assert main(["export", str(tiny_copy), str(tmp_path / "sample-export"), "--configs", CONFIG_AH,
                 "--images", "none"]) == 0
    out = capsys.readouterr().out
    card = (tmp_path / "sample-export" / "README.md").read_text(encoding="utf-8")
    assert "**Synthetic data.**" in card and "do not publish it as AgentHorizon" in card
    assert "hf upload" not in out and "not for publishing" in out
    # The same files without the sample's marker are a release: the card is plain, the upload is offered.
    for relpath in FRAMEWORK_FILES:
        text = (tiny_copy / relpath).read_text(encoding="utf-8")
        (tiny_copy / relpath).write_text(text.split("\n", 1)[1], encoding="utf-8")
    assert main(["export", str(tiny_copy), str(tmp_path / "release-export"), "--configs", CONFIG_AH,
                 "--images", "none"]) == 0
    out = capsys.readouterr().out
    assert "Synthetic" not in (tmp_path / "release-export" / "README.md").read_text(encoding="utf-8")
    assert "hf upload" in out.splitlines()[-1]


# --- sample and verify ---------------------------------------------------------------------------


def test_sample_refuses_a_folder_that_is_not_empty(tmp_path, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["sample", str(folder), "--preset", "tiny", "--no-images"]) == 2
    err = capsys.readouterr().err
    assert f"{folder}: not empty (holds notes.txt); expected a new or empty folder" in err
    assert "--overwrite" in err and "overwrite=True" not in err  # the flag, not the Python keyword
    assert main(["sample", str(folder), "--preset", "tiny", "--no-images", "--overwrite"]) == 0
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "mine"  # only the corpus's own paths are written


def test_verify_prints_each_kind_of_problem_once_and_all_of_them_with_all(tiny_copy, capsys):
    # A corpus whose screenshots are gone: one problem per step, one kind.
    pngs = list((tiny_copy / IMAGES_DIR).rglob("*.png"))
    for path in pngs:
        path.unlink()
    assert main(["verify", str(tiny_copy)]) == 1
    out = capsys.readouterr().out.splitlines()
    summary = out[-1]
    n = int(summary.split()[0])
    assert n >= len(pngs) and "(1 kind(s); --all lists every one)" in summary
    assert out[0] == f"{n} x screenshot file not found (first 3 shown):" and len(out) == 5  # kind, 3 places, summary
    assert main(["verify", str(tiny_copy), "--all"]) == 1
    assert len(capsys.readouterr().out.splitlines()) == n + 1


# --- progress on a terminal ----------------------------------------------------------------------


def _on_a_terminal(args: list[str], cwd: Path) -> tuple[int, str]:
    """``agenthorizon ARGS`` with standard error on a pseudo-terminal; its exit code and what it wrote there."""
    leader, follower = pty.openpty()
    # A new pseudo-terminal is 0 columns wide, where tqdm draws nothing: give it a terminal's size.
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    # TQDM_DELAY=0: tqdm's own setting, so that the bar shows on the tiny corpus's short waits.
    env = {**os.environ, "TQDM_DELAY": "0", "TQDM_MININTERVAL": "0"}
    env.pop("TQDM_DISABLE", None)
    process = subprocess.Popen([sys.executable, "-m", "agenthorizon", *args], stdout=subprocess.DEVNULL,
                               stderr=follower, stdin=subprocess.DEVNULL, cwd=cwd, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return process.wait(timeout=300), b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize("command", ["sample", "verify", "export", "report"])
@pytest.mark.slow
def test_long_commands_show_progress_on_a_terminal_only(command, tiny_root, runs, tmp_path):
    args = {
        "sample": ["sample", str(tmp_path / "new"), "--preset", "tiny", "--workers", "1"],
        "verify": ["verify", str(tiny_root)],
        "export": ["export", str(tiny_root), str(tmp_path / "export"), "--configs", CONFIG_AH, "--images", "thumbnails"],
        "report": ["report", str(runs["finished"]), "--data", str(tiny_root), "--out", str(tmp_path / "r.html"),
                   "--bootstrap", "0"],
    }[command]
    code, terminal = _on_a_terminal(args, tmp_path)
    assert code == 0, terminal[-2000:]
    assert re.search(r"\d+/\d+ \[", terminal), terminal[-2000:]  # a tqdm bar: n/total [elapsed...]
    # Not a terminal: no bar, whatever the delay.
    again = [a.replace(str(tmp_path / "new"), str(tmp_path / "new2")).replace(str(tmp_path / "export"), str(tmp_path / "e2"))
             for a in args]
    piped = subprocess.run([sys.executable, "-m", "agenthorizon", *again], capture_output=True, text=True, cwd=tmp_path,
                           env={**{k: v for k, v in os.environ.items() if k != "TQDM_DISABLE"}, "TQDM_DELAY": "0"},
                           timeout=300)
    assert piped.returncode == 0 and not re.search(r"\d+/\d+ \[", piped.stderr), piped.stderr[-2000:]


# --- start-up: a command imports what it uses -----------------------------------------------------


def _imported_after(argv: list[str], cwd: Path) -> set[str]:
    """Modules a fresh interpreter has imported after ``agenthorizon ARGV`` ran (through main, as the script does)."""
    code = (
        "import sys, json, contextlib, io\n"
        "from agenthorizon.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main({argv!r})\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=120)
    assert completed.returncode == 0, completed.stderr[-2000:]
    return set(json.loads(completed.stdout.splitlines()[-1]))


def test_help_imports_no_command_and_reads_every_help_line(tmp_path):
    from agenthorizon.cli import _help, command_modules

    modules = _imported_after(["--help"], tmp_path)
    assert not {name for name in modules if name.startswith("agenthorizon.cli.") and name != "agenthorizon.cli"}
    assert "numpy" not in modules
    # HELP read from the source is each module's own.
    assert {name: _help(name) for name in command_modules()} == {n: m.HELP for n, m in command_modules().items()}


@pytest.mark.slow
def test_score_of_a_finished_run_imports_no_dataset_image_or_hub_library(tiny_root, runs, tmp_path):
    modules = _imported_after(["score", str(runs["finished"]), "--data", str(tiny_root)], tmp_path)
    assert "agenthorizon.cli.score" in modules and "agenthorizon.cli.judge" not in modules
    assert not modules & {"datasets", "pyarrow", "PIL", "huggingface_hub", "pandas", "concurrent.futures", "numpy.ma"}


@pytest.mark.parametrize("command", ["score", "leaderboard", "info"])
def test_data_that_is_neither_a_folder_nor_a_repo_id_says_both_things_it_may_be(command, runs, tmp_path, capsys):
    missing = tmp_path / "no-such-release"
    args = {"score": ["score", str(runs["finished"]), "--data", str(missing)],
            "leaderboard": ["leaderboard", str(runs["finished"]), "--data", str(missing)],
            "info": ["info", str(missing)]}[command]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{missing} does not exist; expected a release root" in err
    assert "or a Hub dataset repo id such as 'ServiceNow/AgentHorizon'" in err
