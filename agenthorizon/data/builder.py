"""The ``datasets`` builder of AgentHorizon.

:class:`AgentHorizon` is a ``datasets.GeneratorBasedBuilder`` with the configs
``AH`` (AgentHorizon.jsonl), ``AH-S`` (AgentHorizon-Simple.jsonl), ``AH-D``
(the pair-aware development set) and ``all`` (both files). It reads the label
rows and every item's trajectory JSON and Markdown, and writes one Arrow table
of :func:`agenthorizon.data.features.features`. Screenshots are stored as
*paths* (``Image(decode=False)``): the Arrow cache never holds pixels, and
:func:`agenthorizon.data.load.load_dataset` turns each row's paths into a
:class:`~agenthorizon.data.screenshots.LazyScreenshots` that decodes on access.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import datasets
import pyarrow as pa
from datasets.exceptions import DatasetGenerationError

from agenthorizon.release.labels import manifest_sha256
from agenthorizon.schema import (
    CONFIG_AH,
    CONFIG_DESCRIPTIONS,
    CONFIG_NAMES,
    DEFAULT_HUB_REPO,
    DEV_GROUPS,
    SPLIT_NAME,
)
from agenthorizon.release.files import (
    annotate,
    check_images,
    load_dev_set,
    local_root,
    read_labels,
)
from agenthorizon.data.features import features
from agenthorizon.data.table import build_table
from agenthorizon.release.splits import check_selection, select_config

__all__ = ["AgentHorizon", "AgentHorizonConfig", "ReleaseError"]

_VERSION = datasets.Version("1.0.0")

_DESCRIPTION = (
    "AgentHorizon: long desktop trajectories of computer-use agents with paired "
    "instructions, labelled for whether the trajectory accomplishes the instruction shown. "
    "Built to evaluate judges of computer-use agents."
)
_HOMEPAGE = f"https://huggingface.co/datasets/{DEFAULT_HUB_REPO}"

# Items per Arrow table: large enough that per-table conversion costs vanish,
# small enough to keep a batch's Python objects (about 130 steps an item) small.
_BATCH_ITEMS = 128


@dataclass
class AgentHorizonConfig(datasets.BuilderConfig):
    """Config of the AgentHorizon builder.

    Parameters
    ----------
    dev_groups : int, default 50
        Pair groups in AH-D, drawn by the authors' algorithm (all
        two-deliverable groups when fewer).
    dev_manifest : str, optional
        Path of a dev manifest (one trajectory id per line, or a JSON list of
        ids); when set it defines AH-D instead of the derivation.
    exclude_dev : bool, default False
        Remove the AH-D items from AH, AH-S and all.
    images : {"lazy", "paths", "eager", None}, default "lazy"
        ``None`` is stored like ``"paths"`` (for ``load_dataset`` it also
        means no media is fetched from the Hub). See
        :func:`agenthorizon.data.features.features`.
    label_manifest_sha256 : str, optional
        sha256 of the release's label manifest
        (:func:`agenthorizon.release.labels.manifest_sha256`).
        ``load_dataset`` sets it so that a changed release gets a new cache;
        when set, the builder refuses labels with another hash.
    dev_manifest_sha256 : str, optional
        sha256 of the dev manifest file's bytes, set by ``load_dataset`` for
        the same reason.
    blind : bool, default False
        Write blind rows: image references in ``markdown`` and
        ``steps[].screenshot`` name the item's trajectory id, not its steps-id
        folder (``load_dataset(blind=True)`` also drops the hidden columns).
    files_fingerprint : str, optional
        :func:`agenthorizon.release.files.stat_fingerprint` of the files the
        build reads (size and modification time of each trajectory json and
        Markdown, and of each screenshot folder), set by ``load_dataset`` so
        that a file changed in place gets a new cache.
    """

    dev_groups: int = DEV_GROUPS
    dev_manifest: str | None = None
    exclude_dev: bool = False
    images: str | None = "lazy"
    label_manifest_sha256: str | None = None
    dev_manifest_sha256: str | None = None
    files_fingerprint: str | None = None
    blind: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        check_images(self.images)
        check_selection(self.name, dev_groups=self.dev_groups, exclude_dev=self.exclude_dev)


def _code_hash() -> str:
    """Hash of the code that writes rows: a changed builder never reuses an old cache."""
    from agenthorizon.data import features, parameters, table
    from agenthorizon.release import blind, files, render, trajectory

    digest = hashlib.sha256(Path(__file__).read_bytes())
    for module in (features, table, parameters, files, trajectory, render, blind):
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

    VERSION = _VERSION
    BUILDER_CONFIG_CLASS = AgentHorizonConfig
    BUILDER_CONFIGS = [
        AgentHorizonConfig(name=name, version=_VERSION, description=CONFIG_DESCRIPTIONS[name]) for name in CONFIG_NAMES
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
        listings: dict[str, Any] = {}  # screenshot folders checked for links, once per build
        for start in range(0, len(items), _BATCH_ITEMS):
            yield start, build_table(
                root, items[start : start + _BATCH_ITEMS], schema, blind=self.config.blind, folder_listings=listings
            )

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
            if isinstance(error.__cause__, (ValueError, OSError)):
                raise ReleaseError(error.__cause__) from error.__cause__
            raise
