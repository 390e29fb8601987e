"""``leaderboard --harnesses``: one model judged through two harnesses, from two real runs of the runner.

The harnesses are two small CLIs of this test's own (``Harness`` entries run by ``HarnessJudge``
in the sandbox, as any user's harness is): each answers from a fixed rule on the trajectory id,
so their verdicts differ on some items. The comparison is checked against a computation done
here from the label file alone: balanced accuracies, their difference, McNemar's discordant
counts and exact p.
"""

from __future__ import annotations

import json
import math
import re

import agenthorizon
from agenthorizon.judging.judges.presets import Harness, HarnessJudge
from agenthorizon.judging.runs.runner import run_judge

CLI = '''#!/usr/bin/python3
import json, re, sys
if sys.argv[1:] == ["--version"]:
    print("rule-cli 1.0")
    sys.exit(0)
tid = re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", sys.argv[-1])[0]
print(json.dumps({"success": RULE}))
'''
RULES = {"cli-a": "int(tid[0], 16) % 2 == 0", "cli-b": "int(tid[1], 16) % 3 != 0"}
PYTHON_RULES = {"cli-a": lambda tid: int(tid[0], 16) % 2 == 0, "cli-b": lambda tid: int(tid[1], 16) % 3 != 0}


def _harness(name, tmp_path):
    script = tmp_path / f"{name}.py"
    script.write_text(CLI.replace("RULE", RULES[name]), encoding="utf-8")
    script.chmod(0o755)
    return Harness(name=name, title=name, package=name, tested_version="1.0", argv=(str(script), "{prompt}"),
                   stdin=None, reader="text", tools={"paper": ()})


def _balanced(correct, positive):
    pos = [c for c, p in zip(correct, positive) if p]
    neg = [c for c, p in zip(correct, positive) if not p]
    return (sum(pos) / len(pos) + sum(neg) / len(neg)) / 2


def test_one_model_through_two_harnesses_gives_their_paired_difference_and_mcnemar_p(
    bubblewrap, tiny_root, tmp_path, capsys
):
    from agenthorizon.cli import main

    dataset = agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths", cache_dir=tmp_path / "cache")
    # One model, named as each CLI names it: the alias makes them one.
    models = {"cli-a": "openai/judge-model", "cli-b": "judge-model"}
    for name, model in models.items():
        judge = HarnessJudge(_harness(name, tmp_path), model, prompt="project", timeout=120)
        summary = run_judge(judge, dataset, tmp_path / name, config="all", data_root=tiny_root, progress=False)
        assert summary.counts.ok == len(dataset), summary.errors
    code = main(["leaderboard", str(tmp_path / "cli-a"), str(tmp_path / "cli-b"), "--data", str(tiny_root),
                 "--harnesses", "--model-alias", "openai/judge-model=judge-model", "--bootstrap", "500",
                 "--format", "json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)["harnesses"]
    assert [entry["model"] for entry in result["models"]] == ["judge-model"] and result["single"] == []
    (entry,) = result["models"]
    (pair,) = entry["pairs"]

    # The same numbers from the label files alone.
    labels = [json.loads(line) for name in ("AgentHorizon.jsonl", "AgentHorizon-Simple.jsonl")
              for line in (tiny_root / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    positive = [row["label"] == "positive" for row in labels]
    correct = {name: [rule(row["trajectory_id"]) == p for row, p in zip(labels, positive)]
               for name, rule in PYTHON_RULES.items()}
    first, second = pair["a"], pair["b"]
    assert {first, second} == {"cli-a", "cli-b"}
    by_harness = {h["harness"]: h for h in entry["harnesses"]}
    ah = [row["trajectory_id"] for row in labels[:8]]
    for name in PYTHON_RULES:
        on_ah = [c for row, c in zip(labels, correct[name]) if row["trajectory_id"] in ah]
        assert math.isclose(by_harness[name]["AH"], _balanced(on_ah, positive[:8]))
    expected = _balanced(correct[first], positive) - _balanced(correct[second], positive)
    assert pair["n"] == len(labels) == 19 and math.isclose(pair["difference"], expected)
    only_a = sum(a and not b for a, b in zip(correct[first], correct[second]))
    only_b = sum(b and not a for a, b in zip(correct[first], correct[second]))
    assert (pair["only_a_correct"], pair["only_b_correct"]) == (only_a, only_b) and only_a + only_b > 0
    discordant = only_a + only_b
    p = min(1.0, 2 * sum(math.comb(discordant, k) for k in range(min(only_a, only_b) + 1)) / 2 ** discordant)
    assert math.isclose(pair["p_value"], p)
    low, high = pair["interval"]
    assert -1 <= low <= pair["difference"] <= high <= 1 and low < high
    assert pair["n_bootstrap"] == 500

    # The text formats carry the same view as a table after the leaderboard.
    assert main(["leaderboard", str(tmp_path / "cli-a"), str(tmp_path / "cli-b"), "--data", str(tiny_root),
                 "--harnesses", "--model-alias", "openai/judge-model=judge-model", "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    assert "One model across harnesses" in text and re.search(rf"\| judge-model \| {first} - {second} \|", text)
    # Without the alias the two names are two models, each through one harness: nothing to compare.
    assert main(["leaderboard", str(tmp_path / "cli-a"), str(tmp_path / "cli-b"), "--data", str(tiny_root),
                 "--harnesses", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["harnesses"]["single"] == ["judge-model", "openai/judge-model"]
    # The HTML report shows the same pair (the runs are on "all": one config, the same 19 items).
    html = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "cli-a"), str(tmp_path / "cli-b"), "--data", str(tiny_root), "--out",
                 str(html), "--bootstrap", "200", "--thumbnails", "0", "--model-alias",
                 "openai/judge-model=judge-model"]) == 0
    page = html.read_text(encoding="utf-8")
    section = page[page.index('id="harness-table"'):]
    assert f"<td>judge-model</td><td>{first} − {second}</td>" in section
    assert f"<strong>{100 * expected:+.1f}</strong> pts" in section and f"{only_a} / {only_b}" in section


def test_aliases_and_runs_that_cannot_be_compared_are_refused_or_named():
    import pytest

    from agenthorizon.report.harnesses import HarnessRun, compare_harnesses, parse_model_aliases

    assert parse_model_aliases(["a=m", "b = m"]) == {"a": "m", "b": "m"}
    with pytest.raises(ValueError, match="--model-alias expects NAME=MODEL .* got 'gpt-5.5'"):
        parse_model_aliases(["gpt-5.5"])
    with pytest.raises(ValueError, match="gives 'a' two models: 'm' and 'n'"):
        parse_model_aliases(["a=m", "a=n"])
    runs = [HarnessRun("m", "codex", "codex:m --agent-tools paper", "k1", {}, {}),
            HarnessRun("m", "codex", "codex:m --agent-tools read-only", "k2", {}, {})]
    with pytest.raises(ValueError, match="model 'm' has two codex runs .*paper and codex:m --agent-tools read-only"):
        compare_harnesses(runs, lambda a, b: ([], []), bootstrap=0, seed=0, level=0.95)
    lenient = compare_harnesses(runs, lambda a, b: ([], []), bootstrap=0, seed=0, level=0.95, strict=False)
    assert lenient["models"] == [] and lenient["ambiguous"] == ["m"]


def test_model_alias_without_harnesses_is_a_usage_error(tiny_root, tmp_path, capsys):
    from agenthorizon.cli import main

    assert main(["leaderboard", str(tmp_path), "--data", str(tiny_root), "--model-alias", "a=b"]) == 2
    assert "--model-alias: an option of --harnesses" in capsys.readouterr().err
