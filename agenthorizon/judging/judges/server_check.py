"""Is an OpenAI-compatible server there, does it take the key, does it serve the model?

:func:`check_server` is the OpenAI-compatible judge's preflight: one or two
requests before the first item, so that a dead server, a refused key or an
unknown model ends the run within seconds with one clear line instead of
failing every item after its retries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agenthorizon.judging.judges.base import PreflightError
from agenthorizon.judging.secrets import scrub
from agenthorizon.terminal_text import ECHO_LIMIT, printable

if TYPE_CHECKING:
    import httpx

__all__ = ["check_server", "refused_message"]


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

    Asks ``GET {base_url}/models`` (vLLM and the OpenAI API list their models
    there; one request, no retries, at most ``timeout`` seconds); when the
    server has no such endpoint, a one-token chat request instead. Other
    answers (a busy server's 5xx) are left to the run's retries.
    """
    import httpx

    from agenthorizon.judging.judges.openai_protocol import public_url

    where = public_url(base_url)
    budget = httpx.Timeout(timeout)
    try:
        response = await client.get(f"{base_url}/models", headers=headers, timeout=budget)
        served = _served_models(response)
        if served is None and response.status_code not in (401, 403):
            body = {"model": model, "messages": [{"role": "user", "content": "ping"}], "max_tokens": 1}
            response = await client.post(f"{base_url}/chat/completions", json=body, headers=headers, timeout=budget)
    except (httpx.TimeoutException, httpx.TransportError) as error:
        detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        raise PreflightError(
            f"openai judge: cannot reach {where} ({scrub(detail)}); is the server running and --base-url right?"
        ) from None
    status = response.status_code
    if status in (401, 403):
        raise PreflightError(refused_message(where, status, key_variable, sent="Authorization" in headers))
    if served is not None and model not in served:
        shown = ", ".join(printable(name, limit=ECHO_LIMIT) for name in served[:10]) + (" ..." if len(served) > 10 else "")
        raise PreflightError(f"openai judge: {where} does not serve model {model!r}; it serves: {shown or '(none)'}")
    if served is None and status in (400, 404) and mentions_model(response.text):
        raise PreflightError(
            f"openai judge: {where} does not know model {model!r} (HTTP {status}: {printable(scrub(response.text), limit=200)})"
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


def _served_models(response: httpx.Response) -> list[str] | None:
    """Model ids of a ``/models`` answer; ``None`` when it is not one (no such endpoint, an error)."""
    if response.status_code != 200:
        return None
    try:
        data = response.json()["data"]
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
