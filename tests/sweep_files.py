"""Sweep files for the sweep tests: real judges (lexical, a command, an openai: judge with its own server)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
MODEL_SERVER = TESTS / "model_server_command.py"

# A command judge: the verdict is a function of the prompt's text (its length's parity), so two runs agree.
COMMAND_JUDGE = (
    "command:" + shlex.quote(sys.executable) + " -c "
    + shlex.quote("import sys, json; t = sys.stdin.read(); "
                  "print(json.dumps({'success': len(t) % 2 == 0, 'reasoning': 'read it'}))")
)


def server_command(*extra: str) -> str:
    """The loopback OpenAI-compatible server, as a cell's ``server`` command (``{port}`` left for the cell)."""
    return shlex.join([sys.executable, str(MODEL_SERVER), "--port", "{port}", *extra])


def sweep_status(path: Path, capsys) -> dict[int, tuple[str, str]]:
    """``sweep status``'s table: cell -> (state, "answered/items")."""
    from agenthorizon.cli import main

    capsys.readouterr()
    assert main(["sweep", "status", str(path)]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:] if line.startswith(" ")]
    return {int(row[0]): (row[1], row[2]) for row in rows}


def toml_text(value: str) -> str:
    """``value`` as a TOML basic string."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_sweep(folder: Path, data: Path, *, judges: str, configs: str = '["AH", "AH-S"]', shards: int = 2,
                extra: str = "") -> Path:
    """A sweep file in ``folder`` over the release ``data``, with the ``[[judge]]`` tables ``judges``."""
    path = folder / "sweep.toml"
    path.write_text(f'data = {toml_text(str(data))}\nout = "runs"\nconfigs = {configs}\nshards = {shards}\n{extra}\n{judges}',
                    encoding="utf-8")
    return path


def command_spec(delay: float = 0.0) -> str:
    """:data:`COMMAND_JUDGE`, answering after ``delay`` seconds per item when given."""
    if not delay:
        return COMMAND_JUDGE
    return "command:" + shlex.join(["/bin/sh", "-c", f"sleep {delay}; exec {COMMAND_JUDGE[len('command:'):]}"])


def command_judge_table(name: str = "cmd", delay: float = 0.0) -> str:
    spec = command_spec(delay)
    return f'[[judge]]\nspec = {toml_text(spec)}\nname = "{name}"\noptions = {{ sandbox = "none", concurrency = 1 }}\n'


def openai_judge_table(*server_extra: str, concurrency: int = 2) -> str:
    return ('[[judge]]\nspec = "openai:sweep-model"\nname = "direct"\n'
            f'server = {toml_text(server_command(*server_extra))}\nserver_timeout = 60\n'
            f'options = {{ base-url = "http://127.0.0.1:{{port}}/v1", images = "none", concurrency = {concurrency} }}\n')
