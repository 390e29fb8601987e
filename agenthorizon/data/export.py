"""Export the benchmark as Parquet shards plus a dataset card, for plain ``datasets``.

Since ``datasets`` 4.0, ``load_dataset`` refuses loading scripts; the no-code
way to publish a dataset is Parquet files named in the ``configs:`` block of
the dataset card's YAML header. :func:`export_release` writes exactly that::

    OUT/README.md                                   dataset card (YAML + prose)
    OUT/data/<config>/test-00000-of-0000N.parquet   sized shards, one folder per config

after which ``datasets.load_dataset(OUT, "AH", split="test")`` (or the same
call on a Hub repository holding ``OUT``) returns the rows of
``agenthorizon.load_dataset(root, "AH")`` with no project code installed.

Types survive twice over: the card declares every column in
``dataset_info.features`` (which the Parquet builder of ``datasets`` uses to
cast what it reads), and each Parquet file carries the same features in its
``huggingface`` schema metadata (which ``datasets`` reads when no card is
present). Screenshots are ``List(Image())`` columns stored the way ``datasets``
stores images in Parquet: a struct ``{bytes, path}`` per screenshot.

Screenshot modes (``images=``):

- ``none``: no ``screenshots`` column (smallest; instruction, steps, Markdown);
- ``paths``: release-relative path strings, for users who also hold the release;
- ``thumbnails``: each screenshot downscaled to fit 512x332 and JPEG-encoded
  (:mod:`agenthorizon.data.images`), the compact self-contained copy direct
  judges are given;
- ``full``: the original PNG bytes, unchanged.

Every ``steps[k].screenshot`` path is written relative to the release root:
an absolute path of the exporting machine means nothing to the user who
downloads the export.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from agenthorizon.data.card import card_metadata, dataset_card
from agenthorizon.release.labels import count_labels
from agenthorizon.schema import (
    CONFIG_ALL,
    CONFIG_NAMES,
    DEV_GROUPS,
    EXPORT_IMAGE_MODES,
    MISTAKE_TYPES,
    SPLIT_NAME,
    UNTYPED,
)
from agenthorizon.release.hub import resolve_release

__all__ = [
    "ConfigExport",
    "ExportSummary",
    "card_metadata",
    "config_counts",
    "dataset_card",
    "export_features",
    "export_release",
    "export_row",
    "parse_size",
]

DEFAULT_MAX_SHARD_SIZE = "500MB"
"""The shard size ``datasets.Dataset.push_to_hub`` uses by default."""

SCREENSHOTS = "screenshots"
_ROW_GROUP_BYTES = 64 * 2**20  # keeps memory bounded and streaming reads granular
_ROW_GROUP_ROWS = 256

def parse_size(size: str | int) -> int:
    """Bytes in a size such as ``"500MB"``, ``"1.5GB"``, ``"64KiB"`` or ``1000``.

    Decimal units (KB, MB, GB) are powers of 1000, binary units (KiB, MiB,
    GiB) powers of 1024, as in ``datasets``.

    >>> parse_size("500MB"), parse_size("1KiB"), parse_size(12)
    (500000000, 1024, 12)
    """
    if isinstance(size, int) and not isinstance(size, bool):
        if size <= 0:
            raise ValueError(f"shard size must be positive, got {size}")
        return size
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B|B)?\s*", str(size), re.IGNORECASE)
    if not match:
        raise ValueError(f"shard size {size!r} is not a size; expected e.g. '500MB', '1GiB' or a number of bytes")
    number, unit = float(match.group(1)), (match.group(2) or "B").upper()
    powers = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
              "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}
    value = int(number * powers[unit])
    if value <= 0:
        raise ValueError(f"shard size must be positive, got {size!r}")
    return value


def export_features(images: str) -> Any:
    """The ``datasets.Features`` of exported rows for a screenshot mode.

    The builder's features with the ``screenshots`` column replaced:
    removed (``none``), ``List(Value("string"))`` of release-relative paths
    (``paths``), or ``List(Image())`` (``thumbnails``, ``full``).
    """
    import datasets

    from agenthorizon.data import features as builder

    _check_mode(images)
    base = builder.features(images="paths")
    columns = {name: feature for name, feature in base.items() if name != SCREENSHOTS}
    if images == "paths":
        columns[SCREENSHOTS] = builder.list_feature(datasets.Value("string"))
    elif images in ("thumbnails", "full"):
        columns[SCREENSHOTS] = builder.list_feature(datasets.Image())
    return datasets.Features(columns)


def _check_mode(images: str) -> None:
    if images not in EXPORT_IMAGE_MODES:
        raise ValueError(f"unknown images mode {images!r}; expected one of {list(EXPORT_IMAGE_MODES)}")


@dataclass
class ConfigExport:
    """What was written for one config."""

    config: str
    n_rows: int
    files: list[str]
    counts: dict[str, Any]
    num_bytes: int
    skipped_screenshots: list[str] = field(default_factory=list)
    """One line per screenshot exported as null because it does not decode as an image."""


@dataclass
class ExportSummary:
    """What :func:`export_release` wrote: per-config files and counts, and the card."""

    out: Path
    images: str
    configs: dict[str, ConfigExport] = field(default_factory=dict)
    card: Path | None = None

    @property
    def files(self) -> list[Path]:
        return [self.out / name for export in self.configs.values() for name in export.files]


# --- rows --------------------------------------------------------------------------


class _RelativePaths:
    """Turn the absolute paths the builder gives into release-relative POSIX paths."""

    def __init__(self, root: Path) -> None:
        # The builder may give the root as it was passed or resolved (a Hub
        # snapshot is a tree of symlinks); accept a path under either.
        self._roots = list(dict.fromkeys([str(root.absolute()), str(root.resolve())]))
        self.prefixes = [root.rstrip(os.sep) + os.sep for root in self._roots]

    def __call__(self, path: str | None, where: str) -> str | None:
        if path is None:
            return None
        # The builder's paths are the root joined with a normalised relative
        # path: stripping the prefix is the relative path, without the
        # relpath/abspath/pathlib walk (an export maps every step's path).
        for prefix in self.prefixes:
            if path.startswith(prefix) and ".." not in path:
                relative = path[len(prefix) :]
                return relative if os.sep == "/" else relative.replace(os.sep, "/")
        for root in self._roots:
            relative = os.path.relpath(os.path.abspath(path), root)
            if not relative.startswith(".."):
                return Path(relative).as_posix()
        raise ValueError(f"{where}: screenshot {path} is not inside the release root {self._roots[0]}")


def _screenshot_paths(row: Mapping[str, Any]) -> list[str | None]:
    screens = row.get(SCREENSHOTS)
    if screens is None:
        return [step.get("screenshot") for step in row["steps"]]
    paths = getattr(screens, "paths", screens)  # LazyScreenshots or plain strings
    return [None if p is None else os.fspath(p) for p in paths]


def _thumbnails(
    paths: Sequence[str | None], bad: dict[int, str], cache_dir: str | os.PathLike[str] | None = None
) -> dict[int, bytes]:
    """Step index -> JPEG bytes of the screenshot downscaled to fit 512x332.

    With ``cache_dir`` (the export's own temporary cache, see
    :func:`export_release`), a screenshot already thumbnailed for another item
    or config is read back instead of decoded again; without it nothing is
    cached (the user's image cache would otherwise get a copy of every
    thumbnail of the release). A screenshot that does not decode (over the
    pixel budget, truncated, not an image) gets no thumbnail; its index and
    reason go to ``bad``.
    """
    from agenthorizon.data.images import DEFAULT_SIZE, ScreenshotError, prepare_images

    def prepare(wanted: list[str | None]) -> dict[int, bytes]:
        prepared = prepare_images(
            wanted, mode="per-step", size=DEFAULT_SIZE, format="jpeg",
            cache_dir=cache_dir, use_cache=cache_dir is not None,
        )
        return {image.steps[0]: image.data for image in prepared}

    try:
        return prepare(list(paths))
    except ScreenshotError:
        pass  # find which ones, one at a time (only items with a bad screenshot pay for it)
    encoded: dict[int, bytes] = {}
    for index, path in enumerate(paths):
        if path is None:
            continue
        try:
            encoded.update(prepare([None] * index + [path]))
        except ScreenshotError as error:
            bad[index] = str(error)
    return encoded


def _full_images(paths: Sequence[str | None], bad: dict[int, str]) -> dict[int, bytes]:
    """Step index -> the screenshot file's bytes, for files that decode as images (others go to ``bad``)."""
    from agenthorizon.data.images import ScreenshotError, check_image

    encoded = {}
    for index, path in enumerate(paths):
        if path is None:
            continue
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as error:
            raise FileNotFoundError(f"{path}: screenshot cannot be read ({error.strerror}); expected an image file") from None
        try:
            check_image(data, name=path)
        except ScreenshotError as error:
            bad[index] = str(error)
            continue
        encoded[index] = data
    return encoded


def export_row(
    row: Mapping[str, Any],
    images: str,
    relative: _RelativePaths,
    *,
    thumbnail_cache: str | None = None,
    bad: dict[int, str] | None = None,
) -> dict[str, Any]:
    """One builder row as an exported row (before ``Features.encode_example``).

    Image structs carry the release-relative path of their source screenshot
    beside the bytes, so every embedded image can be traced to its file.
    ``thumbnail_cache`` is a directory where thumbnails are kept between rows.
    Only files that decode as images are embedded: a screenshot over the pixel
    budget, truncated or not an image is exported as null, and its step index
    and reason are added to ``bad``.
    """
    bad = {} if bad is None else bad
    where = f"item {row['trajectory_id']}"
    out = {name: value for name, value in row.items() if name != SCREENSHOTS}
    out["steps"] = [
        {**step, "screenshot": relative(step.get("screenshot"), where)} for step in row["steps"]
    ]
    if images == "none":
        return out
    paths = _screenshot_paths(row)
    relative_paths = [relative(p, where) for p in paths]
    if images == "paths":
        out[SCREENSHOTS] = relative_paths
        return out
    encoded = _full_images(paths, bad) if images == "full" else _thumbnails(paths, bad, thumbnail_cache)
    out[SCREENSHOTS] = [
        None if index not in encoded else {"bytes": encoded[index], "path": relative_paths[index]}
        for index in range(len(paths))
    ]
    return out


def config_counts(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Items, positives, negatives and negatives per mistake type of some rows, as the card shows them.

    The counts of :func:`agenthorizon.release.labels.count_labels` under the keys the
    dataset card and ``agenthorizon export`` read: ``n``, ``positive``,
    ``negative`` and ``by_mistake_type`` (each canonical mistake type, then
    ``"untyped"`` for negatives without a type; over negatives only).

    Raises ``ValueError`` for a row whose label or mistake type is unknown.

    >>> config_counts([{"label": "positive", "mistake_type": ""},
    ...                {"label": "negative", "mistake_type": "Bad Side Effect"}])["by_mistake_type"]["Bad Side Effect"]
    1
    """
    counts = count_labels(rows)
    by_type = {name: counts.mistake_types[name] for name in MISTAKE_TYPES}
    by_type["untyped"] = counts.mistake_types[UNTYPED]
    return {
        "n": counts.items,
        "positive": counts.positives,
        "negative": counts.negatives,
        "by_mistake_type": by_type,
    }


# --- Parquet ---------------------------------------------------------------------


class _ShardWriter:
    """Write encoded rows to Parquet shards no larger than about ``max_bytes``.

    The final names ``test-IIIII-of-NNNNN.parquet`` need the shard count, known
    only at the end, so shards are written under temporary names and renamed.
    """

    def __init__(self, directory: Path, features: Any, max_bytes: int) -> None:
        self.directory = directory
        self.features = features
        self.schema = features.arrow_schema  # carries the `huggingface` metadata
        self.max_bytes = max_bytes
        self.paths: list[Path] = []
        self.num_bytes = 0
        self._writer: Any = None
        self._shard_bytes = 0
        self._batch: list[dict[str, Any]] = []  # pending rows given one by one ...
        self._tables: list[Any] = []  # ... or as slices of Arrow tables
        self._batch_rows = 0
        self._batch_bytes = 0

    def _full(self, size_hint: int) -> bool:
        """Whether a row of ``size_hint`` bytes must start a new row group."""
        return bool(self._batch_rows) and (
            self._batch_bytes + size_hint > _ROW_GROUP_BYTES
            or self._batch_rows >= _ROW_GROUP_ROWS
            or self._shard_bytes + self._batch_bytes + size_hint > self.max_bytes
        )

    def add(self, encoded: dict[str, Any], size_hint: int) -> None:
        if self._full(size_hint):
            self._flush()
        self._batch.append(encoded)
        self._batch_rows += 1
        self._batch_bytes += size_hint

    def add_table(self, table: Any, size_hints: Sequence[int]) -> None:
        """Add rows already in the export schema, with one size hint per row; grouped as :meth:`add` groups."""
        start = 0
        for index, size_hint in enumerate(size_hints):
            if self._full(size_hint):
                if index > start:
                    self._tables.append(table.slice(start, index - start))
                    start = index
                self._flush()
            self._batch_rows += 1
            self._batch_bytes += size_hint
        if start < table.num_rows:
            self._tables.append(table.slice(start))

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self._batch_rows:
            return
        parts = list(self._tables)
        if self._batch:
            parts.append(pa.Table.from_pylist(self._batch, schema=self.schema))
        table = parts[0] if len(parts) == 1 else pa.concat_tables(parts)
        if self._writer is not None and self._shard_bytes and self._shard_bytes + table.nbytes > self.max_bytes:
            self._close_shard()
        if self._writer is None:
            path = self.directory / f".{SPLIT_NAME}-{len(self.paths):05d}.parquet.tmp"
            self.paths.append(path)
            self._writer = pq.ParquetWriter(path, self.schema)
            self._shard_bytes = 0
        self._writer.write_table(table)
        self._shard_bytes += table.nbytes
        self.num_bytes += table.nbytes
        self._batch, self._tables, self._batch_rows, self._batch_bytes = [], [], 0, 0

    def _close_shard(self) -> None:
        self._writer.close()
        self._writer = None

    def close(self) -> list[Path]:
        self._flush()
        if self._writer is not None:
            self._close_shard()
        if not self.paths:
            # A config with no rows still gets one (empty) shard so its data
            # files pattern matches something and loading yields 0 rows.
            import pyarrow.parquet as pq

            path = self.directory / f".{SPLIT_NAME}-00000.parquet.tmp"
            pq.write_table(self.schema.empty_table(), path)
            self.paths.append(path)
        total = len(self.paths)
        final = []
        for index, path in enumerate(self.paths):
            target = self.directory / f"{SPLIT_NAME}-{index:05d}-of-{total:05d}.parquet"
            os.replace(path, target)
            final.append(target)
        return final


def _size_hint(row: Mapping[str, Any]) -> int:
    size = len(row.get("markdown") or "") + 200 * len(row["steps"])
    for image in row.get(SCREENSHOTS) or ():
        if isinstance(image, dict) and image.get("bytes"):
            size += len(image["bytes"])
    return size


def _write_config(
    rows: Iterable[Mapping[str, Any]],
    directory: Path,
    features: Any,
    images: str,
    relative: _RelativePaths,
    max_bytes: int,
    thumbnail_cache: str | None = None,
    skipped: list[str] | None = None,
) -> tuple[list[Path], list[dict[str, str]], int]:
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob(f"{SPLIT_NAME}-*.parquet"):
        stale.unlink()  # a re-export with fewer shards must not leave old ones matched by the glob
    writer = _ShardWriter(directory, features, max_bytes)
    label_rows = []
    try:
        if images in ("none", "paths") and hasattr(rows, "with_format"):
            # No image bytes to add: the rows are the builder's Arrow columns with
            # the paths made relative, so convert them column by column.
            for table in _arrow_batches(rows, _ROW_GROUP_ROWS):
                exported, size_hints = _export_table(table, images, relative, writer.schema)
                writer.add_table(exported, size_hints)
                label_rows += table.select(["label", "mistake_type"]).to_pylist()
            rows = ()
        for row in rows:
            bad: dict[int, str] = {}
            exported = export_row(row, images, relative, thumbnail_cache=thumbnail_cache, bad=bad)
            if skipped is not None:
                skipped += [f"item {row['trajectory_id']} step {index}: {bad[index]}" for index in sorted(bad)]
            writer.add(features.encode_example(exported), _size_hint(exported))
            label_rows.append({"label": row["label"], "mistake_type": row["mistake_type"]})
    except BaseException:
        if writer._writer is not None:
            writer._close_shard()
        for path in writer.paths:
            path.unlink(missing_ok=True)
        raise
    return writer.close(), label_rows, writer.num_bytes


def _rows(root: Path, config: str, dev_groups: int) -> Iterable[Mapping[str, Any]]:
    """The config's rows as a ``datasets.Dataset`` (iterable of rows; its Arrow columns serve path-only modes)."""
    from agenthorizon.data.load import load_dataset

    return load_dataset(root, config, split=SPLIT_NAME, images="paths", dev_groups=dev_groups)


def _arrow_batches(dataset: Any, size: int) -> Iterator[Any]:
    """The rows of a ``datasets.Dataset`` as Arrow tables of ``size`` rows, in order."""
    if getattr(dataset, "_indices", None) is not None:  # a selection: let datasets map the indices
        yield from dataset.with_format("arrow").iter(batch_size=size)
        return
    # The whole table, sliced without copies (with_format deep-copies the dataset's table object).
    table = dataset.data.table
    for start in range(0, table.num_rows, size):
        yield table.slice(start, size)


def _export_table(table: Any, images: str, relative: _RelativePaths, schema: Any) -> tuple[Any, list[int]]:
    """Builder rows (``images="paths"`` Arrow batch) as exported rows of ``schema``, and their size hints.

    What :func:`export_row` does row by row, done on whole columns: every
    ``steps[k].screenshot`` (and, for ``"paths"``, every ``screenshots``
    entry) made release-relative; ``screenshots`` dropped for ``"none"``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    items = table.column("trajectory_id").to_pylist()
    columns = {"steps": _relative_lists(table.column("steps"), relative, items, field="screenshot")}
    if images == "paths":
        columns[SCREENSHOTS] = _relative_lists(table.column(SCREENSHOTS), relative, items)
    exported = pa.Table.from_arrays(
        [columns[name] if name in columns else table.column(name) for name in schema.names], schema=schema
    )
    # _size_hint of each row: Markdown characters plus 200 per step
    markdown = pc.fill_null(pc.utf8_length(table.column("markdown")), 0)
    steps = pc.list_value_length(table.column("steps"))
    return exported, pc.add(markdown, pc.multiply(steps, 200)).to_pylist()


def _relative_lists(column: Any, relative: _RelativePaths, items: Sequence[str], field: str | None = None) -> Any:
    """A list column of paths (or of structs whose ``field`` is a path) with every path release-relative.

    Chunk by chunk, so the other step fields are reused as they are, never copied.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    converted_chunks, first = [], 0
    for lists in chunks:
        values = lists.flatten()  # the values of this slice only
        offsets = pc.subtract(lists.offsets, lists.offsets[0])
        if field is None:
            children, paths = None, values
        else:
            index = values.type.get_field_index(field)
            children = values.flatten()
            paths = children[index]

        def step_items(lists=lists, chunk_items=items[first : first + len(lists)]) -> list[str]:
            # the item of each value, only to name it in an error
            lengths = pc.list_value_length(lists).to_pylist()
            return [item for item, n in zip(chunk_items, lengths) for _ in range(n or 0)]

        converted = _relative_array(paths, relative, step_items)
        if children is not None:
            children[index] = converted
            converted = pa.StructArray.from_arrays(children, fields=list(values.type))
        mask = lists.is_null() if lists.null_count else None
        converted_chunks.append(pa.ListArray.from_arrays(offsets, converted, type=lists.type, mask=mask))
        first += len(lists)
    return pa.chunked_array(converted_chunks, type=column.type)


def _relative_array(paths: Any, relative: _RelativePaths, items: Any) -> Any:
    """Release-relative POSIX paths of a string array of builder paths (nulls stay null).

    A prefix strip on the whole array when every path lies under one root
    spelling; otherwise path by path through ``relative``, which names the
    item (``items()``) of a path outside the release.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    for prefix in relative.prefixes:
        if pc.all(pc.starts_with(paths, prefix)).as_py() is not False and not pc.any(
            pc.match_substring(paths, "..")
        ).as_py():
            stripped = pc.utf8_slice_codeunits(paths, len(prefix))
            return stripped if os.sep == "/" else pc.replace_substring(stripped, os.sep, "/")
    return pa.array(
        [relative(path, f"item {item}") for path, item in zip(paths.to_pylist(), items())], pa.string()
    )


def export_release(
    root: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    configs: Sequence[str] = CONFIG_NAMES,
    images: str = "thumbnails",
    dev_groups: int = DEV_GROUPS,
    max_shard_size: str | int = DEFAULT_MAX_SHARD_SIZE,
    repo_id: str | None = None,
    revision: str | None = None,
    token: str | bool | None = None,
    overwrite: bool = False,
) -> ExportSummary:
    """Write Parquet shards per config and a dataset card to ``out``.

    Each config's rows (those of :func:`agenthorizon.load_dataset`) are
    written to ``out/data/<config>/test-IIIII-of-NNNNN.parquet`` with the
    features in the Parquet schema metadata, and ``out/README.md`` declares
    the configs, features, counts, partitions, blind-evaluation rules and
    citation, so ``datasets.load_dataset(out, config, split="test")`` loads
    the export with no project code. Screenshot paths are written relative to
    the release root.

    Parameters
    ----------
    root : str or path-like
        A local release root, or a Hub dataset repo id: then only the files the
        chosen configs need are fetched (no screenshots for ``images="none"``
        or ``"paths"``), see :func:`agenthorizon.resolve_release`.
    out : str or path-like
        Output folder, created when missing. A folder that holds anything but
        hidden entries (such as ``.git``) is refused unless ``overwrite``.
    configs : sequence of str, default=all four
        Configs to export, each from ``schema.CONFIG_NAMES``; repeats are
        ignored and the export follows the order of ``CONFIG_NAMES``.
    images : {"none", "paths", "thumbnails", "full"}, default="thumbnails"
        How screenshots are exported (module docstring).
    dev_groups : int, default=50
        Number of pair groups in AH-D (the paper: 50); also decides every
        row's ``in_dev``. Must be >= 0.
    max_shard_size : str or int, default="500MB"
        Upper bound for one shard's (uncompressed Arrow) size, e.g.
        ``"500MB"`` or a number of bytes (:func:`parse_size`). A config with
        no rows still gets one empty shard.
    repo_id : str, optional
        Hub repository named in the card's loading example (default: the
        original release's repository).
    revision, token : optional
        For a Hub ``root``: the branch, tag or commit, and the access token.
    overwrite : bool, default=False
        Export into a used folder: ``README.md`` and the shards are
        rewritten, and every file under ``out/data/`` the new card does not
        list (shards of configs not exported this time) is removed. Files
        outside ``data/`` are left alone.

    Returns
    -------
    ExportSummary
        Per config (in export order): rows, shard files relative to ``out``,
        counts (:func:`config_counts`), Arrow bytes and the screenshots
        exported as null because they do not decode as images (each also
        counted in a warning); and the card's path.

    Raises
    ------
    FileNotFoundError
        If ``root`` is not a folder, or lacks files a row refers to.
    ValueError
        If ``configs`` is empty or names an unknown config, ``images`` is not
        a mode, ``dev_groups`` is not a non-negative integer,
        ``max_shard_size`` is not a positive size, ``out`` is used and
        ``overwrite`` is false, or a label file or
        trajectory of the release is invalid (the message names the file and
        line or item).

    See Also
    --------
    agenthorizon.load_dataset : the rows being exported.
    dataset_card : the README.md text.
    agenthorizon.release.verify.verify_release : check a release before exporting it.

    Examples
    --------
    Not run as a doctest, because loading the rows writes to the ``datasets``
    cache of the user (``HF_DATASETS_CACHE``):

    >>> import tempfile, datasets  # doctest: +SKIP
    >>> from pathlib import Path  # doctest: +SKIP
    >>> from agenthorizon.release.sample import generate  # doctest: +SKIP
    >>> tmp = Path(tempfile.mkdtemp())  # doctest: +SKIP
    >>> root = generate(tmp / "release", preset="tiny").root  # doctest: +SKIP
    >>> summary = export_release(root, tmp / "out", configs=["AH"], images="none")  # doctest: +SKIP
    >>> summary.configs["AH"].files  # doctest: +SKIP
    ['data/AH/test-00000-of-00001.parquet']
    >>> summary.configs["AH"].counts["n"]  # doctest: +SKIP
    8
    >>> datasets.load_dataset(str(tmp / "out"), "AH", split="test").num_rows  # doctest: +SKIP
    8
    """
    _check_mode(images)
    out = Path(out)
    _check_out(out, overwrite)
    chosen = list(dict.fromkeys(configs))
    if not chosen:
        raise ValueError("no config to export; expected one or more of " + ", ".join(CONFIG_NAMES))
    for name in chosen:
        if name not in CONFIG_NAMES:
            raise ValueError(f"unknown config {name!r}; expected one of {list(CONFIG_NAMES)}")
    if isinstance(dev_groups, bool) or not isinstance(dev_groups, int) or dev_groups < 0:
        raise ValueError(f"dev_groups must be a non-negative integer, got {dev_groups!r}")
    # One fetch covers every chosen config: `all` holds every item (AH-D included).
    root = resolve_release(
        root,
        chosen[0] if len(chosen) == 1 else CONFIG_ALL,
        images=None if images in ("none", "paths") else "lazy",
        revision=revision,
        token=token,
        dev_groups=dev_groups,
    )
    max_bytes = parse_size(max_shard_size)
    features = export_features(images)
    relative = _RelativePaths(root)
    summary = ExportSummary(out=out, images=images)
    with contextlib.ExitStack() as stack:
        thumbnail_cache = None
        if images == "thumbnails":
            # Items share screenshots (a negative shows its sibling's recording) and
            # configs share items: each distinct file is decoded once per export,
            # through a cache that lives as long as the export.
            out.mkdir(parents=True, exist_ok=True)
            thumbnail_cache = stack.enter_context(tempfile.TemporaryDirectory(prefix=".thumbnails-", dir=out))
        for config in sorted(chosen, key=CONFIG_NAMES.index):
            directory = out / "data" / config
            skipped: list[str] = []
            paths, label_rows, num_bytes = _write_config(
                _rows(root, config, dev_groups), directory, features, images, relative, max_bytes, thumbnail_cache,
                skipped,
            )
            summary.configs[config] = ConfigExport(
                config=config,
                n_rows=len(label_rows),
                files=[path.relative_to(out).as_posix() for path in paths],
                counts=config_counts(label_rows),
                num_bytes=num_bytes,
                skipped_screenshots=skipped,
            )
            if skipped:
                warnings.warn(
                    f"{len(skipped)} screenshot(s) of config {config} do not decode as images and were exported as "
                    f"null (first: {skipped[0]}); run `agenthorizon verify` on the release for all of them",
                    UserWarning,
                    stacklevel=2,
                )
    summary.card = out / "README.md"
    summary.card.write_text(dataset_card(summary, features, dev_groups=dev_groups, repo_id=repo_id), encoding="utf-8")
    if overwrite:
        _remove_unlisted(out, summary)
    return summary


def _check_out(out: Path, overwrite: bool) -> None:
    """Refuse an output folder that holds anything but hidden entries, unless ``overwrite``."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file; expected an output folder")
    used = sorted(entry.name for entry in out.iterdir() if not entry.name.startswith(".")) if out.is_dir() else []
    if used and not overwrite:
        shown = ", ".join(used[:5]) + (", ..." if len(used) > 5 else "")
        raise ValueError(
            f"{out} is not empty (holds {shown}); expected a new or empty folder, or pass --overwrite "
            "(overwrite=True) to replace its export and remove the files under data/ the new card does not list"
        )


def _remove_unlisted(out: Path, summary: ExportSummary) -> None:
    """Remove every file under ``out/data/`` the card does not list, and folders left empty.

    Only ``data/`` is cleaned: other files in ``out`` (a licence, a ``.git``
    folder of a Hub clone) are not the export's to remove.
    """
    listed = {out / name for name in summary.files}
    data = out / "data"
    for folder, _, names in os.walk(data, topdown=False):
        for name in names:
            path = Path(folder) / name
            if path not in listed:
                path.unlink()
        if Path(folder) != data and not any(Path(folder).iterdir()):
            Path(folder).rmdir()
