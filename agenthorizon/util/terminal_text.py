"""Untrusted text made safe to print: control characters escaped, long values cut with their length shown.

Every error and warning path applies :func:`printable` to outside text before
showing it (docs/security.md, "Text printed to the terminal").
"""

from __future__ import annotations

import re

__all__ = ["ECHO_LIMIT", "MESSAGE_LIMIT", "printable"]

ECHO_LIMIT = 80
"""Characters of one untrusted value (an id, a file name, a label value) an error message echoes."""

MESSAGE_LIMIT = 4000
"""Characters of one whole message the command line prints (a backstop: values are cut where echoed)."""

# C0 controls (but tab), DEL, C1 controls, bidirectional marks and overrides, line and
# paragraph separators, and lone surrogates (which cannot even be encoded). "\n" is handled apart.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_UNSAFE_OR_NEWLINE = re.compile(_UNSAFE.pattern[:-1] + "\n]")
_NAMED = {"\r": "\\r", "\n": "\\n", "\x1b": "\\x1b"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, *, limit: int | None = None, keep_newlines: bool = False, quote: bool = False) -> str:
    """``text`` as it may be printed: control characters escaped, cut to ``limit`` characters with its length shown.

    Parameters
    ----------
    text : object
        The untrusted text (anything else is turned into ``str`` first).
    limit : int, optional
        Most characters of ``text`` kept; a longer text keeps its first
        ``limit`` characters followed by ``… (N characters)``, N its whole
        length. ``None``: no cut.
    keep_newlines : bool, default=False
        Keep ``\\n`` where a message is meant to span lines; otherwise it is
        escaped too, so that the text stays on one line.
    quote : bool, default=False
        Echo ``text`` as a value: a string in single quotes (the length note
        stays outside them), anything else as its ``repr``.

    Returns
    -------
    str
        The text with each unsafe character written as a Python escape
        (``\\x1b``, ``\\r``, ``\\x9b``, ``\\u202e``): C0 controls but tab,
        DEL, C1 controls, bidirectional marks and overrides, line and
        paragraph separators and lone surrogates. At most ``limit``
        characters of ``text`` before escaping, each escape at most 6
        characters long.

    Examples
    --------
    >>> printable("bad request\\x1b[2J\\x1b]0;owned\\x07")
    'bad request\\\\x1b[2J\\\\x1b]0;owned\\\\x07'
    >>> printable("line one\\nline two\\r", keep_newlines=True)
    'line one\\nline two\\\\r'
    >>> printable("a" * 100_000, limit=5)
    'aaaaa… (100,000 characters)'
    >>> printable("plain text, untouched")
    'plain text, untouched'
    >>> print("trajectory_id", printable("9" * 52_428_800, limit=8, quote=True), "is not a UUID")
    trajectory_id '99999999'… (52,428,800 characters) is not a UUID
    >>> printable(None, quote=True), printable(["a"] * 100, limit=12, quote=True)
    ('None', "['a', 'a', '… (500 characters)")
    """
    quoted = quote and isinstance(text, str)
    if not isinstance(text, str):
        text = repr(text) if quote else str(text)
    length = len(text)
    if limit is not None and length > limit:
        text = text[:limit]
    pattern = _UNSAFE if keep_newlines else _UNSAFE_OR_NEWLINE
    if pattern.search(text) is not None:
        text = pattern.sub(_escape, text)
    if quoted:
        text = f"'{text}'"
    if limit is not None and length > limit:
        text += f"… ({length:,} characters)"
    return text
