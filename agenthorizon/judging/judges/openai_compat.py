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

Screenshot merging (SPEC section 3): in the default image mode ``auto`` an
item's screenshots go one per step (512x332) while their number fits the
server's image limit (``max_images``), and as 2x2 mosaics (1024x664, reading
order stated in the prompt) when it does not. The server has the last word:
an HTTP 400 saying that the image limit or the context length was exceeded
(:func:`is_serving_limit_error`) makes the judge ask again with mosaics, then
with mosaics under half the image budget, instead of failing the item. Each
result's telemetry records what was sent (``images_mode_used``, ``merged``,
``merge_reason``, ``n_images``).

Size: about 600 lines, above the house's ~500, on purpose: it is one class
whose options, image plan and HTTP exchange share state (a server's refusal
changes the next request's plan). The stateless wire-protocol helpers live in
:mod:`agenthorizon.judging.judges.openai_protocol`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import math
import random
import time
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.judges.base import BaseJudge, JudgeError, JudgeOutput, PreflightError, TransportError
from agenthorizon.judging.judges.openai_protocol import (
    RETRY_STATUSES,
    is_serving_limit_error,
    parse_retry_after,
    public_url,
    verdict_response_format,
)
from agenthorizon.judging.judges.prompts import DIRECT_PROMPT, per_step_image_note, render_prompt
from agenthorizon.judging.judges.release_prompt import (
    PROMPT_PROJECT,
    PROMPT_RELEASE,
    PROMPT_SOURCES,
    ReleaseFiles,
    direct_template,
    prompt_record,
    read_release_files,
    unbound_message,
)
from agenthorizon.judging.retry import RetryPolicy
from agenthorizon.judging.secrets import check_secret, register_secret, scrub
from agenthorizon.schema import (
    IMAGE_MODE_AUTO,
    IMAGE_MODE_MOSAIC,
    IMAGE_MODE_NONE,
    IMAGE_MODE_PER_STEP,
    JUDGE_IMAGE_MODES,
)
from agenthorizon.terminal_text import printable

if TYPE_CHECKING:
    import httpx

    from agenthorizon.judging.inputs import JudgeInput

__all__ = [
    "OpenAICompatibleJudge",
    "DEFAULT_BASE_URL",
    "JUDGE_IMAGE_MODES",
    "MERGE_REASONS",
    "RETRY_STATUSES",
    "is_serving_limit_error",
    "verdict_response_format",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MERGE_COUNT = "count"
MERGE_SERVER_LIMIT = "server_limit"
MERGE_REASONS = (MERGE_COUNT, MERGE_SERVER_LIMIT)
"""Why an item's screenshots were merged: more than ``max_images``, or the server refused the request."""
@dataclasses.dataclass(frozen=True)
class ImagePlan:
    """How one request attaches screenshots.

    ``mode`` is ``per-step``, ``mosaic`` or ``none``; ``budget`` the most images
    (``None``: no limit); ``merge_reason`` why screenshots are merged
    (:data:`MERGE_REASONS`, ``None`` when they are not or when mosaics were
    asked for); ``server_limit_retries`` how many times the server refused the
    item as too large before this plan; ``halved`` whether the mosaic budget
    was halved after such a refusal.
    """

    mode: str
    budget: int | None = None
    merge_reason: str | None = None
    server_limit_retries: int = 0
    halved: bool = False


class _ServingLimitExceeded(JudgeError):
    """The server refused a request as too large (too many images or tokens)."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


def _min_budget(*budgets: int | None) -> int | None:
    known = [b for b in budgets if b is not None]
    return min(known) if known else None


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
    images : {"auto", "per-step", "mosaic", "none"}
        ``per-step`` attaches each selected screenshot downscaled to ``image_size``;
        ``mosaic`` packs four consecutive screenshots into one 2x2 row-major
        image (the prompt states the reading order); ``none`` sends text only.
        ``auto`` (the default, the protocol's behaviour) sends per-step images
        while the item's selected screenshots number at most ``max_images``,
        and mosaics of the same screenshots otherwise; when the server answers
        HTTP 400 because the image limit or the context length was exceeded
        (:func:`is_serving_limit_error`), the item is sent again as mosaics,
        and if that is still too large, as mosaics under half the image budget.
    image_budget : int, optional
        Most images per request (screenshots for per-step, mosaics for mosaic).
    max_images : int, optional
        The server's limit on images per request (vLLM's
        ``--limit-mm-per-prompt '{"image": N}'``); ``None`` when unknown. Used by
        ``auto``; the other modes never send more images than this either.
    structured_output : bool
        Send ``response_format`` with the verdict JSON schema
        (:func:`verdict_response_format`) so the server constrains decoding to it.
    extra_body : dict, optional
        More request fields, sent as given (``top_p``, ``seed``,
        ``chat_template_kwargs``, ...) and recorded with the sampling parameters.
    retries : int
        Extra attempts after a transient failure (HTTP 408/409/425/429/5xx, a
        timeout, a connection error); ``0`` means one attempt. With
        ``backoff_base`` and ``backoff_max`` this is the judge's
        :class:`~agenthorizon.judging.retry.RetryPolicy` (``retry``), the
        only retry layer for this judge: the runner does not retry it again.
    timeout : float
        Seconds allowed per HTTP request.
    prompt : str
        ``"project"`` (this project's :data:`~agenthorizon.judging.judges.prompts.DIRECT_PROMPT`,
        the default), ``"release"`` (the release's own ``sandbox/AGENTS.md`` and
        ``sandbox/prompt.md``, read at run time: see
        :mod:`agenthorizon.judging.judges.release_prompt`), or a template of
        your own with ``{{...}}`` placeholders.
    image_quality : int, optional
        JPEG quality of the screenshots sent (1-100; default 85, see
        :data:`agenthorizon.data.images.DEFAULT_QUALITY`).
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
        images: str = IMAGE_MODE_AUTO,
        image_budget: int | None = None,
        max_images: int | None = None,
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
        structured_output: bool = False,
        rng: random.Random | None = None,
    ) -> None:
        if not model:
            raise ValueError("openai judge: a model name is required (openai:MODEL)")
        if images not in JUDGE_IMAGE_MODES:
            raise ValueError(f"openai judge: images must be one of {JUDGE_IMAGE_MODES}, got {images!r}")
        if retries < 0:
            raise ValueError(f"openai judge: retries must be >= 0, got {retries}")
        if image_budget is not None and image_budget < 1:
            raise ValueError(f"openai judge: image budget must be >= 1, got {image_budget}")
        if max_images is not None and (not isinstance(max_images, int) or max_images < 1):
            raise ValueError(f"openai judge: max_images must be a positive integer or None, got {max_images!r}")
        extra_body = dict(extra_body or {})
        reserved = sorted({"model", "messages"} & set(extra_body))
        if reserved:
            raise ValueError(
                f"openai judge: extra_body may not set {', '.join(reserved)} (the judge builds them from the item)"
            )
        if structured_output and "response_format" in extra_body:
            raise ValueError(
                "openai judge: extra_body sets response_format and structured_output is on; use one of the two"
            )
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"openai judge: base_url must start with http:// or https://, got {base_url!r}")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.temperature = float(temperature)
        self.max_tokens = int(max_tokens)
        self.images = images
        self.image_budget = image_budget
        self.max_images = max_images
        self.structured_output = bool(structured_output)
        self.image_size = tuple(image_size)
        self.image_quality = image_quality
        self.image_strategy = image_strategy
        self.cache_dir = cache_dir
        self.retry = RetryPolicy(int(retries), float(backoff_base), float(backoff_max))
        self.timeout = float(timeout)
        # prompt="release": the release's own texts, read when the judge is
        # bound to the release it judges (bind_release); "project": the default.
        self.prompt_source = prompt if prompt in PROMPT_SOURCES else None
        if prompt == PROMPT_PROJECT:
            prompt = DIRECT_PROMPT
        self.prompt: str | None = None if prompt == PROMPT_RELEASE else prompt
        self.release: ReleaseFiles | None = None
        self.price_input_per_1m = price_input_per_1m
        self.price_output_per_1m = price_output_per_1m
        self.extra_body = extra_body
        self._rng = rng or random.Random()
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self.image_settings()  # bad image settings fail here, not on the first item

    @property
    def retries(self) -> int:
        """Extra attempts per request (``retry.retries``)."""
        return self.retry.retries

    @property
    def backoff_base(self) -> float:
        return self.retry.backoff_base

    @property
    def backoff_max(self) -> float:
        return self.retry.backoff_max

    @property
    def reports_cost(self) -> bool:
        """Whether answers carry a cost: only with both prices (``--price-in``, ``--price-out``)."""
        return self.price_input_per_1m is not None and self.price_output_per_1m is not None

    # --- description ------------------------------------------------------------

    def spec(self) -> dict[str, Any]:
        sampling: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens, **self.extra_body}
        if self.structured_output:
            sampling["response_format"] = verdict_response_format()
        return {
            "name": self.name,
            "spec": f"openai:{self.model}",
            "model": self.model,
            "base_url": public_url(self.base_url),
            "api_key_env": self.api_key_env,  # the variable's name, never its value
            "sampling": sampling,
            "images": self._image_settings(),
            "prompt": self._prompt_record(),
            "retries": self.retry.retries,
            "timeout_s": self.timeout,
        }

    def _prompt_record(self) -> dict[str, Any]:
        if self.prompt is None:  # not bound yet: say where the prompt will come from
            return {"sha256": None, "text": None, "source": PROMPT_RELEASE}
        return prompt_record(self.prompt, self.release if self.prompt_source == PROMPT_RELEASE else None)

    @property
    def needs_release(self) -> bool:
        """Whether the judge needs :meth:`bind_release` (only with ``prompt="release"``)."""
        return self.prompt_source == PROMPT_RELEASE

    def bind_release(self, root: str | os.PathLike[str]) -> None:
        """Read the release's judge texts under ``root``; with ``prompt="release"``, build the prompt from them.

        The runner calls this with the release it judges before the first
        item. With another prompt the texts are not used (and not read).
        """
        if self.prompt_source != PROMPT_RELEASE:
            return
        self.release = read_release_files(root)
        self.prompt = direct_template(self.release)

    def _template(self) -> str:
        if self.prompt is None:
            raise JudgeError(unbound_message(f"openai:{self.model}"))
        return self.prompt

    def image_settings(self, mode: str | None = None) -> Any:
        """The :class:`agenthorizon.data.images.ImageSettings` for ``mode`` (default: this judge's).

        ``None`` for text only. In ``auto`` mode the default is the per-step
        settings (what an item gets while its screenshots fit ``max_images``).
        """
        mode = self.images if mode is None else mode
        if mode == IMAGE_MODE_NONE:
            return None
        from agenthorizon.data.images import ImageSettings

        if mode == IMAGE_MODE_AUTO:
            mode = IMAGE_MODE_PER_STEP
        kwargs: dict[str, Any] = {
            "mode": mode,
            "size": tuple(self.image_size),
            "budget": self.image_budget,
        }
        if self.image_quality is not None:
            kwargs["quality"] = self.image_quality
        if self.image_strategy is not None:
            kwargs["strategy"] = self.image_strategy
        return ImageSettings(**kwargs)

    def _image_settings(self) -> dict[str, Any]:
        if self.images == IMAGE_MODE_NONE:
            return {"mode": IMAGE_MODE_NONE}
        record = self.image_settings().to_dict()
        record["max_images"] = self.max_images
        if self.images == IMAGE_MODE_AUTO:
            # The per-step settings, plus the layout and reading order of the
            # mosaics an item falls back to.
            mosaic = self.image_settings(IMAGE_MODE_MOSAIC).to_dict()
            record.update(
                mode=IMAGE_MODE_AUTO,
                mosaic=mosaic["mosaic"],
                reading_order=mosaic["reading_order"],
                merging=(
                    "per-step images while an item's selected screenshots number at most max_images, "
                    "else 2x2 mosaics of them (at most max_images); after an HTTP 400 for too many "
                    "images or tokens, once more as mosaics, then as mosaics under half the image budget"
                ),
            )
        return record

    # --- request building -----------------------------------------------------------

    def plan_images(self, judge_input: JudgeInput) -> ImagePlan:
        """The first image plan for an item (see ``images`` in the class docstring).

        ``auto`` counts the screenshots the per-step selection would send
        (:func:`agenthorizon.data.images.select_steps` with the image budget) and
        merges them into 2x2 mosaics when there are more than ``max_images``.
        """
        if self.images == IMAGE_MODE_NONE:
            return ImagePlan(IMAGE_MODE_NONE)
        if self.images == IMAGE_MODE_MOSAIC:
            return ImagePlan(IMAGE_MODE_MOSAIC, _min_budget(self.image_budget, self.max_images))
        per_step = ImagePlan(IMAGE_MODE_PER_STEP, _min_budget(self.image_budget, self.max_images))
        if self.images == IMAGE_MODE_PER_STEP or self.max_images is None:
            return per_step
        count = self._per_step_count(judge_input)
        if count <= self.max_images:
            return per_step
        return ImagePlan(IMAGE_MODE_MOSAIC, self._mosaics_for(count), MERGE_COUNT)

    def _per_step_count(self, judge_input: JudgeInput) -> int:
        from agenthorizon.data.images import select_steps

        settings = self.image_settings(IMAGE_MODE_PER_STEP)
        step_ids = judge_input.step_columns.step_ids
        available = [step_ids[index] for index in judge_input.screenshots.present]
        return len(select_steps(available, settings.strategy, budget=settings.budget, every=settings.every))

    def _mosaics_for(self, screenshots: int) -> int:
        # Enough mosaics for the same screenshots (four per mosaic), within the serving limit.
        return max(1, _min_budget(math.ceil(screenshots / 4), self.max_images))

    def _fallback(self, plan: ImagePlan, images_sent: int) -> ImagePlan | None:
        """The plan after the server refused ``plan`` as too large; ``None`` when nothing is left to try."""
        if self.images != IMAGE_MODE_AUTO or images_sent == 0:
            return None
        retries = plan.server_limit_retries + 1
        if plan.mode == IMAGE_MODE_PER_STEP:
            return ImagePlan(IMAGE_MODE_MOSAIC, self._mosaics_for(images_sent), MERGE_SERVER_LIMIT, retries)
        if plan.mode == IMAGE_MODE_MOSAIC and not plan.halved and images_sent > 1:
            # Halved once only: a server that refuses even that needs other
            # settings (--max-model-len, --max-images), not a guessing game.
            reason = plan.merge_reason or MERGE_SERVER_LIMIT
            return ImagePlan(IMAGE_MODE_MOSAIC, images_sent // 2, reason, retries, halved=True)
        return None

    def build_messages(self, judge_input: JudgeInput, plan: ImagePlan | None = None) -> list[dict[str, Any]]:
        """The chat messages for one item: the filled prompt, then each image after its caption.

        Per-step images are captioned ``Step k screenshot:``; mosaics by their
        reading order, which the prompt also states once. ``plan`` defaults to
        :meth:`plan_images` of the item.
        """
        return self._messages(judge_input, plan or self.plan_images(judge_input))[0]

    def _messages(self, judge_input: JudgeInput, plan: ImagePlan) -> tuple[list[dict[str, Any]], list[Any]]:
        settings = self.image_settings(plan.mode)
        if settings is not None:
            settings = dataclasses.replace(settings, budget=plan.budget)
        if settings is None:
            return [{"role": "user", "content": render_prompt(self._template(), judge_input)}], []
        from agenthorizon.data.images import reading_order_sentence

        extra = {"cache_dir": self.cache_dir} if self.cache_dir is not None else {}
        prepared = judge_input.screenshots.prepare(
            settings=settings, step_ids=judge_input.step_columns.step_ids, **extra
        )
        if not prepared:
            note = ""
        elif plan.mode == IMAGE_MODE_MOSAIC:
            note = reading_order_sentence()
        else:
            note = per_step_image_note([image.steps[0] for image in prepared])
        content: list[dict[str, Any]] = [
            {"type": "text", "text": render_prompt(self._template(), judge_input, image_note=note)}
        ]
        for image in prepared:
            content.append({"type": "text", "text": image.caption()})
            content.append(image.content_part())
        return [{"role": "user", "content": content}], list(prepared)

    def _body(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            **self.extra_body,
        }
        if self.structured_output:
            body["response_format"] = verdict_response_format()
        return body

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env, "")
        if not key and self.base_url == DEFAULT_BASE_URL:
            raise PreflightError(
                f"openai judge: environment variable {self.api_key_env} is not set; "
                "export the API key there or pass --api-key-env NAME"
            )
        if not key:
            return {}
        # Registered before the check: even a refused key is scrubbed from
        # anything written later.
        register_secret(key)
        try:
            check_secret(key, self.api_key_env)
        except ValueError as error:
            raise PreflightError(f"openai judge: {error}") from None
        return {"Authorization": f"Bearer {key}"}

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        return self.retry.delay(attempt, retry_after, rng=self._rng)

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
        headers = self._headers()
        try:
            return await self._ajudge(judge_input, headers)
        except JudgeError as error:
            # A server may quote the key back in an error body (a 401 "invalid
            # key: ..."), raw or escaped; the message ends up in result files and logs.
            cleaned = scrub(str(error))
            if cleaned != str(error):
                raise type(error)(cleaned) from None
            raise

    async def apreflight(self) -> None:
        """Fail fast on a refused key, an unreachable server or a model it does not serve
        (:func:`agenthorizon.judging.judges.server_check.check_server`)."""
        from agenthorizon.judging.judges.server_check import check_server

        headers = self._headers()
        await check_server(
            await self._client_for_loop(), self.base_url, self.model, headers,
            timeout=min(self.timeout, 15.0), key_variable=self.api_key_env,
        )

    async def _ajudge(self, judge_input: JudgeInput, headers: dict[str, str]) -> JudgeOutput:
        started = time.perf_counter()
        plan = self.plan_images(judge_input)
        attempts = 0
        while True:
            messages, prepared = await asyncio.to_thread(self._messages, judge_input, plan)
            try:
                response, used = await self._post(self._body(messages), headers)
            except _ServingLimitExceeded as refused:
                attempts += refused.attempts
                following = self._fallback(plan, len(prepared))
                if following is None:
                    hint = "" if self.images == IMAGE_MODE_AUTO else "; --images auto merges screenshots when this happens"
                    raise JudgeError(f"{refused} (not retried{hint})") from None
                plan = following
                continue
            attempts += used
            output = self._output(response, judge_input, attempts, time.perf_counter() - started)
            output.extra.update(self._image_telemetry(plan, prepared))
            return output

    @staticmethod
    def _image_telemetry(plan: ImagePlan, prepared: list[Any]) -> dict[str, Any]:
        merged = plan.mode == IMAGE_MODE_MOSAIC and bool(prepared)
        return {
            "images_mode_used": plan.mode,
            "merged": merged,
            "merge_reason": plan.merge_reason if merged else None,
            "n_images": len(prepared),
            "server_limit_retries": plan.server_limit_retries,
        }

    async def _post(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[httpx.Response, int]:
        """POST one request with the retry policy; returns the 200 response and the attempts used."""
        import httpx

        url = f"{self.base_url}/chat/completions"
        client = await self._client_for_loop()
        failure = ""
        for attempt in range(1, self.retry.attempts + 1):
            retry_after = None
            try:
                response = await client.post(url, json=body, headers=headers)
            except (httpx.TimeoutException, httpx.TransportError) as error:
                failure = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            else:
                status = response.status_code
                if status == 200:
                    return response, attempt
                snippet = printable(response.text, limit=300)  # the server's text: no terminal escapes
                failure = f"HTTP {status} from {public_url(url)}: {snippet}"
                if is_serving_limit_error(status, response.text):
                    raise _ServingLimitExceeded(failure, attempt)
                if status not in RETRY_STATUSES and status < 500:
                    raise JudgeError(f"{failure} (not retried)")
                retry_after = parse_retry_after(response.headers.get("retry-after"))
            if attempt > self.retries:
                break
            await asyncio.sleep(self._delay(attempt, retry_after))
        raise TransportError(f"gave up after {self.retry.attempts} attempts; last failure: {failure}")

    def _output(self, response: httpx.Response, judge_input: JudgeInput, attempts: int, latency: float) -> JudgeOutput:
        where = f"trajectory {judge_input.trajectory_id}: response from {public_url(self.base_url)}"
        try:
            payload = response.json()
            message = payload["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise JudgeError(f"{where} is not a chat completion: {printable(response.text, limit=300, quote=True)}") from None
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
        # vLLM's reasoning parsers put the thinking here ("reasoning" in newer
        # releases). Only its length is kept: the verdict is the answer alone.
        thinking = message.get("reasoning_content") or message.get("reasoning")
        if isinstance(thinking, str) and thinking:
            extra["reasoning_chars"] = len(thinking)
        return JudgeOutput(
            text=str(content),
            input_tokens=input_tokens if isinstance(input_tokens, int) else None,
            output_tokens=output_tokens if isinstance(output_tokens, int) else None,
            latency_s=latency,
            cost_usd=cost,
            attempts=attempts,
            extra=extra,
        )
