"""Everything ``agenthorizon results`` writes for a judge's runs, in one folder ready to upload.

:func:`publish_results` writes::

    OUT/.eval_results/agenthorizon_<task>.yaml   one per run on AH, AH-S or AH-D: copy into the model repo
    OUT/judgments/README.md, data/*.parquet      the judgments dataset (upload as a dataset repo)
    OUT/judgments/bundle/                        the submission bundle (``verify-results`` checks it)

Every ``.eval_results`` file is read back from disk and checked against the
Hub's documented form (:func:`agenthorizon.data.hub_results.check_eval_results`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from agenthorizon.report.bundle import DEFAULT_BOOTSTRAP, RunScore, make_bundle
from agenthorizon.data.hub_results import EVAL_TASKS, check_eval_results, eval_result_entry
from agenthorizon.report.judgments import write_judgments

__all__ = ["PublishSummary", "bundle_url", "publish_results", "release_revision"]

BUNDLE_DIR = "bundle"
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


@dataclass
class PublishSummary:
    """What :func:`publish_results` wrote: the eval-results files, the judgments folder and bundle, and notes."""

    eval_results: list[Path] = field(default_factory=list)
    judgments: Path | None = None
    bundle: Path | None = None
    scores: list[RunScore] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def release_revision(data_root: str | os.PathLike[str]) -> str | None:
    """The Hub commit of a release root fetched into the huggingface_hub cache (``.../snapshots/<commit>``), else None.

    >>> release_revision("/c/datasets--ServiceNow--AgentHorizon/snapshots/" + "a" * 40)
    'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
    >>> release_revision("release") is None
    True
    """
    path = Path(data_root)
    return path.name if path.parent.name == "snapshots" and _COMMIT.fullmatch(path.name) else None


def bundle_url(endpoint: str, repo_id: str) -> str:
    """Where a bundle pushed in the judgments dataset ``repo_id`` is browsed.

    >>> bundle_url("https://huggingface.co", "me/judgments")
    'https://huggingface.co/datasets/me/judgments/tree/main/bundle'
    """
    return f"{endpoint.rstrip('/')}/datasets/{repo_id}/tree/main/{BUNDLE_DIR}"


def _file_name(task: str, label: str, taken: set[str]) -> str:
    name = f"agenthorizon_{task}.yaml"
    if name in taken:  # a second run on the same task is another variant: its own file, as the Hub asks
        name = f"agenthorizon_{task}_{re.sub(r'[^A-Za-z0-9]+', '_', label).strip('_').lower()}.yaml"
    taken.add(name)
    return name


def publish_results(
    run_dirs: Sequence[str | os.PathLike[str]],
    data_root: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    dataset_id: str,
    revision: str | None = None,
    source_url: str | None = None,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    date: str | None = None,
) -> PublishSummary:
    """Score the runs into a bundle, write the judgments dataset beside it and one ``.eval_results`` file per task run."""
    import yaml

    folder = Path(out)
    judgments = folder / "judgments"
    revision = revision or release_revision(data_root)
    bundle, scores = make_bundle(run_dirs, data_root, judgments / BUNDLE_DIR, bootstrap=bootstrap, seed=seed,
                                 dataset_id=dataset_id, revision=revision)
    summary = PublishSummary(judgments=write_judgments(scores, judgments, bundle=BUNDLE_DIR), bundle=bundle, scores=scores)
    from agenthorizon.release.sample.marker import is_sample_corpus

    if is_sample_corpus(data_root):
        summary.notes.append("the release is a generated sample corpus: these numbers are synthetic, not for publishing")
    if revision is None:
        summary.notes.append("the release revision is unknown (a local root): the entries name none; pass --revision")
    if source_url is None:
        summary.notes.append("no link to the bundle in the entries: pass --push REPO (or --bundle-url) to add one")
    taken: set[str] = set()
    for found in scores:
        if found.config not in EVAL_TASKS:
            summary.notes.append(f"{found.run.path}: config {found.config} is no leaderboard task "
                                 f"({', '.join(EVAL_TASKS)}): in the judgments dataset only")
            continue
        if found.balanced_accuracy is None:
            summary.notes.append(f"{found.run.path}: no balanced accuracy (no positives or no negatives): no entry")
            continue
        entry = eval_result_entry(
            dataset_id, found.config, found.balanced_accuracy, revision=revision, interval=found.interval,
            n_items=found.n_items, source_url=source_url, source_name="AgentHorizon submission bundle" if source_url else None,
            date=date, notes=f"judge {found.run.label}",
        )
        path = folder / ".eval_results" / _file_name(found.config, found.run.label, taken)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump([entry], sort_keys=False, allow_unicode=True), encoding="utf-8")
        check_eval_results(yaml.safe_load(path.read_text(encoding="utf-8")), where=str(path), task_ids=EVAL_TASKS)
        summary.eval_results.append(path)
    return summary
