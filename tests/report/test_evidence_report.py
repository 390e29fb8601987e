"""``score --evidence`` and ``leaderboard --evidence`` read each result's evidence and aggregate it.

The runs are real (the lexical judge through the runner); their result files are then given the
evidence an agentic harness would have recorded, because only the real CLIs write it and those
are tested in tests/judging/test_real_clis.py. The expected numbers are computed here from the
result files and the trajectory JSONs, not through the package's aggregation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.runs.runner import run_judge


@pytest.fixture(scope="module")
def runs(tiny_root, tmp_path_factory):
    base = tmp_path_factory.mktemp("evidence")
    dataset = agenthorizon.load_dataset(tiny_root, "AH", split="test", images=None, cache_dir=base / "cache")
    steps = {row["trajectory_id"]: row["num_steps"] for row in dataset}
    folders = {}
    for name, harness, share in (("lexical", "codex", 1), ("constant:true", "pi", 3)):
        folder = base / name
        run_judge(name, dataset, folder, data_root=tiny_root, progress=False)
        for position, path in enumerate(sorted(folder.glob("*.json"))):
            if path.name.startswith("run"):
                continue
            data = json.loads(path.read_text())
            n = steps[data["trajectory_id"]]
            viewed = {str(s): 1 for s in range(0, n, share)} if position % 4 else {}
            data["telemetry"].update(harness=harness, evidence={"screenshots": viewed, "markdown": position % 2,
                                                                "json": 0, "tool_calls": len(viewed)})
            path.write_text(json.dumps(data))
        folders[name] = folder
    return folders, steps


def _expected(folder: Path, steps: dict) -> dict:
    fractions, markdown = [], []
    for path in folder.glob("*.json"):
        if path.name.startswith("run"):
            continue
        data = json.loads(path.read_text())
        evidence = data["telemetry"]["evidence"]
        fractions.append(len(evidence["screenshots"]) / steps[data["trajectory_id"]])
        markdown.append(evidence["markdown"] > 0)
    return {"mean": sum(fractions) / len(fractions), "markdown": sum(markdown) / len(markdown), "n": len(fractions)}


def test_score_evidence_reports_the_runs_aggregate(runs, tiny_root, capsys):
    folders, steps = runs
    assert main(["score", str(folders["lexical"]), "--data", str(tiny_root), "--evidence", "--format", "json",
                 "--bootstrap", "100"]) == 0
    evidence = json.loads(capsys.readouterr().out)["evidence"]
    expected = _expected(folders["lexical"], steps)
    assert evidence["harnesses"] == ["codex"] and evidence["n_known"] == evidence["n_items"] == expected["n"]
    assert evidence["mean_fraction_viewed"] == pytest.approx(expected["mean"])
    assert evidence["markdown_rate"] == pytest.approx(expected["markdown"])
    assert evidence["fraction_interval"][0] <= evidence["mean_fraction_viewed"] <= evidence["fraction_interval"][1]
    assert main(["score", str(folders["lexical"]), "--data", str(tiny_root), "--evidence"]) == 0
    assert "Evidence (" in capsys.readouterr().out


def test_leaderboard_evidence_lines_up_the_runs(runs, tiny_root, capsys):
    folders, steps = runs
    assert main(["leaderboard", *map(str, folders.values()), "--data", str(tiny_root), "--evidence",
                 "--format", "json"]) == 0
    grouped = json.loads(capsys.readouterr().out)["evidence"]
    entries = {entry["label"]: entry for group in grouped.values() for entry in group}
    assert set(entries) == {"lexical", "constant:true"}
    for name, folder in folders.items():
        assert entries[name]["mean_fraction_viewed"] == pytest.approx(_expected(folder, steps)["mean"])
    assert entries["constant:true"]["accuracy"] == 0.5 and entries["constant:true"]["harness"] == "pi"
    assert main(["leaderboard", *map(str, folders.values()), "--data", str(tiny_root), "--evidence"]) == 0
    assert "Evidence selection: what each judge opened" in capsys.readouterr().out
