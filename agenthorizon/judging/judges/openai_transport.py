"""One chat-completions request of the direct judge (:func:`post_chat`): bounded in time and size, retried by one policy."""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import TYPE_CHECKING, Any, Callable

from agenthorizon.judging.judges.base import JudgeError, TransportError
from agenthorizon.judging.judges.content_decoding import ACCEPT_ENCODING, ContentDecoder, InflatesTooFar, UnknownEncoding
from agenthorizon.judging.judges.openai_answer import Completion, EventStream, NotACompletion, completion_from_body
from agenthorizon.judging.judges.openai_protocol import RETRY_STATUSES, is_serving_limit_error, parse_retry_after, public_url
from agenthorizon.judging.judges.output_cap import TailBuffer
from agenthorizon.judging.retry import RetryPolicy
from agenthorizon.util.sizes import size_text
from agenthorizon.util.terminal_text import printable

if TYPE_CHECKING:
    import httpx

__all__ = ["BODY_LIMIT_FLOOR", "RequestTimeout", "ServingLimitExceeded", "body_limit", "decoded_body", "post_chat",
           "timeout_message"]

# How much of an error body is read and shown (an error page is never the answer).
_ERROR_BODY_BYTES = 64 * 1024
BODY_LIMIT_FLOOR = 256 * 2**20
"""The least a body may decode to (each layer of its encoding): 256 MiB."""


def body_limit(max_output_bytes: int) -> int:
    """The most bytes one answer may decode to: 256 MiB, or 4 x ``max_output_bytes`` when that is more.

    Far above any real answer, low enough to stop a compression bomb early.

    >>> body_limit(16 * 2**20) == 256 * 2**20, body_limit(2**30) == 4 * 2**30
    (True, True)
    """
    return max(BODY_LIMIT_FLOOR, 4 * max_output_bytes)


async def decoded_body(response: httpx.Response, limit: int, where: str):
    """The decoded pieces of ``response``'s body, read raw, no layer inflating past ``limit``.

    Raises :class:`JudgeError` naming ``where`` (the server's public URL) and
    the limit, for a body that inflates past it or uses an encoding the judge
    did not ask for.
    """
    try:
        decoder = ContentDecoder(response.headers.get("content-encoding", ""), limit)
        async for chunk in response.aiter_raw():
            for piece in decoder.feed(chunk):
                yield piece
    except InflatesTooFar as error:
        raise JudgeError(
            f"the response from {where} is refused: {error} ({size_text(error.limit)}; a real answer is far "
            f"smaller, and --max-output-bytes keeps only its end)"
        ) from None
    except UnknownEncoding as error:
        raise JudgeError(f"the response from {where} is refused: {error}") from None


class ServingLimitExceeded(JudgeError):
    """The server refused a request as too large (too many images or tokens)."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


class RequestTimeout(TransportError):
    """The last attempt of a request did not finish (connect, send, the whole answer) within the timeout.

    A transport failure: ``breaker`` of them in a row stop the run, as a dead
    server would, rather than every item waiting out its timeouts.
    """


def timeout_message(timeout: float) -> str:
    """What a timed-out request says: the limit and what it bounds.

    >>> timeout_message(2.5)
    'no complete answer within 2.5 s (--timeout: the limit on one request, from connecting to the end of the answer)'
    """
    return f"no complete answer within {timeout:g} s (--timeout: the limit on one request, from connecting to the end of the answer)"


async def post_chat(
    client: httpx.AsyncClient, url: str, body: dict[str, Any], headers: dict[str, str], *,
    timeout: float, max_output_bytes: int, retry: RetryPolicy, rng: random.Random,
    parse: Callable[[TailBuffer], Completion] = completion_from_body,
) -> tuple[Completion, int]:
    """POST ``body`` with ``retry``; the completion of the first successful attempt and the attempts used.

    Each attempt (connect, send, read the whole answer or stream) must end
    within ``timeout`` seconds, however slowly the server sends. At most
    ``max_output_bytes`` of the answer are kept; its raw bytes are decoded
    here, no ``Content-Encoding`` layer past :func:`body_limit`. Retried:
    timeouts, lost connections, HTTP 408/409/425/429/5xx (honouring
    ``Retry-After``). ``parse`` reads a whole (not streamed) body.

    Raises :class:`ServingLimitExceeded` for a request too large for the
    server; :class:`JudgeError` for an HTTP error not worth retrying, an
    answer that is not a completion or one that inflates too far;
    :class:`RequestTimeout` or :class:`TransportError` when every attempt
    failed (the message ends with the last failure).
    """
    import httpx

    failure = ""
    for attempt in range(1, retry.attempts + 1):
        retry_after = None
        try:
            # wait_for, not the client's phase timeouts: it bounds the attempt as a whole.
            status, response_headers, completion, error_body = await asyncio.wait_for(
                _exchange(client, url, body, headers, max_output_bytes, parse), timeout
            )
        except asyncio.TimeoutError:
            failure = timeout_message(timeout)
        except (httpx.TimeoutException, httpx.TransportError) as error:
            failure = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        else:
            if completion is not None:
                return completion, attempt
            snippet = printable(error_body, limit=300)  # the server's text: no terminal escapes
            failure = f"HTTP {status} from {public_url(url)}: {snippet}"
            if is_serving_limit_error(status, error_body):
                raise ServingLimitExceeded(failure, attempt)
            if status not in RETRY_STATUSES and status < 500:
                raise JudgeError(f"{failure} (not retried)").counted(attempt)
            retry_after = parse_retry_after(response_headers.get("retry-after"))
        if attempt > retry.retries:
            break
        await asyncio.sleep(retry.delay(attempt, retry_after, rng=rng))
    if failure.startswith("no complete answer"):
        raise RequestTimeout(f"gave up after {retry.attempts} attempt(s); last failure: {failure}").counted(attempt)
    raise TransportError(f"gave up after {retry.attempts} attempts; last failure: {failure}").counted(attempt)


async def _exchange(
    client: httpx.AsyncClient, url: str, body: dict[str, Any], headers: dict[str, str], max_output_bytes: int,
    parse: Callable[[TailBuffer], Completion] = completion_from_body,
) -> tuple[int, Any, Completion | None, str]:
    """One attempt: (status, headers, the completion of a 200 answer or ``None``, the start of an error body)."""
    where, limit = public_url(url), body_limit(max_output_bytes)
    headers = {**headers, "accept-encoding": ACCEPT_ENCODING}
    async with client.stream("POST", url, json=body, headers=headers) as response, \
            contextlib.aclosing(decoded_body(response, limit, where)) as pieces:
        if response.status_code != 200:
            kept = bytearray()
            async for piece in pieces:  # decoded: an error page is shown as text
                kept += piece[: _ERROR_BODY_BYTES - len(kept)]
                if len(kept) >= _ERROR_BODY_BYTES:
                    break
            return response.status_code, response.headers, None, bytes(kept).decode("utf-8", errors="replace")
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            stream = EventStream(max_output_bytes)
            async for piece in pieces:
                stream.feed(piece)
                if stream.done:
                    break
            if stream.error is not None:
                raise JudgeError(stream.error)
            return 200, response.headers, stream.completion(), ""
        tail = TailBuffer(max_output_bytes)
        async for piece in pieces:
            tail.add(piece)
        try:
            return 200, response.headers, parse(tail), ""
        except NotACompletion as error:
            raise JudgeError(f"the response from {where} {error}") from None
