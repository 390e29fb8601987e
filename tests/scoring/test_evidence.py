"""Evidence aggregates against the definitions written out here (a loop per item, explicit resampling of
pair groups with the documented generator stream), and the typed record's validation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenthorizon.scoring.evidence import FRACTION_BINS, ItemEvidence, evidence_summary


@st.composite
def runs(draw):
    n = draw(st.integers(1, 25))
    items = []
    for _ in range(n):
        steps = draw(st.integers(1, 40))
        known = draw(st.booleans())
        viewed = draw(st.dictionaries(st.integers(0, steps + 3), st.integers(0, 3), max_size=12)) if known else None
        items.append((steps, None if viewed is None else ItemEvidence(viewed, markdown=draw(st.integers(0, 2)),
                                                                        json=draw(st.integers(0, 2))),
                      draw(st.booleans()), f"g{draw(st.integers(0, 5))}", draw(st.one_of(st.none(), st.integers(0, steps)))))
    return items


@settings(max_examples=80, deadline=None)
@given(runs())
def test_summary_equals_the_definitions(items):
    steps, evidence, correct, groups, mistakes = map(list, zip(*items))
    summary = evidence_summary(evidence, steps, correct, groups, mistake_steps=mistakes)
    known = [i for i, e in enumerate(evidence) if e is not None]
    assert summary.n_items == len(items) and summary.n_known == len(known)
    viewed = {i: sorted(s for s, t in evidence[i].screenshots.items() if t > 0 and s < steps[i]) for i in known}
    fraction = {i: len(viewed[i]) / steps[i] for i in known}
    if not known:
        assert summary.mean_fraction_viewed is None and summary.markdown_rate is None
        return
    assert summary.mean_fraction_viewed == pytest.approx(sum(fraction.values()) / len(known))
    assert summary.markdown_rate == pytest.approx(sum(evidence[i].markdown > 0 for i in known) / len(known))
    assert summary.json_rate == pytest.approx(sum(evidence[i].json > 0 for i in known) / len(known))
    views = [(i, s) for i in known for s in viewed[i]]
    if views:
        assert summary.first_decile_share == pytest.approx(sum(s < steps[i] / 10 for i, s in views) / len(views))
        assert summary.last_decile_share == pytest.approx(sum(s >= 0.9 * steps[i] for i, s in views) / len(views))
    else:
        assert summary.first_decile_share is None
    near = [(i, s) for i, s in views if mistakes[i] is not None]
    expected = sum(abs(s - mistakes[i]) <= 2 for i, s in near) / len(near) if near else None
    assert summary.around_mistake_share == (pytest.approx(expected) if near else None)
    edges = [0.0, *FRACTION_BINS]
    for index, bucket in enumerate(summary.by_fraction):
        if index == 0:
            members = [i for i in known if fraction[i] == 0]
        else:
            members = [i for i in known if edges[index - 1] < fraction[i] <= edges[index]]
        assert bucket.n == len(members)
        assert bucket.accuracy == (pytest.approx(sum(correct[i] for i in members) / len(members)) if members else None)
    assert sum(bucket.n for bucket in summary.by_fraction) == len(known)


def _explicit(groups, statistic, n_resamples, seed):
    names = list(dict.fromkeys(groups))
    members = [[i for i, g in enumerate(groups) if g == name] for name in names]
    draws = np.random.default_rng(seed).integers(0, len(names), size=(n_resamples, len(names)), dtype=np.int32)
    values = np.array([statistic([i for c in row for i in members[c]]) for row in draws], dtype=float)
    values = values[~np.isnan(values)]
    return tuple(np.percentile(values, [2.5, 97.5]))


def test_intervals_equal_explicit_pair_clustered_resampling():
    rng = np.random.default_rng(11)
    n = 40
    steps = [int(x) for x in rng.integers(4, 30, n)]
    evidence = [None if rng.random() < 0.15 else
                ItemEvidence({int(s): 1 for s in rng.choice(k, size=int(rng.integers(0, k + 1)), replace=False)})
                for k in steps]
    correct = [bool(x) for x in rng.random(n) < 0.6]
    groups = [f"g{i // 2}" for i in range(n)]
    summary = evidence_summary(evidence, steps, correct, groups, bootstrap=300, seed=4)
    fraction = [None if e is None else len(e.viewed_steps()) / k for e, k in zip(evidence, steps)]

    def mean_fraction(items):
        values = [fraction[i] for i in items if fraction[i] is not None]
        return np.mean(values) if values else np.nan

    assert summary.fraction_interval == pytest.approx(_explicit(groups, mean_fraction, 300, 4))
    top = summary.by_fraction[-1]
    inside = [f is not None and 0.75 < f <= 1.0 for f in fraction]

    def accuracy(items):
        chosen = [i for i in items if inside[i]]
        return np.mean([correct[i] for i in chosen]) if chosen else np.nan

    assert top.n == sum(inside) and top.interval == pytest.approx(_explicit(groups, accuracy, 300, 4))


def test_the_record_round_trips_and_bad_values_name_the_file():
    record = ItemEvidence({3: 2}, markdown=1, json=0, tool_calls=4)
    assert ItemEvidence.from_dict(record.to_dict(), "r.json") == record
    with pytest.raises(ValueError, match=r"r\.json: field 'evidence.markdown'"):
        ItemEvidence.from_dict({"markdown": -1}, "r.json")
    with pytest.raises(ValueError, match=r"r\.json: field 'evidence.screenshots'"):
        ItemEvidence.from_dict({"screenshots": {"step_1": 1}}, "r.json")
    with pytest.raises(ValueError, match="one entry per item"):
        evidence_summary([record], [5, 6], [True], ["g"])
