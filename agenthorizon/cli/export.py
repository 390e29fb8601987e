"""``agenthorizon export``: Parquet shards and a dataset card that plain ``datasets`` loads."""

from __future__ import annotations

import argparse
import os
import shlex

from agenthorizon.cli._common import byte_size
from agenthorizon.schema import CONFIG_NAMES, DEFAULT_HUB_REPO, DEV_GROUPS, EXPORT_IMAGE_MODES

HELP = "Export configs as Parquet shards with a dataset card that plain datasets.load_dataset reads."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.data.export import DEFAULT_MAX_SHARD_SIZE

    parser.add_argument("root", metavar="ROOT", help="local release root, or a Hub dataset repo id (fetches only what the configs need)")
    parser.add_argument("out", metavar="OUT", help="output folder (README.md and data/<config>/ are written)")
    parser.add_argument(
        "--configs",
        nargs="+",
        choices=CONFIG_NAMES,
        default=list(CONFIG_NAMES),
        help="configs to export (default: all four; 'all' is the config holding both label files)",
    )
    parser.add_argument(
        "--images",
        choices=EXPORT_IMAGE_MODES,
        default="thumbnails",
        help="screenshots: none, release-relative paths, 512x332 JPEG thumbnails (default) or the full PNGs",
    )
    parser.add_argument("--dev-groups", type=int, default=DEV_GROUPS, help=f"pair groups in AH-D (default {DEV_GROUPS})")
    parser.add_argument(
        "--max-shard-size", type=byte_size, default=DEFAULT_MAX_SHARD_SIZE, metavar="BYTES",
        help=f"largest shard, e.g. 500MB (10^6 bytes) or 512MiB (2^20) (default {DEFAULT_MAX_SHARD_SIZE})",
    )
    parser.add_argument("--revision", default=None, help="branch, tag or commit, for a Hub ROOT")
    parser.add_argument(
        "--repo-id", default=None, help=f"Hub repository named in the card's loading example and the printed upload command (default {DEFAULT_HUB_REPO})",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="export into a folder that is not empty, removing the files under data/ the new card does not list",
    )


def run(args: argparse.Namespace) -> int:
    from agenthorizon.data.export import export_release

    summary = export_release(
        args.root,
        args.out,
        configs=args.configs,
        images=args.images,
        dev_groups=args.dev_groups,
        max_shard_size=args.max_shard_size,
        repo_id=args.repo_id,
        revision=args.revision,
        overwrite=args.overwrite,
        progress=True,
    )
    for name, export in summary.configs.items():
        counts = export.counts
        print(
            f"{name}: {counts['n']} items ({counts['positive']} positive, {counts['negative']} negative) "
            f"in {len(export.files)} shard(s) under {summary.out / 'data' / name}"
        )
    skipped = sum(len(export.skipped_screenshots) for export in summary.configs.values())
    if skipped:
        print(f"{skipped} screenshot(s) do not decode as images and were exported as null (see the warning)")
    print(f"dataset card: {summary.card}")
    if summary.eval_yaml is not None:
        print(f"proposed eval.yaml (Hub Eval Results: tasks {', '.join(t for t in ('AH', 'AH-S', 'AH-D') if t in summary.configs)}): {summary.eval_yaml}")
    print(f'load with: datasets.load_dataset("{summary.out}", "{next(iter(summary.configs))}", split="test")')
    if summary.synthetic:
        # Nothing to publish: the card says the data is synthetic, and no upload command is offered.
        print("the release is a generated sample corpus: the export is synthetic data (its card says so), not for publishing")
        return 0
    print("publish it (opens a pull request on the Hub repo; log in first with `hf auth login`):")
    print("  " + shlex.join(upload_command(args.repo_id or DEFAULT_HUB_REPO, summary.out)))
    return 0


def upload_command(repo_id: str, out: str | os.PathLike[str]) -> list[str]:
    """The Hub's own CLI command that proposes the export folder ``out`` to ``repo_id`` as a pull request.

    >>> upload_command("ServiceNow/AgentHorizon", "out")
    ['hf', 'upload', 'ServiceNow/AgentHorizon', 'out', '--repo-type', 'dataset', '--create-pr']
    """
    return ["hf", "upload", repo_id, os.fspath(out), "--repo-type", "dataset", "--create-pr"]
