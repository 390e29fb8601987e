"""Issue 34 §5 on real runs: estimated costs from a price table, the length curve in the report and in `plot`.

The runs come from the real runner against an OpenAI-compatible model server
on 127.0.0.1 that reports token usage: one judge priced by its settings (the
run reports costs), one without prices (tokens, no cost). Every number is
recomputed here from the result files, the label files and the trajectory
JSON files.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import statsmodels.api as sm

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge
from agenthorizon.judging.runs.runner import run_judge
from loopback import ModelServer
from test_analyses import UUID, _answers, _labels, _results, _said


@pytest.fixture(scope="module")
def priced_runs(small_root, tmp_path_factory):
    base = tmp_path_factory.mktemp("finer")
    labels = _labels(small_root)
    dataset = agenthorizon.load_dataset(small_root, "AH", split="test", images=None)
    server = ModelServer(_answers(labels))
    patch = pytest.MonkeyPatch()
    patch.setenv("AH_TEST_KEY", "sk-test-not-a-real-key")
    try:
        for name, prices in (("priced", {"price_input_per_1m": 3.0, "price_output_per_1m": 15.0}), ("unpriced", {})):
            judge = OpenAICompatibleJudge.from_options("sharp", base_url=server.base_url, api_key_env="AH_TEST_KEY", images="none",
                                          cache_dir=None, **prices)
            run_judge(judge, dataset, base / name, config="AH", data_root=small_root, progress=False)
    finally:
        server.close()
        patch.undo()
    return {"root": small_root, "base": base, "labels": labels}


def _score(capsys, *argv) -> dict:
    main(["score", *map(str, argv), "--format", "json"])
    return json.loads(capsys.readouterr().out)


def test_prices_estimate_the_costs_a_run_does_not_report_and_keep_them_apart(priced_runs, tmp_path, capsys):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"sharp": {"input": 2.5, "output": 10.0}, "other": {"input": 1, "output": 1}}))
    folder = priced_runs["base"] / "unpriced"
    report = _score(capsys, folder, "--data", priced_runs["root"], "--prices", prices)
    results = _results(folder)
    expected = [(r["telemetry"]["input_tokens"] * 2.5 + r["telemetry"]["output_tokens"] * 10.0) / 1e6
                for r in results.values()]
    estimate = report["cost"]["estimated_cost_usd"]
    assert estimate["estimated"] is True and estimate["model"] == "sharp"
    assert estimate["total"] == pytest.approx(sum(expected)) and estimate["n_items"] == len(results)
    assert estimate["mean"] == pytest.approx(np.mean(expected))
    assert report["cost"]["cost_usd"]["total"] is None  # the reported cost stays unknown: nothing mixed in
    # a run that reports its costs: nothing is estimated, the reported cost is untouched
    priced = _score(capsys, priced_runs["base"] / "priced", "--data", priced_runs["root"], "--prices", prices)
    assert priced["cost"]["estimated_cost_usd"]["n_items"] == 0
    assert priced["cost"]["estimated_cost_usd"]["n_reported"] == len(results)
    reported = [r["telemetry"]["cost_usd"] for r in _results(priced_runs["base"] / "priced").values()]
    assert priced["cost"]["cost_usd"]["total"] == pytest.approx(sum(reported))
    # the table says which numbers are estimates
    main(["score", str(folder), "--data", str(priced_runs["root"]), "--prices", str(prices)])
    assert "ESTIMATED" in capsys.readouterr().out


def test_a_price_table_without_the_model_or_malformed_is_refused_naming_it(priced_runs, tmp_path, capsys):
    folder = priced_runs["base"] / "unpriced"
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"other": {"input": 1, "output": 1}}))
    assert main(["score", str(folder), "--data", str(priced_runs["root"]), "--prices", str(prices)]) == 2
    assert "no price for model 'sharp'" in capsys.readouterr().err
    prices.write_text(json.dumps({"sharp": {"input": -1, "output": 1}}))
    assert main(["score", str(folder), "--data", str(priced_runs["root"]), "--prices", str(prices)]) == 2
    err = capsys.readouterr().err
    assert str(prices) in err and "sharp" in err and ">= 0" in err


def test_the_report_shows_the_length_curve_of_the_result_files(priced_runs, tmp_path):
    folder = priced_runs["base"] / "unpriced"
    page = tmp_path / "report.html"
    assert main(["report", str(folder), "--data", str(priced_runs["root"]), "--out", str(page), "--bootstrap", "50",
                 "--thumbnails", "0"]) == 0
    text = page.read_text()
    assert "Accuracy against trajectory length" in text
    results, labels = _results(folder), priced_runs["labels"]
    ids = [tid for tid in labels if labels[tid]["difficulty"] == "hard"]
    steps = [len(json.loads((priced_runs["root"] / "sandbox" / "data" / "jsons" / f"{tid}.json").read_text())["steps"])
             for tid in ids]
    right = [_said(results.get(tid)) is (labels[tid]["label"] == "positive") for tid in ids]
    fit = sm.Logit(np.array(right, dtype=float), sm.add_constant(np.array(steps, dtype=float))).fit(disp=0)
    shown = re.search(r"per 100 steps ([+-][0-9.]+)", text).group(1)
    assert float(shown) == pytest.approx(100 * fit.params[1], abs=5e-4)
