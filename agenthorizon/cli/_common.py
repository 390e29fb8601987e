"""What several commands share: argument types, the item selection options, exit codes, output.

``judge``, ``score``, ``leaderboard``, ``report`` and ``plot`` take their
selection options from :func:`add_selection_arguments` and rebuild a run's
selection with :func:`resolve_selection`, so all honour them alike.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agenthorizon.schema import CONFIG_AH_D, CONFIG_NAMES, DEV_GROUPS

EXIT_OK = 0
"""``judge`` / ``score``: every item has a result (a valid verdict, or the judge's own invalid answer)."""
EXIT_INCOMPLETE = 1
"""``judge`` / ``score``: some items errored, are missing or hold untrusted results; re-running ``judge`` resumes them."""
EXIT_USAGE = 2
"""Any command: a usage or input error (bad option, missing file, contradicting run record)."""

# Reasons an item has no result yet that a resumed run would redo.
RESUMABLE_REASONS = ("missing", "error", "id_mismatch", "judge_mismatch")

DEFAULT_CONFIG = CONFIG_AH_D
"""The config ``judge`` and ``score`` use when neither a run record nor ``--config``
names one: the development set, so a first try never touches the test configs."""


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


def byte_size(text: str) -> int:
    """argparse type: a number of bytes (``500MB`` = 10^6, ``512MiB`` = ``512M`` = 2^20), or a usage error.

    >>> byte_size("500MB"), byte_size("1G")
    (500000000, 1073741824)
    """
    from agenthorizon.util.sizes import parse_size

    try:
        return parse_size(text, "size")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("size: ")) from None


def add_selection_arguments(parser: argparse.ArgumentParser, *, from_run: bool) -> None:
    """``--config``, ``--exclude-dev``, ``--dev-groups`` and ``--dev-manifest``.

    With ``from_run`` every option defaults to what the run recorded and is an
    error when it contradicts it; otherwise (``judge``) they default to
    :data:`DEFAULT_CONFIG`, all items, and ``DEV_GROUPS`` dev groups.
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


def add_model_alias_argument(parser: argparse.ArgumentParser) -> None:
    """``--model-alias NAME=MODEL`` (repeatable): the harness comparison's model names (:mod:`agenthorizon.report.harnesses`)."""
    parser.add_argument(
        "--model-alias", action="append", default=[], metavar="NAME=MODEL",
        help="for the harness comparison: a run recording model NAME counts as MODEL (e.g. openai/gpt-5.5=gpt-5.5); "
        "repeatable",
    )


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

    Results without a run record fall back to the options, then to :data:`DEFAULT_CONFIG`.
    """
    from agenthorizon.report.references import run_selection

    return run_selection(recorded, selection_options(args), default_config=DEFAULT_CONFIG)


def flag_wording(error: BaseException) -> str:
    """The message of ``error`` for the command line: a selection conflict names the flag to drop or pass.

    >>> from agenthorizon.release.item_selection import SelectionConflict
    >>> flag_wording(SelectionConflict("config", "AH-S", "AH", "runs/a"))
    "--config AH-S contradicts the recorded config 'AH' of runs/a; drop --config to use the run's"
    >>> flag_wording(SelectionConflict("config", None, None, None))
    'the runs have no run.json naming their config; pass --config'
    >>> flag_wording(ValueError("bad"))
    'bad'
    """
    from agenthorizon.release.item_selection import SelectionConflict
    from agenthorizon.release.output_folder import FolderNotEmpty

    if isinstance(error, FolderNotEmpty):
        return error.worded("--overwrite")
    if not isinstance(error, SelectionConflict):
        return str(error)
    flag = "--" + error.field.replace("_", "-")
    if error.run is None:
        return f"the runs have no run.json naming their {error.field}; pass {flag}"
    return (
        f"{flag} {error.given} contradicts the recorded {error.field} {error.recorded!r} of {error.run}; "
        f"drop {flag} to use the run's"
    )


def incomplete(counts: dict[str, int], command: str | None, *, advice: str | None = None) -> int:
    """:data:`EXIT_INCOMPLETE` with one line on standard error when ``counts`` (reason -> items) is not all zero.

    ``command`` is what resumes them, named in the line (``None``: no command
    can); ``advice``, when given, replaces the line's last sentence.
    """
    counts = {reason: count for reason, count in counts.items() if count}
    if not counts:
        return EXIT_OK
    detail = ", ".join(f"{reason} {count}" for reason, count in counts.items())
    if advice is None:
        advice = f"Re-running {command} resumes them." if command else "Add their predictions to complete the score."
    print(
        f"{sum(counts.values())} item(s) have no valid result yet ({detail}); they score as invalid. {advice}",
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
