"""`agenthorizon verify` reports every broken reference at once;
`agenthorizon info` counts what each config holds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agenthorizon.cli import main
from agenthorizon.release.labels import manifest_sha256
from agenthorizon.schema import LABEL_FILE_EASY, LABEL_FILE_HARD, MISTAKE_TYPES, json_relpath, markdown_relpath
from agenthorizon.release.files import load_references, read_labels
from agenthorizon.release.verify import verify_release


def _ids(root: Path, name: str) -> list[str]:
    return [json.loads(line)["trajectory_id"] for line in (root / name).read_text().splitlines() if line.strip()]


def _screenshots(root: Path, trajectory_id: str) -> list[Path]:
    path = root / json_relpath(trajectory_id)
    steps = json.loads(path.read_text())["steps"]
    return [path.parent / step["screenshot"] for step in steps if "screenshot" in step]


def test_verify_passes_a_sound_release(tiny_root: Path, capsys: pytest.CaptureFixture):
    assert verify_release(tiny_root) == []
    assert main(["verify", str(tiny_root)]) == 0
    assert "OK" in capsys.readouterr().out


def test_verify_reports_all_problems_at_once(tiny_copy: Path, capsys: pytest.CaptureFixture):
    hard, easy = _ids(tiny_copy, LABEL_FILE_HARD), _ids(tiny_copy, LABEL_FILE_EASY)
    missing_json = tiny_copy / json_relpath(hard[0])
    missing_json.unlink()
    missing_markdown = tiny_copy / markdown_relpath(hard[1])
    missing_markdown.unlink()
    shots = _screenshots(tiny_copy, easy[0])
    missing_image, bad_header = shots[0], shots[1]
    missing_image.unlink()
    bad_header.write_bytes(b"\x00not an image")
    escaping = tiny_copy / json_relpath(easy[1])
    trajectory = json.loads(escaping.read_text())
    trajectory["steps"][0]["screenshot"] = "../../../../../../etc/hosts"
    escaping.write_text(json.dumps(trajectory))

    problems = verify_release(tiny_copy)
    by_path = {problem.path: problem for problem in problems}
    assert "trajectory json not found" in by_path[str(missing_json)].message
    assert by_path[str(missing_json)].where == f"{LABEL_FILE_HARD}:1"
    assert "markdown file not found" in by_path[str(missing_markdown)].message
    assert "screenshot file not found" in by_path[str(missing_image.resolve())].message
    assert "image header does not read" in by_path[str(bad_header.resolve())].message
    assert "escapes the release root" in by_path[str(escaping)].message
    # the damaged image folder is shared by every item showing those steps: each is reported
    assert len(problems) >= 5

    assert main(["verify", str(tiny_copy)]) == 1
    out = capsys.readouterr().out
    for path in (missing_json, missing_markdown, escaping):
        assert str(path) in out
    assert f"{len(problems)} problem(s) found" in out


def test_verify_reports_every_bad_label_line(tiny_copy: Path):
    hard = tiny_copy / LABEL_FILE_HARD
    lines = hard.read_text().splitlines()
    lines[0] = lines[0].replace('"positive"', '"maybe"').replace('"negative"', '"maybe"')
    lines[2] = "{oops"
    hard.write_text("\n".join(lines) + "\n")
    messages = [problem.message for problem in verify_release(tiny_copy) if problem.where == LABEL_FILE_HARD]
    assert any(m.startswith(f"{LABEL_FILE_HARD}:1: unknown label 'maybe'") for m in messages)
    assert any(m.startswith(f"{LABEL_FILE_HARD}:3: not valid JSON") for m in messages)


def test_verify_of_a_non_release_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture):
    assert main(["verify", str(tmp_path)]) == 2
    assert "expected a release root" in capsys.readouterr().err


def test_info_counts_match_the_labels_and_the_trajectories(small_root: Path, capsys: pytest.CaptureFixture):
    assert main(["info", str(small_root), "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["manifest_sha256"] == manifest_sha256(read_labels(small_root))
    assert info["configs"]["AH"]["items"] == len(_ids(small_root, LABEL_FILE_HARD))
    assert info["configs"]["AH-S"]["items"] == len(_ids(small_root, LABEL_FILE_EASY))
    for name, config in info["configs"].items():
        rows = load_references(small_root, name)
        steps = [len(json.loads((small_root / json_relpath(r["trajectory_id"])).read_text())["steps"]) for r in rows]
        assert config["items"] == len(rows) == config["positives"] + config["negatives"]
        assert config["positives"] == sum(r["label"] == "positive" for r in rows)
        for mistake_type in MISTAKE_TYPES:
            assert config["mistake_types"][mistake_type] == sum(r["mistake_type"] == mistake_type for r in rows)
        assert sum(config["mistake_types"].values()) == config["negatives"]
        assert config["steps"] == {
            "median": float(np.median(steps)),
            "p90": float(np.percentile(steps, 90)),
            "max": max(steps),
        }
        assert config["manifest_sha256"] == manifest_sha256(rows)


def test_info_table_lists_every_config_and_hash(tiny_root: Path, capsys: pytest.CaptureFixture):
    assert main(["info", str(tiny_root)]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:5]}
    assert set(rows) == {"AH", "AH-S", "AH-D", "all"}
    assert rows["AH"][1] == str(len(_ids(tiny_root, LABEL_FILE_HARD)))
    assert f"label manifest sha256 (whole release): {manifest_sha256(read_labels(tiny_root))}" in out
    assert "method='linear'" in out
