"""A submission bundle: run folders, their scores and the release's label manifest hash, checkable by anyone.

:func:`make_bundle` copies each run's ``run.json`` and result files into
``BUNDLE/runs/<n>-<name>/`` and writes ``BUNDLE/bundle.json``: the scores, the
bootstrap settings, each run's label manifest sha256 and every file's sha256.
:func:`verify_bundle` checks and rescores it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from agenthorizon.judging.runs.folder import is_record_name, is_result_name
from agenthorizon.report.notes import telemetry_from_results
from agenthorizon.report.references import LABEL_ROW_FIELDS
from agenthorizon.report.runs import JudgedRun, load_runs
from agenthorizon.scoring.metrics import score
from agenthorizon.util.digests import sha256_of_file

__all__ = [
    "BUNDLE_FILE",
    "BundleError",
    "RunScore",
    "Verification",
    "make_bundle",
    "read_bundle",
    "score_run",
    "verify_bundle",
]

BUNDLE_FILE = "bundle.json"
BUNDLE_FORMAT = "agenthorizon-submission"
BUNDLE_VERSION = 1
DEFAULT_BOOTSTRAP = 1000


class BundleError(ValueError):
    """A bundle that cannot be trusted: altered, of another release, unreadable, or scoring differently."""


@dataclass(frozen=True)
class RunScore:
    """One run scored against a release: its config, label manifest and metric values (JSON-ready).

    ``values``: :meth:`~agenthorizon.scoring.metrics.ScoreReport.metric_values`
    plus ``n``, ``n_positive``, ``n_negative`` and ``intervals``, after one JSON
    round trip, so that two scorings compare as JSON text.
    """

    run: JudgedRun
    config: str
    label_manifest_sha256: str
    n_items: int
    values: dict[str, Any]

    @property
    def balanced_accuracy(self) -> float | None:
        return self.values["balanced_accuracy"]

    @property
    def interval(self) -> tuple[float, float] | None:
        found = (self.values.get("intervals") or {}).get("balanced_accuracy")
        return None if found is None else (found[0], found[1])


def _as_recorded(values: dict[str, Any], recorded: Any) -> dict[str, Any]:
    """``values`` without the declared metrics that ``recorded`` (an older bundle) lacks; its own numbers all stay compared.

    >>> _as_recorded({"n": 2, "failure_precision": 1.0, "intervals": {"failure_precision": [1, 1]}},
    ...              {"n": 2, "intervals": {}})
    {'n': 2, 'intervals': {}}
    """
    from agenthorizon.scoring.metric_list import METRICS  # rescoring loaded scoring already

    if not isinstance(recorded, dict):
        return values
    added = {spec.name for spec in METRICS} - recorded.keys()
    kept = {key: value for key, value in values.items() if key not in added}
    if isinstance(kept.get("intervals"), dict) and isinstance(recorded.get("intervals"), dict):
        kept["intervals"] = {key: value for key, value in kept["intervals"].items()
                             if key not in added or key in recorded["intervals"]}
    return kept


def _canonical(values: Any) -> str:
    # allow_nan: a rate may be NaN in no case, but should one appear it must still compare as text.
    return json.dumps(values, sort_keys=True, allow_nan=True)


def score_run(path: str | os.PathLike[str], data_root: str | os.PathLike[str], *, bootstrap: int, seed: int) -> RunScore:
    """Score one run folder strictly against its recorded selection of ``data_root`` (as ``score`` does)."""
    runs = load_runs([path], data_root, images=None, fields=LABEL_ROW_FIELDS)
    run = runs.runs[0]
    wanted = {row["trajectory_id"] for row in runs.rows}
    report = score(
        run.results.predictions(wanted), runs.rows, bootstrap=bootstrap, seed=seed,
        telemetry=telemetry_from_results(run.results, wanted),
    )
    values = {
        **report.metric_values(), "n": report.n, "n_positive": report.n_positive, "n_negative": report.n_negative,
        "intervals": None if report.intervals is None else {k: None if v is None else list(v) for k, v in report.intervals.items()},
    }
    return RunScore(run=run, config=runs.config, label_manifest_sha256=runs.manifest_sha256, n_items=len(runs.rows),
                    values=json.loads(_canonical(values)))


def _run_files(run_dir: Path) -> list[Path]:
    """The files a run folder is scored from: its run records and ``<uuid>.json`` results."""
    if not run_dir.is_dir():
        raise FileNotFoundError(f"{run_dir}: no such run folder; expected a folder written by `agenthorizon judge`")
    return sorted(p for p in run_dir.iterdir() if p.is_file() and (is_record_name(p.name) or is_result_name(p)))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "run"


def _files(bundle: Path) -> dict[str, str]:
    return {
        path.relative_to(bundle).as_posix(): sha256_of_file(path)
        for path in sorted(bundle.rglob("*")) if path.is_file() and path.relative_to(bundle).as_posix() != BUNDLE_FILE
    }


def make_bundle(
    run_dirs: Sequence[str | os.PathLike[str]],
    data_root: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    dataset_id: str | None = None,
    revision: str | None = None,
) -> tuple[Path, list[RunScore]]:
    """Write a submission bundle of ``run_dirs`` to the new folder ``out``; its path and the runs' scores.

    Every run is scored from its copy in the bundle, as :func:`verify_bundle` rescores it.
    """
    from agenthorizon import __version__

    bundle = Path(out)
    if bundle.exists() and any(bundle.iterdir()):
        raise FileExistsError(f"{bundle}: exists and is not empty; expected a new folder for the bundle")
    if not run_dirs:
        raise ValueError("no run folder given; expected one or more")
    entries, scores = [], []
    for index, raw in enumerate(run_dirs, start=1):
        source = Path(raw)
        relative = f"runs/{index:02d}-{_slug(source.name)}"
        target = bundle / relative
        target.mkdir(parents=True)
        for path in _run_files(source):
            shutil.copy2(path, target / path.name)
        found = score_run(target, data_root, bootstrap=bootstrap, seed=seed)
        scores.append(found)
        entries.append({"path": relative, "label": found.run.label, "config": found.config,
                        "label_manifest_sha256": found.label_manifest_sha256, "n_items": found.n_items,
                        "scores": found.values})
    document = {
        "format": BUNDLE_FORMAT, "format_version": BUNDLE_VERSION, "agenthorizon_version": __version__,
        "dataset": {"id": dataset_id, "revision": revision},
        "scoring": {"bootstrap": bootstrap, "seed": seed},
        "runs": entries,
        "files": _files(bundle),
    }
    (bundle / BUNDLE_FILE).write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return bundle, scores


def read_bundle(bundle: str | os.PathLike[str]) -> dict[str, Any]:
    """``bundle.json`` of a bundle folder, checked for its format; :class:`BundleError` otherwise."""
    path = Path(bundle) / BUNDLE_FILE
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BundleError(f"{path}: not found; expected a folder made by `agenthorizon results` (it holds {BUNDLE_FILE})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BundleError(f"{path}: not valid JSON ({error}); the bundle was altered or damaged") from None
    if not isinstance(document, dict) or document.get("format") != BUNDLE_FORMAT:
        raise BundleError(f"{path}: not an AgentHorizon submission bundle (format {document.get('format') if isinstance(document, dict) else None!r})")
    if document.get("format_version") != BUNDLE_VERSION:
        raise BundleError(f"{path}: format_version {document.get('format_version')!r}; this agenthorizon reads {BUNDLE_VERSION}")
    for key in ("runs", "files", "scoring"):
        if not isinstance(document.get(key), (list if key == "runs" else dict)):
            raise BundleError(f"{path}: {key} missing or of the wrong type; the bundle was altered or damaged")
    return document


@dataclass
class Verification:
    """What :func:`verify_bundle` checked: per run its label, config and balanced accuracy, all reproduced."""

    runs: list[dict[str, Any]] = field(default_factory=list)


def _check_files(bundle: Path, recorded: dict[str, str]) -> None:
    found = _files(bundle)
    changed = sorted(name for name in recorded.keys() & found.keys() if recorded[name] != found[name])
    added, removed = sorted(found.keys() - recorded.keys()), sorted(recorded.keys() - found.keys())
    problems = [f"{label}: {', '.join(names[:5])}{' ...' if len(names) > 5 else ''}"
                for label, names in (("changed", changed), ("added", added), ("removed", removed)) if names]
    if problems:
        raise BundleError(f"{bundle}: altered after it was made ({'; '.join(problems)}); refused, its numbers cannot be trusted")


def verify_bundle(bundle: str | os.PathLike[str], data_root: str | os.PathLike[str]) -> Verification:
    """Check a bundle against the release at ``data_root`` and rescore it; :class:`BundleError` on any difference.

    1. every file's sha256 is the one recorded (nothing changed, added or removed);
    2. each run's label manifest sha256 on ``data_root`` is the recorded one (same release);
    3. rescoring with the recorded bootstrap and seed gives the same JSON text of every number (bit for bit).
    """
    folder = Path(bundle)
    document = read_bundle(folder)
    _check_files(folder, document["files"])
    scoring = document["scoring"]
    checked = Verification()
    for index, entry in enumerate(document["runs"]):
        if not isinstance(entry, dict) or not {"path", "label", "label_manifest_sha256", "scores"} <= entry.keys():
            raise BundleError(f"{folder / BUNDLE_FILE}: runs[{index}] lacks path, label, label_manifest_sha256 or scores; "
                              "the bundle was altered or damaged")
        where = f"{folder / str(entry.get('path'))}"
        try:
            found = score_run(folder / entry["path"], data_root, bootstrap=scoring["bootstrap"], seed=scoring["seed"])
        except ValueError as error:
            raise BundleError(
                f"{where}: cannot be scored on {data_root} ({error}); the bundle was made on the release whose "
                f"{entry.get('config')} label manifest is {str(entry.get('label_manifest_sha256'))[:12]}..."
            ) from None
        if found.label_manifest_sha256 != entry["label_manifest_sha256"]:
            raise BundleError(
                f"{where}: made on another release: its {found.config} label manifest was "
                f"{entry['label_manifest_sha256'][:12]}..., {data_root} has {found.label_manifest_sha256[:12]}...; "
                "verify it with --data pointing at the release it was made on"
            )
        values = _as_recorded(found.values, entry["scores"])
        if _canonical(values) != _canonical(entry["scores"]):
            differ = sorted(key for key in values.keys() | entry["scores"].keys()
                            if _canonical(values.get(key)) != _canonical(entry["scores"].get(key)))
            raise BundleError(f"{where}: rescoring gives other numbers for {', '.join(differ)}; the bundle's scores were altered")
        checked.runs.append({"path": entry["path"], "label": entry["label"], "config": found.config,
                             "balanced_accuracy": found.balanced_accuracy, "interval": found.interval})
    return checked
