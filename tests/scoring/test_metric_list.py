"""Every declared metric reaches the report's JSON, its intervals, the score table and attribute access."""

from __future__ import annotations

import pytest

from agenthorizon.report.tables import report_table
from agenthorizon.scoring.metric_list import METRICS
from agenthorizon.scoring.metrics import score

ROWS = [{"label": label, "mistake_type": "", "pair_group_id": f"g{i // 2}"}
        for i, label in enumerate(["positive", "negative"] * 6)]
PREDICTIONS = [True, False, True, True, False, False, None, False, True, True, True, False]


def test_declared_metrics_are_in_to_dict_in_list_order_and_read_as_attributes():
    report = score(PREDICTIONS, ROWS, bootstrap=50, seed=1)
    values = report.to_dict()
    keys = list(values)
    positions = [keys.index(spec.name) for spec in METRICS]
    assert positions == list(range(positions[0], positions[0] + len(METRICS)))
    for spec in METRICS:
        assert getattr(report, spec.name) == values[spec.name] == report.rates[spec.name]
        assert (spec.name in values["intervals"]) == spec.interval


def test_declared_metrics_are_rows_of_the_score_table():
    report = score(PREDICTIONS, ROWS)
    rows = {row[0]: row for row in report_table(report).rows}
    for spec in METRICS:
        assert rows[spec.label][1].value == report.rates[spec.name]
        assert rows[spec.label][2] == spec.denominator(report)


def test_an_undeclared_name_is_no_attribute():
    report = score(PREDICTIONS, ROWS)
    with pytest.raises(AttributeError, match="not_a_metric"):
        report.not_a_metric  # noqa: B018
