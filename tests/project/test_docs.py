"""The docs site builds with warnings as errors, its CLI reference covers every
command, and CI runs exactly the README's test command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _quickstart_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quickstart", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "README Quickstart must hold a bash code block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_has_exactly_two_quickstart_commands_and_ci_runs_the_test_one():
    commands = _quickstart_commands()
    assert len(commands) == 2
    assert "agenthorizon demo" in commands[0]
    assert "pytest" in commands[1]
    ci_script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci_script.splitlines()


def test_docs_site_builds_strict_with_generated_cli_reference(tmp_path: Path):
    from agenthorizon.cli import command_modules

    site = tmp_path / "site"
    completed = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    cli_page = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for name in command_modules():
        assert f"agenthorizon {name}" in cli_page, f"command {name} missing from the CLI reference"


def test_every_docs_page_is_in_the_nav():
    import yaml  # mkdocs depends on PyYAML

    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8").replace("!!python", ""))
    listed = {next(iter(entry.values())) for entry in config["nav"]}
    pages = {path.name for path in (REPO / "docs").glob("*.md")}
    assert pages - listed == set(), f"pages not reachable from the nav: {sorted(pages - listed)}"
