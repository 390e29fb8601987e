"""One model through several harnesses: each harness's scores and every harness-vs-harness paired difference.

What ``leaderboard --harnesses`` shows. A harness is the judge kind of the
run's spec (``codex``, ``pi``...); pairs are compared by
:func:`agenthorizon.scoring.compare.compare` on the items both scored.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, Callable, Mapping, Sequence

from agenthorizon.judging.runs.folder import read_run_record
from agenthorizon.report.leaderboard import Leaderboard
from agenthorizon.report.scored_runs import LEADERBOARD_CONFIGS
from agenthorizon.report.tables import Rate, Table
from agenthorizon.scoring.compare import compare
from agenthorizon.scoring.metrics import CONFIDENCE_LEVEL

__all__ = ["HarnessRun", "compare_harnesses", "harness_comparison", "harness_comparison_table", "parse_model_aliases",
           "run_identity"]


def parse_model_aliases(values: Sequence[str]) -> dict[str, str]:
    """``["NAME=MODEL", ...]`` -> ``{NAME: MODEL}``: a run recording model ``NAME`` counts as ``MODEL``.

    >>> parse_model_aliases(["openai/gpt-5.5=gpt-5.5"])
    {'openai/gpt-5.5': 'gpt-5.5'}
    """
    aliases: dict[str, str] = {}
    for value in values:
        name, sep, model = (part.strip() for part in value.partition("="))
        if not sep or not name or not model:
            raise ValueError(f"--model-alias expects NAME=MODEL (e.g. openai/gpt-5.5=gpt-5.5), got {value!r}")
        if aliases.get(name, model) != model:
            raise ValueError(f"--model-alias gives {name!r} two models: {aliases[name]!r} and {model!r}")
        aliases[name] = model
    return aliases


def run_identity(record: Any, aliases: Mapping[str, str]) -> tuple[str | None, str]:
    """The (model, harness) a run record names: its model (through ``aliases``), its judge kind."""
    spec = record.judge_spec()
    model = record.model or spec.get("model")
    harness = str(spec.get("name") or str(spec.get("spec", "")).partition(":")[0])
    return (aliases.get(model, model) if model else None), harness


@dataclass
class HarnessRun:
    """One model's run through one harness: who it is, its predictions and its balanced accuracy per config."""

    model: str
    harness: str
    judge: str
    judge_key: str | None
    predictions: Mapping[str, Any]
    scores: dict[str, float | None]


def compare_harnesses(
    runs: Sequence[HarnessRun], references: Callable[[HarnessRun, HarnessRun], tuple[list[str], list[dict[str, Any]]]],
    *, bootstrap: int, seed: int, level: float, strict: bool = True,
) -> dict[str, Any]:
    """Group ``runs`` by model and compare every harness pair of a model on ``references(a, b)``
    (the configs and label rows both scored); returns what :func:`harness_comparison` returns.

    A model with two runs through one harness is an error when ``strict``, else left out and
    named in ``ambiguous``."""
    groups: dict[str, list[HarnessRun]] = {}
    ambiguous = set()
    for run in runs:
        same = [other for other in groups.get(run.model, []) if other.harness == run.harness]
        if same and strict:
            raise ValueError(f"model {run.model!r} has two {run.harness} runs ({same[0].judge} and {run.judge}): "
                             "a harness comparison takes one run per harness")
        if same:
            ambiguous.add(run.model)
        groups.setdefault(run.model, []).append(run)
    models, single = [], []
    for model, members in groups.items():
        if model in ambiguous:
            continue
        if len(members) < 2:
            single.append(model)
            continue
        pairs = []
        for a, b in combinations(members, 2):
            configs, rows = references(a, b)
            if not rows:
                continue
            ids = {row["trajectory_id"] for row in rows}
            result = compare({tid: v for tid, v in a.predictions.items() if tid in ids},
                             {tid: v for tid, v in b.predictions.items() if tid in ids},
                             rows, bootstrap=bootstrap, seed=seed, level=level)
            pairs.append({"a": a.harness, "b": b.harness, "configs": configs, **result.to_dict()})
        harnesses = [{"harness": m.harness, "judge": m.judge, "judge_key": m.judge_key, **m.scores} for m in members]
        models.append({"model": model, "harnesses": harnesses, "pairs": pairs})
    return {"models": models, "single": sorted(single), "ambiguous": sorted(ambiguous),
            "bootstrap": {"n_resamples": int(bootstrap), "seed": seed, "level": level} if bootstrap else None}


def harness_comparison(
    board: Leaderboard, *, aliases: Mapping[str, str] | None = None, bootstrap: int = 1000, seed: int = 0,
    level: float = CONFIDENCE_LEVEL,
) -> dict[str, Any]:
    """Every model of ``board`` (a :func:`agenthorizon.leaderboard`) judged through several harnesses, with each pair's paired comparison.

    Returns ``models`` (per model: ``harnesses`` with balanced accuracy per config,
    ``None`` where not run, and ``pairs`` with the configs both ran and
    :class:`~agenthorizon.scoring.compare.Comparison`'s ``difference`` (A - B, in
    [-1, 1]), ``interval`` and ``p_value``), ``single`` (models with one harness)
    and ``bootstrap`` (resamples, seed, level). ValueError names two rows of one
    model and harness.
    """
    runs = []
    for row in board:
        record = read_run_record(row.runs[0])
        if record is None:  # the leaderboard read it: only a folder changed since then gets here
            raise FileNotFoundError(f"{row.runs[0]}: no run record")
        model, harness = run_identity(record, dict(aliases or {}))
        if model is not None:
            scores = {c: None if row.reports[c] is None else row.reports[c].balanced_accuracy for c in LEADERBOARD_CONFIGS}
            runs.append(HarnessRun(model, harness, row.judge, row.judge_key, board.predictions[row.judge_key], scores))

    def references(a: HarnessRun, b: HarnessRun) -> tuple[list[str], list[dict[str, Any]]]:
        configs = [c for c in LEADERBOARD_CONFIGS if a.scores[c] is not None and b.scores[c] is not None]
        return configs, [ref for config in configs for ref in board.references[config]]

    return compare_harnesses(runs, references, bootstrap=bootstrap, seed=seed, level=level)


def harness_comparison_table(result: dict[str, Any]) -> Table:
    """One line per harness (its balanced accuracies), then one per pair (difference, interval, McNemar)."""
    rows: list[list[Any]] = []
    for entry in result["models"]:
        for harness in entry["harnesses"]:
            rows.append([entry["model"], harness["harness"], *(Rate(harness[c]) for c in LEADERBOARD_CONFIGS),
                         None, None, None])
        for pair in entry["pairs"]:
            interval = tuple(pair["interval"]) if pair["interval"] else None
            rows.append([entry["model"], f"{pair['a']} - {pair['b']}", None, None,
                         Rate(pair["difference"], interval), f"{pair['only_a_correct']}/{pair['only_b_correct']}",
                         f"{pair['p_value']:.3g}"])
    notes = ["Differences: balanced accuracy of A minus B on the items both scored (AH and AH-S where both ran); "
             "discordant: items only A / only B judged correctly; p: exact two-sided McNemar test."]
    if result["bootstrap"]:
        boot = result["bootstrap"]
        notes.append(f"Intervals: {100 * boot['level']:.0f}% pair-clustered paired percentile bootstrap, "
                     f"{boot['n_resamples']} resamples, seed {boot['seed']}")
    if result["single"]:
        notes.append(f"Judged through one harness only (no comparison): {', '.join(result['single'])}")
    if result.get("ambiguous"):
        notes.append(f"Several runs through one harness (left out): {', '.join(result['ambiguous'])}")
    header = ["model", "harness", *(f"{c} bal." for c in LEADERBOARD_CONFIGS), "difference", "discordant", "McNemar p"]
    return Table(title="One model across harnesses", header=header, rows=rows, notes=notes)
