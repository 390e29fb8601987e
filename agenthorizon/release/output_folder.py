"""The error of a command asked to write into a folder that already holds files."""

from __future__ import annotations

__all__ = ["FolderNotEmpty"]


class FolderNotEmpty(ValueError):
    """An output folder holds files and ``overwrite`` was not given.

    ``folder``, ``holds`` (a few names) and ``replaces`` (what overwriting would
    do) are kept. ``str()`` says it in Python's words (``overwrite=True``); the
    command line uses :meth:`worded` with its ``--overwrite`` flag.

    >>> str(FolderNotEmpty("out", "notes.txt", "replace its export"))
    'out: not empty (holds notes.txt); expected a new or empty folder, or pass overwrite=True to replace its export'
    """

    def __init__(self, folder: str, holds: str, replaces: str) -> None:
        super().__init__(folder, holds, replaces)  # args rebuild the error when it is unpickled
        self.folder, self.holds, self.replaces = folder, holds, replaces

    def worded(self, overwrite: str) -> str:
        """The message with ``overwrite`` (``"overwrite=True"``, ``"--overwrite"``) as the way to go on."""
        return (f"{self.folder}: not empty (holds {self.holds}); expected a new or empty folder, "
                f"or pass {overwrite} to {self.replaces}")

    def __str__(self) -> str:
        return self.worded("overwrite=True")
