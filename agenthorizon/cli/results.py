"""``agenthorizon results RUN...``: Eval Results entries, a judgments dataset and a submission bundle for the Hub.

Writes them into ``--out`` (a new folder; a temporary one when only ``--push``
is given): ``.eval_results/*.yaml`` for the judge's model repo, and ``judgments/``
(the dataset and the bundle). ``--push REPO`` uploads ``judgments/`` as the Hub
dataset repo ``REPO``.
"""

from __future__ import annotations

import argparse

from agenthorizon.cli._common import add_bootstrap_arguments
from agenthorizon.schema import DEFAULT_HUB_REPO

HELP = "Write Hub Eval Results entries, a judgments dataset and a submission bundle for judge runs (--push uploads)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.cli._data import add_data_argument

    parser.add_argument("runs", nargs="+", metavar="RUN", help="run folders written by `agenthorizon judge`, one per config")
    add_data_argument(parser)
    parser.add_argument("--out", metavar="DIR", help="new folder to write into (default: a temporary one, with --push)")
    parser.add_argument("--push", metavar="REPO", help="upload the judgments dataset (with the bundle) to this Hub dataset repo")
    parser.add_argument("--dataset-id", default=DEFAULT_HUB_REPO, metavar="REPO",
                        help=f"the benchmark's Hub dataset id the entries name (default {DEFAULT_HUB_REPO})")
    parser.add_argument("--revision", default=None, help="the release revision (default: the Hub commit when --data was fetched)")
    parser.add_argument("--bundle-url", default=None, metavar="URL", help="link to the bundle in the entries (default with --push: its place in REPO)")
    parser.add_argument("--date", default=None, help="ISO-8601 date of the evaluation, written in the entries")
    add_bootstrap_arguments(parser, default=1000)


def run(args: argparse.Namespace) -> int:
    import tempfile

    from agenthorizon.cli._data import resolve_data
    from agenthorizon.report.publish import bundle_url, publish_results

    if args.out is None and args.push is None:
        raise ValueError("results: nowhere to write; expected --out DIR, --push REPO or both")
    root = resolve_data(args.data, "all", labels_only=True, revision=args.revision)
    source_url = args.bundle_url
    if source_url is None and args.push:
        from huggingface_hub import constants

        source_url = bundle_url(constants.ENDPOINT, args.push)
    with tempfile.TemporaryDirectory(prefix="agenthorizon-results-") as scratch:
        out = args.out or f"{scratch}/results"
        summary = publish_results(
            args.runs, root, out, dataset_id=args.dataset_id, revision=args.revision, source_url=source_url,
            bootstrap=args.bootstrap, seed=args.seed, date=args.date,
        )
        for found in summary.scores:
            interval = found.interval
            said = "" if interval is None else f" (95% CI {interval[0]:.4f}-{interval[1]:.4f})"
            value = "n/a" if found.balanced_accuracy is None else f"{found.balanced_accuracy:.4f}"
            print(f"{found.run.label} on {found.config}: balanced accuracy {value}{said}, {found.n_items} items")
        for note in summary.notes:
            print(f"note: {note}")
        if args.out:
            for path in summary.eval_results:
                print(f"eval results (checked against the Hub's format): {path}")
            print(f"judgments dataset: {summary.judgments} (bundle: {summary.bundle})")
            print(f"check the bundle with: agenthorizon verify-results {summary.bundle} --data {args.data}")
        if args.push:
            from agenthorizon.report.judgments import push_judgments

            print(f"uploaded the judgments dataset to {args.push}: {push_judgments(summary.judgments, args.push)}")
            if not args.out:
                print("the .eval_results files were not kept (no --out): pass --out to write them for the model repo")
    return 0
