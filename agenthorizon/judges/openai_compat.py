"""A judge that calls any OpenAI-compatible chat-completions server.

vLLM (``vllm serve MODEL``), SGLang, llama.cpp's server, OpenRouter and the
hosted APIs all speak ``POST {base_url}/chat/completions``; screenshots go as
base64 ``data:`` URLs in ``image_url`` content parts.

Why httpx and not the ``openai`` client: the retry policy is part of the run's
behaviour and must be exactly what the docs say (which errors are retried,
exponential backoff with jitter, ``Retry-After`` honoured, attempts counted in
the telemetry), and httpx is already a core dependency, so this judge works
without the optional ``openai`` package and with servers that return slightly
non-standard bodies.

The API key is read from the environment variable *named* by
``api_key_env`` at request time; the key itself is never stored on the judge,
in its spec or in a run record.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from agenthorizon.judges.base import BaseJudge, JudgeError, JudgeOutput
from agenthorizon.judges.prompts import DIRECT_PROMPT, per_step_image_note, prompt_sha256, render_prompt

if TYPE_CHECKING:
    import httpx

    from agenthorizon.judge_input import JudgeInput

__all__ = ["OpenAICompatibleJudge", "DEFAULT_BASE_URL", "IMAGE_MODES", "RETRY_STATUSES"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
IMAGE_MODES = ("per-step", "mosaic", "none")
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
"""HTTP statuses worth retrying: timeouts, conflicts, rate limits, server errors (any 5xx is retried too)."""


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


class OpenAICompatibleJudge(BaseJudge):
    """Judge with a chat model behind an OpenAI-compatible endpoint.

    Parameters
    ----------
    model : str
        Model name as the server knows it (``Qwen/Qwen3-VL-8B-Instruct``, ``gpt-5``).
    base_url : str
        Server root including ``/v1``.
    api_key_env : str
        Name of the environment variable holding the key. When it is unset the
        request carries no ``Authorization`` header (a local vLLM needs none);
        for the default OpenAI URL a missing key is an error.
    temperature, max_tokens : sampling parameters sent with every request.
    images : {"per-step", "mosaic", "none"}
        ``per-step`` attaches each selected screenshot downscaled to ``image_size``;
        ``mosaic`` packs four consecutive screenshots into one 2x2 row-major
        image (the prompt states the reading order); ``none`` sends text only.
    image_budget : int, optional
        Most images per request (screenshots for per-step, mosaics for mosaic).
    retries : int
        Extra attempts after a transient failure (HTTP 408/409/425/429/5xx, a
        timeout, a connection error). Attempt ``k`` waits
        ``min(backoff_max, backoff_base * 2**(k-1))`` scaled by a random factor in
        [0.5, 1] (jitter, so concurrent requests do not retry in lockstep), or
        the server's ``Retry-After`` when that is longer.
    timeout : float
        Seconds allowed per HTTP request.
    price_input_per_1m, price_output_per_1m : float, optional
        US dollars per million input / output tokens, to record a cost.
    """

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = 0.0,
        max_tokens: int = 2048,
        images: str = "per-step",
        image_budget: int | None = None,
        image_size: tuple[int, int] = (512, 332),
        image_quality: int | None = None,
        image_strategy: str | None = None,
        cache_dir: str | None = None,
        retries: int = 5,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        timeout: float = 180.0,
        prompt: str = DIRECT_PROMPT,
        price_input_per_1m: float | None = None,
        price_output_per_1m: float | None = None,
        extra_body: dict[str, Any] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if not model:
            raise ValueError("openai judge: a model name is required (openai:MODEL)")
        if images not in IMAGE_MODES:
            raise ValueError(f"openai judge: images must be one of {IMAGE_MODES}, got {images!r}")
        if retries < 0:
            raise ValueError(f"openai judge: retries must be >= 0, got {retries}")
        if image_budget is not None and image_budget < 1:
            raise ValueError(f"openai judge: image budget must be >= 1, got {image_budget}")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"openai judge: base_url must start with http:// or https://, got {base_url!r}")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.temperature = float(temperature)
        self.max_tokens = int(max_tokens)
        self.images = images
        self.image_budget = image_budget
        self.image_size = tuple(image_size)
        self.image_quality = image_quality
        self.image_strategy = image_strategy
        self.cache_dir = cache_dir
        self.retries = int(retries)
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)
        self.timeout = float(timeout)
        self.prompt = prompt
        self.price_input_per_1m = price_input_per_1m
        self.price_output_per_1m = price_output_per_1m
        self.extra_body = dict(extra_body or {})
        self._rng = rng or random.Random()
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self.image_settings()  # bad image settings fail here, not on the first item

    # --- description ------------------------------------------------------------

    def spec(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "spec": f"openai:{self.model}",
            "model": self.model,
            "base_url": public_url(self.base_url),
            "api_key_env": self.api_key_env,  # the variable's name, never its value
            "sampling": {"temperature": self.temperature, "max_tokens": self.max_tokens, **self.extra_body},
            "images": self._image_settings(),
            "prompt": {"sha256": prompt_sha256(self.prompt), "text": self.prompt},
            "retries": self.retries,
            "timeout_s": self.timeout,
        }

    def image_settings(self) -> Any:
        """The :class:`agenthorizon.preprocess.ImageSettings` of this judge (``None`` for text only)."""
        if self.images == "none":
            return None
        from agenthorizon.preprocess import ImageSettings

        kwargs: dict[str, Any] = {"mode": self.images, "size": tuple(self.image_size), "budget": self.image_budget}
        if self.image_quality is not None:
            kwargs["quality"] = self.image_quality
        if self.image_strategy is not None:
            kwargs["strategy"] = self.image_strategy
        return ImageSettings(**kwargs)

    def _image_settings(self) -> dict[str, Any]:
        settings = self.image_settings()
        return {"mode": "none"} if settings is None else settings.to_dict()

    # --- request building -----------------------------------------------------------

    def build_messages(self, judge_input: JudgeInput) -> list[dict[str, Any]]:
        """The chat messages for one item: the filled prompt, then each image after its caption.

        Per-step images are captioned ``Step k screenshot:``; mosaics by their
        reading order, which the prompt also states once.
        """
        settings = self.image_settings()
        if settings is None:
            return [{"role": "user", "content": render_prompt(self.prompt, judge_input)}]
        from agenthorizon.preprocess import reading_order_sentence

        extra = {"cache_dir": self.cache_dir} if self.cache_dir is not None else {}
        prepared = judge_input.screenshots.prepare(
            settings=settings, step_ids=[step["step_id"] for step in judge_input.steps], **extra
        )
        if not prepared:
            note = ""
        elif self.images == "mosaic":
            note = reading_order_sentence()
        else:
            note = per_step_image_note([image.steps[0] for image in prepared])
        content: list[dict[str, Any]] = [
            {"type": "text", "text": render_prompt(self.prompt, judge_input, image_note=note)}
        ]
        for image in prepared:
            content.append({"type": "text", "text": image.caption()})
            content.append(image.content_part())
        return [{"role": "user", "content": content}]

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env, "")
        if not key and self.base_url == DEFAULT_BASE_URL:
            raise JudgeError(
                f"openai judge: environment variable {self.api_key_env} is not set; "
                "export the API key there or pass --api-key-env NAME"
            )
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        ceiling = min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1))
        delay = ceiling * (0.5 + 0.5 * self._rng.random())
        if retry_after is not None:
            delay = max(delay, min(retry_after, max(self.backoff_max, 120.0)))
        return delay

    async def _client_for_loop(self) -> httpx.AsyncClient:
        import httpx

        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop or self._client.is_closed:
            # A client is bound to the loop it was created on; the derived sync
            # judge() runs a fresh loop per call, the runner one loop per run.
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout), limits=httpx.Limits(max_connections=None))
            self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None and self._client_loop is asyncio.get_running_loop():
            await self._client.aclose()
        self._client = None
        self._client_loop = None

    # --- judging -------------------------------------------------------------------

    async def ajudge(self, judge_input: JudgeInput) -> JudgeOutput:
        import httpx

        started = time.perf_counter()
        messages = await asyncio.to_thread(self.build_messages, judge_input)
        body = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            **self.extra_body,
        }
        url = f"{self.base_url}/chat/completions"
        headers = self._headers()
        client = await self._client_for_loop()
        failure = ""
        for attempt in range(1, self.retries + 2):
            retry_after = None
            try:
                response = await client.post(url, json=body, headers=headers)
            except (httpx.TimeoutException, httpx.TransportError) as error:
                failure = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            else:
                status = response.status_code
                if status == 200:
                    return self._output(response, judge_input, attempt, time.perf_counter() - started)
                snippet = response.text[:300].replace("\n", " ")
                failure = f"HTTP {status} from {public_url(url)}: {snippet}"
                if status not in RETRY_STATUSES and status < 500:
                    raise JudgeError(f"{failure} (not retried)")
                retry_after = parse_retry_after(response.headers.get("retry-after"))
            if attempt > self.retries:
                break
            await asyncio.sleep(self._delay(attempt, retry_after))
        raise JudgeError(f"gave up after {self.retries + 1} attempts; last failure: {failure}")

    def _output(self, response: httpx.Response, judge_input: JudgeInput, attempts: int, latency: float) -> JudgeOutput:
        where = f"trajectory {judge_input.trajectory_id}: response from {public_url(self.base_url)}"
        try:
            payload = response.json()
            message = payload["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise JudgeError(f"{where} is not a chat completion: {response.text[:300]!r}") from None
        content = message.get("content")
        if isinstance(content, list):  # some servers return content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if content is None:
            content = ""
        usage = payload.get("usage") or {}
        input_tokens = usage.get("prompt_tokens")
        output_tokens = usage.get("completion_tokens")
        cost = None
        if self.price_input_per_1m is not None and self.price_output_per_1m is not None:
            if isinstance(input_tokens, int) and isinstance(output_tokens, int):
                cost = (input_tokens * self.price_input_per_1m + output_tokens * self.price_output_per_1m) / 1e6
        extra = {}
        if payload.get("model"):
            extra["model"] = payload["model"]
        finish = payload["choices"][0].get("finish_reason")
        if finish:
            extra["finish_reason"] = finish
        return JudgeOutput(
            text=str(content),
            input_tokens=input_tokens if isinstance(input_tokens, int) else None,
            output_tokens=output_tokens if isinstance(output_tokens, int) else None,
            latency_s=latency,
            cost_usd=cost,
            attempts=attempts,
            extra=extra,
        )
