"""The references loader every command uses: one selection, one manifest note, library wording.

``score``, ``leaderboard``, ``report`` and ``plot`` rebuild the items of runs
through :mod:`agenthorizon.report.references`; these tests check what a user
sees of it on each route: the note when a run's recorded label manifest
differs from the release's, the error when an option contradicts a run, and
one spelling of a dev manifest's path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.release.files import load_references
from agenthorizon.release.item_selection import Selection, SelectionConflict
from agenthorizon.report.references import LABEL_ROW_FIELDS, STEP_IDS, load_run_references, run_selection
from agenthorizon.report.runs import load_runs
from agenthorizon.schema import LABEL_FILE_HARD, MISTAKE_TYPES, TRAJECTORY_FIELDS

NOTE = "run.json records label manifest"


def _judge(root, spec, out, config):
    dataset = agenthorizon.load_dataset(root, config, split="test", images=None)
    agenthorizon.run_judge(spec, dataset, out, config=config, data_root=root, progress=False)
    return out


def _retype_a_negative(root: Path) -> None:
    """Edit the labels in place, as a newer release version would: one negative gets another mistake type."""
    path = root / LABEL_FILE_HARD
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    negative = next(row for row in rows if row["label"] == "negative" and row["mistake_type"])
    negative["mistake_type"] = next(t for t in MISTAKE_TYPES if t != negative["mistake_type"])
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def test_every_route_notes_a_run_whose_recorded_labels_differ(tiny_copy, tmp_path, capsys):
    on_ah = _judge(tiny_copy, "lexical", tmp_path / "lexical", "AH")
    on_all = _judge(tiny_copy, "constant:true", tmp_path / "true", "all")
    # Same labels: no route notes anything (the run on all is compared with both files' items).
    assert not [n for n in agenthorizon.leaderboard([on_ah, on_all], tiny_copy).notes if NOTE in n]
    assert not load_runs([on_ah], tiny_copy, images=None).warnings
    _retype_a_negative(tiny_copy)

    assert main(["score", str(on_ah), "--data", str(tiny_copy), "--format", "json"]) == 0
    scored = [note for note in json.loads(capsys.readouterr().out)["notes"] if NOTE in note]
    board = [note for note in agenthorizon.leaderboard([on_ah, on_all], tiny_copy).notes if NOTE in note]
    report = load_runs([on_ah], tiny_copy, images=None).warnings
    plot = load_runs([on_ah], tiny_copy, images=None, fields=(*LABEL_ROW_FIELDS, "num_steps")).warnings
    assert len(scored) == 1 and scored[0].startswith(f"{on_ah}: {NOTE}")
    assert "not comparable to the published ones" in scored[0]
    assert scored == report == plot  # one text on every route
    assert board == [scored[0], f"{on_all}: {NOTE}" + board[1].split(NOTE, 1)[1]]
    assert " all in " in board[1]  # the run on all is compared with the manifest of all
    # The note changes no number: the run is still scored against today's labels.
    assert main(["leaderboard", str(on_ah), "--data", str(tiny_copy), "--format", "json"]) == 0
    assert any(NOTE in note for note in json.loads(capsys.readouterr().out)["notes"])


def test_a_contradicting_option_is_a_conflict_in_library_words(tiny_root, tmp_path, capsys):
    run = _judge(tiny_root, "lexical", tmp_path / "run", "AH")
    with pytest.raises(SelectionConflict) as raised:
        load_runs([run], tiny_root, config="AH-S", images=None)
    error = raised.value
    assert (error.field, error.given, error.recorded, error.run) == ("config", "AH-S", "AH", str(run))
    assert "--" not in str(error)  # no flag wording below the command line
    with pytest.raises(SelectionConflict, match="exclude_dev True contradicts the recorded exclude_dev False"):
        load_runs([run], tiny_root, images=None, selection_options={"exclude_dev": True})
    # The command line says it with its flags.
    assert main(["score", str(run), "--data", str(tiny_root), "--exclude-dev"]) == 2
    assert "--exclude-dev True contradicts the recorded exclude_dev False" in capsys.readouterr().err
    with pytest.raises(SelectionConflict, match="no run record names a config"):
        run_selection({str(tmp_path / "bare"): None}, {"config": None})


def test_a_dev_manifest_path_is_spelled_one_way(tiny_root, tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    home.mkdir()
    manifest = home / "dev.txt"
    manifest.write_text("\n".join(row["trajectory_id"] for row in load_references(tiny_root, "AH")[:2]) + "\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    dataset = agenthorizon.load_dataset(tiny_root, "AH-D", split="test", images=None, dev_manifest="~/dev.txt")
    agenthorizon.run_judge("lexical", dataset, tmp_path / "run", config="AH-D", data_root=tiny_root, progress=False,
                           data_options={"dev_manifest": "~/dev.txt"})
    recorded = json.loads((tmp_path / "run" / "run.json").read_text())["selection"]["dev_manifest"]
    assert recorded == str(manifest.resolve())
    # The same file given as ~/dev.txt, relative, or absolute agrees with the run.
    for spelling in ("~/dev.txt", "dev.txt", str(manifest)):
        assert main(["score", str(tmp_path / "run"), "--data", str(tiny_root), "--dev-manifest", spelling]) == 0, spelling
    capsys.readouterr()
    other = home / "other.txt"
    other.write_text(manifest.read_text())
    assert main(["score", str(tmp_path / "run"), "--data", str(tiny_root), "--dev-manifest", "other.txt"]) == 2
    assert f"--dev-manifest {other.resolve()} contradicts the recorded dev_manifest" in capsys.readouterr().err


def test_label_fields_are_read_from_the_label_files_alone(tiny_root, monkeypatch):
    import agenthorizon.data.load as load_module

    def no_dataset(*args, **kwargs):
        raise AssertionError("the dataset was loaded for label fields")

    monkeypatch.setattr(load_module, "load_dataset", no_dataset)
    references = load_run_references(tiny_root, Selection("AH"))
    assert references.rows == load_references(tiny_root, "AH")
    assert references.manifest["n_items"] == len(references.rows)
    monkeypatch.undo()
    steps = load_run_references(tiny_root, Selection("AH"), fields=("label", "num_steps")).rows
    assert [sorted(row) for row in steps][:1] == [["label", "num_steps", "trajectory_id"]]


ITEM_FILE_FIELDS = (*LABEL_ROW_FIELDS, *TRAJECTORY_FIELDS, "screenshots", STEP_IDS)


def test_label_and_item_fields_are_read_from_the_files_with_the_datasets_values(tiny_root, monkeypatch):
    """Label and trajectory-level fields, screenshot paths and step ids: each item's files read, the dataset's own values."""
    dataset = agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths")
    expected = [
        {**row, "step_ids": [step["step_id"] for step in row["steps"]]} for row in dataset
    ]
    import agenthorizon.data.load as load_module

    def no_dataset(*args, **kwargs):
        raise AssertionError("the dataset was loaded for fields the item files give")

    monkeypatch.setattr(load_module, "load_dataset", no_dataset)
    for images in (None, "paths"):
        rows = load_run_references(tiny_root, Selection("all"), fields=ITEM_FILE_FIELDS, images=images).rows
        assert [row["trajectory_id"] for row in rows] == [row["trajectory_id"] for row in expected]
        assert rows == [{name: row[name] for name in ("trajectory_id", *ITEM_FILE_FIELDS)} for row in expected]


def test_a_bad_trajectory_fails_the_item_file_rows_as_it_fails_the_dataset(tiny_copy):
    """The rows read without the dataset check each item as a build does: a broken json names its file and label row."""
    from agenthorizon.schema import json_relpath

    victim = load_references(tiny_copy, "AH")[0]["trajectory_id"]
    (tiny_copy / json_relpath(victim)).write_text('{"task": {"instruction": 3}, "steps": []}', encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{victim}\.json \(label row .*\): missing task\.instruction"):
        load_run_references(tiny_copy, Selection("AH"), fields=ITEM_FILE_FIELDS, images="paths")
    with pytest.raises(ValueError, match=rf"{victim}\.json \(label row .*\): missing task\.instruction"):
        agenthorizon.load_dataset(tiny_copy, "AH", split="test", images="paths")
