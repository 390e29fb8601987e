"""What agentic judges opened, per run (:func:`run_evidence`) and per harness of one model (:func:`harness_evidence`).

The evidence is each result's telemetry ``evidence``, aggregated by
:func:`agenthorizon.scoring.evidence.evidence_summary`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agenthorizon.report.tables import Rate, Table
from agenthorizon.scoring.evidence import EVIDENCE_KEY, ItemEvidence, evidence_summary
from agenthorizon.scoring.outcomes import item_outcomes

__all__ = ["evidence_note", "evidence_table", "harness_evidence", "leaderboard_evidence", "run_evidence"]


def run_evidence(records: Mapping[str, Any], predictions: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], *,
                 bootstrap: int = 0, seed: int = 0) -> dict[str, Any]:
    """The evidence summary of one run's result ``records`` over the reference ``rows`` (which need ``num_steps``).

    An item without a result, or whose result has no evidence, is counted
    as unknown; the summary's ``n_items - n_known`` says how many.
    """
    outcomes = item_outcomes(predictions, list(rows))
    evidence = []
    for row in rows:
        record = records.get(row["trajectory_id"])
        value = None if record is None else record.telemetry.extra.get(EVIDENCE_KEY)
        where = f"result {row['trajectory_id']}"
        evidence.append(None if value is None else ItemEvidence.from_dict(value, where))
    steps = []
    for row in rows:
        if row.get("num_steps") is None:
            raise ValueError(f"trajectory {row['trajectory_id']}: no num_steps in its reference row; the evidence "
                             "summary needs the dataset's num_steps column")
        steps.append(int(row["num_steps"]))
    summary = evidence_summary(evidence, steps, outcomes.correct, outcomes.clusters, bootstrap=bootstrap, seed=seed)
    harnesses = sorted({str(record.telemetry.extra["harness"]) for record in records.values()
                        if "harness" in record.telemetry.extra})
    return {"harnesses": harnesses, **summary.to_dict()}


def leaderboard_evidence(board: Any, data_root: Any, *, bootstrap: int = 0, seed: int = 0) -> dict[str, list[dict[str, Any]]]:
    """:func:`harness_evidence` of every row of a leaderboard: each judge's evidence over the configs it ran.

    The reference rows are read again with ``num_steps``; ``accuracy`` is the
    row's AH balanced accuracy, else its AH-S one.
    """
    from agenthorizon.judging.runs.folder import read_results, read_run_record
    from agenthorizon.release.item_selection import Selection
    from agenthorizon.report.leaderboard import LEADERBOARD_CONFIGS
    from agenthorizon.report.references import LABEL_ROW_FIELDS, load_run_references

    references = {config: load_run_references(data_root, Selection(config, **board.selection),
                                              fields=(*LABEL_ROW_FIELDS, "num_steps")).rows
                  for config in LEADERBOARD_CONFIGS}
    runs = []
    for row in board:
        covered = [config for config in LEADERBOARD_CONFIGS if row.reports.get(config) is not None]
        rows = [item for config in covered for item in references[config]]
        summary = run_evidence(read_results(row.runs).records, board.predictions[row.judge_key], rows,
                               bootstrap=bootstrap, seed=seed)
        record = read_run_record(row.runs[0])
        accuracy = next((row.reports[config].balanced_accuracy for config in covered), None)
        runs.append((row.judge, None if record is None else record.model, summary, accuracy))
    return harness_evidence(runs)


def harness_evidence(runs: Sequence[tuple[str, str | None, Mapping[str, Any], float | None]]) -> dict[str, list[dict[str, Any]]]:
    """Runs grouped by model: ``{model: [{"label", "harness", "accuracy", evidence...}, ...]}``, models with 2+ runs first.

    ``runs`` are ``(label, model, run_evidence(...), accuracy)``.

    >>> harness_evidence([("a", "m", {"harnesses": ["codex"], "mean_fraction_viewed": 0.5}, 0.7)])
    {'m': [{'label': 'a', 'harness': 'codex', 'accuracy': 0.7, 'harnesses': ['codex'], 'mean_fraction_viewed': 0.5}]}
    """
    grouped: dict[str, list[dict[str, Any]]] = {}
    for label, model, summary, accuracy in runs:
        harness = ",".join(summary.get("harnesses") or []) or None
        grouped.setdefault(model or label, []).append({"label": label, "harness": harness, "accuracy": accuracy, **summary})
    return dict(sorted(grouped.items(), key=lambda item: (-len(item[1]), item[0])))


def evidence_note(summary: Mapping[str, Any]) -> str:
    """One line for the text report.

    >>> evidence_note({"n_known": 2, "n_items": 3, "mean_fraction_viewed": 0.25, "markdown_rate": 1.0, "json_rate": 0.5,
    ...                "first_decile_share": 0.5, "last_decile_share": None})
    'Evidence (2 of 3 items known): 25.0% of screenshots viewed; Markdown read 100.0%, JSON 50.0% of items; viewed screenshots in the first decile 50.0%, last decile –'
    """
    def rate(value: float | None) -> str:
        return "–" if value is None else f"{100 * value:.1f}%"

    return (f"Evidence ({summary['n_known']} of {summary['n_items']} items known): "
            f"{rate(summary['mean_fraction_viewed'])} of screenshots viewed; Markdown read {rate(summary['markdown_rate'])}, "
            f"JSON {rate(summary['json_rate'])} of items; viewed screenshots in the first decile "
            f"{rate(summary['first_decile_share'])}, last decile {rate(summary['last_decile_share'])}")


def evidence_table(grouped: Mapping[str, Sequence[Mapping[str, Any]]]) -> Table:
    """One line per run, grouped by model: the share of screenshots viewed and where, the files read, accuracy."""
    rows: list[list[Any]] = []
    for model, entries in grouped.items():
        for entry in entries:
            interval = entry.get("fraction_interval")
            rows.append([model, entry.get("harness") or "", entry["label"], f"{entry['n_known']}/{entry['n_items']}",
                         Rate(entry.get("mean_fraction_viewed"), tuple(interval) if interval else None),
                         Rate(entry.get("first_decile_share")), Rate(entry.get("last_decile_share")),
                         Rate(entry.get("markdown_rate")), Rate(entry.get("json_rate")), Rate(entry.get("accuracy"))])
    notes = ["Known: items whose harness output shows its tool calls (Codex, OpenCode, pi, OpenHands; not Claude Code "
             "or Gemini CLI). Screenshots viewed: mean over items of the share of its steps whose screenshot a tool "
             "call named; first / last decile: share of the viewed screenshots in the first / last tenth of the "
             "steps; markdown / json: share of items whose file was read."]
    header = ["model", "harness", "judge", "known", "screenshots viewed", "first decile", "last decile", "markdown",
              "json", "balanced accuracy"]
    return Table(title="Evidence selection: what each judge opened", header=header, rows=rows, notes=notes,
                 text_columns=4)
