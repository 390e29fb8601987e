"""Presentation perturbations (issue 34, section 6): what a judge receives when an item is shown
another way, seen in the blind input and at a loopback model server, and how the runs are kept apart.

Each expectation is written from the dataset row itself (its steps, its screenshots' bytes, the
release's action strings), not from the perturbation code, so a wrong cut, order or rewording fails.
"""

from __future__ import annotations

import json

import pytest

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.inputs import build_judge_input
from agenthorizon.judging.judges import OpenAICompatibleJudge
from agenthorizon.judging.perturbation import PERTURBATIONS, parse_perturbation, shuffled_order
from agenthorizon.judging.runs.folder import read_run_record
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.release.render import action_string
from agenthorizon.schema import HIDDEN_FIELDS
from loopback import ModelServer

ANSWER = '{"success": true, "reasoning": "looks done", "confidence": "low"}'


@pytest.fixture(scope="module")
def dataset(tiny_root, tmp_path_factory):
    return agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths",
                                     cache_dir=tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="module")
def row(dataset):
    return max((dict(dataset[i]) for i in range(len(dataset))), key=lambda r: r["num_steps"])


def _action(step: dict) -> str:
    return action_string({"type": step["action_type"], "parameters": json.loads(step["parameters"])})


@pytest.mark.parametrize("half", ["first-half", "last-half"])
def test_a_half_keeps_exactly_that_half_of_the_steps_with_their_ids_and_screenshots(row, half):
    n = row["num_steps"]
    kept = list(range(0, (n + 1) // 2)) if half == "first-half" else list(range((n + 1) // 2, n))
    shown = build_judge_input(row, perturb=half)
    assert [step["step_id"] for step in shown.steps] == [row["steps"][i]["step_id"] for i in kept]
    assert f"Total steps: **{len(kept)}**" in shown.markdown
    for i in range(n):
        heading = f"### Step {row['steps'][i]['step_id']}\n"
        assert (heading in shown.markdown) == (i in kept)
    full = build_judge_input(row)
    assert [shown.screenshots.read_bytes(k) for k in range(len(kept))] == [full.screenshots.read_bytes(i) for i in kept]
    assert len(shown.trajectory_json()["steps"]) == len(kept)


def test_shuffled_screenshots_move_only_within_windows_and_keep_the_actions(row):
    full = build_judge_input(row)
    shown = build_judge_input(row, perturb="shuffle-screenshots")
    present = full.screenshots.present
    assert len(present) >= 5
    order = shuffled_order(present, row["trajectory_id"])
    moved = [position for position in present if order[position] != position]
    assert moved, "the permutation left every screenshot in place"
    for position in present:
        assert present.index(order[position]) // 4 == present.index(position) // 4  # same window of four
        assert shown.screenshots.read_bytes(position) == full.screenshots.read_bytes(order[position])
    assert [s.get("action") for s in shown.steps] == [s.get("action") for s in full.steps]
    assert build_judge_input(row, perturb="shuffle-screenshots").screenshots.present == present  # same again


def test_instruction_last_puts_the_goal_after_every_step_in_every_form(row):
    shown = build_judge_input(row, perturb="instruction-last")
    instruction = row["instruction"].strip()
    last_step = f"### Step {row['steps'][-1]['step_id']}\n"
    assert shown.markdown.index(last_step) < shown.markdown.index("## Goal") < shown.markdown.index(instruction)
    assert list(shown.trajectory_json()) == ["trajectory_id", "environment", "steps", "task"]
    assert shown.instruction == row["instruction"]  # judges that read the field still get it


def test_paraphrase_rewords_every_action_line_and_nothing_else(row):
    shown = build_judge_input(row, perturb="paraphrase").markdown
    full = build_judge_input(row).markdown
    lines = [line for line in shown.splitlines() if line.startswith("**Action:**")]
    assert len(lines) == row["num_steps"]
    for line, step in zip(lines, row["steps"]):
        original = _action(step)
        if step["action_type"] in ("click", "type", "hotkey", "press", "scroll", "drag"):
            assert original not in line, line
        for number in [token for token in original.replace(",", " ").replace("(", " ").replace(")", " ").split()
                       if token.lstrip("-").isdigit()]:
            assert number in line  # coordinates and counts survive the rewording
    strip = [line for line in shown.splitlines() if not line.startswith("**Action:**")]
    assert strip == [line for line in full.splitlines() if not line.startswith("**Action:**")]


@pytest.mark.parametrize("name", PERTURBATIONS)
def test_a_perturbed_input_is_still_blind(row, name):
    shown = build_judge_input(row, perturb=name)
    text = shown.markdown + json.dumps(shown.trajectory_json())
    for field in HIDDEN_FIELDS:
        value = row.get(field)
        if isinstance(value, str) and len(value) > 8:
            assert value not in text, field
    assert not hasattr(shown, "label")


def test_unknown_and_contradictory_perturbations_are_refused():
    with pytest.raises(ValueError, match="unknown perturbation 'reverse'"):
        parse_perturbation("reverse")
    with pytest.raises(ValueError, match="first-half and last-half together"):
        parse_perturbation("first-half,last-half")


def test_a_loopback_server_receives_the_perturbed_input(dataset, row, tiny_root, tmp_path):
    """The direct judge's interleaved layout: the goal after the steps, reworded lines, half the steps."""
    server = ModelServer({"m": lambda body: ANSWER})
    try:
        judge = OpenAICompatibleJudge.from_options("m", base_url=server.base_url, api_key_env="AH_PERTURB_NO_KEY",
                                      layout="interleaved")
        ids = [row["trajectory_id"]]
        one = dataset.filter(lambda r: r["trajectory_id"] in ids)
        summary = run_judge(judge, one, tmp_path / "run", perturb="instruction-last,first-half,paraphrase",
                            data_root=tiny_root, progress=False)
    finally:
        server.close()
    assert summary.counts.ok == 1, summary.errors
    body = next(b for b in server.requests if b["messages"][0]["content"] != "ping")
    texts = [part["text"] for part in body["messages"][-1]["content"] if part["type"] == "text"]
    images = [part for part in body["messages"][-1]["content"] if part["type"] != "text"]
    goal = next(i for i, text in enumerate(texts) if text.startswith("## Goal"))
    steps = [i for i, text in enumerate(texts) if text.startswith("Step ")]
    kept = (row["num_steps"] + 1) // 2
    assert len(steps) == kept and len(images) == kept and max(steps) < goal
    assert row["instruction"].strip() in texts[goal]
    assert "The instruction is given after the recording" in texts[0]
    first = row["steps"][0]
    if first["action_type"] == "click":
        assert "mouse button" in texts[steps[0]] and _action(first) not in texts[steps[0]]


def test_perturbed_runs_are_their_own_judge_recorded_and_refused_on_resume(dataset, tiny_root, tmp_path, capsys):
    plain, shown = tmp_path / "plain", tmp_path / "shown"
    run_judge("lexical", dataset, plain, data_root=tiny_root, progress=False)
    assert main(["judge", "--data", str(tiny_root), "--config", "AH", "--judge", "lexical", "--out", str(shown),
                 "--perturb", "paraphrase,first-half", "--no-progress"]) == 0
    assert "lexical (perturbed: first-half, paraphrase) on AH" in capsys.readouterr().out
    record = json.loads((shown / "run.json").read_text())
    assert record["judge"]["perturbation"] == ["first-half", "paraphrase"]
    assert record["label"] == "lexical (perturbed: first-half, paraphrase)"
    assert read_run_record(plain).judge_key != read_run_record(shown).judge_key
    with pytest.raises(ValueError, match="perturbation"):
        run_judge("lexical", dataset, shown, data_root=tiny_root, progress=False)
    with pytest.raises(SystemExit):
        main(["judge", "--data", str(tiny_root), "--config", "AH", "--judge", "lexical", "--out", str(tmp_path / "x"),
              "--perturb", "upside-down"])
    assert "--perturb: unknown perturbation 'upside-down'" in capsys.readouterr().err
