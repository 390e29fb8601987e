"""The score JSON of a fixed run is byte-identical to the one stored before the metric list existed.

Golden folders and verify-results bundles compare the text of the numbers, so
deriving ``to_dict`` from :data:`agenthorizon.scoring.metric_list.METRICS`
must keep every key, its order and every number's spelling. The run mixes
valid, invalid and typed verdicts over pair groups and recordings, with
intervals, slices and telemetry, so every part of the report is written.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agenthorizon.schema import MISTAKE_TYPES
from agenthorizon.scoring.metrics import score

STORED = Path(__file__).parent / "data" / "score_before_metric_list.json"


def _run() -> tuple[list[dict], list[dict], list[object], list[dict]]:
    rng = np.random.default_rng(35)
    references, predictions, telemetry = [], [], []
    for group in range(30):
        steps = f"s{group}"
        oses = ("linux", "windows", "macos")
        references.append({"trajectory_id": f"p{group}", "label": "positive", "mistake_type": "",
                           "pair_group_id": f"g{group}", "steps_id": steps, "os": oses[group % 3]})
        for k in range(2):
            kind = MISTAKE_TYPES[(group + k) % len(MISTAKE_TYPES)] if group % 7 else ""
            references.append({"trajectory_id": f"n{group}.{k}", "label": "negative", "mistake_type": kind,
                               "pair_group_id": f"g{group}", "steps_id": steps, "os": oses[group % 3]})
    for row in references:
        draw = rng.random()
        if draw < 0.08:
            predictions.append(None)
        elif draw < 0.12:
            predictions.append("not json")
        else:
            success = bool(rng.random() < (0.75 if row["label"] == "positive" else 0.35))
            named = MISTAKE_TYPES[int(rng.integers(len(MISTAKE_TYPES)))] if not success else ""
            predictions.append({"success": success, "mistake_type": named, "reasoning": "r"})
        telemetry.append({"cost_usd": round(float(rng.random()) / 100, 6), "latency_s": round(float(rng.random()) * 9, 3)})
    return references, predictions, telemetry


def _text() -> str:
    references, predictions, telemetry = _run()
    report = score(predictions, references, bootstrap=300, seed=4, slices=["os", "mistake_type"], telemetry=telemetry)
    return json.dumps(report.to_dict(), indent=2) + "\n"


@pytest.mark.filterwarnings("ignore::agenthorizon.scoring.predictions.PredictionShapeWarning")
def test_score_json_is_byte_identical_to_the_stored_run():
    assert _text() == STORED.read_text(encoding="utf-8")


if __name__ == "__main__":  # regenerate only when a change to the JSON is intended
    STORED.write_text(_text(), encoding="utf-8")
