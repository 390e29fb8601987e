"""The flip rate of a perturbed run against the unperturbed run of the same judge (``score --against``).

The two runs must be one judge with and without a perturbation: the perturbed
run's judge key without its perturbation is the base run's key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from agenthorizon.judging.perturbation import perturbation_of
from agenthorizon.judging.runs.folder import read_results, read_run_record
from agenthorizon.judging.runs.records import RunRecord, judge_key
from agenthorizon.report.notes import predictions_from_results
from agenthorizon.scoring.flips import flip_rate
from agenthorizon.scoring.outcomes import item_outcomes

__all__ = ["flip_note", "perturbation_flips"]


def _record(paths: Sequence[str | os.PathLike[str]], what: str) -> RunRecord:
    records = [read_run_record(path) for path in paths]
    if any(record is None for record in records):
        raise ValueError(f"{what} {', '.join(map(str, paths))}: no run record (run.json); the flip rate compares runs")
    keys = {record.judge_key for record in records}
    if len(keys) != 1:
        raise ValueError(f"{what} {', '.join(map(str, paths))}: runs of {len(keys)} different judges; expected one")
    return records[0]


def perturbation_flips(
    perturbed: Sequence[str | os.PathLike[str]], base: Sequence[str | os.PathLike[str]],
    rows: Sequence[Mapping[str, Any]], *, bootstrap: int = 0, seed: int = 0,
) -> dict[str, Any]:
    """The flip rate of the runs ``perturbed`` against ``base`` on the reference ``rows``, with what was compared.

    Raises
    ------
    ValueError
        ``perturbed`` has no perturbation, ``base`` has one, or they are
        not the same judge (the message gives both judge keys).
    """
    shown, plain = _record(perturbed, "perturbed run"), _record(base, "--against")
    perturbation = perturbation_of(shown.judge)
    if not perturbation:
        raise ValueError(f"{', '.join(map(str, perturbed))}: this run has no perturbation (judge --perturb); "
                         "the flip rate needs a perturbed run and its unperturbed twin")
    if perturbation_of(plain.judge):
        raise ValueError(f"--against {', '.join(map(str, base))}: that run is perturbed too "
                         f"({', '.join(perturbation_of(plain.judge))}); expected the unperturbed run of the same judge")
    unperturbed_key = judge_key({**shown.judge_spec(), "perturbation": []})
    if unperturbed_key != plain.judge_key:
        raise ValueError(f"--against {', '.join(map(str, base))}: judge key {plain.judge_key}, but the perturbed run "
                         f"without its perturbation is {unperturbed_key}: not the same judge (model, prompt, sampling, "
                         "images, ablation and protocol must all match)")
    wanted = {row["trajectory_id"] for row in rows}
    outcomes = [item_outcomes(predictions_from_results(read_results(paths), wanted)[0], list(rows))
                for paths in (base, perturbed)]
    result = flip_rate(outcomes[0], outcomes[1], bootstrap=bootstrap, seed=seed)
    return {"perturbation": list(perturbation), "against": [str(path) for path in base],
            "judge_key": shown.judge_key, "against_judge_key": plain.judge_key,
            "bootstrap": bootstrap, "seed": seed, **result.to_dict()}


def flip_note(flips: Mapping[str, Any]) -> str:
    """One line for the text report.

    >>> flip_note({"perturbation": ["paraphrase"], "flips": 3, "n_items": 10, "rate": 0.3, "rate_interval": None,
    ...            "accuracy_change": -0.1, "change_interval": [-0.3, 0.1]})
    'Flip rate under paraphrase: 30.0% (3 of 10 verdicts changed); accuracy change -10.0% [-30.0%, 10.0%]'
    """
    def rate(value: float | None, interval: Sequence[float] | None) -> str:
        text = "–" if value is None else f"{100 * value:.1f}%"
        return text + ("" if not interval else f" [{100 * interval[0]:.1f}%, {100 * interval[1]:.1f}%]")

    return (f"Flip rate under {', '.join(flips['perturbation'])}: {rate(flips['rate'], flips['rate_interval'])} "
            f"({flips['flips']} of {flips['n_items']} verdicts changed); accuracy change "
            f"{rate(flips['accuracy_change'], flips['change_interval'])}")
