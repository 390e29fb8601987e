"""Blind judge inputs: the one place where a dataset row becomes what a judge sees.

:func:`build_judge_input` copies a *whitelist* of fields from a dataset row
(full or blind) into a frozen :class:`JudgeInput`. Nothing outside the
whitelist can reach a judge, so a field added to the rows later stays hidden
until someone decides otherwise here. Two further guards:

* keys named in :data:`agenthorizon.schema.HIDDEN_FIELDS` are removed from every
  nested mapping that is copied (action parameters, task metadata, ...);
* screenshot references never carry the ``steps_id`` folder name: the release
  stores screenshots under ``media/images/<steps_id>/``, and the steps id is a
  pairing field (it is what links a negative to its sibling), so the blind
  Markdown and step records point at ``media/images/<trajectory_id>/`` instead,
  and :class:`BlindScreenshots` never shows a path.

This module does no I/O when building an input; :class:`BlindScreenshots` reads
a file only when one of its items is accessed.

Building is cheap because the runner builds one input per item on its event
loop: every row is validated and filtered when the input is built (so bad rows
fail there, naming the item, and the input holds no hidden data from the
start), but the release-shaped step records of :attr:`JudgeInput.steps` are
assembled from the filtered columns only when a judge first reads them.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterator

from agenthorizon.release.blind import repoint_images
from agenthorizon.schema import HIDDEN_FIELDS, SCREENSHOT_REF_PREFIX, STEP_PARAMETER_COLUMNS, screenshot_filename

__all__ = ["JudgeInput", "StepColumns", "BlindScreenshots", "build_judge_input", "strip_hidden"]

_HIDDEN = frozenset(HIDDEN_FIELDS)
# How a hidden key looks inside JSON text; "\\u" because an escape can spell one.
_HIDDEN_IN_JSON = (*(f'"{name}"' for name in HIDDEN_FIELDS), "\\u")

_SCALARS = frozenset({str, int, float, bool, type(None)})
_ID_FIELDS = ("steps_id", "instruction_id", "pair_group_id")

_IMAGE_PREFIX = SCREENSHOT_REF_PREFIX  # steps are re-pointed to "<prefix><trajectory_id>/step_N.png"


def strip_hidden(value: Any) -> Any:
    """Return a copy of ``value`` with every hidden key removed at any depth.

    Mappings lose the keys named in ``schema.HIDDEN_FIELDS``; lists and tuples
    are copied item by item (tuples stay tuples); other values are returned
    unchanged.

    >>> strip_hidden({"a": 1, "label": "positive", "b": [{"mistake_type": "x", "c": 2}]})
    {'a': 1, 'b': [{'c': 2}]}
    """
    kind = type(value)
    if kind in _SCALARS:  # the common case first: this runs for every step of every item
        return value
    if kind is dict or isinstance(value, Mapping):
        return {k: strip_hidden(v) for k, v in value.items() if k not in _HIDDEN}
    if isinstance(value, list):
        return [strip_hidden(v) for v in value]
    if isinstance(value, tuple):
        return tuple(strip_hidden(v) for v in value)
    return value


class BlindScreenshots(Sequence):
    """The screenshots of one trajectory, aligned with its steps, without their paths.

    Item ``k`` is the screenshot of step ``k`` decoded to a ``PIL.Image.Image``
    on access (``None`` when the step has none). Images are decoded from the
    file's bytes, so not even ``image.filename`` reveals where the file lives
    (its folder is the steps id, a pairing field). :meth:`read_bytes` gives the
    encoded file for judges that copy or hash screenshots.

    Sources may be file paths, already decoded PIL images or ``None``.
    """

    __slots__ = ("__sources",)

    def __init__(self, sources: Sequence[Any]) -> None:
        self.__sources = tuple(sources)

    def __len__(self) -> int:
        return len(self.__sources)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        source = self.__sources[index]
        if source is None:
            return None
        if isinstance(source, str):
            from agenthorizon.data.images import open_image

            # Decoded from bytes and named by step: neither the image nor an
            # error message carries the path (its folder is the steps id).
            return open_image(self.read_bytes(index), name=f"screenshot of step index {index}")
        # An already decoded image: hand out a copy, which carries no filename.
        return source.copy()

    def __iter__(self) -> Iterator[Any]:
        for index in range(len(self)):
            yield self[index]

    def has(self, index: int) -> bool:
        """True when step ``index`` has a screenshot."""
        return self.__sources[index] is not None

    @property
    def present(self) -> list[int]:
        """Indices of the steps that have a screenshot."""
        return [i for i, s in enumerate(self.__sources) if s is not None]

    def read_bytes(self, index: int) -> bytes | None:
        """The encoded screenshot of step ``index`` (PNG for files), or ``None``."""
        source = self.__sources[index]
        if source is None:
            return None
        if isinstance(source, str):
            with open(source, "rb") as handle:
                return handle.read()
        import io

        buffer = io.BytesIO()
        source.save(buffer, format="PNG")
        return buffer.getvalue()

    def prepare(self, **settings: Any) -> Any:
        """Model-ready images of these screenshots: :func:`agenthorizon.data.images.prepare_images`.

        The preprocessor reads the files by path (its cache hashes file bytes),
        and the paths stay inside this object: the judge gets encoded images and
        step ids only. ``settings`` are passed through (``mode``, ``size``,
        ``budget``, ``step_ids``, ``cache_dir``, ...).
        """
        from agenthorizon.data.images import prepare_images

        return prepare_images(list(self.__sources), **settings)

    def link_to(self, index: int, target: Any) -> bool:
        """Hard-link step ``index``'s file to ``target``; False when that is not possible.

        A hard link shares the file's content without recording where it came
        from (unlike a symbolic link, whose target shows the steps-id folder).
        """
        import os

        source = self.__sources[index]
        if not isinstance(source, str):
            return False
        try:
            os.link(source, target)
        except OSError:  # another file system, or links not supported: copy instead
            return False
        return True

    def __repr__(self) -> str:
        return f"BlindScreenshots({len(self)} steps, {len(self.present)} with a screenshot)"

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__


@dataclass(frozen=True)
class StepColumns:
    """The blind step data of one trajectory, column by column (one entry per step).

    What :attr:`JudgeInput.steps` is assembled from: ``step_ids`` (0-based
    ints), ``action_types``, ``parameters`` (decoded JSON objects with every
    hidden key already removed) and ``timestamps_us`` (int or ``None``). Built
    only by :func:`build_judge_input`.
    """

    step_ids: tuple[int, ...]
    action_types: tuple[str, ...]
    parameters: tuple[dict[str, Any], ...]
    timestamps_us: tuple[Any, ...]


@dataclass(frozen=True)
class JudgeInput:
    """Everything a judge may see about one benchmark item, and nothing else.

    ``steps`` (assembled on first access, then cached) are release-shaped step
    records::

        {"step_id": 0, "action": {"type": "click", "parameters": {...}},
         "timestamp_us": 1200 or None, "screenshot": "../media/images/<trajectory_id>/step_1.png" or None}

    ``markdown`` is the release Markdown with image references re-pointed from
    the steps-id folder to ``../media/images/<trajectory_id>/``.
    ``environment`` holds ``os`` and ``screen_resolution``; ``task`` holds
    ``category``, ``subcategory``, ``task_type`` and ``applications``.
    ``step_columns`` is the already filtered data ``steps`` is made from; two
    inputs are equal when their ids, texts, environment, task and step data are.
    """

    trajectory_id: str
    instruction: str
    markdown: str
    screenshots: BlindScreenshots = field(repr=True, compare=False)
    step_columns: StepColumns = field(repr=False)
    environment: Mapping[str, Any] = field(default_factory=dict)
    task: Mapping[str, Any] = field(default_factory=dict)

    @cached_property
    def steps(self) -> tuple[Mapping[str, Any], ...]:
        """The release-shaped step records (see the class docstring), built once on first access."""
        columns = self.step_columns
        folder = f"{_IMAGE_PREFIX}{self.trajectory_id}/"
        present = set(self.screenshots.present)
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
        """The trajectory in the release's JSON shape (``data/jsons/<id>.json``), null keys dropped."""
        task = {"instruction": self.instruction}
        task.update({k: v for k, v in self.task.items() if v is not None})
        environment = {k: v for k, v in self.environment.items() if v is not None}
        steps = []
        for step in self.steps:
            record: dict[str, Any] = {"step_id": step["step_id"]}
            if step.get("screenshot") is not None:
                record["screenshot"] = step["screenshot"]
            record["action"] = step["action"]
            if step.get("timestamp_us") is not None:
                record["timestamp_us"] = step["timestamp_us"]
            steps.append(record)
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


def _step_parameters(step: Mapping[str, Any], where: str) -> dict[str, Any]:
    raw = step.get("parameters")
    if isinstance(raw, str):
        try:
            parameters = json.loads(raw)
        except json.JSONDecodeError as error:
            raise ValueError(f"{where}: step parameters are not valid JSON ({error.msg})") from None
        if not isinstance(parameters, dict):
            raise ValueError(f"{where}: step parameters must be a JSON object")
        return strip_hidden(parameters)
    if isinstance(raw, Mapping):
        return strip_hidden(dict(raw))
    action = step.get("action")
    if isinstance(action, Mapping):  # a release-shaped step record
        return strip_hidden(dict(action.get("parameters") or {}))
    # No lossless parameters: rebuild them from the flat columns.
    return {k: step[k] for k in STEP_PARAMETER_COLUMNS if step.get(k) is not None}


def _replace_in_strings(value: Any, olds: Sequence[str], new: str) -> Any:
    """``value`` with every occurrence of each of ``olds`` in its strings (keys too) replaced by ``new``.

    >>> _replace_in_strings({"text": "see d-0001", "keys": ["d-0001"]}, ["d-0001"], "T")
    {'text': 'see T', 'keys': ['T']}
    """
    if isinstance(value, str):
        for old in olds:
            value = value.replace(old, new)
        return value
    if isinstance(value, Mapping):
        return {_replace_in_strings(k, olds, new): _replace_in_strings(v, olds, new) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_replace_in_strings(v, olds, new) for v in value)
    return value


# The four step fields of a dataset row that a judge input is made of, in one C-level lookup.
_ROW_STEP_FIELDS = operator.itemgetter("step_id", "action_type", "parameters", "timestamp_us")


def _row_step_columns(raw_steps: Sequence[Any]) -> tuple[tuple[Any, ...], ...] | None:
    """``(step_ids, action_types, parameter texts, timestamps)`` of a dataset row's steps, or ``None``.

    The fast path of :func:`build_judge_input`, which the runner calls once per
    item on its event loop: the columns are taken with C-level ``map``/``zip``
    and type-checked as sets, instead of several Python loops over about 130
    steps. ``None`` (use the step-by-step path, whose errors name the step)
    when any step is not a ``dict`` with the four fields, an id is not an
    ``int`` or a type not a ``str``.

    >>> _row_step_columns([{"step_id": 0, "action_type": "click", "parameters": "{}", "timestamp_us": None}])
    ((0,), ('click',), ('{}',), (None,))
    >>> _row_step_columns([{"step_id": 0, "action": {"type": "click"}}]) is None
    True
    """
    if not raw_steps or not set(map(type, raw_steps)) <= {dict}:
        return None
    try:
        columns = tuple(zip(*map(_ROW_STEP_FIELDS, raw_steps)))
    except KeyError:
        return None
    if not set(map(type, columns[0])) <= {int} or not set(map(type, columns[1])) <= {str}:
        return None  # bool ids and missing types included
    return columns


def _all_parameters(
    texts: Sequence[Any], raw_steps: Sequence[Mapping[str, Any]], where: str
) -> tuple[list[dict[str, Any]], str | None]:
    """Every step's parameters, hidden keys removed, and the JSON text they were decoded from.

    ``texts`` holds each step's ``parameters`` field. Rows store each step's
    parameters as a JSON string; decoding them as one JSON array is several
    times faster than one ``json.loads`` per step, which matters for 300-step
    trajectories. Any surprise falls back to the per-step path, whose errors
    name the step (and then the text is ``None``).
    """
    try:
        joined = "[" + ",".join(texts) + "]"  # TypeError unless every step has a JSON text
        decoded = json.loads(joined)
    except (TypeError, json.JSONDecodeError):
        decoded = None
    # A text such as '{"a": 1}, {"b": 2}' would add items: then the count differs.
    if decoded is not None and len(decoded) == len(texts) and all(type(p) is dict for p in decoded):
        if any(marker in joined for marker in _HIDDEN_IN_JSON):
            return [strip_hidden(p) for p in decoded], joined
        return decoded, joined  # no hidden key anywhere in the text: nothing to strip
    return [_step_parameters(step, f"{where}, step {index}") for index, step in enumerate(raw_steps)], None


def _may_mention(parameters: list[dict[str, Any]], text: str | None, values: Sequence[str]) -> bool:
    r"""False only when no string or key of ``parameters`` contains any of ``values``.

    Searches the JSON text the parameters were decoded from when it has no
    backslash: without escapes every decoded string (and key) is spelt
    verbatim in it, so a value in any of them is found (the text may also hold
    keys removed as hidden, which can only give a harmless True). Otherwise it
    searches one ``json.dumps`` of all parameters together, not one per step.

    >>> _may_mention([{"text": "see d-0001"}], '[{"text": "see d-0001"}]', ["d-0001"])
    True
    >>> _may_mention([{"text": "see d-0001"}], '[{"text": "see d-\\u0030001"}]', ["d-0001"])
    True
    >>> _may_mention([{"x": 1}], '[{"x": 1}]', ["d-0001"])
    False
    """
    if text is None or "\\" in text:
        text = json.dumps(parameters, ensure_ascii=False)
    return any(value in text for value in values)


def _screenshot_sources(row: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> list[Any]:
    """Per-step screenshot sources (path, PIL image or None) from whatever form the row has."""
    images = row.get("screenshots")
    if images is not None and not isinstance(images, (str, bytes)):
        paths = getattr(images, "paths", None)
        if paths is not None:  # a LazyScreenshots: use its paths, decode ourselves
            return list(paths)
        images = list(images)
        if len(images) == len(steps):
            return [str(x) if hasattr(x, "__fspath__") else x for x in images]
    return [step.get("screenshot") for step in steps]


def _step_id(raw: Mapping[str, Any], index: int, where: str) -> int:
    """A step's id (its position when the row has none), checked to be an integer."""
    step_id = raw.get("step_id")
    if step_id is None:
        return index
    if isinstance(step_id, bool) or not isinstance(step_id, int):
        raise ValueError(f"{where}, step {index}: step_id must be an integer, got {step_id!r}")
    return int(step_id)


def _action_type(raw: Mapping[str, Any], where: str) -> str:
    """A step's action type, from a row step (``action_type``) or a release step (``action.type``)."""
    action_type = raw.get("action_type")
    if action_type is None and isinstance(raw.get("action"), Mapping):
        action_type = raw["action"].get("type")
    if not isinstance(action_type, str):
        raise ValueError(f"{where}: missing action type")
    return action_type


def build_judge_input(row: Mapping[str, Any]) -> JudgeInput:
    """Build the blind :class:`JudgeInput` of one dataset row.

    The one function through which a judge sees an item: it copies a
    whitelist of fields (trajectory id, instruction, steps, Markdown,
    screenshots, environment and task metadata), so the label, the mistake
    type and the pairing fields (``schema.HIDDEN_FIELDS``) never reach a
    judge. Hidden keys are also removed from nested mappings (action
    parameters), and screenshot references are re-pointed from the
    ``steps_id`` folder to the item's own ``trajectory_id``, because the steps
    id would link a negative to its sibling. Screenshots are not decoded here.

    Parameters
    ----------
    row : mapping
        A row of :func:`agenthorizon.load_dataset` (full or blind, any
        ``images`` mode), or a mapping with the same fields. Required:
        ``trajectory_id`` (non-empty str), ``instruction`` (str) and ``steps``
        (list of step mappings, each with a str ``action_type`` or a
        release-shaped ``action`` object holding ``type``; an int
        ``step_id`` defaults to the step's position).

    Returns
    -------
    JudgeInput
        A frozen record with ``trajectory_id``, ``instruction``, ``markdown``
        (blind image references), ``steps`` (release-shaped, built on first
        access), ``screenshots`` (decoded on access, no paths shown),
        ``environment`` and ``task``.

    Raises
    ------
    ValueError
        Naming the item (and step) when ``row`` is not a mapping, a required
        field is missing or has the wrong type, a step's parameters are not
        a JSON object, or the screenshots do not give one entry per step.

    See Also
    --------
    strip_hidden : removes hidden keys from nested data.
    agenthorizon.judging.runs.runner.run_judge : builds one input per item with this.
    agenthorizon.release.render.to_markdown : the release Markdown a judge reads.

    Examples
    --------
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
    """
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

    columns = _row_step_columns(raw_steps)
    if columns is not None:
        step_ids, action_types, texts, timestamps_us = columns
    else:  # not the steps of a dataset row: check and convert step by step
        for index, raw in enumerate(raw_steps):
            if not isinstance(raw, Mapping):
                raise ValueError(f"{where}, step {index}: expected a mapping, got {type(raw).__name__}")
        step_ids = [_step_id(raw, index, where) for index, raw in enumerate(raw_steps)]
        action_types = [_action_type(raw, f"{where}, step {index}") for index, raw in enumerate(raw_steps)]
        texts = [raw.get("parameters") for raw in raw_steps]
        timestamps_us = [raw.get("timestamp_us") for raw in raw_steps]
    parameters, parameters_text = _all_parameters(texts, raw_steps, where)

    sources = _screenshot_sources(row, raw_steps)
    if len(sources) != len(raw_steps):
        raise ValueError(
            f"{where}: {len(sources)} screenshots for {len(raw_steps)} steps; expected one entry per step"
        )

    markdown = row.get("markdown") or ""
    if not isinstance(markdown, str):
        raise ValueError(f"{where}: field 'markdown' must be a string")
    markdown = repoint_images(markdown, trajectory_id)
    # A full row tells us the deliverable ids; make sure no other spelling of an
    # image path (or anything else) carries them into the Markdown or the
    # action parameters the Markdown is rendered from.
    known_ids = [v for v in (row.get(name) for name in _ID_FIELDS) if isinstance(v, str) and len(v) >= 8]
    for value in known_ids:
        if value in markdown:
            markdown = markdown.replace(value, trajectory_id)
    if known_ids and _may_mention(parameters, parameters_text, known_ids):
        parameters = [_replace_in_strings(p, known_ids, trajectory_id) for p in parameters]

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
    return JudgeInput(
        trajectory_id=trajectory_id,
        instruction=instruction,
        markdown=markdown,
        screenshots=BlindScreenshots(sources),
        step_columns=StepColumns(tuple(step_ids), tuple(action_types), tuple(parameters), tuple(timestamps_us)),
        environment=environment,
        task=task,
    )
