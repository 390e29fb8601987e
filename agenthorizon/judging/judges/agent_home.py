"""A private home per item for an agentic CLI: read-only copies of its login and settings, nothing else.

CLIs keep session transcripts beside their login, so a shared home would let
one item's agent read another's. Each home (:func:`make_agent_home`) holds only
the files a :class:`ConfigFolder` names, copied read-only; the user's own
instruction files are not copied, and what the CLI writes goes with the home.
The home is a sibling of the item's temporary folder, never inside it: Codex
refuses to create its sandbox helper under the temporary folder.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

__all__ = ["AgentHome", "ConfigFolder", "XDG_FOLDERS", "make_agent_home"]

XDG_FOLDERS = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
    "XDG_CACHE_HOME": ".cache",
}
"""The XDG base folders, and where they are under a home by default."""

_COPY_MODE = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH  # 0o444: readable by the agent, writable by nobody


@dataclass(frozen=True)
class ConfigFolder:
    """One folder where a CLI keeps its login or settings, and the files of it an item gets.

    ``path`` is relative to the home (``""``: the home itself); ``files`` are
    copied when the user has them; ``env`` (``CODEX_HOME``) or ``xdg``
    (``XDG_CONFIG_HOME``) name a variable that moves the folder; ``read_only``
    makes the folder itself read-only; ``made`` maps file names to text written
    beforehand.

    >>> ConfigFolder(".codex", ("config.toml",), env="CODEX_HOME").source({"CODEX_HOME": "/x"}, Path("/home/u"))
    PosixPath('/x')
    >>> ConfigFolder(".config/opencode", ("opencode.json",), xdg="XDG_CONFIG_HOME").source({}, Path("/home/u"))
    PosixPath('/home/u/.config/opencode')
    """

    path: str
    files: tuple[str, ...]
    env: str | None = None
    xdg: str | None = None
    read_only: bool = False
    made: Mapping[str, str] = field(default_factory=dict)

    def source(self, environ: Mapping[str, str], user_home: Path) -> Path:
        """Where the user's copy of this folder is."""
        if self.env and environ.get(self.env):
            return Path(os.path.expanduser(environ[self.env]))
        if self.xdg and environ.get(self.xdg):
            return Path(os.path.expanduser(environ[self.xdg])) / Path(self.path).relative_to(XDG_FOLDERS[self.xdg])
        return user_home / self.path


@dataclass(frozen=True)
class AgentHome:
    """An item's private home: its path, the variables pointing the CLI at it, what stays read-only,
    and the files copied in (``copied``, relative to the home)."""

    path: Path
    env: dict[str, str]
    read_only: list[Path]
    copied: list[str]


def make_agent_home(
    home: Path, folders: tuple[ConfigFolder, ...], environ: Mapping[str, str], user_home: Path | None = None
) -> AgentHome:
    """Create the private home ``home`` (a new, empty folder) holding copies of ``folders``' files.

    ``environ`` is the environment the CLI would have had (it says where the
    user's files are); ``user_home`` defaults to ``~``. A file the user does not
    have is skipped; one that is not a regular file raises ``ValueError``.

    >>> import tempfile
    >>> user = Path(tempfile.mkdtemp())
    >>> (user / ".codex").mkdir()
    >>> _ = (user / ".codex" / "config.toml").write_text('model = "m"')
    >>> made = make_agent_home(Path(tempfile.mkdtemp()) / "home",
    ...                        (ConfigFolder(".codex", ("config.toml", "auth.json"), env="CODEX_HOME"),), {}, user)
    >>> made.copied, made.env["CODEX_HOME"] == str(made.path / ".codex"), (made.path / ".codex/config.toml").read_text()
    (['.codex/config.toml'], True, 'model = "m"')
    """
    user_home = Path(os.path.expanduser("~")) if user_home is None else user_home
    home.mkdir(mode=0o700)
    env = {"HOME": str(home), **{name: str(home / sub) for name, sub in XDG_FOLDERS.items()}}
    for sub in XDG_FOLDERS.values():
        (home / sub).mkdir(parents=True, exist_ok=True)
    read_only: list[Path] = []
    copied: list[str] = []
    for folder in folders:
        source = folder.source(environ, user_home)
        target = home / folder.path
        target.mkdir(parents=True, exist_ok=True)
        if folder.env:
            env[folder.env] = str(target)
        for name in folder.files:
            path = source / name
            if not path.exists():
                continue
            if not path.is_file():
                raise ValueError(f"{path}: expected a regular file (a {name} the CLI reads), found something else")
            destination = target / name
            destination.write_bytes(path.read_bytes())
            destination.chmod(_COPY_MODE)
            relative = destination.relative_to(home).as_posix()
            copied.append(relative)
            if not folder.read_only:
                read_only.append(destination)
        for name, text in folder.made.items():
            (target / name).write_text(text, encoding="utf-8")
        if folder.read_only:
            read_only.append(target)
    return AgentHome(path=home, env=env, read_only=read_only, copied=copied)
