"""The ``datasets`` builder of AgentHorizon (:class:`AgentHorizon`), configs AH, AH-S, AH-D and all.

Screenshots are stored as paths (``Image(decode=False)``): the Arrow cache
never holds pixels.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import datasets
import pyarrow as pa
from datasets.exceptions import DatasetGenerationError

from agenthorizon.schema import (
    CONFIG_AH,
    CONFIG_DESCRIPTIONS,
    CONFIG_NAMES,
    DEFAULT_HUB_REPO,
    DEV_GROUPS,
    SPLIT_NAME,
)
from agenthorizon.release.files import ConfigRows, check_images, local_root, read_config_rows
from agenthorizon.data.code_identity import imported_modules, source_hash
from agenthorizon.data.features import features
from agenthorizon.data.table import build_table
from agenthorizon.release.item_selection import Selection, check_selection

__all__ = ["AgentHorizon", "AgentHorizonConfig", "ReleaseError"]

_VERSION = datasets.Version("1.0.0")

_DESCRIPTION = (
    "AgentHorizon: long desktop trajectories of computer-use agents with paired "
    "instructions, labelled for whether the trajectory accomplishes the instruction shown. "
    "Built to evaluate judges of computer-use agents."
)
_HOMEPAGE = f"https://huggingface.co/datasets/{DEFAULT_HUB_REPO}"

# Items per Arrow table: few enough to keep a batch's Python objects small.
_BATCH_ITEMS = 128

# Tells datasets this module is already "extended for streaming", so it skips
# patching open/os.path here (and importing scipy.io, xml, gzip for it): the
# patches only serve remote files, and this builder reads a local root.
_patched_for_streaming = True


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
    release_label_sha256 : str, optional
        sha256 of the label manifest of the whole release, both label files
        (:func:`agenthorizon.release.labels.manifest_sha256`), so that a
        changed release gets a new cache; when set, the builder refuses labels
        with another hash.
    dev_manifest_sha256 : str, optional
        sha256 of the dev manifest file's bytes, for the same reason.
    blind : bool, default False
        Write blind rows: image references in ``markdown`` and
        ``steps[].screenshot`` name the item's trajectory id, not its steps-id
        folder (``load_dataset(blind=True)`` also drops the hidden columns).
    files_fingerprint : str, optional
        :func:`agenthorizon.release.files.stat_fingerprint` of the files the
        build reads, so that a file changed in place gets a new cache.
    """

    dev_groups: int = DEV_GROUPS
    dev_manifest: str | None = None
    exclude_dev: bool = False
    images: str | None = "lazy"
    release_label_sha256: str | None = None
    dev_manifest_sha256: str | None = None
    files_fingerprint: str | None = None
    blind: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        check_images(self.images)
        check_selection(self.name, dev_groups=self.dev_groups, exclude_dev=self.exclude_dev)

    def selection(self) -> Selection:
        """The items this config builds, as a :class:`~agenthorizon.release.item_selection.Selection`."""
        return Selection(
            self.name,
            dev_groups=self.dev_groups,
            dev_manifest=self.dev_manifest,
            dev_manifest_sha256=self.dev_manifest_sha256,
            exclude_dev=self.exclude_dev,
        )


@functools.lru_cache(maxsize=None)
def code_modules() -> tuple[Path, ...]:
    """Source files of the code that shapes the table: this module and every agenthorizon module it imports, transitively.

    Derived from the import statements (imports inside functions count), not
    listed by hand. This file first, then sorted.
    """
    return imported_modules(Path(__file__))


@functools.lru_cache(maxsize=None)
def _code_hash() -> str:
    """Hash of the code that writes rows (:func:`code_modules`): a changed module never reuses an old cache."""
    return source_hash(code_modules())


class ReleaseError(DatasetGenerationError):
    """A bad release file met while building, carried out of ``datasets``' workers.

    ``datasets`` wraps generation errors and, with ``num_proc > 1``, loses the
    original across processes; this keeps it in ``original`` (and survives
    pickling), so :func:`load_dataset` can raise it.
    """

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.original,))


class AgentHorizon(datasets.GeneratorBasedBuilder):
    """AgentHorizon as a ``datasets`` builder; ``data_dir`` is the release root.

    The Arrow cache is written a table per batch of items, as
    ``datasets.ArrowBasedBuilder`` does, skipping per-example encoding;
    :meth:`_generate_examples` (streaming) yields the rows of the same tables.

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

    def __init__(self, *args: Any, config_rows: ConfigRows | None = None, **kwargs: Any) -> None:
        # Rows load_dataset already read, reused when of the same root and
        # selection. Not a config field: config fields are the cache identity.
        self._config_rows = config_rows
        super().__init__(*args, **kwargs)

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
        selection = self.config.selection()
        # Handed over once, and not kept: the builder is pickled into workers.
        config_rows, self._config_rows = self._config_rows, None
        if config_rows is None or config_rows.root != str(root) or config_rows.selection != selection:
            config_rows = read_config_rows(root, selection)
        # Checked here: datasets wraps errors raised while generating.
        expected = self.config.release_label_sha256
        if expected is not None and config_rows.release_label_sha256 != expected:
            raise ValueError(
                f"the label files under {root} have manifest sha256 {config_rows.release_label_sha256}, "
                f"expected {expected}; they changed since this builder was configured"
            )
        # A list, so datasets splits it in order into contiguous runs across `num_proc` jobs.
        return [datasets.SplitGenerator(name=SPLIT_NAME, gen_kwargs={"root": str(root), "items": config_rows.rows})]

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
        # ArrowBasedBuilder's writer loop takes whole tables. The generator-only
        # keywords are unused: duplicate trajectory ids are refused by read_labels.
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
