"""``load_dataset``: a config of AgentHorizon as ``datasets.load_dataset`` would return it.

``datasets`` >= 4 refuses loading scripts, so the builder
(:class:`~agenthorizon.data.builder.AgentHorizon`) is run directly.
"""

from __future__ import annotations

import os
from typing import Any

import datasets
from datasets.exceptions import DatasetGenerationError

from agenthorizon.util.system import available_cpus
from agenthorizon.data.builder import AgentHorizon, ReleaseError, _code_hash
from agenthorizon.data.formatting import BLIND_FORMAT_TYPE, FORMAT_TYPE
from agenthorizon.release.item_selection import Selection, check_selection
from agenthorizon.release.files import check_images, dev_manifest_identity, read_config_rows, stat_fingerprint
from agenthorizon.release.hub import resolve_release
from agenthorizon.schema import CONFIG_AH, DEFAULT_HUB_REPO, DEV_GROUPS, HIDDEN_FIELDS, SPLIT_NAME

__all__ = ["default_num_proc", "load_dataset"]

# Below this many items a second process costs more to start than it saves.
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
        cpus = available_cpus()
    if n_items < PARALLEL_BUILD_MIN_ITEMS or cpus < 2:
        return None
    return min(cpus, PARALLEL_BUILD_MAX_PROCESSES)


def _is_cached(builder: AgentHorizon) -> bool:
    """Whether ``download_and_prepare`` will reuse the builder's Arrow cache (datasets' own test of it)."""
    output_dir = getattr(builder, "_output_dir", None)
    return output_dir is not None and os.path.exists(os.path.join(output_dir, datasets.config.DATASET_INFO_FILENAME))


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
    streaming: bool = False,
    **unsupported: Any,
) -> datasets.DatasetDict | datasets.Dataset | datasets.IterableDatasetDict | datasets.IterableDataset:
    """Load a config of AgentHorizon as ``datasets.load_dataset`` would.

    Parameters
    ----------
    path : str or os.PathLike, default "ServiceNow/AgentHorizon"
        A local release root, or a Hub dataset repo id (fetches only the files
        ``name`` needs; see :func:`agenthorizon.resolve_release`).
    name : {"AH", "AH-S", "AH-D", "all"}, default "AH"
        The config.
    split : {None, "test"}, default None
        ``None`` returns a ``DatasetDict`` with the single split ``"test"``;
        ``"test"`` returns that ``Dataset``.
    blind : bool, default False
        Drop every field that reveals the label or the pairing
        (``schema.HIDDEN_FIELDS``), and build rows whose image references in
        ``markdown`` and ``steps[].screenshot`` name the item's own id instead
        of the steps-id folder, as judge inputs do (a cache of its own, so
        every access path is blind). ``screenshots`` holds those blind names
        too (``images="paths"``), or a
        :class:`~agenthorizon.data.screenshots.BlindScreenshots` per row
        (``images="lazy"``) that decodes the real files on access and shows
        no path; ``images="eager"`` is refused.
    exclude_dev : bool, default False
        Remove the AH-D items from AH, AH-S and all.
    dev_manifest : path, optional
        File of trajectory ids defining AH-D instead of the derivation with
        ``dev_groups`` groups.
    dev_groups : int, default 50
        Pair groups the AH-D derivation draws.
    images : {"lazy", "paths", "eager", None}, default "lazy"
        ``"lazy"`` decodes a screenshot when indexed; ``"eager"`` is
        ``datasets``' decoding of the whole list; ``"paths"`` gives strings;
        ``None`` gives paths and fetches no media from the Hub.
    cache_dir : path, optional
        The ``datasets`` cache (Hub files go under ``cache_dir/hub``).
    revision, token : optional
        For Hub repos.
    num_proc : int, optional
        Processes building the Arrow cache; the shards keep the release
        order. ``None`` chooses :func:`default_num_proc` of the config's item
        count. A cached config loads without starting any process.
    streaming : bool, default False
        Return an ``IterableDataset`` (``IterableDatasetDict`` when ``split``
        is ``None``), screenshots lazy as in the map-style dataset. The Arrow
        cache of the text columns is built (or reused) first.
    **unsupported
        Other ``datasets.load_dataset`` keywords (``data_dir``,
        ``trust_remote_code``, ``data_files``...) are refused with a sentence
        that says what to pass instead; no remote code runs.

    Returns
    -------
    datasets.DatasetDict, datasets.Dataset, or their Iterable forms
        ``{"test": Dataset}`` (``split=None``) or the ``Dataset``
        (``split="test"``), iterable with ``streaming=True``: one row per
        label row of the config, in label-file order, with the fields of
        docs/data.md.

    Raises
    ------
    TypeError
        A keyword of ``**unsupported``.
    ValueError
        An unknown config, split or images mode; ``images="eager"`` with
        ``blind=True``; ``exclude_dev`` with
        ``"AH-D"``; a bad label row, trajectory json (not UTF-8, nested too
        deeply, wrong fields) or dev manifest; a release file that is a link
        out of the release (the message names the file and line or label row).
    FileNotFoundError
        ``path`` is neither a release root nor a fetchable Hub repo, or a file
        a label row needs is missing.

    Notes
    -----
    The Arrow cache is keyed by release root, config, dev settings, images
    mode, blindness, the whole release's label manifest sha256, a stat
    fingerprint (size and modification time) of every trajectory json,
    Markdown and screenshot folder the build reads, and builder code, so
    loading again reuses it and a release changed in place never reuses a
    stale one.

    Examples
    --------
    >>> import tempfile, agenthorizon
    >>> root = tempfile.mkdtemp() + "/release"
    >>> _ = agenthorizon.generate_sample(root, preset="tiny")
    >>> ds = load_dataset(root, "AH", split="test", cache_dir=tempfile.mkdtemp())  # doctest: +ELLIPSIS
    >>> len(ds), ds[0]["label"] in ("positive", "negative")
    (8, True)
    >>> ds[0]["screenshots"]  # nothing decoded until indexed
    LazyScreenshots(... steps, ... with a screenshot)
    """
    if unsupported:
        raise TypeError(_unsupported_message(unsupported))
    check_selection(name, dev_groups=dev_groups, exclude_dev=exclude_dev)
    if split not in (None, SPLIT_NAME):
        raise ValueError(f"unknown split {split!r}; AgentHorizon has the single split {SPLIT_NAME!r}")
    check_images(images)
    if blind and images == "eager":
        raise ValueError(
            "images='eager' with blind=True: datasets decodes screenshots by their file paths, and a blind row "
            "keeps none (the real folder is the steps id); use images='lazy' (the default), whose blind screenshots "
            "decode on access, e.g. list(row['screenshots'])"
        )
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
    manifest_path, manifest_sha = (None, None) if dev_manifest is None else dev_manifest_identity(dev_manifest)
    selection = Selection(
        name, dev_groups=dev_groups, dev_manifest=manifest_path, dev_manifest_sha256=manifest_sha, exclude_dev=exclude_dev
    )
    # Read once here; the builder reuses them when it builds the cache.
    config_rows = read_config_rows(root, selection)
    config_kwargs: dict[str, Any] = {
        "dev_groups": dev_groups,
        "exclude_dev": exclude_dev,
        # None is stored like "paths"; datasets ignores None-valued overrides.
        "images": "paths" if images is None else images,
        "release_label_sha256": config_rows.release_label_sha256,
        # A file changed in place must not be served from the old cache.
        "files_fingerprint": stat_fingerprint(root, config_rows.rows),
        # Rows are written blind, so no access path (column reads, to_pandas) shows the steps id.
        "blind": blind,
    }
    if dev_manifest is not None:
        config_kwargs["dev_manifest"], config_kwargs["dev_manifest_sha256"] = manifest_path, manifest_sha
    builder = AgentHorizon(
        cache_dir=None if cache_dir is None else os.fspath(cache_dir),
        dataset_name="agenthorizon",
        config_name=name,
        hash=_code_hash(),
        data_dir=str(root),
        config_rows=config_rows,
        **config_kwargs,
    )
    try:
        if num_proc is None and not _is_cached(builder):
            num_proc = default_num_proc(len(config_rows.rows))
        builder.download_and_prepare(num_proc=num_proc)
    except DatasetGenerationError as error:
        # datasets wraps generation errors in a generic message; ours name the file and row.
        original = error.original if isinstance(error, ReleaseError) else error.__cause__
        if isinstance(original, (ValueError, OSError)):
            raise original from None
        raise
    dataset = builder.as_dataset(split=SPLIT_NAME)
    if blind:
        dataset = dataset.remove_columns(list(HIDDEN_FIELDS))
    if images == "lazy":
        # A registered format, not set_transform: column reads stay column reads.
        dataset.set_format(BLIND_FORMAT_TYPE if blind else FORMAT_TYPE)
    if streaming:
        iterable = dataset.to_iterable_dataset()
        if images == "lazy":
            iterable = iterable.with_format(BLIND_FORMAT_TYPE if blind else FORMAT_TYPE)
        return iterable if split is not None else datasets.IterableDatasetDict({SPLIT_NAME: iterable})
    if split is not None:
        return dataset
    return datasets.DatasetDict({SPLIT_NAME: dataset})


# What to do instead, for the datasets.load_dataset keywords that mean nothing for a release.
_INSTEAD = {
    "data_dir": "pass the release root (or a Hub repo id) as the first argument, path",
    "data_files": "the label files and item files are found from the release layout; pass its root as path",
    "trust_remote_code": "no loading script or remote code runs here; drop the argument",
    "download_mode": "the cache is rebuilt by itself when the release changes; delete cache_dir to force it",
    "verification_mode": "verify a release with `agenthorizon verify ROOT`",
    "keep_in_memory": "datasets memory-maps the Arrow cache; call .flatten_indices() or load into memory yourself",
    "features": "the features are fixed by the release layout (agenthorizon.data.features)",
}


def _unsupported_message(unsupported: dict[str, Any]) -> str:
    """One sentence per keyword ``load_dataset`` does not take, each saying what to do instead."""
    parts = []
    for key in sorted(unsupported):
        instead = _INSTEAD.get(key, "it is not a parameter of agenthorizon.load_dataset (see help(agenthorizon.load_dataset))")
        parts.append(f"{key}={unsupported[key]!r}: {instead}")
    return "agenthorizon.load_dataset does not take " + "; ".join(parts)
