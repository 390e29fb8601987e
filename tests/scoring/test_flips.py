"""Flip rate under a perturbation, against the definition written out here: counts by a loop over
items, and the pair-clustered interval by explicit resampling of whole pair groups with the
documented generator stream (numpy's default_rng(seed).integers, one row of draws per resample)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.scoring.flips import flip_rate
from agenthorizon.scoring.outcomes import item_outcomes

VERDICTS = st.sampled_from([True, False, None])


def _references(n):
    return [{"trajectory_id": f"{i:08d}-0000-4000-8000-000000000000", "label": "positive" if i % 3 else "negative",
             "pair_group_id": f"g{i // 3}", "mistake_type": ""} for i in range(n)]


def _explicit_interval(groups, statistic, n_resamples, seed, level=0.95):
    """Resample whole groups, in order of first appearance, with the documented stream; percentile interval."""
    names = list(dict.fromkeys(groups))
    members = [[i for i, g in enumerate(groups) if g == name] for name in names]
    draws = np.random.default_rng(seed).integers(0, len(names), size=(n_resamples, len(names)), dtype=np.int32)
    values = [statistic([i for cluster in row for i in members[cluster]]) for row in draws]
    tail = 50 * (1 - level)
    return tuple(np.percentile(values, [tail, 100 - tail]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(VERDICTS, VERDICTS), min_size=1, max_size=30))
def test_flip_counts_equal_a_loop_over_items(pairs):
    refs = _references(len(pairs))
    base, shown = zip(*pairs)
    result = flip_rate(item_outcomes(list(base), refs), item_outcomes(list(shown), refs))
    flips = [i for i, (a, b) in enumerate(pairs) if a != b]
    assert result.flips == len(flips) and result.rate == pytest.approx(len(flips) / len(pairs))
    assert result.to_success == sum(1 for i in flips if pairs[i][1] is True)
    assert result.to_failure == sum(1 for i in flips if pairs[i][1] is False)

    def accuracy(verdicts):
        return sum((v is True) == (r["label"] == "positive") for v, r in zip(verdicts, refs) if v is not None) / len(refs)

    assert result.accuracy_change == pytest.approx(accuracy(shown) - accuracy(base))


def test_intervals_equal_explicit_pair_clustered_resampling():
    rng = np.random.default_rng(3)
    n = 45
    refs = _references(n)
    base = [bool(x) for x in rng.random(n) < 0.6]
    shown = [None if x < 0.1 else bool(x < 0.55) for x in rng.random(n)]
    result = flip_rate(item_outcomes(base, refs), item_outcomes(shown, refs), bootstrap=400, seed=7)
    groups = [r["pair_group_id"] for r in refs]
    flipped = [a != b for a, b in zip(base, shown)]
    assert result.rate_interval == pytest.approx(
        _explicit_interval(groups, lambda items: np.mean([flipped[i] for i in items]), 400, 7))
    right = [(r["label"] == "positive") for r in refs]
    correct_base = [b == y for b, y in zip(base, right)]
    correct_shown = [s is not None and s == y for s, y in zip(shown, right)]
    change = _explicit_interval(groups, lambda items: np.mean([correct_shown[i] - correct_base[i] for i in items]), 400, 7)
    assert result.change_interval == pytest.approx(change)


def test_runs_on_other_references_are_refused():
    with pytest.raises(ValueError, match="same references"):
        flip_rate(item_outcomes([True], _references(1)), item_outcomes([True, False], _references(2)))


def test_score_against_reports_the_flip_rate_of_a_perturbed_run(tiny_root, tmp_path, capsys):
    dataset = agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths", cache_dir=tmp_path / "cache")
    plain, shown, other = tmp_path / "plain", tmp_path / "shown", tmp_path / "other"
    run_judge("lexical", dataset, plain, data_root=tiny_root, progress=False)
    run_judge("lexical", dataset, shown, perturb="first-half", data_root=tiny_root, progress=False)
    run_judge("constant:true", dataset, other, data_root=tiny_root, progress=False)
    assert main(["score", str(shown), "--against", str(plain), "--data", str(tiny_root), "--format", "json",
                 "--bootstrap", "200"]) == 0
    flips = json.loads(capsys.readouterr().out)["flip_rate"]
    verdicts = {}
    for folder in (plain, shown):
        verdicts[folder] = {path.stem: json.loads(path.read_text())["verdict"]["success"]
                            for path in folder.glob("*.json") if not path.name.startswith("run")}
    expected = sum(verdicts[plain][tid] != verdicts[shown][tid] for tid in verdicts[plain])
    assert flips["perturbation"] == ["first-half"] and flips["n_items"] == len(dataset)
    assert flips["flips"] == expected and flips["rate"] == pytest.approx(expected / len(dataset))
    assert flips["rate_interval"] is not None

    assert main(["score", str(shown), "--against", str(plain), "--data", str(tiny_root)]) == 0
    assert "Flip rate under first-half" in capsys.readouterr().out
    assert main(["score", str(shown), "--against", str(other), "--data", str(tiny_root)]) == 2
    assert "not the same judge" in capsys.readouterr().err
    assert main(["score", str(plain), "--against", str(plain), "--data", str(tiny_root)]) == 2
    assert "has no perturbation" in capsys.readouterr().err
