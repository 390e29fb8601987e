"""The Hub's Eval Results files: a benchmark's ``eval.yaml`` and a model repo's ``.eval_results/*.yaml``.

Builds both as plain data and checks them against the keys and types of
https://huggingface.co/docs/hub/eval-results (no I/O). An entry's ``value`` is
balanced accuracy, in [0, 1].
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any, Mapping, Sequence

__all__ = [
    "EVAL_FRAMEWORK",
    "EVAL_TASKS",
    "MAIN_METRIC",
    "EvalResultsError",
    "benchmark_eval_yaml",
    "check_eval_results",
    "check_eval_yaml",
    "eval_result_entry",
]

EVAL_TASKS = ("AH", "AH-S", "AH-D")
"""The configs that are leaderboard tasks (``all`` mixes two pools of different difficulty, so it is not one)."""

MAIN_METRIC = "balanced_accuracy"
EVAL_FRAMEWORK = "agenthorizon"

# The documented keys (https://huggingface.co/docs/hub/eval-results and the spec file it links).
_EVAL_YAML_KEYS = {"name": True, "description": False, "evaluation_framework": True, "tasks": True}
_TASK_KEYS = {"id": True, "config": False, "split": False}
_ENTRY_KEYS = {"dataset": True, "value": True, "verifyToken": False, "date": False, "source": False,
               "evaluation_framework": False, "notes": False}
_DATASET_KEYS = {"id": True, "task_id": True, "config": False, "split": False, "revision": False}
_SOURCE_KEYS = {"url": True, "name": False, "user": False}
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


class EvalResultsError(ValueError):
    """An ``eval.yaml`` or ``.eval_results`` document that does not have the form the Hub documents."""


def benchmark_eval_yaml(configs: Sequence[str], *, name: str = "AgentHorizon") -> dict[str, Any]:
    """The proposed ``eval.yaml`` of the benchmark's dataset repo: one task per exported leaderboard config.

    Each task's ``id`` is the config name, which ``.eval_results`` entries
    name as ``task_id``; ``config`` is the ``datasets`` config and ``split``
    its one split, ``test``. Configs that are not tasks (``all``) are left out.

    >>> [task["id"] for task in benchmark_eval_yaml(["AH", "all", "AH-S"])["tasks"]]
    ['AH', 'AH-S']
    """
    tasks = [{"id": config, "config": config, "split": "test"} for config in EVAL_TASKS if config in configs]
    if not tasks:
        raise EvalResultsError(f"no leaderboard task among the configs {list(configs)}; expected one of {list(EVAL_TASKS)}")
    return {
        "name": name,
        "description": (
            "AgentHorizon evaluates judges of long computer-use trajectories: does this recorded desktop "
            "trajectory accomplish this instruction? Tasks: AH (hard pool), AH-S (simple pool), AH-D "
            "(pair-aware development set). The leaderboard value is balanced accuracy (mean of the "
            "accuracy on positives and on negatives, in [0, 1], 0.5 is chance), scored strictly: a "
            "missing or unparseable verdict counts as wrong."
        ),
        "evaluation_framework": EVAL_FRAMEWORK,
        "tasks": tasks,
    }


def eval_result_entry(
    dataset_id: str,
    task_id: str,
    value: float,
    *,
    revision: str | None = None,
    interval: tuple[float, float] | None = None,
    n_items: int | None = None,
    source_url: str | None = None,
    source_name: str | None = None,
    date: str | None = None,
    notes: str | None = None,
) -> dict[str, Any]:
    """One ``.eval_results`` entry: balanced accuracy of one judge on one task, with its interval in ``notes``.

    The Hub's entry has one number, ``value``; the 95% interval (and the
    item count) are stated in ``notes``, the field the Hub shows beside it.

    >>> entry = eval_result_entry("ServiceNow/AgentHorizon", "AH", 0.75, interval=(0.7, 0.8), n_items=605)
    >>> entry["dataset"], entry["value"], entry["notes"]
    ({'id': 'ServiceNow/AgentHorizon', 'task_id': 'AH'}, 0.75, 'balanced accuracy on 605 items; 95% CI [0.7000, 0.8000]')
    """
    dataset: dict[str, Any] = {"id": dataset_id, "task_id": task_id}
    if revision:
        dataset["revision"] = revision
    entry: dict[str, Any] = {"dataset": dataset, "value": value}
    if date:
        entry["date"] = date
    if source_url:
        entry["source"] = {"url": source_url, **({"name": source_name} if source_name else {})}
    entry["evaluation_framework"] = EVAL_FRAMEWORK
    said = ["balanced accuracy" + (f" on {n_items} items" if n_items is not None else "")]
    if interval is not None:
        said.append(f"95% CI [{interval[0]:.4f}, {interval[1]:.4f}]")
    if notes:
        said.append(notes)
    entry["notes"] = "; ".join(said)
    return entry


def _check_keys(value: Any, keys: Mapping[str, bool], where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise EvalResultsError(f"{where}: expected a mapping, got {type(value).__name__}")
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise EvalResultsError(f"{where}: unknown key(s) {unknown}; the Hub documents {sorted(keys)}")
    missing = [key for key, required in keys.items() if required and key not in value]
    if missing:
        raise EvalResultsError(f"{where}: missing required key(s) {missing}")
    return value


def _check_text(value: Any, where: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise EvalResultsError(f"{where}: expected a non-empty string, got {value!r}")


def check_eval_yaml(document: Any, *, where: str = "eval.yaml") -> None:
    """Raise :class:`EvalResultsError` unless ``document`` has the documented ``eval.yaml`` form.

    >>> check_eval_yaml(benchmark_eval_yaml(["AH"]))
    >>> check_eval_yaml({"name": "x", "evaluation_framework": "y", "tasks": []})
    Traceback (most recent call last):
    ...
    agenthorizon.data.hub_results.EvalResultsError: eval.yaml: tasks: expected a non-empty list of tasks
    """
    _check_keys(document, _EVAL_YAML_KEYS, where)
    for key in ("name", "evaluation_framework"):
        _check_text(document[key], f"{where}: {key}")
    tasks = document["tasks"]
    if not isinstance(tasks, list) or not tasks:
        raise EvalResultsError(f"{where}: tasks: expected a non-empty list of tasks")
    seen = set()
    for index, task in enumerate(tasks):
        _check_keys(task, _TASK_KEYS, f"{where}: tasks[{index}]")
        _check_text(task["id"], f"{where}: tasks[{index}].id")
        if task["id"] in seen:
            raise EvalResultsError(f"{where}: tasks[{index}].id {task['id']!r} appears twice")
        seen.add(task["id"])


def check_eval_results(entries: Any, *, where: str = ".eval_results", task_ids: Sequence[str] | None = None) -> None:
    """Raise :class:`EvalResultsError` unless ``entries`` is a documented ``.eval_results`` list.

    ``task_ids`` are the benchmark's tasks (its ``eval.yaml``); an entry naming
    another is refused.

    >>> check_eval_results([eval_result_entry("ServiceNow/AgentHorizon", "AH", 0.5)], task_ids=EVAL_TASKS)
    >>> check_eval_results([{"dataset": {"id": "ServiceNow/AgentHorizon", "task_id": "AH"}, "value": "high"}])
    Traceback (most recent call last):
    ...
    agenthorizon.data.hub_results.EvalResultsError: .eval_results: [0].value: expected a finite number, got 'high'
    """
    if not isinstance(entries, list) or not entries:
        raise EvalResultsError(f"{where}: expected a non-empty list of entries")
    for index, entry in enumerate(entries):
        at = f"{where}: [{index}]"
        _check_keys(entry, _ENTRY_KEYS, at)
        dataset = _check_keys(entry["dataset"], _DATASET_KEYS, f"{at}.dataset")
        if not isinstance(dataset["id"], str) or not _REPO_ID.fullmatch(dataset["id"]):
            raise EvalResultsError(f"{at}.dataset.id: expected a Hub dataset id such as 'owner/name', got {dataset['id']!r}")
        _check_text(dataset["task_id"], f"{at}.dataset.task_id")
        if task_ids is not None and dataset["task_id"] not in task_ids:
            raise EvalResultsError(f"{at}.dataset.task_id: {dataset['task_id']!r} is no task of the benchmark; expected one of {list(task_ids)}")
        value = entry["value"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise EvalResultsError(f"{at}.value: expected a finite number, got {value!r}")
        if "date" in entry:
            _check_date(entry["date"], f"{at}.date")
        if "source" in entry:
            source = _check_keys(entry["source"], _SOURCE_KEYS, f"{at}.source")
            _check_text(source["url"], f"{at}.source.url")
        for key in ("notes", "evaluation_framework", "verifyToken"):
            if key in entry:
                _check_text(entry[key], f"{at}.{key}")


def _check_date(value: Any, where: str) -> None:
    if isinstance(value, (_dt.date, _dt.datetime)):
        return  # YAML reads an unquoted ISO date as a date
    try:
        _dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise EvalResultsError(f"{where}: expected an ISO-8601 date or datetime, got {value!r}") from None
