"""The OpenAI-compatible judge's preflight (:func:`check_server`): is the server there, does it take the key,
does it serve the model? A failure ends the run with one clear line before the first item.
"""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.judges.base import JudgeError, PreflightError
from agenthorizon.judging.judges.content_decoding import ACCEPT_ENCODING
from agenthorizon.judging.secrets import scrub
from agenthorizon.util.sizes import size_text
from agenthorizon.util.terminal_text import ECHO_LIMIT, printable

if TYPE_CHECKING:
    import httpx

__all__ = ["MODELS_LIMIT", "check_server", "refused_message"]

MODELS_LIMIT = 8 * 2**20
"""The most a ``/models`` answer may decode to: 8 MiB."""
_TEXT_LIMIT = 64 * 1024


async def check_server(
    client: httpx.AsyncClient,
    base_url: str,
    model: str,
    headers: dict[str, str],
    *,
    timeout: float,
    key_variable: str,
) -> None:
    """Raise :class:`PreflightError` when ``base_url`` cannot be reached, refuses the key or does not serve ``model``.

    Asks ``GET {base_url}/models`` (one request, no retries, at most
    ``timeout`` seconds), else a one-token chat request when the server has
    no such endpoint. Other answers (a busy server's 5xx) are left to the
    run's retries. A ``/models`` list is read up to :data:`MODELS_LIMIT`, any
    other answer up to 64 KiB.
    """
    import httpx

    from agenthorizon.judging.judges.openai_protocol import public_url

    where = public_url(base_url)
    budget = httpx.Timeout(timeout)
    headers = {**headers, "accept-encoding": ACCEPT_ENCODING}
    try:
        status, served, text = await _ask(client.stream("GET", f"{base_url}/models", headers=headers, timeout=budget),
                                          where, models=True)
        if served is None and status not in (401, 403):
            body = {"model": model, "messages": [{"role": "user", "content": "ping"}], "max_tokens": 1}
            status, served, text = await _ask(
                client.stream("POST", f"{base_url}/chat/completions", json=body, headers=headers, timeout=budget),
                where, models=False,
            )
    except (httpx.TimeoutException, httpx.TransportError) as error:
        detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        raise PreflightError(
            f"openai judge: cannot reach {where} ({scrub(detail)}); is the server running and --base-url right?"
        ) from None
    except JudgeError as error:
        raise PreflightError(f"openai judge: {scrub(str(error))}") from None
    if status in (401, 403):
        raise PreflightError(refused_message(where, status, key_variable, sent="Authorization" in headers))
    if served is not None and model not in served:
        shown = ", ".join(printable(name, limit=ECHO_LIMIT) for name in served[:10]) + (" ..." if len(served) > 10 else "")
        raise PreflightError(f"openai judge: {where} does not serve model {model!r}; it serves: {shown or '(none)'}")
    if served is None and status in (400, 404) and mentions_model(text):
        raise PreflightError(
            f"openai judge: {where} does not know model {model!r} (HTTP {status}: {printable(scrub(text), limit=200)})"
        )


def refused_message(where: str, status: int, key_variable: str, *, sent: bool) -> str:
    """The line for a 401/403: whether a key was sent, and how to set one.

    >>> refused_message("http://h/v1", 401, "OPENAI_API_KEY", sent=False)
    'openai judge: http://h/v1 wants an API key (HTTP 401) and none was sent: OPENAI_API_KEY is not set; export OPENAI_API_KEY=<key>, or pass --api-key-env NAME to read the key from another variable'
    """
    if sent:
        return (
            f"openai judge: {where} refused the API key sent from {key_variable} (HTTP {status}); check that key, "
            f"or pass --api-key-env NAME to read the key from another variable"
        )
    return (
        f"openai judge: {where} wants an API key (HTTP {status}) and none was sent: {key_variable} is not set; "
        f"export {key_variable}=<key>, or pass --api-key-env NAME to read the key from another variable"
    )


async def _ask(request: Any, where: str, *, models: bool) -> tuple[int, list[str] | None, str]:
    """(status, the model ids of a ``/models`` answer or ``None``, the start of the body as text).

    A ``/models`` list larger than :data:`MODELS_LIMIT` raises :class:`JudgeError`.
    """
    from agenthorizon.judging.judges.openai_transport import decoded_body

    async with request as response:
        whole = models and response.status_code == 200
        limit = MODELS_LIMIT if whole else _TEXT_LIMIT
        kept = bytearray()
        # The decoder's own limit is above what is kept, so that a long error page is cut, not refused.
        async with contextlib.aclosing(decoded_body(response, 4 * MODELS_LIMIT, where)) as pieces:
            async for piece in pieces:
                if whole and len(kept) + len(piece) > limit:
                    raise JudgeError(f"the /models answer of {where} is larger than {size_text(limit)}; expected a "
                                     f"list of model ids (is --base-url an OpenAI-compatible server?)")
                kept += piece[: limit - len(kept)]
                if len(kept) >= limit:
                    break
    return response.status_code, _served_models(bytes(kept)) if whole else None, kept.decode("utf-8", "replace")


def _served_models(body: bytes) -> list[str] | None:
    """Model ids of a ``/models`` answer; ``None`` when it is not one."""
    try:
        data = json.loads(body)["data"]
        return [str(entry["id"]) for entry in data]
    except (ValueError, KeyError, TypeError):
        return None


def mentions_model(body: str) -> bool:
    """Whether an error body is about the model (vLLM / OpenAI: "The model `x` does not exist").

    >>> mentions_model('{"message": "The model `x` does not exist."}'), mentions_model("rate limited")
    (True, False)
    """
    lowered = body.lower()
    return "model" in lowered and any(word in lowered for word in ("not exist", "not found", "unknown", "no such"))
