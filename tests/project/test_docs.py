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


_LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")


def _local_links(page: Path) -> list[str]:
    """Targets of the Markdown links and images of ``page`` that are not URLs or in-page anchors (code blocks skipped)."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = [a or b for a, b in _LINK.findall(text)]
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def test_every_link_of_the_docs_and_the_readme_resolves_in_the_repository():
    # The site generates some pages (cli.md) at build time; a link read on GitHub or in a
    # checkout must still lead somewhere, so every relative link names a file of the repository.
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in _local_links(page):
            path = (page.parent / target.split("#", 1)[0]).resolve()
            if not path.exists():
                broken.append(f"{page.relative_to(REPO)}: ({target})")
    assert len(pages) > 5 and not broken, f"links to files that do not exist: {broken}"
