"""``agenthorizon robustness`` on real runs: every re-partition recounted from the result files, rho from scipy."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import spearmanr

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.schema import LABEL_FILE_HARD
from test_leaderboard import _labels


@pytest.fixture(scope="module")
def pool(small_root, tmp_path_factory):
    """Five runs of the random judge at five seeds (a pool of repeated runs) and the lexical judge."""
    base = tmp_path_factory.mktemp("robustness")
    dataset = agenthorizon.load_dataset(small_root, "AH", split="test", images=None)
    folders = []
    for spec in ("random:1", "random:2", "random:3", "random:4", "random:5", "lexical"):
        folders.append(base / spec.replace(":", "-"))
        run_judge(spec, dataset, folders[-1], config="AH", data_root=small_root, progress=False)
    return folders


def _right(folder, tid, label):
    path = folder / f"{tid}.json"
    result = json.loads(path.read_text()) if path.exists() else None
    return bool(result and result["parse_status"] == "ok" and result["verdict"]["success"] == (label == "positive"))


def _balanced(right, positive, members):
    return 0.5 * (right[members & positive].mean() + right[members & ~positive].mean())


def test_every_threshold_and_leave_one_out_recounted_with_scipy_rho(small_root, pool, capsys):
    ranked = pool
    assert main(["robustness", *map(str, pool[:5]), "--rank", *map(str, ranked), "--data", str(small_root),
                 "--threshold", "3", "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    labels = _labels(small_root, LABEL_FILE_HARD)
    positive = np.array([label == "positive" for label in labels.values()])
    right = {folder: np.array([_right(folder, tid, label) for tid, label in labels.items()]) for folder in pool}
    n_correct = sum(right[folder].astype(int) for folder in pool[:5])
    everyone = np.ones(positive.size, dtype=bool)
    on_all = [_balanced(right[f], positive, everyone) for f in ranked]
    assert [row["rule"] for row in found["per_threshold"]] == [f"K={k}" for k in range(5)]
    for k, row in enumerate(found["per_threshold"]):
        hard = n_correct <= k
        assert row["n_hard"] == hard.sum() and row["n_easy"] == (~hard).sum()
        if hard[positive].any() and hard[~positive].any():
            on_hard = [_balanced(right[f], positive, hard) for f in ranked]
            assert list(row["balanced_accuracy"].values()) == pytest.approx(on_hard)
            assert row["rho"] == pytest.approx(spearmanr(on_hard, on_all).statistic)
    whole = n_correct <= 3
    reference = [_balanced(right[f], positive, whole) for f in ranked]
    assert len(found["leave_one_out"]) == 5
    for left, row in zip(range(5), found["leave_one_out"]):
        hard = sum(right[f].astype(int) for i, f in enumerate(pool[:5]) if i != left) <= 3 * 4 // 5
        assert row["n_hard"] == hard.sum() and row["threshold"] == 2
        on_hard = [_balanced(right[f], positive, hard) for f in ranked]
        assert row["rho"] == pytest.approx(spearmanr(on_hard, reference).statistic)


def test_the_authors_rule_is_a_threshold_on_a_pool_of_repeated_runs(small_root, pool, capsys):
    # "at least 4 of 5 correct is easy" (the authors': 7 of 8): at most 3 correct is hard
    assert main(["robustness", *map(str, pool[:5]), "--data", str(small_root), "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    labels = _labels(small_root, LABEL_FILE_HARD)
    n_correct = sum(np.array([_right(f, tid, label) for tid, label in labels.items()]).astype(int) for f in pool[:5])
    assert found["per_threshold"][3]["n_easy"] == (n_correct >= 4).sum()
    assert main(["robustness", *map(str, pool[:5]), "--data", str(small_root)]) == 0
    assert "Spearman" in capsys.readouterr().out
