"""``agenthorizon info ROOT``: what each config of a release holds.

The step-count 90th percentile is numpy's default ``"linear"`` method (Hyndman and Fan type 7).
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Sequence

from agenthorizon.report.style import mistake_type_key
from agenthorizon.schema import CONFIG_NAMES, DEV_GROUPS, MISTAKE_TYPES, UNTYPED

HELP = "Print items, labels, mistake types, step counts and label manifest sha256 of every config."

PERCENTILE_METHOD = "linear"
"""numpy.percentile method used for the 90th percentile (numpy's default, type 7)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.cli._data import add_data_argument

    add_data_argument(parser, positional=True)
    parser.add_argument("--format", default="table", choices=("table", "json"), help="output format (default table)")
    parser.add_argument(
        "--dev-groups", type=int, default=DEV_GROUPS, metavar="N", help=f"pair groups in AH-D (default {DEV_GROUPS})"
    )
    parser.add_argument("--dev-manifest", metavar="FILE", help="file of trajectory ids defining AH-D")


def release_info(root: str, *, dev_groups: int = DEV_GROUPS, dev_manifest: str | None = None) -> dict[str, Any]:
    """The per-config summary of the release at ``root`` (what ``info --format json`` prints).

    Returns ``{"root", "manifest_sha256", "percentile_method", "configs": {name: {...}}}``
    where each config has ``items``, ``positives``, ``negatives``,
    ``mistake_types`` (canonical name -> count, ``""`` for untyped negatives),
    ``steps`` (``median``, ``p90``, ``max``; null for an empty config) and
    ``manifest_sha256``.
    """
    import numpy as np

    from agenthorizon.release.labels import count_labels, manifest_sha256
    from agenthorizon.schema import json_relpath
    from agenthorizon.release.files import dev_manifest_path, read_dev_manifest, read_labels, read_trajectory
    from agenthorizon.release.item_selection import Selection
    from agenthorizon.release.splits import select_rows

    from agenthorizon.cli._data import resolve_data

    # info reads every item's trajectory (its step count), never a screenshot.
    release = resolve_data(root, "all", dev_groups=dev_groups, dev_manifest=dev_manifest)
    rows = read_labels(release)
    manifest = None if dev_manifest is None else dev_manifest_path(dev_manifest)
    manifest_ids = None if manifest is None else read_dev_manifest(manifest)
    num_steps = {
        row["trajectory_id"]: len(read_trajectory(release, release / json_relpath(row["trajectory_id"]), row["location"])["steps"])
        for row in rows
    }
    configs = {}
    for config in CONFIG_NAMES:
        selection = Selection(config, dev_groups=dev_groups, dev_manifest=manifest)
        selected = select_rows(rows, selection, dev_manifest_ids=manifest_ids)
        counts = np.array([num_steps[row["trajectory_id"]] for row in selected], dtype=float)
        labels = count_labels(selected)
        configs[config] = {
            "items": labels.items,
            "positives": labels.positives,
            "negatives": labels.negatives,
            "mistake_types": dict(labels.mistake_types),
            "steps": {
                "median": float(np.median(counts)) if counts.size else None,
                "p90": float(np.percentile(counts, 90, method=PERCENTILE_METHOD)) if counts.size else None,
                "max": int(counts.max()) if counts.size else None,
            },
            "manifest_sha256": manifest_sha256(selected),
        }
    return {
        "root": str(release),
        "manifest_sha256": manifest_sha256(rows),
        "percentile_method": PERCENTILE_METHOD,
        "configs": configs,
    }


def format_table(info: dict[str, Any]) -> str:
    """A fixed-width table of :func:`release_info`, then each config's manifest sha256."""
    header = ["config", "items", "pos", "neg", *map(mistake_type_key, MISTAKE_TYPES), "untyped", "steps_med", "steps_p90", "steps_max"]
    lines: list[Sequence[str]] = [header]
    for name, config in info["configs"].items():
        steps = config["steps"]
        lines.append(
            [
                name,
                str(config["items"]),
                str(config["positives"]),
                str(config["negatives"]),
                *(str(config["mistake_types"][t]) for t in MISTAKE_TYPES),
                str(config["mistake_types"][UNTYPED]),
                *("-" if steps[k] is None else f"{steps[k]:g}" for k in ("median", "p90", "max")),
            ]
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = [
        "  ".join(cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(line, widths)))
        for line in lines
    ]
    out.append("")
    out.append(f"release {info['root']}")
    out.append(f"label manifest sha256 (whole release): {info['manifest_sha256']}")
    for name, config in info["configs"].items():
        out.append(f"label manifest sha256 ({name}): {config['manifest_sha256']}")
    out.append(f"steps_p90: numpy.percentile(method={info['percentile_method']!r})")
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    info = release_info(args.root, dev_groups=args.dev_groups, dev_manifest=args.dev_manifest)
    if args.format == "json":
        print(json.dumps(info, indent=2))
    else:
        print(format_table(info))
    return 0
