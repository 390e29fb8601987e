"""The sweep file and ``sweep plan``: the grid a user sees, and errors that name the line at fault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenthorizon.cli import main
from sweep_files import command_judge_table, openai_judge_table, write_sweep

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sweep.toml"


def _files(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


def test_plan_prints_every_cell_with_folder_and_key_and_writes_nothing(tiny_root, tmp_path, capsys):
    path = write_sweep(tmp_path, tiny_root, judges='[[judge]]\nspec = "lexical"\n' + command_judge_table(),
                       extra='ablations = ["", "screenshots"]')
    before = _files(tmp_path)
    assert main(["sweep", "plan", str(path)]) == 0
    out = capsys.readouterr().out
    assert _files(tmp_path) == before  # a plan writes nothing
    cells = [line.split() for line in out.splitlines()[1:] if line.startswith(" ")]
    # 2 judges x 2 configs x 2 ablations x 2 shards, numbered judge-major.
    assert [int(cell[0]) for cell in cells] == list(range(16))
    assert "16 cells = 2 judges x 2 configs x 2 ablations x 2 shards; items: AH 8, AH-S 11" in out
    folders = [cell[4] for cell in cells]
    assert folders[0] == str(tmp_path / "runs" / "lexical" / "AH")
    assert folders[2] == str(tmp_path / "runs" / "lexical" / "AH~without-screenshots")
    # Shards of one config split its items; an ablation is another judge key.
    assert [int(cell[2]) for cell in cells[:2]] == [4, 4] and [int(cell[2]) for cell in cells[4:6]] == [6, 5]
    assert cells[0][1] == cells[4][1] != cells[2][1] != cells[8][1]


def test_the_planned_judge_key_is_the_one_the_run_records(tiny_root, tmp_path, capsys):
    path = write_sweep(tmp_path, tiny_root, judges=command_judge_table(), configs='["AH"]', shards=1,
                       extra='ablations = ["instruction"]')
    main(["sweep", "plan", str(path)])
    planned = capsys.readouterr().out.splitlines()[1].split()[1]
    assert main(["sweep", "run", str(path), "--cell", "0"]) == 0
    record = json.loads((tmp_path / "runs" / "cmd" / "AH~without-instruction" / "run-shard-1-of-1.json").read_text())
    manifest = json.loads((tmp_path / "runs" / "cmd" / "AH~without-instruction" / "sweep" / "shard-1-of-1.json").read_text())
    from agenthorizon.judging.runs.records import RunRecord

    assert RunRecord.from_dict(record, "run").judge_key == planned == manifest["judge_key"]


@pytest.mark.parametrize(("judges", "line", "words"), [
    ('[[judge]]\nspec = "lexical"\n[[judge]]\nspec = "nosuchjudge:x"\n', 9, "nosuchjudge"),
    ('[[judge]]\nspec = "lexical"\n[[judge]]\nspec = "openai:m"\n[judge.options]\nimages = "none"\ntemprature = 0.5\n',
     12, "unknown judge option 'temprature'"),
    ('[[judge]]\nspec = "openai:m"\noptions = { images = "sideways" }\n', 8, "invalid choice: 'sideways'"),
    ('[[judge]]\nspec = "lexical"\noptions = { images = "none" }\n', 8, "--images: options of openai:MODEL"),
    ('[[judge]]\nspec = "openai:m"\noptions = { shard = "1/2" }\n', 8, "set by the sweep"),
    ('[[judge]]\nspec = "lexical"\nresources = { mem = "lots" }\n', 8, "resource 'mem'"),
    ('[[judge]]\nspec = "lexical"\ncolour = "red"\n', 8, "unknown key 'colour'"),
])
def test_a_bad_judge_or_option_is_an_error_naming_its_line(tiny_root, tmp_path, capsys, judges, line, words):
    path = write_sweep(tmp_path, tiny_root, judges=judges)
    assert main(["sweep", "plan", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}, line {line}:" in err and words in err, err


def test_an_unknown_config_or_ablation_names_its_line(tiny_root, tmp_path, capsys):
    path = write_sweep(tmp_path, tiny_root, judges='[[judge]]\nspec = "lexical"\n', configs='["AH", "AH-X"]')
    assert main(["sweep", "plan", str(path)]) == 2
    assert f"{path}, line 3: unknown config 'AH-X'" in capsys.readouterr().err
    path = write_sweep(tmp_path, tiny_root, judges='[[judge]]\nspec = "lexical"\n', extra='ablations = ["colour"]')
    assert main(["sweep", "plan", str(path)]) == 2
    assert f"{path}, line 5:" in capsys.readouterr().err


def test_a_server_without_port_needs_a_base_url_with_one(tiny_root, tmp_path, capsys):
    judges = '[[judge]]\nspec = "openai:m"\nserver = "vllm serve m"\n'
    path = write_sweep(tmp_path, tiny_root, judges=judges)
    assert main(["sweep", "plan", str(path)]) == 2
    assert f"{path}, line 8: a server command without {{port}}" in capsys.readouterr().err


def test_the_example_sweep_plans(tiny_root, tmp_path, capsys):
    text = EXAMPLE.read_text(encoding="utf-8").replace('data = "release"', f'data = "{tiny_root}"')
    path = tmp_path / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["sweep", "plan", str(path)]) == 0
    out = capsys.readouterr().out
    assert "48 cells = 3 judges x 2 configs x 2 ablations x 4 shards" in out
    assert "qwen-direct" in out and "starts its server per cell: vllm serve" in out


def test_the_grid_of_an_openai_judge_with_a_server_plans_without_starting_it(tiny_root, tmp_path, capsys):
    path = write_sweep(tmp_path, tiny_root, judges=openai_judge_table())
    assert main(["sweep", "plan", str(path)]) == 0
    assert "4 cells = 1 judges" in capsys.readouterr().out
    assert not (tmp_path / "runs").exists()
