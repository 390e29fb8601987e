"""Content digests of files, and data file names that carry them.

``datasets`` keys its cache of a local folder on the folder's name and the
README's ``configs`` entry, not on the files' contents; naming each data file
after its contents makes the cache key change whenever the rows do.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable

__all__ = ["TAG_LENGTH", "content_tag", "sha256_of_file", "sha256_of_files"]

TAG_LENGTH = 16
"""Hex digits of a content tag: 64 bits, so two different contents share a tag with odds of about 2**-64."""


def sha256_of_file(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of one file's bytes, as 64 lowercase hex digits.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x"
    >>> _ = path.write_bytes(b"abc")
    >>> sha256_of_file(path)[:12]
    'ba7816bf8f01'
    """
    return sha256_of_files([path])


def sha256_of_files(paths: Iterable[str | os.PathLike[str]]) -> str:
    """The SHA-256 of the files' bytes in the given order (64 hex digits).

    One file's digest is the plain SHA-256 of its bytes (what ``sha256sum``
    prints); for several, each file's bytes are prefixed by their length,
    which keeps ``["ab", "c"]`` and ``["a", "bc"]`` apart.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name, data in (("a", b"ab"), ("b", b"c"), ("c", b"a"), ("d", b"bc")):
    ...     _ = (folder / name).write_bytes(data)
    >>> sha256_of_files([folder / "a", folder / "b"]) == sha256_of_files([folder / "c", folder / "d"])
    False
    """
    digest = hashlib.sha256()
    files = list(paths)
    for path in files:
        if len(files) > 1:
            digest.update(os.path.getsize(path).to_bytes(8, "big"))
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()


def content_tag(paths: Iterable[str | os.PathLike[str]]) -> str:
    """A short tag of the files' contents for data file names: the first :data:`TAG_LENGTH` hex digits of their SHA-256.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x"
    >>> _ = path.write_bytes(b"abc")
    >>> content_tag([path])
    'ba7816bf8f01cfea'
    """
    return sha256_of_files(paths)[:TAG_LENGTH]
