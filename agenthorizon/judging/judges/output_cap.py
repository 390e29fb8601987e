"""Bounded judge answers: keep the end of an answer, count what was dropped.

A judge's answer comes from an untrusted program or server, and a hostile or
broken one can send gigabytes. Every judge kind keeps at most
``max_output_bytes`` of one answer
(:data:`~agenthorizon.judging.judges.base.DEFAULT_MAX_OUTPUT_BYTES` unless
set): :class:`TailBuffer` takes the answer chunk by chunk as it is read and
holds only its last ``limit`` bytes, so memory stays bounded however long the
answer is. The end is what is kept because verdicts stand at the end of an
answer; :func:`truncation_note` is the line put before a cut answer, which
says how much was dropped. The note holds no brace, so by the one parse rule
(:func:`agenthorizon.scoring.verdicts.parse_verdict`: prose without braces
before an answer never changes its verdict) the verdict is read from what
was kept exactly as if the note were not there.

This module does no I/O.
"""

from __future__ import annotations

import collections

__all__ = ["TailBuffer", "truncation_note"]


class TailBuffer:
    """The last ``limit`` bytes of a byte stream, and how many bytes came in all.

    Chunks are kept as they came, whole ones dropped from the front once the
    rest holds ``limit`` bytes, so memory stays within ``limit`` plus one
    chunk and nothing is copied until the end is taken (:meth:`take`).

    Parameters
    ----------
    limit : int
        Most bytes kept, >= 1.

    Examples
    --------
    >>> tail = TailBuffer(4)
    >>> for chunk in (b"abc", b"defg", b"h"):
    ...     tail.add(chunk)
    >>> tail.data, tail.total, tail.dropped
    (b'efgh', 8, 4)
    """

    def __init__(self, limit: int) -> None:
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ValueError(f"max_output_bytes must be a positive integer (bytes), got {limit!r}")
        self.limit = limit
        self.total = 0
        self._chunks: collections.deque[bytes] = collections.deque()
        self._held = 0  # bytes in _chunks: at most limit + the last chunk

    def add(self, chunk: bytes) -> None:
        """Take the next chunk; only the last ``limit`` bytes seen so far (and one chunk) stay in memory."""
        self.total += len(chunk)
        if not chunk:
            return
        self._chunks.append(bytes(chunk))
        self._held += len(chunk)
        while self._held - len(self._chunks[0]) >= self.limit:
            self._held -= len(self._chunks.popleft())

    @property
    def kept(self) -> int:
        """Bytes kept: the last ``min(total, limit)``."""
        return min(self._held, self.limit)

    @property
    def dropped(self) -> int:
        """Bytes dropped from the start of the stream (0 when it fitted)."""
        return self.total - self.kept

    @property
    def data(self) -> bytes:
        """The bytes kept: the end of the stream (a copy)."""
        excess = self._held - self.kept
        return b"".join(self._chunks)[excess:] if excess else b"".join(self._chunks)

    def take(self) -> bytes:
        """The bytes kept, joined once; the buffer holds nothing after (``dropped`` is then all)."""
        excess = self._held - self.kept
        if excess and self._chunks:
            self._chunks[0] = self._chunks[0][excess:]  # a copy of one chunk, not of everything
        data = b"".join(self._chunks)
        self._chunks.clear()
        self._held = 0
        return data


def truncation_note(dropped: int, limit: int) -> str:
    """The line that opens a cut answer: what was dropped and why (no braces, see the module docstring).

    >>> truncation_note(3_000_000, 1_048_576)
    '[agenthorizon: answer cut to its last 1048576 bytes (max_output_bytes); the first 3000000 bytes were dropped]\\n'
    """
    return (
        f"[agenthorizon: answer cut to its last {limit} bytes (max_output_bytes); "
        f"the first {dropped} bytes were dropped]\n"
    )
