"""Bounded judge answers: keep the end of an answer (:class:`TailBuffer`), count what was dropped.

Every judge kind keeps at most ``max_output_bytes`` of an untrusted answer:
the end, where verdicts stand. No I/O.
"""

from __future__ import annotations

import collections

__all__ = ["TailBuffer", "truncation_note"]


class TailBuffer:
    """The last ``limit`` (>= 1) bytes of a byte stream, and how many came in all.

    Whole chunks are dropped from the front once the rest holds ``limit`` bytes
    (memory: ``limit`` plus one chunk); the end is copied once, by :meth:`take`
    or :meth:`take_text`. ``total``: bytes in; ``kept``: the last
    ``min(total, limit)`` (fewer when :meth:`take_text` drops a partial first
    line); ``dropped``: ``total - kept``.

    >>> tail = TailBuffer(4)
    >>> for chunk in (b"abc", b"defg", b"h"):
    ...     tail.add(chunk)
    >>> tail.data, tail.total, tail.dropped
    (b'efgh', 8, 4)
    >>> tail.take(), tail.kept, tail.dropped
    (b'efgh', 4, 4)
    >>> log = TailBuffer(8)
    >>> log.add(b"first line\\nsecond\\n")
    >>> log.take_text(whole_lines=True), log.dropped
    ('second\\n', 11)
    """

    def __init__(self, limit: int) -> None:
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ValueError(f"max_output_bytes must be a positive integer (bytes), got {limit!r}")
        self.limit = limit
        self.total = 0
        self._chunks: collections.deque[bytes] = collections.deque()
        self._held = 0  # bytes in _chunks: at most limit + the last chunk
        self._taken: int | None = None  # bytes handed out by take(), once taken

    def add(self, chunk: bytes) -> None:
        """Take the next chunk; only the last ``limit`` bytes seen so far (and one chunk) stay in memory."""
        if self._taken is not None:
            raise ValueError("TailBuffer: the end of the stream was taken; no more bytes can be added")
        self.total += len(chunk)
        if not chunk:
            return
        self._chunks.append(bytes(chunk))
        self._held += len(chunk)
        while self._held - len(self._chunks[0]) >= self.limit:
            self._held -= len(self._chunks.popleft())

    def skip(self, count: int) -> None:
        """Count ``count`` bytes of the stream that were never read (the start of a file, seeked over) as dropped."""
        if self._taken is not None:
            raise ValueError("TailBuffer: the end of the stream was taken; no more bytes can be added")
        self.total += count

    @property
    def kept(self) -> int:
        """Bytes kept: the last ``min(total, limit)`` (what :meth:`take` handed out, once taken)."""
        return min(self._held, self.limit) if self._taken is None else self._taken

    @property
    def dropped(self) -> int:
        """Bytes dropped from the start of the stream (0 when it fitted)."""
        return self.total - self.kept

    @property
    def data(self) -> bytes:
        """The bytes kept: the end of the stream (a copy; empty once taken)."""
        excess = self._held - min(self._held, self.limit)
        return b"".join(self._chunks)[excess:] if excess else b"".join(self._chunks)

    def take(self) -> bytes:
        """The bytes kept, joined once; the buffer frees them (``kept`` and ``dropped`` still describe them)."""
        if self._taken is not None:
            raise ValueError("TailBuffer: the end of the stream was already taken")
        kept = self.kept
        excess = self._held - kept
        if excess and self._chunks:
            self._chunks[0] = self._chunks[0][excess:]  # a copy of one chunk, not of everything
        data = b"".join(self._chunks)  # one bytes chunk is returned as it is, not copied
        self._chunks.clear()
        self._held = 0
        self._taken = kept
        return data

    def take_text(self, *, whole_lines: bool = False) -> str:
        """:meth:`take` decoded as UTF-8 (undecodable bytes replaced), without another copy of the bytes.

        With ``whole_lines`` and a cut stream, the text starts at the first
        line that begins inside what was kept; the partial line counts as
        dropped. A kept end with no line break before its last byte is kept whole.
        """
        data = self.take()
        start = 0
        if whole_lines and self.dropped:
            newline = data.find(b"\n")
            if 0 <= newline < len(data) - 1:
                start = newline + 1
                self._taken = len(data) - start
        with memoryview(data) as view:  # decoded in place: no copy of up to limit bytes
            return str(view[start:], "utf-8", "replace")


def truncation_note(dropped: int, limit: int) -> str:
    """The line that opens a cut answer: what was dropped and why.

    It holds no brace, so :func:`agenthorizon.scoring.verdicts.parse_verdict` reads the kept text as if it were not there.

    >>> truncation_note(3_000_000, 1_048_576)
    '[agenthorizon: answer cut to its last 1048576 bytes (max_output_bytes); the first 3000000 bytes were dropped]\\n'
    """
    return (
        f"[agenthorizon: answer cut to its last {limit} bytes (max_output_bytes); "
        f"the first {dropped} bytes were dropped]\n"
    )
