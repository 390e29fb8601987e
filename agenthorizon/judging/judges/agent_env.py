"""Which of the harness's environment variables an agent gets: an allow-list, never the whole environment.

An agent gets :data:`BASE_ENV`, the variables its judge allows (a preset's
:attr:`~agenthorizon.judging.judges.presets.Harness.passed_env`, those its config
files name) and those the user names (``--env NAME[=VALUE]``); every other
variable (``HF_TOKEN``, another provider's key) stays out of the sandbox.
Patterns are names, or prefixes ending in ``*`` (``LC_*``).
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

__all__ = ["BASE_ENV", "COMMAND_ENV", "allowed", "config_variables"]

BASE_ENV = ("PATH", "LANG", "LANGUAGE", "LC_*", "TERM", "TZ", "NO_COLOR", "SSL_CERT_FILE", "SSL_CERT_DIR",
            "NODE_EXTRA_CA_CERTS")
"""What every agent gets: its program's search path, locale and terminal, and extra CA certificates."""
COMMAND_ENV = (*BASE_ENV, "HOME", "USER", "LOGNAME", "SHELL")
"""What a ``command:`` judge's agent gets besides the variables the user names."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _matches(name: str, pattern: str) -> bool:
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


def allowed(environ: Mapping[str, str], patterns: Iterable[str]) -> dict[str, str]:
    """The variables of ``environ`` whose names match one of ``patterns`` (a name, or a prefix ending in ``*``).

    >>> allowed({"PATH": "/bin", "LC_ALL": "C", "HF_TOKEN": "hf_x", "ANTHROPIC_API_KEY": "k"},
    ...         ["PATH", "LC_*", "ANTHROPIC_*"])
    {'PATH': '/bin', 'LC_ALL': 'C', 'ANTHROPIC_API_KEY': 'k'}
    """
    patterns = tuple(patterns)
    return {name: value for name, value in environ.items() if any(_matches(name, p) for p in patterns)}


def config_variables(text: str, patterns: Iterable[str]) -> list[str]:
    """Variable names a config file's ``text`` says the CLI reads: each regular expression of ``patterns``
    captures one name in its first group.

    >>> config_variables('env_key = "LOOPBACK_API_KEY"\\nx = "{env:OTHER}"', [r'env_key\\s*=\\s*"([^"]+)"'])
    ['LOOPBACK_API_KEY']
    """
    names = []
    for pattern in patterns:
        for match in re.finditer(pattern, text):
            name = match.group(1)
            if _NAME.fullmatch(name) and name not in names:
                names.append(name)
    return names
