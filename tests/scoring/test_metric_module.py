"""The `evaluate` module: loads through evaluate.load and agrees with score()."""

from __future__ import annotations

from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.schema import BAD_SIDE_EFFECT, CRITICAL_MISTAKE, MISUNDERSTANDING
from agenthorizon.scoring.metric_list import METRICS
from agenthorizon.scoring.metrics import score

# These tests pass wrong shapes on purpose; the warning itself is tested in tests/cli/test_runs_across_commands.py.
pytestmark = pytest.mark.filterwarnings("ignore::agenthorizon.scoring.predictions.PredictionShapeWarning")

evaluate = pytest.importorskip("evaluate")

REFERENCES = [
    {"trajectory_id": "t0", "label": "positive", "mistake_type": "", "applications": ["a", "b"]},
    {"trajectory_id": "t1", "label": "positive", "mistake_type": "", "applications": []},
    {"trajectory_id": "t2", "label": "negative", "mistake_type": CRITICAL_MISTAKE, "applications": ["a"]},
    {"trajectory_id": "t3", "label": "negative", "mistake_type": BAD_SIDE_EFFECT, "applications": ["a"]},
    {"trajectory_id": "t4", "label": "negative", "mistake_type": MISUNDERSTANDING, "applications": ["a"]},
    {"trajectory_id": "t5", "label": "negative", "mistake_type": "", "applications": ["a"]},
    {"trajectory_id": "t6", "label": "positive", "mistake_type": "", "applications": ["a"]},
    {"trajectory_id": "t7", "label": "negative", "mistake_type": CRITICAL_MISTAKE, "applications": ["a"]},
]
# Every input shape at once: None, a string "true", 1, dicts, JSON text, a result record.
PREDICTIONS = [
    True,
    None,
    {"success": False, "mistake_type": "critical mistake"},
    "true",
    '{"success": false, "mistake_type": "Misunderstanding of the Instruction"}',
    1,
    {"parse_status": "ok", "verdict": {"success": True}},
    {"parse_status": "error", "verdict": None},
]


def _expected(predictions, references):
    values = score(predictions, references).to_dict()
    headline = ("balanced_accuracy", "positive_accuracy", "negative_accuracy", "accuracy", "invalid_rate", "n_invalid",
                "invalid_by_reason", "n", *(spec.name for spec in METRICS))
    paired = ("instruction_sensitivity", "pair_group_accuracy", "cost", "runtime")
    expected = {key: values[key] for key in (*headline, "mistake_type_recall_macro", *paired)}
    expected["mistake_type_recall"] = {name: cell["recall"] for name, cell in values["mistake_type_recall"].items()}
    expected["rejection_rate_by_type"] = {name: cell["rate"] for name, cell in values["rejection_rate_by_type"].items()}
    return expected


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(agenthorizon.METRIC_PATH)


def test_metric_path_is_a_directory_evaluate_resolves(metric):
    assert isinstance(agenthorizon.METRIC_PATH, str)
    assert (Path(agenthorizon.METRIC_PATH) / "metric.py").is_file()
    assert isinstance(metric, evaluate.Metric)


def test_compute_agrees_with_score_on_every_input_shape(metric):
    result = metric.compute(predictions=PREDICTIONS, references=REFERENCES)
    assert result == _expected(PREDICTIONS, REFERENCES)
    # Hand check of the headline numbers: positives t0 right, t1 missing, t6
    # right -> 2/3; negatives t2, t4 right, t3 "true", t5 1, t7 error -> 2/5.
    assert result["positive_accuracy"] == pytest.approx(2 / 3)
    assert result["negative_accuracy"] == pytest.approx(2 / 5)
    assert result["invalid_rate"] == pytest.approx(4 / 8)
    assert result["mistake_type_recall"][MISUNDERSTANDING] == 1.0
    assert result["mistake_type_recall"][CRITICAL_MISTAKE] == 0.5


def test_bad_values_in_first_position_do_not_raise(metric):
    # evaluate checks the first element of a column against its feature type;
    # these would fail a naive Value("string") column.
    for first in (None, 1, {"success": None}, ["x"], 2.5):
        result = metric.compute(predictions=[first, False], references=["positive", "negative"])
        assert result["balanced_accuracy"] == 0.5
        assert result["invalid_rate"] == 0.5


def test_mapping_predictions_and_incremental_batches(metric):
    by_id = {"t0": True, "t2": {"success": False, "mistake_type": "Critical Mistake"}}
    assert metric.compute(predictions=by_id, references=REFERENCES) == _expected(by_id, REFERENCES)
    metric.add(prediction=None, reference="negative")
    metric.add_batch(predictions=[True, "1"], references=["positive", "positive"])
    result = metric.compute()
    assert result == _expected([None, True, "1"], ["negative", "positive", "positive"])


def test_load_metric_gives_the_same_metric():
    metric = agenthorizon.load_metric()
    assert isinstance(metric, evaluate.Metric)
    assert metric.compute(predictions=PREDICTIONS, references=REFERENCES) == _expected(PREDICTIONS, REFERENCES)


def test_bad_references_still_raise_clearly(metric):
    with pytest.raises(ValueError, match=r"references\[1\].*'positive' or 'negative'"):
        metric.compute(predictions=[True, True], references=["positive", "yes"])


def test_metric_card_has_the_template_sections():
    card = (Path(agenthorizon.METRIC_PATH) / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n")  # Hub metadata header
    for section in (
        "## Metric Description",
        "## How to Use",
        "### Inputs",
        "### Output Values",
        "#### Values from Popular Papers",
        "### Examples",
        "## Limitations and Bias",
        "## Citation",
        "## Further References",
    ):
        assert section in card, section


def test_metric_script_has_no_second_implementation():
    source = (Path(agenthorizon.METRIC_PATH) / "metric.py").read_text(encoding="utf-8")
    assert "from agenthorizon.scoring.metrics import" in source
    assert "positive_accuracy =" not in source


def test_a_dataset_as_references_as_the_readme_shows(metric, tiny_root):
    # README: metric.compute(predictions=[{"success": False}] * len(ds), references=ds)
    ds = agenthorizon.load_dataset(tiny_root, "AH", split="test", images=None)
    result = metric.compute(predictions=[{"success": False}] * len(ds), references=ds)
    assert result["n"] == len(ds)
    assert (result["positive_accuracy"], result["negative_accuracy"], result["balanced_accuracy"]) == (0.0, 1.0, 0.5)
    by_id = {ds[0]["trajectory_id"]: {"success": True}}
    assert metric.compute(predictions=by_id, references=ds) == _expected(by_id, ds)


def test_add_batch_in_several_batches_equals_one_compute(metric):
    for start in range(0, len(REFERENCES), 3):  # batches of 3, 3 and 2
        metric.add_batch(predictions=PREDICTIONS[start : start + 3], references=REFERENCES[start : start + 3])
    assert metric.compute() == _expected(PREDICTIONS, REFERENCES)


def test_compute_returns_the_report_metrics_so_a_new_one_reaches_it(metric):
    import dataclasses

    from agenthorizon.scoring.metrics import ScoreReport

    assert metric.compute(predictions=PREDICTIONS, references=REFERENCES) == score(PREDICTIONS, REFERENCES).metric_values()

    # A metric added as a field of ScoreReport is among metric_values (and so in compute) without another edit.
    @dataclasses.dataclass
    class WithANewMetric(ScoreReport):
        new_rate: float | None = None

    report = score(PREDICTIONS, REFERENCES)
    wider = WithANewMetric(**{f.name: getattr(report, f.name) for f in dataclasses.fields(report)}, new_rate=0.25)
    assert wider.metric_values() == {**report.metric_values(), "new_rate": 0.25}
