"""Pure helpers of the chat-completions wire protocol: retryable statuses, serving-limit errors,
``Retry-After``, the structured-output ``response_format`` and the base URL a run record may show.
"""

from __future__ import annotations

import email.utils
import re
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from agenthorizon.judging.judges.prompts import verdict_json_schema

__all__ = [
    "RETRY_STATUSES",
    "is_serving_limit_error",
    "parse_retry_after",
    "public_url",
    "verdict_response_format",
]

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
"""HTTP statuses worth retrying: timeouts, conflicts, rate limits, server errors (any 5xx is retried too)."""


# What servers answer (HTTP 400) to too many images or tokens. vLLM: "At most 4 image(s) may be
# provided in one request.", "You set image=2 ... in `--limit-mm-per-prompt`, but passed 3 image items",
# "This model's maximum context length is ...", "The decoder prompt (length 70000) is longer than the
# maximum model length of 65536.", "The prompt ... is too long to fit into the model"; OpenAI: code
# "context_length_exceeded".
_SERVING_LIMIT = re.compile(
    r"at most \d+ (?:image|multimodal)|limit[-_ ]mm[-_ ]per[-_ ]prompt|too many images"
    r"|maximum context length|context_length_exceeded|longer than the maximum model length"
    r"|too long to fit into the model",
    re.IGNORECASE,
)


def is_serving_limit_error(status: int, body: str) -> bool:
    """True when an HTTP 400 or 413 answer says the request had too many images or tokens for the server.

    The judge then merges screenshots and asks again rather than failing the item.

    >>> is_serving_limit_error(400, '{"message": "At most 32 image(s) may be provided in one request."}')
    True
    >>> is_serving_limit_error(400, '{"message": "The model `x` does not exist."}')
    False
    """
    return status in (400, 413) and bool(_SERVING_LIMIT.search(body))


def verdict_response_format() -> dict[str, Any]:
    """The ``response_format`` (OpenAI and vLLM) that constrains an answer to
    :func:`~agenthorizon.judging.judges.prompts.verdict_json_schema`.

    >>> verdict_response_format()["json_schema"]["name"]
    'verdict'
    """
    return {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "schema": verdict_json_schema(), "strict": True},
    }


def public_url(url: str) -> str:
    """``url`` without user info, query or fragment: what a run record may show.

    >>> public_url("https://user:secret@host:8000/v1?key=abc")
    'https://host:8000/v1'
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta seconds or an HTTP date).

    >>> parse_retry_after("2.5"), parse_retry_after(None), parse_retry_after("soon")
    (2.5, None, None)
    """
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment is None:
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))
