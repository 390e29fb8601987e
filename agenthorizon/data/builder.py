"""The ``datasets`` builder of AgentHorizon, and :func:`load_dataset`.

:class:`AgentHorizon` is a ``datasets.GeneratorBasedBuilder`` with the configs
``AH`` (AgentHorizon.jsonl), ``AH-S`` (AgentHorizon-Simple.jsonl), ``AH-D``
(the pair-aware development set) and ``all`` (both files). It reads the label
rows and every item's trajectory JSON and Markdown, and writes one Arrow table
with the row fields of ``docs/architecture.md``. Screenshots are stored as
*paths* (``Image(decode=False)``): the Arrow cache never holds pixels, and
:func:`load_dataset` turns each row's paths into a
:class:`~agenthorizon.data.screenshots.LazyScreenshots` that decodes on access.

``datasets`` >= 4 refuses loading scripts in ``datasets.load_dataset``, so
:func:`load_dataset` here resolves the release, instantiates the builder
directly and runs ``download_and_prepare`` / ``as_dataset``, returning what
``datasets.load_dataset`` would.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import datasets
import pyarrow as pa
from datasets.exceptions import DatasetGenerationError

from agenthorizon.release.labels import manifest_sha256
from agenthorizon.schema import (
    CONFIG_AH,
    CONFIG_AH_D,
    CONFIG_AH_S,
    CONFIG_ALL,
    DEFAULT_HUB_REPO,
    DEV_GROUPS,
    HIDDEN_FIELDS,
    SPLIT_NAME,
)
from agenthorizon.release.source import (
    annotate,
    check_config,
    check_images,
    load_dev_set,
    load_references,
    local_root,
    read_labels,
    resolve_release,
)
from agenthorizon.data.table import FLOAT_PARAMETERS, STRING_PARAMETERS, build_table
from agenthorizon.release.splits import select_config

__all__ = [
    "AgentHorizon",
    "AgentHorizonConfig",
    "ReleaseError",
    "default_num_proc",
    "features",
    "list_feature",
    "load_dataset",
]

# Below this many items a second process costs more to start than it saves;
# above it, two processes build `all` of the full release in about 60% of the
# time of one (docs/performance.md, "Loading").
PARALLEL_BUILD_MIN_ITEMS = 500
PARALLEL_BUILD_MAX_PROCESSES = 4


def default_num_proc(n_items: int, cpus: int | None = None) -> int | None:
    """Processes :func:`load_dataset` builds a config's cache with when not told.

    ``None`` (build in this process) for fewer than ``PARALLEL_BUILD_MIN_ITEMS``
    items or a single CPU; otherwise one process per usable CPU, at most
    ``PARALLEL_BUILD_MAX_PROCESSES``.

    >>> default_num_proc(162, cpus=8) is None, default_num_proc(1373, cpus=2), default_num_proc(1373, cpus=16)
    (True, 2, 4)
    """
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if n_items < PARALLEL_BUILD_MIN_ITEMS or cpus < 2:
        return None
    return min(cpus, PARALLEL_BUILD_MAX_PROCESSES)


def list_feature(feature: Any) -> Any:
    """``datasets.List(feature)``: an Arrow list of ``feature``, on every supported ``datasets``.

    ``datasets`` >= 4 has ``List``; 3.x spells the same Arrow list ``[feature]``
    (its ``Sequence`` of a dict would store a struct of lists, not a list of
    structs, so it is not a substitute). Declare every list feature with it
    so that the package loads on both.

    >>> step = {"step_id": datasets.Value("int32")}
    >>> datasets.Features({"steps": list_feature(step)}).arrow_schema.field("steps").type
    ListType(list<item: struct<step_id: int32>>)
    """
    list_class = getattr(datasets, "List", None)
    return [feature] if list_class is None else list_class(feature)


_DESCRIPTION = (
    "AgentHorizon: long desktop trajectories of computer-use agents with paired "
    "instructions, labelled for whether the trajectory accomplishes the instruction shown. "
    "Built to evaluate judges of computer-use agents."
)
_HOMEPAGE = f"https://huggingface.co/datasets/{DEFAULT_HUB_REPO}"

# Items per Arrow table: large enough that per-table conversion costs vanish,
# small enough to keep a batch's Python objects (about 130 steps an item) small.
_BATCH_ITEMS = 128


def features(images: str | None = "lazy") -> datasets.Features:
    """The exact ``datasets.Features`` of a row, for an images mode.

    Screenshots are stored as ``List(Image(decode=False))`` for ``"lazy"`` (the
    default: paths in Arrow, decoded on access by ``load_dataset``'s
    transform) and as ``List(Image())`` for ``"eager"`` (datasets decodes the
    whole list when a row is read); both store paths only. ``"paths"`` and
    ``None`` store ``List(Value("string"))``. Entries are null where a step has
    no screenshot.
    """
    check_images(images)
    string, int32 = datasets.Value("string"), datasets.Value("int32")
    step = {
        "step_id": int32,
        "action_type": string,
        **{name: datasets.Value("float64") for name in FLOAT_PARAMETERS},
        **{name: string for name in STRING_PARAMETERS},
        "num_clicks": int32,
        "keys": list_feature(string),
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
            "applications": list_feature(string),
            "os": string,
            "screen_resolution": list_feature(int32),
            "num_steps": int32,
            "steps": list_feature(step),
            "screenshots": list_feature(screenshot),
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
            (:func:`agenthorizon.release.labels.manifest_sha256`). :func:`load_dataset`
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
        check_images(self.images)
        if self.name == CONFIG_AH_D and self.exclude_dev:
            raise ValueError("exclude_dev=True removes AH-D items; it cannot be combined with config 'AH-D'")


def _code_hash() -> str:
    """Hash of the code that writes rows: a changed builder never reuses an old cache."""
    from agenthorizon.data import table as rows
    from agenthorizon.release import source

    digest = hashlib.sha256(Path(__file__).read_bytes())
    for module in (rows, source):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:16]


class ReleaseError(DatasetGenerationError):
    """A bad release file met while building, carried out of ``datasets``' workers.

    ``datasets`` wraps every generation error in a generic
    ``DatasetGenerationError`` and, with ``num_proc > 1``, loses the original
    when the error crosses the process boundary. This subclass keeps it in
    ``original`` (and survives pickling), so :func:`load_dataset` can raise the
    ``ValueError`` / ``FileNotFoundError`` that names the file and label row.
    """

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.original,))


class AgentHorizon(datasets.GeneratorBasedBuilder):
    """AgentHorizon as a ``datasets`` builder; ``data_dir`` is the release root.

    The Arrow cache is written column-wise: :meth:`_generate_tables` builds a
    ``pyarrow`` table per batch of items, and ``_prepare_split_single`` writes
    those tables the way ``datasets.ArrowBasedBuilder`` does, skipping the
    per-example Python encoding of a generator builder (the steps of the
    release number about 176,000). :meth:`_generate_examples`, which
    ``datasets`` uses for streaming, yields the rows of the same tables.

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
        rows = read_labels(root)
        expected = self.config.label_manifest_sha256
        if expected is not None:
            actual = manifest_sha256(rows)
            if actual != expected:
                raise ValueError(
                    f"the label files under {root} have manifest sha256 {actual}, expected {expected}; "
                    "they changed since this builder was configured"
                )
        dev = load_dev_set(rows, dev_groups=self.config.dev_groups, dev_manifest=self.config.dev_manifest)
        selected = select_config(annotate(rows, dev), self.config.name, dev, exclude_dev=self.config.exclude_dev)
        # The items are a list so that datasets can split them, in order, into
        # contiguous runs across `num_proc` jobs (and streaming workers).
        return [datasets.SplitGenerator(name=SPLIT_NAME, gen_kwargs={"root": str(root), "items": selected})]

    def _generate_tables(self, root: str, items: Sequence[Mapping[str, Any]]) -> Iterator[tuple[int, pa.Table]]:
        """Tables of at most ``_BATCH_ITEMS`` rows each, in the order of ``items``."""
        schema = self.info.features.arrow_schema
        for start in range(0, len(items), _BATCH_ITEMS):
            yield start, build_table(root, items[start : start + _BATCH_ITEMS], schema)

    def _generate_examples(self, root: str, items: Sequence[Mapping[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
        for _, table in self._generate_tables(root, items):
            for row in table.to_pylist():
                yield row["trajectory_id"], row

    def _prepare_split_single(
        self,
        gen_kwargs: dict[str, Any],
        fpath: str,
        file_format: str,
        max_shard_size: int,
        job_id: int,
        split_info: datasets.SplitInfo | None = None,
        check_duplicate_keys: bool = False,
    ) -> Iterator[tuple[int, bool, Any]]:
        # ArrowBasedBuilder's writer loop takes whole tables (write_table)
        # where GeneratorBasedBuilder's encodes and writes one example at a
        # time. datasets passes these by keyword; the generator-only ones are
        # unused here: split_info feeds its progress bar, and
        # check_duplicate_keys (datasets < 4) checks _generate_examples' keys,
        # which tables have none of (duplicate trajectory ids are refused
        # earlier, by read_labels).
        del split_info, check_duplicate_keys
        try:
            yield from datasets.ArrowBasedBuilder._prepare_split_single(
                self,
                gen_kwargs=gen_kwargs,
                fpath=fpath,
                file_format=file_format,
                max_shard_size=max_shard_size,
                job_id=job_id,
            )
        except DatasetGenerationError as error:
            if isinstance(error.__cause__, (ValueError, FileNotFoundError)):
                raise ReleaseError(error.__cause__) from error.__cause__
            raise


# --- load_dataset -----------------------------------------------------------------------------


def lazy_screenshots_transform(batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """``set_transform`` function: each row's screenshot paths -> LazyScreenshots.

    ``Image(decode=False)`` columns reach a transform as ``{"path", "bytes"}``
    dicts (datasets decodes features before calling the transform, and
    ``decode=False`` makes that a no-op), so no pixel is read here.
    """
    from agenthorizon.data.screenshots import LazyScreenshots

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
    num_proc: int | None = None,
) -> datasets.DatasetDict | datasets.Dataset:
    """Load a config of AgentHorizon as ``datasets.load_dataset`` would.

    Args:
        path: a local release root, or a Hub dataset repo id (fetches only the
            files ``name`` needs; see :func:`agenthorizon.release.source.resolve_release`).
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
        num_proc: processes building the Arrow cache (``datasets``' own
            multiprocessing: the items are split into contiguous runs, one per
            process, and the shards keep the release order). ``None`` chooses:
            :func:`default_num_proc` of the config's item count (one process
            below 500 items). Only a cache build uses it; a cached config
            loads without starting any process.

    Returns:
        A ``datasets.DatasetDict`` ``{"test": Dataset}`` (``split=None``) or
        the ``Dataset`` (``split="test"``): one row per label row of the
        config, in label-file order, with the fields of ``docs/data.md``.

    Raises:
        ValueError: an unknown config, split or images mode; ``exclude_dev``
            with ``"AH-D"``; a bad label row, trajectory json or dev
            manifest (the message names the file and line or label row).
        FileNotFoundError: ``path`` is neither a release root nor a
            fetchable Hub repo, or a file a label row needs is missing.

    The Arrow cache is keyed by release root, config, dev settings, images
    mode, label manifest sha256 and builder code, so loading again reuses it
    and a changed release never reuses a stale one.

    Example:
        >>> import tempfile, agenthorizon
        >>> root = tempfile.mkdtemp() + "/release"
        >>> _ = agenthorizon.generate_sample(root, preset="tiny")
        >>> ds = load_dataset(root, "AH", split="test", cache_dir=tempfile.mkdtemp())  # doctest: +ELLIPSIS
        >>> len(ds), ds[0]["label"] in ("positive", "negative")
        (8, True)
        >>> ds[0]["screenshots"]  # nothing decoded until indexed
        LazyScreenshots(... steps, ... with a screenshot)
    """
    check_config(name)
    if split not in (None, SPLIT_NAME):
        raise ValueError(f"unknown split {split!r}; AgentHorizon has the single split {SPLIT_NAME!r}")
    check_images(images)
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
        if num_proc is None:
            n_items = len(
                load_references(root, name, dev_groups=dev_groups, dev_manifest=dev_manifest, exclude_dev=exclude_dev)
            )
            num_proc = default_num_proc(n_items)
        builder.download_and_prepare(num_proc=num_proc)
    except DatasetGenerationError as error:
        # datasets wraps every generation error in a generic message; our
        # errors already name the file and label row, so surface them as is.
        original = error.original if isinstance(error, ReleaseError) else error.__cause__
        if isinstance(original, (ValueError, FileNotFoundError)):
            raise original from None
        raise
    dataset = builder.as_dataset(split=SPLIT_NAME)
    if blind:
        dataset = dataset.remove_columns(list(HIDDEN_FIELDS))
    if images == "lazy":
        dataset.set_transform(lazy_screenshots_transform)
    if split is not None:
        return dataset
    return datasets.DatasetDict({SPLIT_NAME: dataset})
