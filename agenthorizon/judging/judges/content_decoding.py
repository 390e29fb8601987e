"""An HTTP body's ``Content-Encoding`` undone piece by piece, each layer's output bounded.

Used instead of httpx's decoding, which inflates a whole chunk at once (a few
KB of ``gzip, gzip`` can become 1 GiB before any cap sees it). Main class:
:class:`ContentDecoder`. No I/O: the caller feeds it raw bytes.
"""

from __future__ import annotations

import zlib
from typing import Iterator

__all__ = ["ACCEPT_ENCODING", "ContentDecoder", "InflatesTooFar", "PIECE_BYTES", "UnknownEncoding"]

PIECE_BYTES = 1 << 16
"""The largest piece any layer hands on at once."""
ACCEPT_ENCODING = "gzip, deflate"
"""What the judge asks for: the encodings it can undo within bounds."""


class InflatesTooFar(ValueError):
    """One layer of a body's encoding produced more than the limit."""

    def __init__(self, encoding: str, layer: int, layers: int, limit: int) -> None:
        super().__init__(f"its {encoding} encoding (layer {layer} of {layers}) inflates past the limit")
        self.encoding, self.layer, self.layers, self.limit = encoding, layer, layers, limit


class UnknownEncoding(ValueError):
    """A ``Content-Encoding`` the judge did not ask for and cannot undo within bounds."""


class _Inflater:
    def __init__(self, encoding: str) -> None:
        # gzip: its own header; deflate: the zlib wrapper, or raw deflate as some servers send it.
        self._wbits = zlib.MAX_WBITS | 16 if encoding == "gzip" else zlib.MAX_WBITS
        self._raw_fallback = encoding == "deflate"
        self._inflate = zlib.decompressobj(self._wbits)

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._inflate.eof:
            return  # bytes after the end of the stream are ignored, as httpx ignores them
        try:
            piece = self._inflate.decompress(data, PIECE_BYTES)
        except zlib.error:
            if not self._raw_fallback:
                raise
            self._raw_fallback = False
            self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)
            piece = self._inflate.decompress(data, PIECE_BYTES)
        self._raw_fallback = False
        yield piece
        # A full piece may leave output pending inside zlib even when no input is left.
        while self._inflate.unconsumed_tail or len(piece) == PIECE_BYTES:
            piece = self._inflate.decompress(self._inflate.unconsumed_tail, PIECE_BYTES)
            if not piece and not self._inflate.unconsumed_tail:
                return
            yield piece


class _Identity:
    def feed(self, data: bytes) -> Iterator[bytes]:
        for start in range(0, len(data), PIECE_BYTES):
            yield data[start:start + PIECE_BYTES]


class ContentDecoder:
    """The decoded bytes of a body sent with ``content_encoding``, at most ``limit`` per layer.

    Parameters
    ----------
    content_encoding
        The ``Content-Encoding`` header (``""`` when absent): encodings in the
        order they were applied, comma-separated.
    limit
        The most bytes any one layer may produce, and so the most the body
        may decode to.

    Raises
    ------
    UnknownEncoding
        At construction, for an encoding other than gzip, deflate, identity.
    InflatesTooFar
        From :meth:`feed`, once a layer has produced more than ``limit``.

    Examples
    --------
    >>> import gzip
    >>> body = gzip.compress(gzip.compress(b"a" * 5000))
    >>> decoder = ContentDecoder("gzip, gzip", limit=10_000)
    >>> sum(len(piece) for piece in decoder.feed(body))
    5000
    >>> sum(len(piece) for piece in ContentDecoder("gzip, gzip", limit=4000).feed(body))
    Traceback (most recent call last):
    ...
    agenthorizon.judging.judges.content_decoding.InflatesTooFar: its gzip encoding (layer 2 of 2) inflates past the limit
    """

    def __init__(self, content_encoding: str, limit: int) -> None:
        applied = [part.strip().lower() for part in content_encoding.split(",") if part.strip()]
        unknown = [name for name in applied if name not in ("gzip", "x-gzip", "deflate", "identity")]
        if unknown:
            raise UnknownEncoding(
                f"it is sent with Content-Encoding {content_encoding!r}; expected only {ACCEPT_ENCODING} or identity"
            )
        # Undone in reverse order of application: the last encoding applied is the outermost.
        self._layers = [
            (name, _Identity() if name == "identity" else _Inflater("gzip" if name == "x-gzip" else name))
            for name in reversed(applied)
        ] or [("identity", _Identity())]
        self._produced = [0] * len(self._layers)
        self.limit = limit

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded pieces ``data`` (the next raw bytes) yields, each at most :data:`PIECE_BYTES`."""
        return self._through(0, data)

    def _through(self, index: int, data: bytes) -> Iterator[bytes]:
        name, layer = self._layers[index]
        for piece in layer.feed(data):
            if not piece:
                continue
            self._produced[index] += len(piece)
            if self._produced[index] > self.limit:
                raise InflatesTooFar(name, index + 1, len(self._layers), self.limit)
            if index + 1 == len(self._layers):
                yield piece
            else:
                yield from self._through(index + 1, piece)
