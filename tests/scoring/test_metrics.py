"""Strict scoring: invalid predictions, denominators, mistake types, slices, bootstrap."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import balanced_accuracy_score

from agenthorizon.schema import BAD_SIDE_EFFECT, CRITICAL_MISTAKE, INVALID_STATUSES, MISUNDERSTANDING
from agenthorizon.scoring.metrics import SLICES, ScoreReport, item_outcomes, score
from agenthorizon.scoring.predictions import prediction_record, prediction_verdict, validate_prediction

# These tests pass wrong shapes on purpose; the warning itself is tested in tests/cli/test_runs_across_commands.py.
pytestmark = pytest.mark.filterwarnings("ignore::agenthorizon.scoring.predictions.PredictionShapeWarning")

# (prediction, expected status): one or more per kind of invalid prediction.
INVALID_CASES = [
    (None, "missing"),
    ("", "missing"),  # an empty answer, as the runner's parser calls it
    ("The trajectory looks fine.", "no_json"),
    ('{"success": true', "malformed_json"),
    ('Verdict: {"success": true', "malformed_json"),
    ("[true]", "no_json"),  # text: no JSON object in it (the one parse rule; as after any prose)
    ("true", "no_json"),
    ('"false"', "no_json"),
    ([True], "not_object"),
    ({}, "missing_success"),
    ({"reasoning": "ok"}, "missing_success"),
    ('{"verdict": true}', "missing_success"),
    ({"success": None}, "non_boolean"),
    ({"success": "true"}, "non_boolean"),
    ({"success": "false"}, "non_boolean"),
    ({"success": 1}, "non_boolean"),
    ({"success": 0}, "non_boolean"),
    ('{"success": null}', "non_boolean"),
    ('{"success": "true"}', "non_boolean"),
    (1, "non_boolean"),
    (0.0, "non_boolean"),
    ({"parse_status": "error", "verdict": None, "error": "timeout"}, "error"),
    ({"parse_status": "no_json", "verdict": None}, "no_json"),
    ({"parse_status": "malformed_json", "verdict": None}, "malformed_json"),
    ({"parse_status": "ok", "verdict": None}, "not_object"),
    ({"parse_status": "ok", "verdict": {"success": "true"}}, "non_boolean"),
    ({"parse_status": "ok", "verdict": {"reasoning": "x"}}, "missing_success"),
    ({"parse_status": "something else", "verdict": {"success": True}}, "error"),
]


@pytest.mark.parametrize(("prediction", "status"), INVALID_CASES)
def test_each_invalid_form_has_its_reason_and_no_outcome(prediction, status):
    assert validate_prediction(prediction) == (None, None, status)


@pytest.mark.parametrize(
    ("prediction", "expected"),
    [
        (True, (True, None, "ok")),
        (np.bool_(False), (False, None, "ok")),
        ({"success": False, "mistake_type": "Bad Side Effect"}, (False, "Bad Side Effect", "ok")),
        ('  {"success": true, "mistake_type": null}\n', (True, None, "ok")),
        ({"parse_status": "ok", "verdict": {"success": False, "mistake_type": "x"}}, (False, "x", "ok")),
        ({"trajectory_id": "t", "success": True}, (True, None, "ok")),  # a JSONL verdict row
        # Raw text is read by the runner's parser on every route (issue 9).
        ('Verdict: {"success": true}', (True, None, "ok")),
        ('{"success": true} and more', (True, None, "ok")),
        ('```json\n{"success": false, "mistake_type": "critical mistake"}\n```', (False, "Critical Mistake", "ok")),
        ({"trajectory_id": "t", "raw_output": 'I think so.\n{"success": true}'}, (True, None, "ok")),
    ],
)
def test_valid_forms(prediction, expected):
    assert validate_prediction(prediction) == expected


@pytest.mark.parametrize(("prediction", "status"), INVALID_CASES)
def test_invalid_prediction_is_wrong_on_either_label_and_keeps_denominators(prediction, status):
    # One invalid prediction on a positive and one on a negative, beside one
    # correct prediction of each class: hand-computed 1/2 and 1/2.
    references = ["positive", "positive", "negative", "negative"]
    report = score([True, prediction, False, prediction], references)
    assert (report.n, report.n_positive, report.n_negative) == (4, 2, 2)
    assert report.positive_accuracy == 0.5
    assert report.negative_accuracy == 0.5
    assert report.balanced_accuracy == 0.5
    assert report.accuracy == 0.5
    assert report.n_invalid == 2
    assert report.invalid_rate == 0.5
    assert report.invalid_by_reason[status] == 2
    assert sum(report.invalid_by_reason.values()) == 2
    assert report.confusion == {"tp": 1, "fn": 0, "fp": 0, "tn": 1, "invalid_positive": 1, "invalid_negative": 1}


def test_defects_of_the_authors_scorer_are_not_reproduced():
    # The authors' scorer reads null as a rejection and "false" as an
    # acceptance, and drops parse errors from the denominator. Here all three
    # are wrong answers with the full denominator.
    references = ["negative", "positive", "negative", "positive"]
    predictions = [{"success": None}, {"success": "false"}, "not json", True]
    report = score(predictions, references)
    assert report.negative_accuracy == 0.0
    assert report.positive_accuracy == 0.5
    assert report.n == 4


def test_confusion_counts_by_hand():
    references = ["positive"] * 4 + ["negative"] * 3
    predictions = [True, True, False, None, False, True, "x"]
    report = score(predictions, references)
    assert report.confusion == {"tp": 2, "fn": 1, "fp": 1, "tn": 1, "invalid_positive": 1, "invalid_negative": 1}
    assert report.positive_accuracy == 2 / 4
    assert report.negative_accuracy == 1 / 3
    assert report.balanced_accuracy == pytest.approx(0.5 * (2 / 4 + 1 / 3))
    assert report.accuracy == 3 / 7


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=2, max_size=60))
def test_agrees_with_sklearn_when_every_prediction_is_valid(pairs):
    labels = [label for label, _ in pairs]
    if all(labels) or not any(labels):
        labels[0] = not labels[0]
    predictions = [prediction for _, prediction in pairs]
    references = ["positive" if label else "negative" for label in labels]
    report = score(predictions, references)
    assert report.balanced_accuracy == pytest.approx(balanced_accuracy_score(labels, predictions))
    assert report.n_invalid == 0


INVALID_FORMS = [form for form, _ in INVALID_CASES]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["positive", "negative"]),
            st.sampled_from([True, False, "invalid"]),
            st.integers(0, len(INVALID_FORMS) - 1),
            st.integers(0, len(INVALID_FORMS) - 1),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_reexpressing_an_invalid_prediction_never_changes_a_score(items):
    references = [label for label, *_ in items]
    first = [INVALID_FORMS[i] if kind == "invalid" else kind for _, kind, i, _ in items]
    second = [INVALID_FORMS[j] if kind == "invalid" else kind for _, kind, _, j in items]
    a = score(first, references).to_dict()
    b = score(second, references).to_dict()
    # Only the breakdown of reasons may differ.
    for report in (a, b):
        report.pop("invalid_by_reason")
    assert a == b


ANY_PREDICTION = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.sampled_from(["success", "mistake_type", "reasoning", "parse_status", "verdict"]), children),
    ),
    max_leaves=6,
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["positive", "negative"]), ANY_PREDICTION), min_size=1, max_size=30))
def test_denominators_always_equal_the_references_and_nothing_raises(items):
    references = [label for label, _ in items]
    report = score([prediction for _, prediction in items], references)
    n_positive = references.count("positive")
    assert report.n == len(references)
    assert (report.n_positive, report.n_negative) == (n_positive, len(references) - n_positive)
    c = report.confusion
    assert c["tp"] + c["fn"] + c["invalid_positive"] == n_positive
    assert c["fp"] + c["tn"] + c["invalid_negative"] == len(references) - n_positive
    assert report.n_invalid == sum(report.invalid_by_reason.values())
    json.dumps(report.to_dict())  # always serialisable


@settings(max_examples=60, deadline=None)
@given(ANY_PREDICTION)
def test_prediction_record_preserves_validation(prediction):
    assert validate_prediction(prediction_record(prediction)) == validate_prediction(prediction)
    json.dumps(prediction_record(prediction))


def _negative(mistake_type):
    return {"label": "negative", "mistake_type": mistake_type}


def test_mistake_type_recall_by_hand():
    references = [
        _negative(CRITICAL_MISTAKE),
        _negative(CRITICAL_MISTAKE),
        _negative(BAD_SIDE_EFFECT),
        _negative(MISUNDERSTANDING),
        _negative(MISUNDERSTANDING),
        _negative(""),
        {"label": "positive", "mistake_type": ""},
    ]
    predictions = [
        {"success": False, "mistake_type": "  CRITICAL   mistake "},  # hit: case and spaces
        {"success": False, "mistake_type": "Bad Side Effect"},  # wrong type
        {"success": True, "mistake_type": "Bad Side Effect"},  # accepted: no type credit
        {"success": False, "mistake_type": "Misunderstanding of the Instruction"},  # singular = plural
        {"success": False, "mistake_type": "misunderstood"},  # text matching no type
        {"success": False, "mistake_type": "Critical Mistake"},  # untyped: binary only
        True,
    ]
    report = score(predictions, references)
    assert report.mistake_type_recall == {
        CRITICAL_MISTAKE: {"correct": 1, "total": 2, "recall": 0.5},
        BAD_SIDE_EFFECT: {"correct": 0, "total": 1, "recall": 0.0},
        MISUNDERSTANDING: {"correct": 1, "total": 2, "recall": 0.5},
    }
    assert report.mistake_type_recall_macro == pytest.approx((0.5 + 0.0 + 0.5) / 3)
    assert report.n_untyped_negatives == 1
    assert report.n_unmatched_mistake_types == 1
    # The untyped negative still counts in binary scoring: 5 of 6 rejected.
    assert report.negative_accuracy == pytest.approx(5 / 6)


def test_reference_types_are_canonicalised_and_undefined_recall_is_none():
    report = score([False], [_negative("misunderstanding of the instruction")])
    assert report.mistake_type_recall[MISUNDERSTANDING]["total"] == 1
    assert report.mistake_type_recall[CRITICAL_MISTAKE] == {"correct": 0, "total": 0, "recall": None}
    assert report.positive_accuracy is None and report.balanced_accuracy is None


@pytest.mark.parametrize(
    ("references", "message"),
    [
        (["positive", "pos"], r"references\[1\].*'positive' or 'negative'"),
        ([{"label": "positive", "mistake_type": ""}, 3], r"references\[1\].*label row"),
        ([{"label": "negative"}], r"references\[0\].*'mistake_type'"),
        ([{"label": "negative", "mistake_type": "Typo"}], r"references\[0\].*unknown mistake_type 'Typo'"),
        ([{"label": "positive", "mistake_type": "Bad Side Effect"}], r"references\[0\].*expected '' for positives"),
        ([], "references is empty"),
        ("positive", "sequence of label rows"),
    ],
)
def test_bad_references_raise_naming_the_position(references, message):
    with pytest.raises(ValueError, match=message):
        score([True] * (len(references) if isinstance(references, list) else 1), references)


def test_length_mismatch_raises():
    with pytest.raises(ValueError, match="2 predictions for 3 references"):
        score([True, False], ["positive", "negative", "negative"])


def _rows():
    return [
        {"trajectory_id": "a", "label": "positive", "mistake_type": ""},
        {"trajectory_id": "b", "label": "negative", "mistake_type": BAD_SIDE_EFFECT},
        {"trajectory_id": "c", "label": "negative", "mistake_type": ""},
    ]


def test_mapping_predictions_absent_ids_are_missing():
    report = score({"a": True, "b": {"success": False}}, _rows())
    assert report.invalid_by_reason["missing"] == 1
    assert report.n == 3 and report.negative_accuracy == 0.5


def test_mapping_with_ids_outside_the_references_raises():
    with pytest.raises(ValueError, match="1 trajectory id.*not in the references.*zzz"):
        score({"a": True, "zzz": False}, _rows())


def test_mapping_needs_trajectory_ids():
    with pytest.raises(ValueError, match=r"references\[0\].*trajectory_id"):
        score({"a": True}, ["positive"])


def test_duplicate_reference_ids_raise_for_mapping():
    rows = _rows() + [{"trajectory_id": "a", "label": "positive", "mistake_type": ""}]
    with pytest.raises(ValueError, match=r"references\[3\]: duplicate trajectory_id a"):
        score({"a": True}, rows)


def _sliceable_rows():
    base = [
        ("positive", "", "", "linux", "hard", 50, ["a"]),
        ("negative", CRITICAL_MISTAKE, "parent", "linux", "hard", 150, ["a", "b"]),
        ("negative", BAD_SIDE_EFFECT, "child", "windows", "easy", 250, ["a", "b"]),
        ("positive", "", "", None, "easy", 99, ["a", "b"]),
        ("negative", "", "child", "macos", "easy", 200, ["a", "b", "c"]),
    ]
    return [
        {
            "label": label,
            "mistake_type": mistake_type,
            "instruction_source": source,
            "os": os_name,
            "difficulty": difficulty,
            "num_steps": steps,
            "applications": apps,
        }
        for label, mistake_type, source, os_name, difficulty, steps, apps in base
    ]


def test_slices_by_hand():
    predictions = [True, False, True, None, False]
    report = score(predictions, _sliceable_rows(), slices=list(SLICES))
    assert set(report.slices) == set(SLICES)
    assert list(report.slices["os"]) == ["linux", "macos", "windows", "(unknown)"]
    assert report.slices["os"]["linux"].balanced_accuracy == 1.0
    assert report.slices["os"]["windows"].negative_accuracy == 0.0
    assert report.slices["os"]["(unknown)"].invalid_rate == 1.0
    assert list(report.slices["step_bucket"]) == ["<100", "100-199", ">=200"]
    assert report.slices["step_bucket"][">=200"].n == 2
    assert list(report.slices["num_applications"]) == ["1", "2", "3"]
    assert report.slices["num_applications"]["2"].n == 3
    assert set(report.slices["mistake_type"]) == {CRITICAL_MISTAKE, BAD_SIDE_EFFECT, "(untyped)", "(positive)"}
    assert set(report.slices["direction"]) == {"parent", "child", "(positive)"}
    assert report.slices["direction"]["child"].negative_accuracy == 0.5
    assert report.slices["difficulty"]["easy"].n == 3
    # Slice counts partition the items.
    for values in report.slices.values():
        assert sum(sliced.n for sliced in values.values()) == 5
    assert json.loads(json.dumps(report.to_dict()))["slices"]["os"]["linux"]["n"] == 2


def test_slice_missing_field_raises():
    with pytest.raises(ValueError, match="slice 'os' needs the field 'os'.*references\\[0\\]"):
        score([True], ["positive"], slices=["os"])
    with pytest.raises(ValueError, match=r"unknown slice\(s\) planet"):
        score([True], ["positive"], slices=["planet"])


def _grouped(n_groups=30, seed=3):
    rng = np.random.default_rng(seed)
    rows, predictions = [], []
    for g in range(n_groups):
        for label in ("positive", "negative", "negative"):
            rows.append({"label": label, "mistake_type": "", "pair_group_id": f"g{g}"})
            predictions.append(bool(rng.random() < (0.8 if label == "positive" else 0.3)))
    return predictions, rows


def test_bootstrap_intervals_contain_the_point_and_are_reproducible_by_seed():
    predictions, rows = _grouped()
    first = score(predictions, rows, bootstrap=2000, seed=7)
    again = score(predictions, rows, bootstrap=2000, seed=7)
    other = score(predictions, rows, bootstrap=2000, seed=8)
    assert first.intervals == again.intervals
    assert first.intervals != other.intervals
    for name in ("balanced_accuracy", "positive_accuracy", "negative_accuracy"):
        low, high = first.intervals[name]
        assert low < getattr(first, name) < high
    assert first.bootstrap == {"n_resamples": 2000, "seed": 7, "level": 0.95, "n_clusters": 30}
    assert score(predictions, rows).intervals is None


def test_mixed_presence_of_pair_group_id_raises():
    rows = [{"label": "positive", "mistake_type": "", "pair_group_id": "g"}, {"label": "negative", "mistake_type": ""}]
    with pytest.raises(ValueError, match=r"references\[1\]: has no pair_group_id"):
        score([True, False], rows)


def test_dataset_references_work_as_they_are():
    datasets = pytest.importorskip("datasets")
    rows = _sliceable_rows()
    for i, row in enumerate(rows):
        row["trajectory_id"] = f"t{i}"
        row["steps"] = [{"x": 1.0}] * 3  # a column scoring never reads
    dataset = datasets.Dataset.from_list(rows)
    predictions = {"t0": True, "t1": False}
    assert score(predictions, dataset, slices=["os"]).to_dict() == score(predictions, rows, slices=["os"]).to_dict()


def test_report_round_trips_through_json():
    predictions, rows = _grouped(5)
    report = score(predictions, rows, bootstrap=50)
    assert isinstance(report, ScoreReport)
    data = json.loads(json.dumps(report.to_dict()))
    assert data["n"] == 15 and set(data["invalid_by_reason"]) == set(INVALID_STATUSES)
    assert len(data["intervals"]["balanced_accuracy"]) == 2


def test_outcome_classes_agree_with_the_confusion_counts():
    # The HTML report's item list uses these classes; they must add up to the
    # report's confusion matrix, invalid predictions included.
    predictions, rows = _grouped(7)
    predictions[::5] = ["true"] * len(predictions[::5])
    classes = item_outcomes(predictions, rows).outcome_classes()
    confusion = score(predictions, rows).confusion
    assert classes.count("correct") == confusion["tp"] + confusion["tn"]
    assert classes.count("false_accept") == confusion["fp"]
    assert classes.count("false_reject") == confusion["fn"]
    assert classes.count("invalid") == confusion["invalid_positive"] + confusion["invalid_negative"]
    labels = ["positive", "negative"] * 3
    given = [False, True, "true", 1, None, '{"success": false}']
    assert item_outcomes(given, labels).outcome_classes() == [
        "false_reject", "false_accept", "invalid", "invalid", "invalid", "correct"
    ]


@pytest.mark.parametrize(
    ("prediction", "expected"),
    [
        ({"success": True, "confidence": "high"}, {"success": True, "confidence": "high"}),  # a bare verdict file
        ({"parse_status": "ok", "verdict": {"success": False, "reasoning": "r"}}, {"success": False, "reasoning": "r"}),
        ('{"success": "true", "reasoning": "r"}', {"success": "true", "reasoning": "r"}),  # invalid, still shown
        ({"parse_status": "no_json", "verdict": None}, None),
        ("{bad", None),
        (True, None),
        (None, None),
    ],
)
def test_prediction_verdict_finds_the_verdict_in_every_form(prediction, expected):
    assert prediction_verdict(prediction) == expected

