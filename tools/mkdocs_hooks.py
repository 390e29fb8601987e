"""MkDocs hook: adds the generated CLI reference page (docs/cli.md) at build time."""

from __future__ import annotations

from mkdocs.structure.files import File, Files


def on_files(files: Files, config) -> Files:
    from agenthorizon.cli._reference import cli_reference_markdown

    files.append(File.generated(config, "cli.md", content=cli_reference_markdown()))
    return files
