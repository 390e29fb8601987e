"""Blind judge inputs: the one place where a dataset row becomes what a judge sees (:func:`build_judge_input`).

Design notes: docs/architecture.md, "Design notes by module".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from agenthorizon.judging.ablation import parse_ablation
from agenthorizon.judging.perturbation import (
    INSTRUCTION_LAST,
    PARAPHRASE,
    SHUFFLE_SCREENSHOTS,
    instruction_last_markdown,
    kept_steps,
    paraphrase_markdown,
    parse_perturbation,
    shuffled_order,
)
from agenthorizon.judging.blind_screenshots import BlindScreenshots, screenshot_sources
from agenthorizon.judging.blinding import scrub_ids, strip_hidden
from agenthorizon.judging.steps import read_steps
from agenthorizon.release.blind import repoint_images
from agenthorizon.release.render import to_markdown
from agenthorizon.schema import (
    ABLATE_ACTIONS,
    ABLATE_INSTRUCTION,
    ABLATE_SCREENSHOTS,
    SCREENSHOT_REF_PREFIX,
    screenshot_filename,
)

__all__ = ["JudgeInput", "StepColumns", "BlindScreenshots", "build_judge_input", "only_screenshots_of", "strip_hidden"]



@dataclass(frozen=True)
class StepColumns:
    """The blind step data of one trajectory, one entry per step: what :attr:`JudgeInput.steps` is made from.

    ``step_ids`` (0-based ints), ``action_types``, ``parameters`` (JSON objects,
    hidden keys removed), ``timestamps_us`` (int or ``None``); the action columns
    are empty when the actions are ablated.
    """

    step_ids: tuple[int, ...]
    action_types: tuple[str, ...]
    parameters: tuple[dict[str, Any], ...]
    timestamps_us: tuple[Any, ...]


@dataclass(frozen=True)
class JudgeInput:
    """Everything a judge may see about one benchmark item, and nothing else.

    ``steps`` (built on first access, then cached) are release-shaped records::

        {"step_id": 0, "action": {"type": "click", "parameters": {...}},
         "timestamp_us": 1200 or None, "screenshot": "../media/images/<trajectory_id>/step_1.png" or None}

    ``markdown`` is the release Markdown with images under
    ``../media/images/<trajectory_id>/``; ``environment`` holds ``os`` and
    ``screen_resolution``; ``task`` ``category``, ``subcategory``, ``task_type``
    and ``applications``. ``ablation`` names the withheld parts
    (:data:`agenthorizon.schema.ABLATION_PARTS`, absent from every field),
    ``perturbation`` how the item is shown differently; ``()`` for none.
    """

    trajectory_id: str
    instruction: str
    markdown: str
    screenshots: BlindScreenshots = field(repr=True, compare=False)
    step_columns: StepColumns = field(repr=False)
    environment: Mapping[str, Any] = field(default_factory=dict)
    task: Mapping[str, Any] = field(default_factory=dict)
    ablation: tuple[str, ...] = ()
    perturbation: tuple[str, ...] = ()

    @cached_property
    def steps(self) -> tuple[Mapping[str, Any], ...]:
        """The release-shaped step records (class docstring), built on first access; no ``action`` key when actions are ablated."""
        columns = self.step_columns
        folder = f"{SCREENSHOT_REF_PREFIX}{self.trajectory_id}/"  # steps re-pointed to <prefix><trajectory_id>/step_N.png
        present = set(self.screenshots.present)
        if ABLATE_ACTIONS in self.ablation:
            return tuple(
                {
                    "step_id": step_id,
                    "timestamp_us": timestamp_us,
                    "screenshot": folder + screenshot_filename(step_id) if index in present else None,
                }
                for index, (step_id, timestamp_us) in enumerate(zip(columns.step_ids, columns.timestamps_us))
            )
        return tuple(
            {
                "step_id": step_id,
                "action": {"type": action_type, "parameters": parameters},
                "timestamp_us": timestamp_us,
                "screenshot": folder + screenshot_filename(step_id) if index in present else None,
            }
            for index, (step_id, action_type, parameters, timestamp_us) in enumerate(
                zip(columns.step_ids, columns.action_types, columns.parameters, columns.timestamps_us)
            )
        )

    @property
    def num_steps(self) -> int:
        return len(self.step_columns.step_ids)

    def trajectory_json(self) -> dict[str, Any]:
        """The trajectory in the release's JSON shape (``data/jsons/<id>.json``), null keys dropped.

        Ablated parts are absent: no ``task.instruction``, no step ``action``,
        no step ``screenshot``.
        """
        task = {} if ABLATE_INSTRUCTION in self.ablation else {"instruction": self.instruction}
        task.update({k: v for k, v in self.task.items() if v is not None})
        environment = {k: v for k, v in self.environment.items() if v is not None}
        steps = []
        for step in self.steps:
            record: dict[str, Any] = {"step_id": step["step_id"]}
            if step.get("screenshot") is not None:
                record["screenshot"] = step["screenshot"]
            if "action" in step:
                record["action"] = step["action"]
            if step.get("timestamp_us") is not None:
                record["timestamp_us"] = step["timestamp_us"]
            steps.append(record)
        if INSTRUCTION_LAST in self.perturbation:  # the goal after the steps, here as in the Markdown
            return {"trajectory_id": self.trajectory_id, "environment": environment, "steps": steps, "task": task}
        return {
            "trajectory_id": self.trajectory_id,
            "task": task,
            "environment": environment,
            "steps": steps,
        }

    def typed_text(self) -> list[str]:
        """The text of every ``type`` action, in step order."""
        columns = self.step_columns
        texts = []
        for action_type, parameters in zip(columns.action_types, columns.parameters):
            if action_type == "type":
                text = parameters.get("text")
                if isinstance(text, str):
                    texts.append(text)
        return texts


def _require(row: Mapping[str, Any], name: str, kind: type, where: str) -> Any:
    if name not in row:
        raise ValueError(f"{where}: dataset row has no {name!r} field; expected a row from load_dataset")
    value = row[name]
    if not isinstance(value, kind):
        raise ValueError(f"{where}: field {name!r} must be {kind.__name__}, got {type(value).__name__}")
    return value


def build_judge_input(
    row: Mapping[str, Any], *, ablate: str | Iterable[str] | None = None, perturb: str | Iterable[str] | None = None
) -> JudgeInput:
    """The blind :class:`JudgeInput` of one dataset row (full or blind, any ``images`` mode); no I/O.

    Only a whitelist of fields is copied; keys of
    :data:`agenthorizon.schema.HIDDEN_FIELDS` are stripped at any depth, and
    screenshots and ids are re-pointed from the ``steps_id`` to the
    ``trajectory_id``, so the label never reaches a judge.

    Required: ``trajectory_id`` (non-empty str), ``instruction`` (str), ``steps``
    (each with a str ``action_type`` or an ``action`` object with ``type``).
    ``ablate`` (comma-separated or names of :data:`agenthorizon.schema.ABLATION_PARTS`)
    withholds parts (paper Table 9):

    - ``"instruction"``: empty ``instruction``, no ``task.instruction``, empty
      ``## Goal``; the task metadata stays.
    - ``"actions"``: no step ``action``, no ``**Action:**`` line, empty
      ``typed_text()``; step ids, timestamps and screenshots stay.
    - ``"screenshots"``: no screenshots, references or image lines.

    ``perturb`` names :data:`agenthorizon.judging.perturbation.PERTURBATIONS`.
    With either, the Markdown is rendered again from the changed JSON
    (:func:`agenthorizon.release.render.to_markdown`), so nothing withheld
    survives. Raises ValueError naming the item (and step) for a malformed row or
    an unknown part.

    >>> row = {"trajectory_id": "t1", "instruction": "Open the file", "label": "positive",
    ...        "steps_id": "0123456789-abcdef", "os": "linux",
    ...        "steps": [{"step_id": 0, "action_type": "click", "parameters": '{"x": 1, "y": 2}',
    ...                   "timestamp_us": None, "screenshot": None}],
    ...        "markdown": "![Step 0 screenshot](../media/images/0123456789-abcdef/step_1.png)"}
    >>> judge_input = build_judge_input(row)
    >>> judge_input.steps[0]["action"]
    {'type': 'click', 'parameters': {'x': 1, 'y': 2}}
    >>> judge_input.markdown
    '![Step 0 screenshot](../media/images/t1/step_1.png)'
    >>> hasattr(judge_input, "label"), judge_input.environment["os"]
    (False, 'linux')
    >>> blind = build_judge_input(row, ablate="instruction,screenshots")
    >>> blind.instruction, blind.trajectory_json()["task"], blind.screenshots.present
    ('', {}, [])
    >>> "Open the file" in blind.markdown, "![Step" in blind.markdown, "**Action:** `left-click (1, 2)`" in blind.markdown
    (False, False, True)
    """
    ablation = parse_ablation(ablate)
    perturbation = parse_perturbation(perturb)
    if not isinstance(row, Mapping):
        raise ValueError(f"expected a dataset row (a mapping), got {type(row).__name__}")
    trajectory_id = row.get("trajectory_id")
    if not isinstance(trajectory_id, str) or not trajectory_id:
        raise ValueError("dataset row has no string 'trajectory_id'; expected a row from load_dataset")
    where = f"trajectory {trajectory_id}"
    instruction = _require(row, "instruction", str, where)
    raw_steps = row.get("steps")
    if not isinstance(raw_steps, (list, tuple)):
        raise ValueError(
            f"{where}: field 'steps' must be a list of step records, got {type(raw_steps).__name__}"
        )

    step_ids, action_types, parameters, timestamps_us, parameters_text = read_steps(raw_steps, where)

    # Withheld screenshots are not even looked up: no path of theirs reaches the input.
    sources = [None] * len(raw_steps) if ABLATE_SCREENSHOTS in ablation else screenshot_sources(row, raw_steps)
    if len(sources) != len(raw_steps):
        raise ValueError(
            f"{where}: {len(sources)} screenshots for {len(raw_steps)} steps; expected one entry per step"
        )

    if perturbation:
        step_ids, action_types, parameters, timestamps_us, parameters_text, sources = _perturbed(
            trajectory_id, perturbation, (step_ids, action_types, parameters, timestamps_us, parameters_text), sources)

    markdown = row.get("markdown") or ""
    if not isinstance(markdown, str):
        raise ValueError(f"{where}: field 'markdown' must be a string")
    if ablation or perturbation:  # rendered below from the ablated or perturbed JSON instead
        markdown = ""
    markdown, parameters = scrub_ids(row, trajectory_id, repoint_images(markdown, trajectory_id), parameters, parameters_text)

    environment = {
        "os": row.get("os"),
        "screen_resolution": list(row["screen_resolution"]) if row.get("screen_resolution") is not None else None,
    }
    applications = row.get("applications")
    task = {
        "category": row.get("category"),
        "subcategory": row.get("subcategory"),
        "task_type": row.get("task_type"),
        "applications": list(applications) if applications is not None else None,
    }
    if ABLATE_INSTRUCTION in ablation:
        instruction = ""
    if ABLATE_ACTIONS in ablation:
        action_types, parameters = [], []
    judge_input = JudgeInput(
        trajectory_id=trajectory_id,
        instruction=instruction,
        markdown=markdown,
        screenshots=sources if isinstance(sources, BlindScreenshots) else BlindScreenshots(sources, trajectory_id),
        step_columns=StepColumns(tuple(step_ids), tuple(action_types), tuple(parameters), tuple(timestamps_us)),
        environment=environment,
        task=task,
        ablation=ablation,
        perturbation=perturbation,
    )
    if not ablation and not perturbation:
        return judge_input
    # Rendered from the ablated (and already blind) JSON, so it holds exactly what that holds.
    markdown = to_markdown(judge_input.trajectory_json(), actions=ABLATE_ACTIONS not in ablation)
    if PARAPHRASE in perturbation:
        markdown = paraphrase_markdown(markdown)
    if INSTRUCTION_LAST in perturbation:
        markdown = instruction_last_markdown(markdown)
    return replace(judge_input, markdown=markdown)


def _perturbed(trajectory_id: str, perturbation: tuple[str, ...], columns: tuple[list[Any], ...],
               sources: Any) -> tuple[Any, ...]:
    """The step columns and screenshot sources cut to the kept steps, screenshots shuffled when asked."""
    keep = list(kept_steps(len(columns[0]), perturbation))
    picked = list(keep)
    if SHUFFLE_SCREENSHOTS in perturbation:
        has = sources.has if isinstance(sources, BlindScreenshots) else (lambda index: sources[index] is not None)
        moved = shuffled_order([index for index in keep if has(index)], trajectory_id)
        picked = [moved.get(index, index) for index in keep]
    cut = tuple([column[index] for index in keep] for column in columns)
    chosen = sources.take(picked) if isinstance(sources, BlindScreenshots) else [sources[index] for index in picked]
    return (*cut, chosen)


def only_screenshots_of(judge_input: JudgeInput, step_ids: Iterable[int]) -> JudgeInput:
    """``judge_input`` with the screenshots of ``step_ids`` alone; the other steps keep their text.

    Used by step selection (:mod:`agenthorizon.judging.judges.direct_selection`).
    A step id without a screenshot raises ValueError naming the item.

    >>> row = {"trajectory_id": "t1", "instruction": "Open it", "markdown": "",
    ...        "steps": [{"step_id": i, "action_type": "wait", "parameters": "{}", "timestamp_us": None,
    ...                   "screenshot": f"/r/step_{i + 1}.png"} for i in range(3)]}
    >>> narrowed = only_screenshots_of(build_judge_input(row), [2])
    >>> narrowed.screenshots.present, narrowed.markdown.count("![Step")
    ([2], 1)
    """
    wanted = set(step_ids)
    position = {step: index for index, step in enumerate(judge_input.step_columns.step_ids)}
    present = set(judge_input.screenshots.present)
    missing = sorted(step for step in wanted if position.get(step) not in present)
    if missing:
        raise ValueError(
            f"trajectory {judge_input.trajectory_id}: step(s) {missing} have no screenshot; "
            "expected step ids of steps with one"
        )
    narrowed = replace(judge_input, screenshots=judge_input.screenshots.only(position[step] for step in wanted))
    markdown = to_markdown(narrowed.trajectory_json(), actions=ABLATE_ACTIONS not in judge_input.ablation)
    return replace(narrowed, markdown=markdown)
