"""Cost and runtime aggregates, against statistics computed here from their definitions.

Unknown values (``None``, absent, or no telemetry for the item) must never
count as 0: the statistics are over the known values, the total is unknown
as soon as one item's value is, and the counts say how many were known.
"""

from __future__ import annotations

import statistics

import numpy as np

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenthorizon.judging.runs.records import Telemetry
from agenthorizon.scoring.bootstrap import percentile_interval
from agenthorizon.scoring.metrics import score
from agenthorizon.scoring.telemetry import TELEMETRY_GROUPS, telemetry_aggregates

FIELDS = [field for quantities in TELEMETRY_GROUPS.values() for _name, field in quantities]
amount = st.one_of(st.none(), st.integers(0, 10**6), st.floats(0, 50, allow_nan=False))
one_item = st.one_of(st.none(), st.fixed_dictionaries({}, optional={field: amount for field in FIELDS}))


def expected(values):
    known = [float(value) for value in values if value is not None]
    return {
        "n_items": len(values), "n_known": len(known), "n_unknown": len(values) - len(known),
        "mean": statistics.fmean(known) if known else None,
        "median": statistics.median(known) if known else None,
        "max": max(known) if known else None,
        "total": sum(known) if len(known) == len(values) and values else None,
        "known_total": sum(known),
        "mean_interval": None,  # no resamples asked
    }


@settings(max_examples=120, deadline=None)
@given(st.lists(one_item, min_size=1, max_size=40), st.booleans())
def test_every_statistic_agrees_with_its_definition_unknown_never_zero(items, typed):
    # The same values as the runner's typed record and as the flat mapping of a result file.
    entries = [None if item is None else Telemetry(**item) if typed else item for item in items]
    aggregates = telemetry_aggregates(entries)
    for group, quantities in TELEMETRY_GROUPS.items():
        for name, field in quantities:
            values = [None if item is None else item.get(field) for item in items]
            want = expected(values)
            got = aggregates[group][name]
            assert got.keys() == want.keys()
            for key, value in want.items():
                assert got[key] == (None if value is None else pytest.approx(value)), (name, key)


def test_score_takes_telemetry_by_id_and_from_result_records():
    rows = [{"trajectory_id": tid, "label": "positive", "mistake_type": ""} for tid in "abc"]
    by_id = score([True] * 3, rows, telemetry={"a": Telemetry(cost_usd=0.5, turns=3), "b": Telemetry(cost_usd=1.5)})
    cost = by_id.cost["cost_usd"]
    assert (cost["mean"], cost["total"], cost["known_total"], cost["n_unknown"]) == (1.0, None, 2.0, 1)
    assert by_id.runtime["turns"]["mean"] == 3 and by_id.runtime["turns"]["n_known"] == 1
    records = [{"parse_status": "ok", "verdict": {"success": True}, "telemetry": {"cost_usd": c, "latency_s": 2.0}}
               for c in (0.1, 0.2, 0.3)]
    from_records = score(records, rows)
    assert from_records.cost["cost_usd"]["total"] == pytest.approx(0.6)
    assert from_records.runtime["wall_time_s"]["median"] == 2.0
    assert score([True] * 3, rows).cost is None  # no telemetry given: nothing reported, not zeros


def test_metric_compute_keeps_the_telemetry_of_result_records():
    import agenthorizon

    records = [{"parse_status": "ok", "verdict": {"success": True}, "telemetry": {"cost_usd": 0.25, "turns": None}}] * 2
    result = agenthorizon.load_metric().compute(predictions=records, references=["positive", "negative"])
    assert result["cost"]["cost_usd"]["total"] == 0.5
    assert result["runtime"]["turns"]["mean"] is None and result["runtime"]["turns"]["n_unknown"] == 2


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.one_of(st.none(), st.floats(0, 5))), min_size=1, max_size=30),
       st.integers(0, 1000))
def test_the_interval_of_a_mean_resamples_pair_groups(items, seed):
    rows = [{"trajectory_id": f"t{i}", "label": "negative", "mistake_type": "", "pair_group_id": group}
            for i, (group, _) in enumerate(items)]
    telemetry = [{"cost_usd": cost} for _, cost in items]
    report = score([False] * len(rows), rows, telemetry=telemetry, bootstrap=40, seed=seed)
    # Brute force: numpy's documented draw stream over the groups in order of first appearance;
    # each resample's mean cost over the items of the drawn groups that report one.
    order = list(dict.fromkeys(group for group, _ in items))
    draws = np.random.default_rng(seed).integers(0, len(order), (40, len(order)), dtype=np.int32)
    means = []
    for draw in draws:
        known = [cost for g in draw for group, cost in items if group == order[g] and cost is not None]
        means.append(statistics.fmean(known) if known else np.nan)
    want = percentile_interval(np.array(means))
    got = report.cost["cost_usd"]["mean_interval"]
    assert got == (None if want is None else pytest.approx(want))
