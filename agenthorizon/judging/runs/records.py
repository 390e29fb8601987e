"""Per-item result files: the one format the runner writes and scoring reads.

A run directory holds one ``<trajectory_id>.json`` per finished item plus a run
record (``run.json``, or ``run-shard-I-of-N.json`` for a shard). A result file
is a JSON object::

    {
      "trajectory_id": "010f92ae-...",
      "judge": "lexical",
      "parse_status": "ok",              # schema.PARSE_STATUSES
      "verdict": {"success": true, "mistake_type": null,
                  "confidence": "high", "reasoning": "..."},   # or null
      "raw_output": "...",               # the judge's text, verbatim
      "error": null,                      # message when parse_status == "error"
      "telemetry": {"input_tokens": 0, "output_tokens": 0, "latency_s": 0.1,
                    "cost_usd": null, "attempts": 1},
      "finished_at": "2026-11-30T03:00:00+00:00"
    }

Files are written atomically (temporary file in the same directory, fsync,
rename), so a crash leaves either the old file, the new file or nothing, never
a truncated one. Files whose stem is not a UUID (``run.json``, notes) are not
results.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from agenthorizon.schema import STATUS_MALFORMED_JSON, UUID_PATTERN

RUN_RECORD_NAME = "run.json"


def is_result_name(path: Path) -> bool:
    """True when ``path`` is named ``<uuid>.json``: a per-item result file."""
    return path.suffix == ".json" and bool(UUID_PATTERN.match(path.stem))


def write_json_atomic(path: Path, payload: Mapping[str, Any]) -> None:
    """Write ``payload`` as JSON to ``path`` so that readers never see a partial file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, ensure_ascii=False, indent=1)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        # Leave nothing behind: a stray temp file would look like debris to users.
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise


@dataclass
class ResultSet:
    """Results read from one or more run directories or JSONL files.

    ``results`` maps trajectory id to the parsed JSON object of its result;
    ``unreadable`` maps trajectory id to a message for result files that exist
    but are not a JSON object (they score as invalid, reason ``malformed_json``);
    ``sources`` maps trajectory id to the file (and line) it came from.
    """

    results: dict[str, Any] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)

    def _add(self, trajectory_id: str, value: Any, where: str, *, readable: bool) -> None:
        if trajectory_id in self.sources:
            raise ValueError(
                f"{where}: duplicate result for trajectory {trajectory_id} "
                f"(already read from {self.sources[trajectory_id]}); "
                "expected each item once across all result paths"
            )
        self.sources[trajectory_id] = where
        if readable:
            self.results[trajectory_id] = value
        else:
            self.unreadable[trajectory_id] = value

    def ids(self) -> set[str]:
        """Trajectory ids with a result file, readable or not."""
        return set(self.results) | set(self.unreadable)

    def predictions(self, wanted_ids: Iterable[str] | None = None) -> dict[str, Any]:
        """Trajectory id -> prediction, in the form :func:`agenthorizon.score` takes.

        A result file that exists but cannot be read is an invalid prediction
        (``malformed_json``), never a missing one; ids without any file are
        absent here and score as ``missing``. ``wanted_ids`` keeps only those
        ids (results for other items are left out, not scored).
        """
        predictions: dict[str, Any] = dict(self.results)
        for trajectory_id in self.unreadable:
            predictions[trajectory_id] = {"parse_status": STATUS_MALFORMED_JSON, "verdict": None}
        if wanted_ids is not None:
            wanted = set(wanted_ids)
            predictions = {key: value for key, value in predictions.items() if key in wanted}
        return predictions


def read_results(paths: Iterable[str | os.PathLike[str]]) -> ResultSet:
    """Read result directories and/or JSONL files into one :class:`ResultSet`.

    A directory contributes every ``<uuid>.json`` in it (other files are listed
    in ``ignored``); a ``.jsonl`` file contributes one object per non-blank line,
    each carrying ``trajectory_id``. An item that appears twice raises, because
    silently keeping either copy would change a score.
    """
    found = ResultSet()
    for raw_path in paths:
        path = Path(raw_path)
        if path.is_dir():
            for child in sorted(path.iterdir()):
                if not child.is_file():
                    continue
                if not is_result_name(child):
                    found.ignored.append(str(child))
                    continue
                try:
                    value = json.loads(child.read_text(encoding="utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError) as error:
                    found._add(child.stem, f"{child}: not valid JSON ({error})", str(child), readable=False)
                    continue
                if not isinstance(value, dict):
                    found._add(child.stem, f"{child}: expected a JSON object", str(child), readable=False)
                    continue
                found._add(child.stem, value, str(child), readable=True)
        elif path.is_file():
            _read_jsonl(path, found)
        else:
            raise FileNotFoundError(f"{path}: no such results directory or JSONL file")
    return found


def _read_jsonl(path: Path, found: ResultSet) -> None:
    with path.open(encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{line_number}"
            try:
                value = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(
                    f"{where}: not valid JSON ({error.msg}); expected one object per line "
                    "with a trajectory_id"
                ) from None
            trajectory_id = value.get("trajectory_id") if isinstance(value, dict) else None
            if not isinstance(trajectory_id, str) or not trajectory_id:
                raise ValueError(f"{where}: expected a JSON object with a string trajectory_id")
            found._add(trajectory_id, value, where, readable=True)
