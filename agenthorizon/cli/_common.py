"""What several commands share: argument types, the item selection, reading runs and references.

One definition each: ``judge``, ``score``, ``leaderboard``, ``report`` and
``plot`` take their selection options from :func:`add_selection_arguments`,
check counts with :func:`non_negative_int`, and rebuild the selection a run
was made on with :func:`resolve_selection`, so no two commands can pick a
different default config or honour ``--exclude-dev`` differently.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from agenthorizon.schema import CONFIG_AH_D, CONFIG_NAMES, DEV_GROUPS, LABEL_FIELDS, SPLIT_NAME

EXIT_OK = 0
"""``judge`` / ``score``: every item has a result (a valid verdict, or the judge's own invalid answer)."""
EXIT_INCOMPLETE = 1
"""``judge`` / ``score``: some items errored, are missing or hold untrusted results; re-running ``judge`` resumes them."""
EXIT_USAGE = 2
"""Any command: a usage or input error (bad option, missing file, contradicting run record)."""

# Reasons an item has no result yet that a resumed run would redo.
RESUMABLE_REASONS = ("missing", "error", "id_mismatch", "judge_mismatch")

DEFAULT_CONFIG = CONFIG_AH_D
"""The config ``judge`` runs on, and ``score`` scores against, when neither a
run record nor ``--config`` names one: the development set, so a first try is
cheap and never touches the test configs by accident."""

# Slices that read fields of the trajectory files; the others are label fields.
_TRAJECTORY_SLICES = {"os", "step_bucket", "num_applications"}
_SHOWN = 10


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0, or a usage error saying so.

    >>> non_negative_int("3")
    3
    >>> non_negative_int("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an integer >= 0, got '-1'
    """
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


def add_selection_arguments(parser: argparse.ArgumentParser, *, from_run: bool) -> None:
    """``--config``, ``--exclude-dev``, ``--dev-groups`` and ``--dev-manifest``.

    With ``from_run`` (commands that read runs) every option defaults to
    "what the run recorded" and is an error when it contradicts the run;
    otherwise (``judge``) they default to :data:`DEFAULT_CONFIG`, all items,
    and 50 dev groups.
    """
    recorded = " (default: the run's, else {})"
    parser.add_argument(
        "--config",
        choices=CONFIG_NAMES,
        default=None if from_run else DEFAULT_CONFIG,
        help="config of the items" + (recorded.format(DEFAULT_CONFIG) if from_run else f" (default {DEFAULT_CONFIG})"),
    )
    parser.add_argument(
        "--exclude-dev",
        action="store_true",
        default=None if from_run else False,
        help="leave the AH-D items out of AH / AH-S / all",
    )
    parser.add_argument(
        "--dev-groups",
        type=non_negative_int,
        default=None if from_run else DEV_GROUPS,
        metavar="N",
        help=f"pair groups in AH-D (default {DEV_GROUPS})",
    )
    parser.add_argument("--dev-manifest", metavar="FILE", help="file of trajectory ids defining AH-D instead")


def add_bootstrap_arguments(parser: argparse.ArgumentParser, *, default: int) -> None:
    """``--bootstrap N`` (resamples, >= 0) and ``--seed``."""
    parser.add_argument(
        "--bootstrap", type=non_negative_int, default=default, metavar="N",
        help=f"pair-clustered bootstrap resamples (default {default}; 0: none)",
    )
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")


def selection_options(args: argparse.Namespace) -> dict[str, Any]:
    """The selection options given on the command line (``None``: not given)."""
    return {
        "config": args.config,
        "exclude_dev": args.exclude_dev,
        "dev_groups": args.dev_groups,
        "dev_manifest": getattr(args, "dev_manifest", None),
    }


def resolve_selection(args: argparse.Namespace, recorded: dict[str, Any]) -> Any:
    """The selection to read runs with: the runs' recorded one, checked against the options given.

    See :func:`agenthorizon.release.splits.resolve_selection`; results without
    a run record fall back to the options, then to :data:`DEFAULT_CONFIG`.
    """
    from agenthorizon.release.splits import resolve_selection as resolve

    return resolve(recorded, selection_options(args), default_config=DEFAULT_CONFIG)


def load_selection_references(
    root: str | os.PathLike[str], selection: Any, slices: Sequence[str] = ()
) -> tuple[Any, list[dict[str, Any]]]:
    """References to score with, and the label rows of the selection.

    Label rows suffice unless a slice reads the trajectory files (os, steps,
    applications); then the dataset itself is loaded (without images).
    """
    if _TRAJECTORY_SLICES.intersection(slices):
        import agenthorizon

        dataset = agenthorizon.load_dataset(root, selection.config, split=SPLIT_NAME, images=None, **selection.load_options())
        label_rows = dataset.select_columns(list(LABEL_FIELDS)).to_list()
        return dataset, label_rows
    from agenthorizon.release.files import load_references

    rows = load_references(root, selection.config, **selection.load_options())
    return rows, rows


def manifest_of(config: str, label_rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``{"config", "n_items", "sha256"}`` of the labels a report was scored against."""
    from agenthorizon.release.labels import manifest_sha256

    return {"config": config, "n_items": len(label_rows), "sha256": manifest_sha256(label_rows)}


def manifest_warnings(recorded: dict[str, Any], manifest: dict[str, Any]) -> list[str]:
    """A note for each run whose recorded label manifest differs from the one scored against."""
    notes = []
    for folder, selection in recorded.items():
        sha = None if selection is None else selection.label_manifest_sha256
        if sha and sha != manifest["sha256"]:
            notes.append(
                f"{folder}: run.json records label manifest {sha[:12]}..., but {manifest['config']} here has "
                f"{manifest['sha256'][:12]}...; its numbers are not comparable to the published ones"
            )
    return notes


def predictions_from_results(result_set: Any, wanted_ids: set[str]) -> tuple[dict[str, Any], list[str]]:
    """Predictions by trajectory id for the ``wanted_ids``, and the unexpected ids."""
    return result_set.predictions(wanted_ids), sorted(result_set.ids() - wanted_ids)


def ignored_files(result_set: Any) -> list[str]:
    """Files in result directories that are neither results nor run records (nor locks)."""
    from agenthorizon.judging.runs.folder import LOCK_SUFFIX
    from agenthorizon.judging.runs.records import is_record_name

    return [
        path for path in result_set.ignored
        if not is_record_name(Path(path).name) and not Path(path).name.endswith(LOCK_SUFFIX)
    ]


def _listing(values: Sequence[str]) -> str:
    return ", ".join(values[:_SHOWN]) + (", ..." if len(values) > _SHOWN else "")


def result_notes(result_set: Any, unexpected: Sequence[str], n_missing: int) -> list[str]:
    """Provenance lines about the result files: missing, unreadable, untrusted, unexpected, ignored."""
    notes = [f"Results found: {len(result_set.ids())}; items without a result (scored as missing): {n_missing}"]
    if result_set.unreadable:
        notes.append(f"Unreadable result files (scored as malformed_json): {len(result_set.unreadable)}")
    for reason, what in (("id_mismatch", "holding another item's result"), ("judge_mismatch", "written by another judge")):
        messages = [message for r, message in result_set.untrusted.values() if r == reason]
        if messages:
            notes.append(f"Result files {what} (scored as {reason}): {len(messages)}: {_listing(messages)}")
    if unexpected:
        notes.append(f"Unexpected results for items outside the config (not scored): {len(unexpected)}: {_listing(list(unexpected))}")
    names = [Path(path).name for path in ignored_files(result_set)]
    if names:
        notes.append(f"Ignored files (not <uuid>.json): {len(names)}: {_listing(names)}")
    return notes


def score_noting_shapes(predictions: Any, references: Any, **options: Any) -> tuple[Any, list[str]]:
    """:func:`agenthorizon.score`, and its prediction-shape warnings as report notes.

    Scores stay strict; the notes say which predictions look like a known
    wrong shape (0/1, "true", {"prediction": b}) and how to fix them.
    """
    import warnings

    from agenthorizon.scoring.metrics import score
    from agenthorizon.scoring.predictions import PredictionShapeWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PredictionShapeWarning)
        report = score(predictions, references, **options)
    notes = [f"Warning: {w.message}" for w in caught if issubclass(w.category, PredictionShapeWarning)]
    for other in (w for w in caught if not issubclass(w.category, PredictionShapeWarning)):
        warnings.warn_explicit(other.message, other.category, other.filename, other.lineno)
    return report, notes


def incomplete(counts: dict[str, int], command: str) -> int:
    """:data:`EXIT_INCOMPLETE` with one line on standard error when ``counts`` (reason -> items) is not all zero.

    ``command`` is what resumes them, named in the line.
    """
    counts = {reason: count for reason, count in counts.items() if count}
    if not counts:
        return EXIT_OK
    detail = ", ".join(f"{reason} {count}" for reason, count in counts.items())
    print(
        f"{sum(counts.values())} item(s) have no valid result yet ({detail}); they score as invalid. "
        f"Re-running {command} resumes them.",
        file=sys.stderr,
    )
    return EXIT_INCOMPLETE


def write_output(text: str, out: str | None) -> None:
    """``text`` to the file ``out``, or to standard output."""
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
