"""Byte sizes: the one parser of size flags and the one formatter of sizes.

The rule, as ``huggingface_hub`` writes sizes and GNU coreutils reads them:
``KB``, ``MB``, ``GB``, ``TB`` are decimal (10^3 ... 10^12); ``KiB`` ... ``TiB``
and a bare ``K``, ``M``, ``G``, ``T`` are binary (2^10 ... 2^40). Units are
case-insensitive; ``B`` or no unit is bytes.
"""

from __future__ import annotations

import re

__all__ = ["parse_size", "size_text"]

_UNITS = {
    "": 1, "b": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*")


def parse_size(value: int | str, what: str = "size") -> int:
    """The positive number of bytes a size flag's value means (an int, or a number and a unit).

    ValueError names ``what`` (the flag), the value and the accepted form.

    >>> parse_size("500MB"), parse_size("500MiB"), parse_size("1G"), parse_size(4096)
    (500000000, 524288000, 1073741824, 4096)
    """
    if isinstance(value, bool):
        raise ValueError(f"{what}: expected a number of bytes such as 500MB, 512MiB or 8G, got {value!r}")
    if isinstance(value, int):
        number = value
    else:
        match = _SIZE.fullmatch(str(value))
        unit = match.group(2).lower() if match else None
        if match is None or unit not in _UNITS:
            raise ValueError(
                f"{what}: expected a number of bytes such as 500MB (10^6), 512MiB or 512M (2^20), got {value!r}"
            )
        number = int(float(match.group(1)) * _UNITS[unit])
    if number <= 0:
        raise ValueError(f"{what}: expected a positive number of bytes, got {value!r}")
    return number


def size_text(size: int) -> str:
    """A number of bytes (>= 0) in binary units: ``"<n> GiB"``, ``MiB``, ``KiB`` (``:g``) or ``"<n> bytes"``.

    >>> size_text(8 * 2**30), size_text(3 * 2**19), size_text(1000)
    ('8 GiB', '1.5 MiB', '1000 bytes')
    """
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size} bytes"
