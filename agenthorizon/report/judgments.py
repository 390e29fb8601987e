"""A judgments dataset: one or more judges' per-item verdicts and run records as Parquet with a dataset card.

:func:`write_judgments` writes a folder plain ``datasets.load_dataset`` reads,
with two configs: ``verdicts`` (one row per run and item) and ``runs`` (one row
per run record). The labels are not in it. :func:`push_judgments` uploads it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from agenthorizon.report.bundle import RunScore
from agenthorizon.util.digests import content_tag

__all__ = ["HubUploadError", "RUN_COLUMNS", "VERDICT_COLUMNS", "judgments_card", "push_judgments", "verdict_rows", "write_judgments"]

_TELEMETRY = ("input_tokens", "output_tokens", "reasoning_tokens", "latency_s", "cost_usd", "attempts", "turns", "tool_calls")
VERDICT_COLUMNS = ("run", "config", "trajectory_id", "judge", "parse_status", "success", "mistake_type", "confidence",
                   "reasoning", "raw_output", "error", "parse_detail", *_TELEMETRY)
RUN_COLUMNS = ("run", "config", "n_items", "label_manifest_sha256", "balanced_accuracy", "status", "run_record")


def verdict_rows(scored: RunScore) -> list[dict[str, Any]]:
    """One row per result of a run (sorted by trajectory id): verdict fields, parse status, telemetry.

    An item without a readable result has no row; the scores still count it as wrong.
    """
    rows = []
    for trajectory_id in sorted(scored.run.results.records):
        record = scored.run.results.records[trajectory_id]
        verdict = dict(record.verdict or {})
        telemetry = record.telemetry
        confidence = verdict.get("confidence")
        rows.append({
            "run": scored.run.label, "config": scored.config, "trajectory_id": trajectory_id, "judge": record.judge,
            "parse_status": record.parse_status,
            "success": verdict.get("success") if isinstance(verdict.get("success"), bool) else None,
            "mistake_type": verdict.get("mistake_type") if isinstance(verdict.get("mistake_type"), str) else None,
            "confidence": float(confidence) if isinstance(confidence, (int, float)) and not isinstance(confidence, bool) else None,
            "reasoning": verdict.get("reasoning") if isinstance(verdict.get("reasoning"), str) else None,
            "raw_output": record.raw_output, "error": record.error, "parse_detail": record.parse_detail,
            **{name: getattr(telemetry, name) for name in _TELEMETRY},
        })
    return rows


def _schema() -> Any:
    import pyarrow as pa

    verdicts = pa.schema([
        ("run", pa.string()), ("config", pa.string()), ("trajectory_id", pa.string()), ("judge", pa.string()),
        ("parse_status", pa.string()), ("success", pa.bool_()), ("mistake_type", pa.string()),
        ("confidence", pa.float64()), ("reasoning", pa.string()), ("raw_output", pa.string()), ("error", pa.string()),
        ("parse_detail", pa.string()), ("input_tokens", pa.int64()), ("output_tokens", pa.int64()),
        ("reasoning_tokens", pa.int64()), ("latency_s", pa.float64()), ("cost_usd", pa.float64()),
        ("attempts", pa.int64()), ("turns", pa.int64()), ("tool_calls", pa.int64()),
    ])
    runs = pa.schema([
        ("run", pa.string()), ("config", pa.string()), ("n_items", pa.int64()), ("label_manifest_sha256", pa.string()),
        ("balanced_accuracy", pa.float64()), ("status", pa.string()), ("run_record", pa.string()),
    ])
    return verdicts, runs


def judgments_card(scores: Sequence[RunScore], *, n_verdicts: int, bundle: str | None,
                   files: Mapping[str, str]) -> str:
    """The README.md of a judgments dataset: YAML configs for ``datasets`` and a short description.

    ``files`` maps each config (``verdicts``, ``runs``) to its data file, relative to the dataset's folder.
    """
    lines = [
        "---",
        "configs:",
        "- config_name: verdicts",
        "  default: true",
        "  data_files:",
        "  - split: test",
        f"    path: {files['verdicts']}",
        "- config_name: runs",
        "  data_files:",
        "  - split: test",
        f"    path: {files['runs']}",
        "tags:",
        "- agenthorizon",
        "- llm-as-a-judge",
        "---",
        "",
        "# AgentHorizon judgments",
        "",
        f"Per-item verdicts of {len(scores)} AgentHorizon judge run(s): {n_verdicts} rows in `verdicts` "
        "(verdict, parse status, raw answer, tokens, latency, cost) and one row per run in `runs` "
        "(the run record as JSON). Ground-truth labels are not included; they are in the benchmark release.",
        "",
        "| run | config | items | balanced accuracy | 95% CI |",
        "|---|---|---|---|---|",
    ]
    for found in scores:
        value = found.balanced_accuracy
        interval = found.interval
        lines.append(f"| {found.run.label} | {found.config} | {found.n_items} | "
                     f"{'n/a' if value is None else f'{value:.4f}'} | "
                     f"{'n/a' if interval is None else f'[{interval[0]:.4f}, {interval[1]:.4f}]'} |")
    lines += ["", "```python", "from datasets import load_dataset", "", 'verdicts = load_dataset("<this repo>", "verdicts", split="test")', "```", ""]
    if bundle:
        lines += [f"The submission bundle in `{bundle}/` reproduces every number: "
                  f"`agenthorizon verify-results {bundle} --data RELEASE`.", ""]
    return "\n".join(lines)


def write_judgments(scores: Sequence[RunScore], out: str | os.PathLike[str], *, bundle: str | None = None) -> Path:
    """Write ``out/README.md`` and ``out/data/{verdicts,runs}-<tag>.parquet`` for the scored runs; ``out``.

    Each data file's name carries a tag of its contents, so ``datasets``
    reads the new rows after a re-write, not its cache of the earlier ones;
    the files of an earlier write are removed.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = Path(out)
    (folder / "data").mkdir(parents=True, exist_ok=True)
    verdict_schema, run_schema = _schema()
    verdicts = [row for found in scores for row in verdict_rows(found)]
    runs = [{
        "run": found.run.label, "config": found.config, "n_items": found.n_items,
        "label_manifest_sha256": found.label_manifest_sha256, "balanced_accuracy": found.balanced_accuracy,
        "status": None if found.run.record is None else found.run.record.status,
        "run_record": None if found.run.record is None else json.dumps(found.run.record.to_dict(), sort_keys=True),
    } for found in scores]
    files = {}
    for name, rows, schema in (("verdicts", verdicts, verdict_schema), ("runs", runs, run_schema)):
        temporary = folder / "data" / f".{name}.parquet.tmp"
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), temporary)
        # Named after its contents: datasets' cache of a local folder ignores what the files hold.
        target = folder / "data" / f"{name}-{content_tag([temporary])}.parquet"
        os.replace(temporary, target)
        files[name] = target.relative_to(folder).as_posix()
        for stale in (folder / "data").glob(f"{name}*.parquet"):
            if stale != target:  # an earlier write's file: the new card does not list it
                stale.unlink()
    card = judgments_card(scores, n_verdicts=len(verdicts), bundle=bundle, files=files)
    (folder / "README.md").write_text(card, encoding="utf-8")
    return folder


class HubUploadError(OSError):
    """Uploading a judgments folder failed; the message names the folder, the repo and the endpoint."""


def push_judgments(folder: str | os.PathLike[str], repo_id: str, *, token: str | bool | None = None,
                   private: bool = False, create_pr: bool = False) -> str:
    """Upload a judgments folder to the Hub dataset repo ``repo_id`` (created if missing); the commit URL.

    The uploaded folders (``data/``, ``bundle/``) replace the repo's: files an
    earlier push left there are deleted in the same commit, so the repo's
    bundle holds exactly its files (``verify-results`` refuses a bundle with a file added).
    """
    from huggingface_hub import HfApi, constants

    api = HfApi(token=token)
    replaced = sorted(f"{entry.name}/*" for entry in Path(folder).iterdir() if entry.is_dir())
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        info = api.upload_folder(repo_id=repo_id, repo_type="dataset", folder_path=os.fspath(folder),
                                 commit_message="Add AgentHorizon judgments", create_pr=create_pr,
                                 delete_patterns=replaced or None)
    except Exception as error:  # the Hub's refusal, a network failure or an answer that is not the API's
        raise HubUploadError(
            f"uploading {folder} to the Hub dataset repo {repo_id} at {api.endpoint or constants.ENDPOINT} failed "
            f"({type(error).__name__}: {error}); a commit is all or nothing, so push again once the login "
            "(`hf auth login`), the repo name and HF_ENDPOINT are right"
        ) from error
    return str(info.commit_url if hasattr(info, "commit_url") else info)
