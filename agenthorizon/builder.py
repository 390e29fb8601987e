"""The ``datasets`` builder of AgentHorizon, and :func:`load_dataset`.

:class:`AgentHorizon` is a ``datasets.GeneratorBasedBuilder`` with the configs
``AH`` (AgentHorizon.jsonl), ``AH-S`` (AgentHorizon-Simple.jsonl), ``AH-D``
(the pair-aware development set) and ``all`` (both files). It reads the label
rows and every item's trajectory JSON and Markdown, and writes one Arrow table
with the row fields of ``docs/architecture.md``. Screenshots are stored as
*paths* (``Image(decode=False)``): the Arrow cache never holds pixels, and
:func:`load_dataset` turns each row's paths into a
:class:`~agenthorizon.screenshots.LazyScreenshots` that decodes on access.

``datasets`` >= 4 refuses loading scripts in ``datasets.load_dataset``, so
:func:`load_dataset` here resolves the release, instantiates the builder
directly and runs ``download_and_prepare`` / ``as_dataset``, returning what
``datasets.load_dataset`` would.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

import datasets
from datasets.exceptions import DatasetGenerationError

from agenthorizon.labels import manifest_sha256
from agenthorizon.schema import (
    CONFIG_AH,
    CONFIG_AH_D,
    CONFIG_AH_S,
    CONFIG_ALL,
    CONFIG_NAMES,
    DEFAULT_HUB_REPO,
    DEV_GROUPS,
    HIDDEN_FIELDS,
    SPLIT_NAME,
    json_relpath,
    markdown_relpath,
)
from agenthorizon.source import (
    IMAGE_MODES,
    annotate,
    load_dev_set,
    local_root,
    read_labels,
    read_trajectory,
    resolve_release,
    screenshot_path,
)
from agenthorizon.splits import select_config

__all__ = ["AgentHorizon", "AgentHorizonConfig", "features", "load_dataset"]

_FLOAT_PARAMETERS = ("x", "y", "start_x", "start_y", "end_x", "end_y", "amount", "duration_s")
_STRING_PARAMETERS = ("button", "text", "key", "direction")

_DESCRIPTION = (
    "AgentHorizon: long desktop trajectories of computer-use agents with paired "
    "instructions, labelled for whether the trajectory accomplishes the instruction shown. "
    "Built to evaluate judges of computer-use agents."
)
_HOMEPAGE = f"https://huggingface.co/datasets/{DEFAULT_HUB_REPO}"

# Threads overlap file reads with JSON parsing; more than a few buys nothing
# on the GIL-bound parse.
_READ_THREADS = 4


def features(images: str | None = "lazy") -> datasets.Features:
    """The exact ``datasets.Features`` of a row, for an images mode.

    Screenshots are stored as ``List(Image(decode=False))`` for ``"lazy"`` (the
    default: paths in Arrow, decoded on access by ``load_dataset``'s
    transform) and as ``List(Image())`` for ``"eager"`` (datasets decodes the
    whole list when a row is read); both store paths only. ``"paths"`` and
    ``None`` store ``List(Value("string"))``. Entries are null where a step has
    no screenshot.
    """
    if images not in IMAGE_MODES:
        raise ValueError(f"unknown images mode {images!r}; expected one of 'lazy', 'paths', 'eager' or None")
    string, int32 = datasets.Value("string"), datasets.Value("int32")
    step = {
        "step_id": int32,
        "action_type": string,
        **{name: datasets.Value("float64") for name in _FLOAT_PARAMETERS},
        **{name: string for name in _STRING_PARAMETERS},
        "num_clicks": int32,
        "keys": datasets.List(string),
        "parameters": string,
        "timestamp_us": datasets.Value("int64"),
        "screenshot": string,
    }
    if images in ("lazy", "eager"):
        screenshot = datasets.Image(decode=images == "eager")
    else:
        screenshot = string
    return datasets.Features(
        {
            "trajectory_id": string,
            "instruction": string,
            "label": string,
            "mistake_type": string,
            "instruction_id": string,
            "instruction_source": string,
            "steps_id": string,
            "steps_source": string,
            "pair_group_id": string,
            "difficulty": string,
            "in_dev": datasets.Value("bool"),
            "category": string,
            "subcategory": string,
            "task_type": string,
            "applications": datasets.List(string),
            "os": string,
            "screen_resolution": datasets.List(int32),
            "num_steps": int32,
            "steps": datasets.List(step),
            "screenshots": datasets.List(screenshot),
            "markdown": string,
        }
    )


@dataclass
class AgentHorizonConfig(datasets.BuilderConfig):
    """Config of the AgentHorizon builder.

    Args:
        dev_groups: number of pair groups in AH-D, drawn by the authors'
            algorithm (default 50; all two-deliverable groups when fewer).
        dev_manifest: path of a dev manifest (a text file with one trajectory
            id per line, or a JSON list of ids); when set it defines AH-D
            instead of the derivation.
        exclude_dev: remove the AH-D items from AH, AH-S and all.
        images: ``"lazy"``, ``"paths"``, ``"eager"`` or ``None`` (stored like
            ``"paths"``; for :func:`load_dataset` it also means no media is
            fetched from the Hub). See :func:`features`.
        label_manifest_sha256: sha256 of the release's label manifest
            (:func:`agenthorizon.labels.manifest_sha256`). :func:`load_dataset`
            sets it so that a changed release gets a new cache; when set, the
            builder refuses labels with another hash.
        dev_manifest_sha256: sha256 of the dev manifest file's bytes, set by
            :func:`load_dataset` for the same reason.
    """

    dev_groups: int = DEV_GROUPS
    dev_manifest: str | None = None
    exclude_dev: bool = False
    images: str | None = "lazy"
    label_manifest_sha256: str | None = None
    dev_manifest_sha256: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.images not in IMAGE_MODES:
            raise ValueError(
                f"unknown images mode {self.images!r}; expected one of 'lazy', 'paths', 'eager' or None"
            )
        if self.name == CONFIG_AH_D and self.exclude_dev:
            raise ValueError("exclude_dev=True removes AH-D items; it cannot be combined with config 'AH-D'")


def _code_hash() -> str:
    """Hash of the code that writes rows: a changed builder never reuses an old cache."""
    from agenthorizon import source

    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(Path(source.__file__).read_bytes())
    return digest.hexdigest()[:16]


class AgentHorizon(datasets.GeneratorBasedBuilder):
    """AgentHorizon as a ``datasets`` builder; ``data_dir`` is the release root.

    >>> builder = AgentHorizon(config_name="AH", data_dir="/path/to/release")  # doctest: +SKIP
    >>> builder.download_and_prepare()  # doctest: +SKIP
    >>> ds = builder.as_dataset(split="test")  # doctest: +SKIP
    """

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = AgentHorizonConfig
    BUILDER_CONFIGS = [
        AgentHorizonConfig(name=CONFIG_AH, version=VERSION, description="AgentHorizon.jsonl: the hard split (605 items)."),
        AgentHorizonConfig(
            name=CONFIG_AH_S, version=VERSION, description="AgentHorizon-Simple.jsonl: the simple split (768 items)."
        ),
        AgentHorizonConfig(
            name=CONFIG_AH_D,
            version=VERSION,
            description="AH-D: the pair-aware development set derived by the authors' algorithm (162 items).",
        ),
        AgentHorizonConfig(name=CONFIG_ALL, version=VERSION, description="Both label files (1,373 items)."),
    ]
    DEFAULT_CONFIG_NAME = CONFIG_AH

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=features(self.config.images),
            homepage=_HOMEPAGE,
        )

    def _split_generators(self, dl_manager: Any) -> list[datasets.SplitGenerator]:
        if not self.config.data_dir:
            raise ValueError(
                "AgentHorizon needs data_dir: the release root holding AgentHorizon.jsonl, "
                "AgentHorizon-Simple.jsonl and sandbox/ (agenthorizon.load_dataset resolves it for you)"
            )
        root = local_root(self.config.data_dir)
        # Checked here rather than while generating: datasets wraps generation
        # errors in a generic DatasetGenerationError.
        expected = self.config.label_manifest_sha256
        if expected is not None:
            actual = manifest_sha256(read_labels(root))
            if actual != expected:
                raise ValueError(
                    f"the label files under {root} have manifest sha256 {actual}, expected {expected}; "
                    "they changed since this builder was configured"
                )
        return [datasets.SplitGenerator(name=SPLIT_NAME, gen_kwargs={"root": str(root)})]

    def _generate_examples(self, root: str) -> Iterator[tuple[str, dict[str, Any]]]:
        release = Path(root)
        rows = read_labels(release)
        dev = load_dev_set(rows, dev_groups=self.config.dev_groups, dev_manifest=self.config.dev_manifest)
        selected = select_config(annotate(rows, dev), self.config.name, dev, exclude_dev=self.config.exclude_dev)
        for row, example in zip(selected, _read_ahead(release, selected, self.config.images)):
            yield row["trajectory_id"], example


def _read_ahead(root: Path, rows: list[dict[str, Any]], images: str | None) -> Iterator[dict[str, Any]]:
    """Rows built in a few threads, yielded in order, at most a window ahead.

    Reading and parsing the trajectory files is the cost of a build; threads
    overlap the reads. The window bounds memory (``Executor.map`` would queue
    the whole release) and, on an error, the work left to finish.
    """
    window = 4 * _READ_THREADS
    with ThreadPoolExecutor(max_workers=_READ_THREADS) as pool:
        pending: deque[Future] = deque()
        try:
            for row in rows:
                pending.append(pool.submit(build_example, root, row, images))
                if len(pending) >= window:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


# --- one row ------------------------------------------------------------------------------


def build_example(root: Path, label_row: Mapping[str, Any], images: str | None = "lazy") -> dict[str, Any]:
    """The dataset row of one label row: label fields + its trajectory files.

    ``label_row`` carries the seven label fields, ``difficulty``,
    ``pair_group_id``, ``in_dev`` and ``location`` (``file:line``, used in
    errors). ``images`` selects the storage form of ``screenshots``: Image
    storage dicts for ``"lazy"``/``"eager"``, path strings otherwise. Raises ``FileNotFoundError`` / ``ValueError`` naming the json file
    and the label row for a missing or invalid trajectory.
    """
    trajectory_id = label_row["trajectory_id"]
    where = f"label row {label_row.get('location', trajectory_id)}"
    json_path = root / json_relpath(trajectory_id)
    trajectory = read_trajectory(json_path, where)
    task = trajectory["task"]
    environment = trajectory.get("environment")
    if environment is None:
        environment = {}
    elif not isinstance(environment, dict):
        raise ValueError(f"{json_path} ({where}): 'environment' must be an object")
    steps: list[dict[str, Any]] = []
    screenshots: list[dict[str, Any] | None] = []
    root_text, json_text = str(root), str(json_path)
    as_images = images in ("lazy", "eager")
    for index, step in enumerate(trajectory["steps"]):
        flat = _flat_step(step, index, root_text, json_text, where)
        steps.append(flat)
        # Already in Image's storage form ({"bytes", "path"}), so datasets sees
        # the list needs no encoding and skips a per-step encode_example.
        path = flat["screenshot"]
        screenshots.append(path if path is None or not as_images else {"bytes": None, "path": path})
    markdown_path = root / markdown_relpath(trajectory_id)
    try:
        markdown = markdown_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        from agenthorizon.render import to_markdown  # rendering is only needed for incomplete releases

        markdown = to_markdown(trajectory)
    except UnicodeDecodeError as error:
        raise ValueError(f"{markdown_path} ({where}): not UTF-8 text ({error.reason})") from None
    return {
        "trajectory_id": trajectory_id,
        "instruction": task["instruction"],
        "label": label_row["label"],
        "mistake_type": label_row["mistake_type"],
        "instruction_id": label_row["instruction_id"],
        "instruction_source": label_row["instruction_source"],
        "steps_id": label_row["steps_id"],
        "steps_source": label_row["steps_source"],
        "pair_group_id": label_row["pair_group_id"],
        "difficulty": label_row["difficulty"],
        "in_dev": bool(label_row["in_dev"]),
        "category": _optional_str(task, "category", json_path, where),
        "subcategory": _optional_str(task, "subcategory", json_path, where),
        "task_type": _optional_str(task, "task_type", json_path, where),
        "applications": _string_list(task.get("applications"), "task.applications", json_path, where) or [],
        "os": _optional_str(environment, "os", json_path, where),
        "screen_resolution": _resolution(environment.get("screen_resolution"), json_path, where),
        "num_steps": len(steps),
        "steps": steps,
        "screenshots": screenshots,
        "markdown": markdown,
    }


def _flat_step(step: Any, index: int, root: str, json_path: str, where: str) -> dict[str, Any]:
    # This runs once per step of the release (about 170,000 for `all`), so
    # checks are plain type tests and messages are built only on error.
    if type(step) is not dict:
        raise ValueError(f"{json_path} ({where}) step {index}: expected a step object, got {type(step).__name__}")
    step_id = step.get("step_id")
    if type(step_id) is not int:
        raise ValueError(f"{json_path} ({where}) step {index}: step_id is {step_id!r}; expected an integer")
    action = step.get("action")
    if type(action) is not dict or type(action.get("type")) is not str:
        raise ValueError(f"{json_path} ({where}) step {index}: expected an action object with a string 'type'")
    parameters = action.get("parameters")
    if parameters is None:
        parameters = {}
    elif type(parameters) is not dict:
        raise ValueError(f"{json_path} ({where}) step {index}: action parameters must be an object")
    timestamp = step.get("timestamp_us")
    if timestamp is not None and type(timestamp) is not int:
        raise ValueError(f"{json_path} ({where}) step {index}: timestamp_us is {timestamp!r}; expected an integer")
    reference = step.get("screenshot")
    flat: dict[str, Any] = {"step_id": step_id, "action_type": action["type"]}
    # Typed columns make actions queryable; values of an unexpected type stay
    # out of them but survive in the lossless ``parameters`` JSON.
    for name in _FLOAT_PARAMETERS:
        value = parameters.get(name)
        flat[name] = float(value) if type(value) in (int, float) and math.isfinite(value) else None
    for name in _STRING_PARAMETERS:
        value = parameters.get(name)
        flat[name] = value if type(value) is str else None
    clicks = parameters.get("num_clicks")
    flat["num_clicks"] = clicks if type(clicks) is int else None
    keys = parameters.get("keys")
    flat["keys"] = keys if type(keys) is list and all(type(k) is str for k in keys) else None
    # Default arguments keep json's cached C encoder (any option builds a new
    # encoder per call); \u escapes are lossless.
    flat["parameters"] = json.dumps(parameters)
    flat["timestamp_us"] = timestamp
    flat["screenshot"] = (
        None if reference is None else screenshot_path(root, json_path, reference, f"{json_path} ({where}) step {index}")
    )
    return flat


def _optional_str(mapping: Mapping[str, Any], key: str, json_path: Path, where: str) -> str | None:
    value = mapping.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{json_path} ({where}): {key} is {value!r}; expected a string")
    return value


def _string_list(value: Any, name: str, json_path: Path, where: str) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{json_path} ({where}): {name} must be a list of strings")
    return value


def _resolution(value: Any, json_path: Path, where: str) -> list[int] | None:
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise ValueError(f"{json_path} ({where}): environment.screen_resolution must be [width, height] integers")
    return value


# --- load_dataset -----------------------------------------------------------------------------


def lazy_screenshots_transform(batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """``set_transform`` function: each row's screenshot paths -> LazyScreenshots.

    ``Image(decode=False)`` columns reach a transform as ``{"path", "bytes"}``
    dicts (datasets decodes features before calling the transform, and
    ``decode=False`` makes that a no-op), so no pixel is read here.
    """
    from agenthorizon.screenshots import LazyScreenshots

    column = batch.get("screenshots")
    if column is not None:
        batch["screenshots"] = [
            None if shots is None else LazyScreenshots(None if s is None else s["path"] for s in shots)
            for shots in column
        ]
    return batch


def load_dataset(
    path: str | os.PathLike[str] = DEFAULT_HUB_REPO,
    name: str = CONFIG_AH,
    *,
    split: str | None = None,
    blind: bool = False,
    exclude_dev: bool = False,
    dev_manifest: str | os.PathLike[str] | None = None,
    dev_groups: int = DEV_GROUPS,
    images: str | None = "lazy",
    cache_dir: str | os.PathLike[str] | None = None,
    revision: str | None = None,
    token: str | bool | None = None,
) -> datasets.DatasetDict | datasets.Dataset:
    """Load a config of AgentHorizon as ``datasets.load_dataset`` would.

    Args:
        path: a local release root, or a Hub dataset repo id (fetches only the
            files ``name`` needs; see :func:`agenthorizon.source.resolve_release`).
        name: ``"AH"``, ``"AH-S"``, ``"AH-D"`` or ``"all"``.
        split: ``None`` returns a ``DatasetDict`` with the single split
            ``"test"``; ``"test"`` returns that ``Dataset``.
        blind: drop every field that reveals the label or the pairing
            (``schema.HIDDEN_FIELDS``).
        exclude_dev: remove the AH-D items from AH, AH-S and all.
        dev_manifest: file of trajectory ids defining AH-D instead of the
            derivation with ``dev_groups`` groups.
        images: ``"lazy"`` (decode a screenshot when indexed), ``"paths"``,
            ``"eager"`` (datasets' decoding of the whole list) or ``None``
            (paths, and no media fetched from the Hub).
        cache_dir: the datasets cache (Hub files go under ``cache_dir/hub``).
        revision, token: for Hub repos.

    The Arrow cache is keyed by release root, config, dev settings, images
    mode, label manifest sha256 and builder code, so loading again reuses it
    and a changed release never reuses a stale one.
    """
    if name not in CONFIG_NAMES:
        raise ValueError(f"unknown config {name!r}; expected one of {', '.join(CONFIG_NAMES)}")
    if split not in (None, SPLIT_NAME):
        raise ValueError(f"unknown split {split!r}; AgentHorizon has the single split {SPLIT_NAME!r}")
    if images not in IMAGE_MODES:
        raise ValueError(f"unknown images mode {images!r}; expected one of 'lazy', 'paths', 'eager' or None")
    if name == CONFIG_AH_D and exclude_dev:
        raise ValueError("exclude_dev=True removes AH-D items; it cannot be combined with config 'AH-D'")
    hub_cache = None if cache_dir is None else os.path.join(os.fspath(cache_dir), "hub")
    root = resolve_release(
        path,
        name,
        images=images,
        revision=revision,
        token=token,
        cache_dir=hub_cache,
        dev_groups=dev_groups,
        dev_manifest=dev_manifest,
    )
    config_kwargs: dict[str, Any] = {
        "dev_groups": dev_groups,
        "exclude_dev": exclude_dev,
        # None is stored like "paths"; datasets ignores None-valued overrides.
        "images": "paths" if images is None else images,
        "label_manifest_sha256": manifest_sha256(read_labels(root)),
    }
    if dev_manifest is not None:
        manifest_path = Path(dev_manifest).expanduser().absolute()
        try:
            config_kwargs["dev_manifest_sha256"] = hashlib.sha256(manifest_path.read_bytes()).hexdigest()
        except FileNotFoundError:
            raise FileNotFoundError(f"dev manifest {manifest_path} not found") from None
        config_kwargs["dev_manifest"] = str(manifest_path)
    builder = AgentHorizon(
        cache_dir=None if cache_dir is None else os.fspath(cache_dir),
        dataset_name="agenthorizon",
        config_name=name,
        hash=_code_hash(),
        data_dir=str(root),
        **config_kwargs,
    )
    try:
        builder.download_and_prepare()
    except DatasetGenerationError as error:
        # datasets wraps every generation error in a generic message; our
        # errors already name the file and label row, so surface them as is.
        if isinstance(error.__cause__, (ValueError, FileNotFoundError)):
            raise error.__cause__ from None
        raise
    dataset = builder.as_dataset(split=SPLIT_NAME)
    if blind:
        dataset = dataset.remove_columns(list(HIDDEN_FIELDS))
    if images == "lazy":
        dataset.set_transform(lazy_screenshots_transform)
    if split is not None:
        return dataset
    return datasets.DatasetDict({SPLIT_NAME: dataset})
