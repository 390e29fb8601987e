"""The README's main job: `agenthorizon demo` runs end to end, offline, and prints scores."""

from __future__ import annotations

import re
import shutil

import pytest

from agenthorizon.cli import main
from agenthorizon.judging.runs.folder import is_result_name


@pytest.mark.slow
def test_demo_runs_end_to_end_and_prints_scores(small_root, tmp_path, capsys):
    out = tmp_path / "demo"
    shutil.copytree(small_root, out / "release")  # the demo reuses a corpus already there

    assert main(["demo", "--out", str(out), "--bootstrap", "200"]) == 0
    text = capsys.readouterr().out
    assert "Reusing the sample corpus" in text
    for config in ("AH ", "AH-S", "AH-D"):
        assert re.search(rf"^\s+{config}\s*\d+ items: \d+ positive / \d+ negative", text, re.M), config
    rows = {(m.group(1), m.group(2)): m for m in re.finditer(
        r"^(lexical|constant:true)\s+(AH-D|AH)\s+(\d+)\s+([\d.]+) \[([\d.]+), ([\d.]+)\]", text, re.M)}
    assert set(rows) == {(j, c) for j in ("lexical", "constant:true") for c in ("AH-D", "AH")}
    for (judge, config), match in rows.items():
        value, low, high = (float(match.group(i)) for i in (4, 5, 6))
        assert low <= value <= high  # an interval around the estimate
        if judge == "constant:true":
            assert value == 50.0  # a constant judge is at chance, exactly
        run_dir = out / "runs" / f"{judge.split(':')[0]}-{config}"
        assert len([p for p in run_dir.iterdir() if is_result_name(p)]) == int(match.group(3))
    assert float(rows["lexical", "AH"].group(4)) > 60.0  # the sample's negatives contradict their instruction
    assert "McNemar" in text and "difference lexical - constant" in text

    # Running it again reuses the corpus and the finished runs.
    assert main(["demo", "--out", str(out), "--bootstrap", "0"]) == 0
    again = capsys.readouterr().out
    reuse = re.findall(r": (\d+) items \((\d+) reused\)", again)
    assert len(reuse) == 4 and all(n == reused for n, reused in reuse)
    assert all(m.group(1) == m.group(2) for m in re.finditer(r": (\d+) items \((\d+) reused\)", again))
