"""Instruction sensitivity per mistake type and per swap direction: each negative's pairs with the positive of
its recording, counted from the definition (a positive is never in those slices, so they used to show no pair)."""

from __future__ import annotations

import numpy as np
import pytest

import agenthorizon
from agenthorizon.release.files import load_references


def _expected(rows, predictions, field, value):
    positives = {}
    for row in rows:
        if row["label"] == "positive":
            positives.setdefault(row["steps_id"], []).append(row["trajectory_id"])
    hits = total = 0
    for row in rows:
        if row["label"] != "negative":
            continue
        key = row["mistake_type"] if field == "mistake_type" else row["instruction_source"]
        if (key or "(untyped)" if field == "mistake_type" else key) != value:
            continue
        for positive in positives.get(row["steps_id"], ()):
            total += 1
            hits += predictions.get(positive) is True and predictions.get(row["trajectory_id"]) is False
    return (hits / total if total else None), total


@pytest.mark.parametrize("slice_name", ["mistake_type", "direction"])
def test_each_negative_slice_counts_its_pairs(small_root, slice_name):
    rows = load_references(small_root, "all")
    rng = np.random.default_rng(0)
    predictions = {row["trajectory_id"]: bool(rng.random() < 0.6) for row in rows}
    report = agenthorizon.score(predictions, rows, slices=[slice_name], bootstrap=200)
    values = [value for value in report.slices[slice_name] if value != "(positive)"]
    assert values and sum(report.slices[slice_name][value].n_instruction_pairs for value in values) == report.n_instruction_pairs
    for value in values:
        sliced = report.slices[slice_name][value]
        expected, pairs = _expected(rows, predictions, slice_name, value)
        assert (sliced.instruction_sensitivity, sliced.n_instruction_pairs) == (pytest.approx(expected), pairs)
        if pairs:
            low, high = sliced.intervals["instruction_sensitivity"]
            assert low <= sliced.instruction_sensitivity <= high
    # the other numbers of a slice stay those of its own items (negatives only: no positive accuracy)
    assert all(report.slices[slice_name][value].n_positive == 0 for value in values)


def test_accuracy_by_negative_source_under_the_label_files_names(small_root):
    rows = load_references(small_root, "all")
    rng = np.random.default_rng(1)
    predictions = {row["trajectory_id"]: bool(rng.random() < 0.4) for row in rows}
    report = agenthorizon.score(predictions, rows, slices=["instruction_source", "direction"])
    by_source = report.slices["instruction_source"]
    assert set(by_source) == {"parent", "child", "(positive)"}
    for source in ("parent", "child"):
        negatives = [row for row in rows if row["label"] == "negative" and row["instruction_source"] == source]
        rejected = np.mean([predictions[row["trajectory_id"]] is False for row in negatives])
        assert by_source[source].n == len(negatives) and by_source[source].negative_accuracy == pytest.approx(rejected)
        assert by_source[source].to_dict() == report.slices["direction"][source].to_dict()
