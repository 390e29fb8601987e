"""``leaderboard --columns significance``: every pair of real runs, counted again from the result files."""

from __future__ import annotations

import itertools
import json

import pytest
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests

from agenthorizon.cli import main
from agenthorizon.schema import LABEL_FILE_HARD
from test_leaderboard import _judge, _labels


@pytest.fixture(scope="module")
def ah_runs(small_root, tmp_path_factory):
    base = tmp_path_factory.mktemp("significance")
    return {spec: _judge(small_root, spec, base / spec.replace(":", "-"), "AH")
            for spec in ("lexical", "constant:true", "constant:false", "random:0")}


def _correct(folder, labels):
    right = {}
    for tid, label in labels.items():
        path = folder / f"{tid}.json"
        result = json.loads(path.read_text()) if path.exists() else None
        said = result["verdict"]["success"] if result and result["parse_status"] == "ok" else None
        right[tid] = said is not None and said == (label == "positive")
    return right


def test_every_pair_is_the_exact_mcnemar_test_of_the_result_files_with_holm(small_root, ah_runs, capsys):
    assert main(["leaderboard", *map(str, ah_runs.values()), "--data", str(small_root), "--columns", "significance",
                 "--format", "json", "--bootstrap", "200"]) == 0
    result = json.loads(capsys.readouterr().out)["significance"]
    labels = _labels(small_root, LABEL_FILE_HARD)
    correct = {spec: _correct(folder, labels) for spec, folder in ah_runs.items()}
    assert len(result["pairs"]) == 6 and result["n"] == len(labels)
    raw = []
    for pair in result["pairs"]:
        a, b = correct[pair["a"]], correct[pair["b"]]
        only_a = sum(a[t] and not b[t] for t in labels)
        only_b = sum(b[t] and not a[t] for t in labels)
        assert (pair["only_a_correct"], pair["only_b_correct"]) == (only_a, only_b)
        expected = binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0
        assert pair["p_value"] == pytest.approx(expected, rel=1e-9)
        assert pair["interval"][0] <= pair["difference"] <= pair["interval"][1]
        raw.append(pair["p_value"])
    assert [pair["p_holm"] for pair in result["pairs"]] == pytest.approx(multipletests(raw, method="holm")[1].tolist())
    for x, y in itertools.combinations(result["judges"], 2):
        pair = next(p for p in result["pairs"] if {p["a"], p["b"]} == {x, y})
        assert bool(set(result["letters"][x]) & set(result["letters"][y])) == (not pair["significant"])


def test_the_text_formats_show_the_pairs_the_letters_and_the_tied_group(small_root, ah_runs, capsys):
    assert main(["leaderboard", *map(str, ah_runs.values()), "--data", str(small_root), "--columns",
                 "accuracy,significance", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "Significance on AH: every pair of judges" in out
    assert "| lexical vs constant:true |" in out or "| constant:true vs lexical |" in out
    assert "Letters (judges sharing a letter do not differ significantly): " in out
    assert "Tied with the best (not significantly worse after adjustment): " in out
    assert "| judge |" in out  # the accuracy columns are still there


def test_significance_needs_two_judges_on_ah(small_root, ah_runs, capsys):
    assert main(["leaderboard", str(ah_runs["lexical"]), "--data", str(small_root), "--columns", "significance"]) == 2
    assert "significance needs at least two judges run on AH" in capsys.readouterr().err
