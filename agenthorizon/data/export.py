"""Export the benchmark as Parquet shards plus a dataset card, for plain ``datasets`` (:func:`export_release`).

``datasets`` >= 4 refuses loading scripts; Parquet files named in the card's
``configs:`` block load with no project code. See docs/export.md.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from agenthorizon.util.progress import progress_bar
from agenthorizon.data.card import card_metadata, dataset_card
from agenthorizon.release.sample.marker import is_sample_corpus
from agenthorizon.release.output_folder import FolderNotEmpty
from agenthorizon.data.export_images import full_images, screenshot_paths, thumbnails
from agenthorizon.data.export_paths import SCREENSHOTS, RelativePaths, arrow_batches, export_table
from agenthorizon.data.export_summary import ConfigExport, ExportSummary
from agenthorizon.data.shards import ROW_GROUP_ROWS, ShardWriter
from agenthorizon.release.files import read_labels
from agenthorizon.release.labels import count_labels
from agenthorizon.release.item_selection import Selection
from agenthorizon.release.splits import select_rows
from agenthorizon.schema import (
    CONFIG_AH,
    CONFIG_AH_S,
    CONFIG_ALL,
    CONFIG_NAMES,
    DEV_GROUPS,
    EXPORT_IMAGE_MODES,
    MISTAKE_TYPES,
    SPLIT_NAME,
    UNTYPED,
)
from agenthorizon.release.hub import resolve_release
from agenthorizon.util.sizes import parse_size

__all__ = [
    "ConfigExport",
    "ExportSummary",
    "card_metadata",
    "config_counts",
    "dataset_card",
    "export_features",
    "export_release",
    "export_row",
]

DEFAULT_MAX_SHARD_SIZE = "500MB"
"""The shard size ``datasets.Dataset.push_to_hub`` uses by default."""


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


# --- rows --------------------------------------------------------------------------


def export_row(
    row: Mapping[str, Any],
    images: str,
    relative: RelativePaths,
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
    paths = screenshot_paths(row)
    relative_paths = [relative(p, where) for p in paths]
    if images == "paths":
        out[SCREENSHOTS] = relative_paths
        return out
    encoded = full_images(paths, bad) if images == "full" else thumbnails(paths, bad, thumbnail_cache)
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
    relative: RelativePaths,
    max_bytes: int,
    thumbnail_cache: str | None = None,
    skipped: list[str] | None = None,
    progress: bool = False,
) -> tuple[list[Path], list[dict[str, str]], int]:
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob(f"{SPLIT_NAME}-*.parquet"):
        stale.unlink()  # a re-export with fewer shards must not leave old ones matched by the glob
    writer = ShardWriter(directory, features, max_bytes)
    label_rows = []
    total = len(rows) if hasattr(rows, "__len__") else None
    bar = progress_bar(total, f"export {directory.name}", "item", **({} if progress else {"disable": True}))
    try:
        if images in ("none", "paths") and hasattr(rows, "with_format"):
            # No image bytes to add: convert the builder's Arrow columns column by column.
            for table in arrow_batches(rows, ROW_GROUP_ROWS):
                exported, size_hints = export_table(table, images, relative, writer.schema)
                writer.add_table(exported, size_hints)
                label_rows += table.select(["label", "mistake_type"]).to_pylist()
                bar.update(table.num_rows)
            rows = ()
        for row in rows:
            bad: dict[int, str] = {}
            exported = export_row(row, images, relative, thumbnail_cache=thumbnail_cache, bad=bad)
            if skipped is not None:
                skipped += [f"item {row['trajectory_id']} step {index}: {bad[index]}" for index in sorted(bad)]
            writer.add(features.encode_example(exported), _size_hint(exported))
            label_rows.append({"label": row["label"], "mistake_type": row["mistake_type"]})
            bar.update(1)
    except BaseException:
        if writer._writer is not None:
            writer._close_shard()
        for path in writer.paths:
            path.unlink(missing_ok=True)
        raise
    finally:
        bar.close()
    return writer.close(), label_rows, writer.num_bytes


def _rows(root: Path, config: str, dev_groups: int) -> Iterable[Mapping[str, Any]]:
    """The config's rows as a ``datasets.Dataset`` (iterable of rows; its Arrow columns serve path-only modes)."""
    from agenthorizon.data.load import load_dataset

    return load_dataset(root, config, split=SPLIT_NAME, images="paths", dev_groups=dev_groups)


def _config_rows(root: Path, configs: Sequence[str], dev_groups: int) -> Iterator[tuple[str, Any]]:
    """``(config, rows)`` for each of ``configs``, in order.

    A row does not depend on its config (``in_dev`` and pair groups are
    computed over the whole release), so when every item of ``all`` is needed
    anyway (``all``, or both AH and AH-S), ``all`` is loaded once and each
    config is a selection of its rows.
    """
    if CONFIG_ALL not in configs and not {CONFIG_AH, CONFIG_AH_S} <= set(configs):
        # all would hold items none of these configs needs (a cold cache would build them)
        for config in configs:
            yield config, _rows(root, config, dev_groups)
        return
    whole = _rows(root, CONFIG_ALL, dev_groups)
    ids = whole.data.table.column("trajectory_id").to_pylist()  # one Arrow read, not a row-by-row column
    position = {trajectory_id: index for index, trajectory_id in enumerate(ids)}
    labels = read_labels(root)
    for config in configs:
        if config == CONFIG_ALL:
            yield config, whole
            continue
        selected = select_rows(labels, Selection(config, dev_groups=dev_groups))
        yield config, whole.select([position[row["trajectory_id"]] for row in selected], keep_in_memory=True)


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
    progress: bool = False,
) -> ExportSummary:
    """Write Parquet shards per config and a dataset card to ``out``.

    Each config's rows (those of :func:`agenthorizon.load_dataset`) are
    written to ``out/data/<config>/test-IIIII-of-NNNNN-<tag>.parquet`` (the
    tag, a digest of the shards, keeps ``datasets``' folder cache from serving
    an earlier export's rows), with the features in the Parquet schema
    metadata; ``out/README.md`` declares the configs, features, counts,
    blind-evaluation rules and citation, so
    ``datasets.load_dataset(out, config, split="test")`` loads the export with
    no project code. Screenshot paths are written relative to the release
    root. ``out/eval.yaml`` is written when a leaderboard config is exported.

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
        The ``screenshots`` column: absent, release-relative path strings,
        images downscaled to fit 512x332 as JPEG (what direct judges see), or
        the original PNG bytes. Images are ``{bytes, path}`` structs.
    dev_groups : int, default=50
        Number of pair groups in AH-D (the paper: 50); also decides every
        row's ``in_dev``. Must be >= 0.
    max_shard_size : str or int, default="500MB"
        Upper bound for one shard's (uncompressed Arrow) size, e.g.
        ``"500MB"`` (10^6 bytes), ``"512MiB"`` (2^20) or a number of bytes
        (:func:`agenthorizon.util.sizes.parse_size`). A config with
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
    progress : bool, default=False
        Show a progress bar per config (:func:`agenthorizon.util.progress.progress_bar`:
        standard error, a terminal only, after a second).

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
    FolderNotEmpty (a ValueError)
        If ``out`` is used and ``overwrite`` is false.
    ValueError
        If ``configs`` is empty or names an unknown config, ``images`` is not
        a mode, ``dev_groups`` is not a non-negative integer,
        ``max_shard_size`` is not a positive size, ``out`` is a file, or a label file or
        trajectory of the release is invalid (the message names the file and
        line or item).

    See Also
    --------
    agenthorizon.load_dataset : the rows being exported.
    dataset_card : the README.md text.
    agenthorizon.release.verify.verify_release : check a release before exporting it.

    Examples
    --------
    Skipped as a doctest: it writes to the user's ``datasets`` cache.

    >>> import tempfile, datasets  # doctest: +SKIP
    >>> from pathlib import Path  # doctest: +SKIP
    >>> from agenthorizon.release.sample import generate  # doctest: +SKIP
    >>> tmp = Path(tempfile.mkdtemp())  # doctest: +SKIP
    >>> root = generate(tmp / "release", preset="tiny").root  # doctest: +SKIP
    >>> summary = export_release(root, tmp / "out", configs=["AH"], images="none")  # doctest: +SKIP
    >>> summary.configs["AH"].files  # doctest: +SKIP
    ['data/AH/test-00000-of-00001-268e62b844e7395e.parquet']
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
    max_bytes = parse_size(max_shard_size, "max_shard_size")
    # One fetch covers every chosen config: `all` holds every item (AH-D included).
    root = resolve_release(
        root,
        chosen[0] if len(chosen) == 1 else CONFIG_ALL,
        images=None if images in ("none", "paths") else "lazy",
        revision=revision,
        token=token,
        dev_groups=dev_groups,
    )
    features = export_features(images)
    relative = RelativePaths(root)
    summary = ExportSummary(out=out, images=images, synthetic=is_sample_corpus(root))
    with contextlib.ExitStack() as stack:
        thumbnail_cache = None
        if images == "thumbnails":
            # Items and configs share screenshots: decode each distinct file once per export.
            out.mkdir(parents=True, exist_ok=True)
            thumbnail_cache = stack.enter_context(tempfile.TemporaryDirectory(prefix=".thumbnails-", dir=out))
        for config, rows in _config_rows(root, sorted(chosen, key=CONFIG_NAMES.index), dev_groups):
            directory = out / "data" / config
            skipped: list[str] = []
            paths, label_rows, num_bytes = _write_config(
                rows, directory, features, images, relative, max_bytes, thumbnail_cache, skipped, progress=progress
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
    summary.eval_yaml = _write_eval_yaml(out, summary)
    if overwrite:
        _remove_unlisted(out, summary)
    return summary


def _write_eval_yaml(out: Path, summary: ExportSummary) -> Path | None:
    """``out/eval.yaml``, the proposed benchmark file of the Hub's Eval Results, when a leaderboard config was exported.

    Read back and checked against the Hub's documented form
    (:func:`agenthorizon.data.hub_results.check_eval_yaml`).
    """
    import yaml

    from agenthorizon.data.hub_results import EVAL_TASKS, benchmark_eval_yaml, check_eval_yaml

    if not set(summary.configs) & set(EVAL_TASKS):
        return None
    path = out / "eval.yaml"
    path.write_text(yaml.safe_dump(benchmark_eval_yaml(list(summary.configs)), sort_keys=False, width=100), encoding="utf-8")
    check_eval_yaml(yaml.safe_load(path.read_text(encoding="utf-8")), where=str(path))
    return path


def _check_out(out: Path, overwrite: bool) -> None:
    """Refuse an output folder that holds anything but hidden entries, unless ``overwrite``."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file; expected an output folder")
    used = sorted(entry.name for entry in out.iterdir() if not entry.name.startswith(".")) if out.is_dir() else []
    if used and not overwrite:
        shown = ", ".join(used[:5]) + (", ..." if len(used) > 5 else "")
        raise FolderNotEmpty(str(out), shown, "replace its export and remove the files under data/ the new card "
                             "does not list")


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
