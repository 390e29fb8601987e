"""Papercuts of issue 36: what a newcomer types wrong, and what they pass from `datasets` habits.

The commands run as a user runs them (a subprocess of ``python -m agenthorizon``
where the environment matters, ``agenthorizon.cli.main`` otherwise).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.release.files import load_references
from agenthorizon.data.screenshots import BlindScreenshots, LazyScreenshots
from agenthorizon.schema import HIDDEN_FIELDS


def test_a_mistyped_flag_of_a_subcommand_shows_that_subcommands_usage_and_the_flag_meant(tiny_root, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["judge", "--data", str(tiny_root), "--judge", "lexical", "--out", str(tmp_path / "run"),
              "--concurrnecy", "3"])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.startswith("usage: agenthorizon judge"), err
    assert "unrecognized arguments: --concurrnecy 3 (did you mean --concurrency?)" in err
    assert not (tmp_path / "run").exists()


def test_a_mistyped_subcommand_is_named_with_the_command_meant(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["scroe", "runs/x"])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert "unknown command 'scroe' (did you mean score?)" in err


def test_a_flag_far_from_every_flag_gets_no_guess(tiny_root, capsys):
    with pytest.raises(SystemExit):
        main(["info", str(tiny_root), "--zzzzzz"])
    err = capsys.readouterr().err
    assert "unrecognized arguments: --zzzzzz" in err and "did you mean" not in err


def _load_in_child(tmp_path: Path, **env: str) -> str:
    """``load_dataset('ServiceNow/AgentHorizon', 'AH')`` in a fresh interpreter (huggingface_hub reads its
    environment at import), with an empty cache and a Hub endpoint on a closed loopback port."""
    code = ("import agenthorizon\n"
            "try:\n    agenthorizon.load_dataset('ServiceNow/AgentHorizon', 'AH')\n"
            "except FileNotFoundError as error:\n    print(error)\n")
    environment = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_ENDPOINT": "http://127.0.0.1:9", **env}
    environment.pop("HF_HUB_OFFLINE", None) if "HF_HUB_OFFLINE" not in env else None
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=environment)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_no_network_says_the_hub_could_not_be_reached_not_that_the_id_is_wrong(tmp_path):
    message = _load_in_child(tmp_path)
    assert "the Hub at http://127.0.0.1:9 could not be reached" in message, message
    assert "check the network" in message
    assert "such as 'ServiceNow/AgentHorizon'" not in message  # the id the user passed is not "advice"


@pytest.mark.slow
def test_offline_with_nothing_cached_says_offline_mode_is_on_and_how_to_fill_the_cache(tmp_path):
    message = _load_in_child(tmp_path, HF_HUB_OFFLINE="1")
    assert "offline mode is on (HF_HUB_OFFLINE=1)" in message, message
    assert str(tmp_path / "hf" / "hub") in message  # the cache that was looked in
    assert "hf download ServiceNow/AgentHorizon --repo-type dataset" in message


@pytest.mark.parametrize("split", [None, "test"])
def test_streaming_gives_an_iterable_dataset_with_lazy_screenshots(tiny_root, datasets_cache, split):
    loaded = agenthorizon.load_dataset(tiny_root, "AH", split=split, streaming=True, cache_dir=datasets_cache)
    iterable = loaded if split else loaded["test"]
    assert isinstance(iterable, datasets.IterableDataset)
    rows = list(iterable)
    mapped = agenthorizon.load_dataset(tiny_root, "AH", split="test", cache_dir=datasets_cache)
    assert [row["trajectory_id"] for row in rows] == mapped["trajectory_id"]
    first = rows[0]["screenshots"]
    assert isinstance(first, LazyScreenshots) and first.paths == mapped[0]["screenshots"].paths
    assert first[0].size == mapped[0]["screenshots"][0].size  # decodes on access


def test_blind_streaming_shows_no_label_and_no_path(tiny_root, datasets_cache):
    rows = list(agenthorizon.load_dataset(tiny_root, "AH", split="test", blind=True, streaming=True,
                                          cache_dir=datasets_cache))
    assert rows and not set(HIDDEN_FIELDS) & set(rows[0])
    assert isinstance(rows[0]["screenshots"], BlindScreenshots)


@pytest.mark.parametrize(("keyword", "advice"), [
    ({"data_dir": "release"}, "pass the release root (or a Hub repo id) as the first argument"),
    ({"trust_remote_code": True}, "no loading script or remote code runs here; drop the argument"),
    ({"shuffle_me": 1}, "it is not a parameter of agenthorizon.load_dataset"),
])
def test_datasets_keywords_without_a_meaning_here_are_refused_with_what_to_do(tiny_root, keyword, advice):
    with pytest.raises(TypeError) as error:
        agenthorizon.load_dataset(tiny_root, "AH", **keyword)
    assert advice in str(error.value) and next(iter(keyword)) in str(error.value)


@pytest.mark.slow
def test_judge_draws_a_bar_on_a_terminal_and_plain_lines_in_a_pipe(tiny_root, tmp_path):
    from test_first_mistakes import _on_a_terminal

    args = ["judge", "--data", str(tiny_root), "--config", "AH", "--judge", "constant:true"]
    code, terminal = _on_a_terminal([*args, "--out", str(tmp_path / "tty")], tmp_path)
    assert code == 0, terminal[-2000:]
    assert re.search(r"\d+/\d+ \[", terminal) and "\r" in terminal, terminal[-2000:]  # a tqdm bar
    env = {key: value for key, value in os.environ.items() if not key.startswith("TQDM_")}
    piped = subprocess.run([sys.executable, "-m", "agenthorizon", *args, "--out", str(tmp_path / "pipe")],
                           capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert piped.returncode == 0, piped.stderr[-2000:]
    assert "\r" not in piped.stderr, piped.stderr[-2000:]  # no tqdm frames in a log file
    total = len(load_references(tiny_root, "AH"))
    lines = [line for line in piped.stderr.splitlines() if " items, tokens " in line]
    assert lines and lines[-1].startswith(f"constant:true: {total}/{total} items, tokens 0, errors 0"), piped.stderr


def test_a_refused_resume_says_in_words_what_differs_and_both_ways_forward(tiny_root, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["judge", "--data", str(tiny_root), "--config", "AH", "--judge", "constant:true", "--out", str(out),
                 "--no-progress", "--bootstrap", "0"]) == 0
    capsys.readouterr()
    assert main(["judge", "--data", str(tiny_root), "--config", "AH", "--judge", "constant:true", "--out", str(out),
                 "--no-progress", "--bootstrap", "0", "--reask", "1"]) == 2
    err = capsys.readouterr().err
    assert "protocol is not set in the folder's run and reask=1 in this command" in err, err
    assert "Either resume it with the settings it was made with, or write this run to a new folder (another --out)" in err
    assert " there, " not in err and "None" not in err


def test_max_cost_without_prices_names_the_judge_not_a_python_object(tiny_root, tmp_path, capsys):
    code = main(["judge", "--data", str(tiny_root), "--config", "AH", "--judge", "command:/bin/true", "--sandbox", "none",
                 "--out", str(tmp_path / "run"), "--no-progress", "--max-cost", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot be enforced: the judge command:/bin/true reports no cost per item" in err, err
    assert "<" not in err and "object at" not in err


def test_dry_run_says_first_that_the_program_is_missing_with_its_install_line(bubblewrap, tiny_root, tmp_path, capsys,
                                                                            monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no agentic CLI on this PATH
    assert main(["judge", "--data", str(tiny_root), "--config", "AH", "--judge", "pi:vllm/m", "--dry-run",
                 "--out", str(tmp_path / "run")]) == 0
    printed = capsys.readouterr()
    assert printed.err.startswith("agenthorizon judge: 'pi' is not on PATH: install pi with "
                                  "`npm install -g @mariozechner/pi-coding-agent@0.73.1`"), printed.err
    assert printed.out.startswith("judge pi:vllm/m")  # the plan follows, on standard output


def test_a_run_of_another_release_gets_one_message_from_score_report_plot_and_leaderboard(tiny_root, tmp_path, capsys):
    from agenthorizon.release.sample import generate

    other = generate(tmp_path / "other", preset="tiny", seed=99, images=False).root  # other ids
    run = tmp_path / "run"
    assert main(["judge", "--data", str(other), "--config", "AH", "--judge", "constant:true", "--out", str(run),
                 "--no-progress", "--bootstrap", "0"]) == 0
    capsys.readouterr()
    commands = {
        "score": ["score", str(run), "--data", str(tiny_root)],
        "leaderboard": ["leaderboard", str(run), "--data", str(tiny_root)],
        "report": ["report", str(run), "--data", str(tiny_root), "--out", str(tmp_path / "r.html")],
        "plot": ["plot", str(run), "--data", str(tiny_root), "--out", str(tmp_path / "fig")],
    }
    for name, args in commands.items():
        assert main(args) == 2, name
        err = capsys.readouterr().err
        assert f"{run} holds results for other items than config AH: matched 0 of" in err, (name, err)
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "fig").exists()
