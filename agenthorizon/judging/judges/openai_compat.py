# Over 500 lines: one item's flow (images, request, answer, re-ask) and the hooks gemini-direct and the helper models override; split, the flow reads in three files.
"""A judge that calls any OpenAI-compatible chat-completions server.

vLLM (``vllm serve MODEL``), SGLang, llama.cpp's server, OpenRouter and the
hosted APIs all speak ``POST {base_url}/chat/completions``; screenshots go as
base64 ``data:`` URLs in ``image_url`` content parts.

Why httpx and not the ``openai`` client: the retry policy is part of the run's
behaviour and must be exactly what the docs say (which errors are retried,
exponential backoff with jitter, ``Retry-After`` honoured, attempts counted in
the telemetry), one request must be bounded end to end by one timeout, and
an answer's size by one cap; httpx is already a core dependency, so this
judge works without the optional ``openai`` package and with servers that
return slightly non-standard bodies.

The API key is read from the environment variable *named* by
``api_key_env`` at request time; the key itself is never stored on the judge,
in its spec or in a run record.

The parts live beside this module, one job each: the screenshots of an item
(:mod:`~agenthorizon.judging.judges.openai_images`: modes, merging, the token
budget), the messages (:mod:`~agenthorizon.judging.judges.direct_messages`:
layouts, the system prompt), one bounded request
(:mod:`~agenthorizon.judging.judges.openai_transport`) and its answer
(:mod:`~agenthorizon.judging.judges.openai_answer`), the wire-protocol
helpers and request settings (:mod:`~agenthorizon.judging.judges.openai_protocol`).
This class holds the options and runs one item: plan, send, fall back to
mosaics when the server says the request is too large.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.judges.base import DEFAULT_MAX_OUTPUT_BYTES, BaseJudge, JudgeError, JudgeOutput, PreflightError
from agenthorizon.judging.judges.direct_messages import SystemPrompt, chat_messages, check_layout, protocol_record, text_chars
from agenthorizon.judging.judges.openai_images import BUDGET_IMAGES, MERGE_REASONS, ImageOptions, ImagePlan
from agenthorizon.judging.judges.openai_protocol import (
    RETRY_STATUSES,
    RequestSettings,
    is_serving_limit_error,
    parse_retry_after,
    public_url,
    verdict_response_format,
)
from agenthorizon.judging.judges.openai_transport import ServingLimitExceeded, post_chat
from agenthorizon.judging.judges.output_cap import truncation_note
from agenthorizon.judging.judges.prompts import DIRECT_PROMPT
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
from agenthorizon.schema import ABLATE_SCREENSHOTS, IMAGE_MODE_AUTO, IMAGE_MODE_NONE, JUDGE_IMAGE_MODES, LAYOUT_MARKDOWN

if TYPE_CHECKING:
    import httpx

    from agenthorizon.judging.inputs import JudgeInput
    from agenthorizon.judging.judges.openai_answer import Completion

__all__ = [
    "OpenAICompatibleJudge",
    "DEFAULT_BASE_URL",
    "DEFAULT_TIMEOUT",
    "JUDGE_IMAGE_MODES",
    "MERGE_REASONS",
    "RETRY_STATUSES",
    "is_serving_limit_error",
    "parse_retry_after",
    "verdict_response_format",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_TIMEOUT = 900.0
"""Seconds for one request, from connecting to the end of the answer: room for a long
trajectory with dozens of images on a busy server (the command line's ``--timeout`` default)."""


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
        image (the prompt states the reading order); ``none`` sends text only
        and is the screenshots ablation: the judge's ``ablation`` names
        ``screenshots``, so a run withholds them from its inputs altogether
        and records the ablation (as ``run_judge(ablate="screenshots")``).
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
    image_token_budget : int, optional
        Estimated tokens allowed per item, estimating ``85 + w*h/170`` tokens
        per image (:mod:`~agenthorizon.judging.judges.openai_images`); what
        they cover is ``budget_covers``. The size chosen is in each result's
        telemetry (``image_size``).
    budget_covers : {"images", "input"}
        ``images`` (default): the budget is for the images alone, sent at the
        largest size (aspect of ``image_size``, at most ``image_size``) that
        fits. ``input`` (the benchmark authors' rule): the budget is for the
        whole input; the text's estimate (characters // 4, every text of the
        request) and 200 tokens come off first, and the screenshots get the
        largest width in [64, 512] whose share fits, height from the
        1710:1112 aspect; 64x41 thumbnails when nothing is left.
    structured_output : bool
        Send ``response_format`` with the verdict JSON schema
        (:func:`verdict_response_format`) so the server constrains decoding to it.
    extra_body : dict, optional
        More request fields, sent as given (``top_p``, ``seed``,
        ``chat_template_kwargs``, ``stream``...) and recorded with the sampling
        parameters. With ``{"stream": true}`` the answer is read as a stream.
    retries : int
        Extra attempts after a transient failure (HTTP 408/409/425/429/5xx, a
        timeout, a connection error); ``0`` means one attempt. With
        ``backoff_base`` and ``backoff_max`` this is the judge's
        :class:`~agenthorizon.judging.retry.RetryPolicy` (``retry``), the
        only retry layer for this judge: the runner does not retry it again.
    timeout : float
        Seconds allowed for one request, from connecting to the end of the
        answer (the whole stream, for a streamed one); no shorter limit
        applies to any phase. Each retry gets the full time again.
    max_output_bytes : int
        Most bytes of one answer kept (:data:`~agenthorizon.judging.judges.base.DEFAULT_MAX_OUTPUT_BYTES`):
        the answer is read in chunks and only its end is held in memory; a cut
        answer starts with a line saying how many bytes were dropped, and the
        result's telemetry has ``truncated_bytes``.
    prompt : str
        ``"project"`` (this project's :data:`~agenthorizon.judging.judges.prompts.DIRECT_PROMPT`,
        the default), ``"release"`` (the release's own ``sandbox/AGENTS.md`` and
        ``sandbox/prompt.md``, read at run time: see
        :mod:`agenthorizon.judging.judges.release_prompt`), or a template of
        your own with ``{{...}}`` placeholders.
    layout : {"markdown", "interleaved", "paper"}
        The user message: the prompt with the whole Markdown then the images
        (``markdown``), or the goal then each step's text followed by its
        screenshot, in this project's words (``interleaved``) or the
        authors' (``paper``; :mod:`~agenthorizon.judging.judges.direct_messages`).
    timestamps : bool
        Each step's text also gives its time (interleaved layouts).
    system_prompt : path, optional
        A UTF-8 text file whose text is sent as the system message; read when
        the judge is made, recorded by path and sha256.
    image_quality : int, optional
        JPEG quality of the screenshots sent (1-100; default 85, see
        :data:`agenthorizon.data.images.DEFAULT_QUALITY`).
    price_input_per_1m, price_output_per_1m : float, optional
        US dollars per million input / output tokens, to record a cost.
    """

    name = "openai"
    hosted_base_url = DEFAULT_BASE_URL  # a hosted API: a missing key is an error there

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
        image_token_budget: int | None = None,
        budget_covers: str = BUDGET_IMAGES,
        cache_dir: str | None = None,
        retries: int = 5,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        timeout: float = DEFAULT_TIMEOUT,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        prompt: str = DIRECT_PROMPT,
        layout: str = LAYOUT_MARKDOWN,
        timestamps: bool = False,
        system_prompt: str | os.PathLike[str] | None = None,
        price_input_per_1m: float | None = None,
        price_output_per_1m: float | None = None,
        extra_body: dict[str, Any] | None = None,
        structured_output: bool = False,
        rng: random.Random | None = None,
    ) -> None:
        if not model:
            raise ValueError("openai judge: a model name is required (openai:MODEL)")
        if retries < 0:
            raise ValueError(f"openai judge: retries must be >= 0, got {retries}")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"openai judge: base_url must start with http:// or https://, got {base_url!r}")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.request = RequestSettings(
            float(temperature), int(max_tokens), dict(extra_body or {}), bool(structured_output), timeout,
            max_output_bytes,
        )
        self.image_options = ImageOptions(
            images, image_budget, max_images, tuple(image_size), image_quality, image_strategy, image_token_budget,
            cache_dir, budget_covers,
        )
        # One concept: sending no image is the screenshots ablation, which the
        # runner applies to the input (no image lines in the Markdown either).
        self.ablation = (ABLATE_SCREENSHOTS,) if images == IMAGE_MODE_NONE else ()
        self.layout = check_layout(layout, bool(timestamps))
        self.timestamps = bool(timestamps)
        self.system_prompt = None if system_prompt is None else SystemPrompt.read(system_prompt)
        self.retry = RetryPolicy(int(retries), float(backoff_base), float(backoff_max))
        # prompt="release": the release's own texts, read when the judge is
        # bound to the release it judges (bind_release); "project": the default.
        self.prompt_source = prompt if prompt in PROMPT_SOURCES else None
        if prompt == PROMPT_PROJECT:
            prompt = DIRECT_PROMPT
        self.prompt: str | None = None if prompt == PROMPT_RELEASE else prompt
        self.release: ReleaseFiles | None = None
        self.price_input_per_1m = price_input_per_1m
        self.price_output_per_1m = price_output_per_1m
        # Set by make_judge(..., preset=NAME): the preset's record and its run options (reask, reask_when).
        self.preset: dict[str, Any] | None = None
        self.run_defaults: dict[str, Any] = {}
        self._rng = rng or random.Random()
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    @property
    def temperature(self) -> float:
        return self.request.temperature

    @property
    def timeout(self) -> float:
        """Seconds allowed for one request, end to end."""
        return self.request.timeout

    @property
    def retries(self) -> int:
        """Extra attempts per request (``retry.retries``)."""
        return self.retry.retries

    @property
    def reports_cost(self) -> bool:
        """Whether answers carry a cost: only with both prices (``--price-in``, ``--price-out``)."""
        return self.price_input_per_1m is not None and self.price_output_per_1m is not None

    # --- description ------------------------------------------------------------

    def spec(self) -> dict[str, Any]:
        spec = {
            "name": self.name,
            "spec": f"openai:{self.model}",
            "model": self.model,
            "base_url": public_url(self.base_url),
            "api_key_env": self.api_key_env,  # the variable's name, never its value
            "sampling": self.request.sampling(),
            "images": self.image_options.record(),
            "prompt": self._prompt_record(),
            "layout": self.layout,
            "timestamps": self.timestamps,
            "retries": self.retry.retries,
            "timeout_s": self.request.timeout,
            "max_output_bytes": self.request.max_output_bytes,
        }
        spec.update(protocol_record(self.system_prompt, self.preset))
        return spec

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
        """The :class:`agenthorizon.data.images.ImageSettings` for ``mode`` (default: this judge's); ``None`` for text only."""
        return self.image_options.settings(mode)

    # --- request building -----------------------------------------------------------

    def plan_images(self, judge_input: JudgeInput) -> ImagePlan:
        """The first image plan for an item (:meth:`ImageOptions.plan <agenthorizon.judging.judges.openai_images.ImageOptions.plan>`)."""
        return self.image_options.plan(judge_input, self._text_counter(judge_input))

    def _text_counter(self, judge_input: JudgeInput) -> Any:
        """Counts the characters of the text sent under a plan, for a budget over the whole input; else ``None``."""
        if not self.image_options.covers_input:
            return None

        def count(plan: ImagePlan) -> int:
            # The text does not depend on the images' size: pixel-less stand-ins give the same messages' text.
            return text_chars(self._chat(judge_input, self.image_options.stand_ins(judge_input, plan), plan.mode))

        return count

    def _chat(self, judge_input: JudgeInput, images: list[Any], mode: str) -> list[dict[str, Any]]:
        return chat_messages(
            self._template(), judge_input, images, mode=mode, layout=self.layout, system=self.system_prompt,
            timestamps=self.timestamps,
        )

    def build_messages(self, judge_input: JudgeInput, plan: ImagePlan | None = None) -> list[dict[str, Any]]:
        """The chat messages for one item under ``plan`` (default: :meth:`plan_images`), in this judge's layout."""
        return self._messages(judge_input, plan or self.plan_images(judge_input))[0]

    def _messages(self, judge_input: JudgeInput, plan: ImagePlan) -> tuple[list[dict[str, Any]], list[Any]]:
        prepared = self.image_options.prepare(judge_input, plan)
        return self._chat(judge_input, prepared, plan.mode), list(prepared)

    # --- the wire protocol: overridden by judges of another API (gemini_direct.py) ---

    def endpoint(self) -> str:
        """The URL each item's request is posted to."""
        return f"{self.base_url}/chat/completions"

    def request_body(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The JSON body of one request carrying ``messages``."""
        return self.request.body(self.model, messages)

    def parse_answer(self, body: Any) -> Completion:
        """The completion in a whole answer's body (a :class:`~agenthorizon.judging.judges.output_cap.TailBuffer`)."""
        from agenthorizon.judging.judges.openai_answer import completion_from_body

        return completion_from_body(body)

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env, "")
        if not key and self.base_url == self.hosted_base_url:
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
        return self.auth_headers(key)

    def auth_headers(self, key: str) -> dict[str, str]:
        """The headers that carry the API key ``key``."""
        return {"Authorization": f"Bearer {key}"}

    async def _client_for_loop(self) -> httpx.AsyncClient:
        import httpx

        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop or self._client.is_closed:
            # A client is bound to the loop it was created on; the derived sync
            # judge() runs a fresh loop per call, the runner one loop per run.
            # Every phase limit is the whole timeout, so none fires before the
            # request's own end-to-end bound (openai_transport.post_chat).
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.request.timeout), limits=httpx.Limits(max_connections=None)
            )
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
            timeout=min(self.request.timeout, 15.0), key_variable=self.api_key_env,
        )

    async def _ajudge(self, judge_input: JudgeInput, headers: dict[str, str]) -> JudgeOutput:
        started = time.perf_counter()
        plan = self.plan_images(judge_input)
        attempts = 0
        client = await self._client_for_loop()
        while True:
            messages, prepared = await asyncio.to_thread(self._messages, judge_input, plan)
            try:
                completion, used = await post_chat(
                    client, self.endpoint(), self.request_body(messages), headers,
                    timeout=self.request.timeout, max_output_bytes=self.request.max_output_bytes,
                    retry=self.retry, rng=self._rng, parse=self.parse_answer,
                )
            except ServingLimitExceeded as refused:
                attempts += refused.attempts
                following = self.image_options.fallback(plan, len(prepared), judge_input, self._text_counter(judge_input))
                if following is None:
                    hint = "" if self.image_options.mode == IMAGE_MODE_AUTO else "; --images auto merges screenshots when this happens"
                    raise JudgeError(f"{refused} (not retried{hint})").counted(attempts) from None
                plan = following
                continue
            except JudgeError as failed:
                # Every request of the item counts: those refused for a serving limit before this one too.
                raise failed.counted(attempts + (failed.attempts or 1))
            attempts += used
            output = self._output(completion, attempts, time.perf_counter() - started)
            output.extra.update(plan.telemetry(prepared))
            return output

    async def acomplete(self, messages: list[dict[str, Any]]) -> JudgeOutput:
        """One request of ``messages`` as they are, under this judge's model, sampling, retries and prices.

        For judges built on this one that make calls of their own (a step
        selector, a screenshot summariser: :mod:`~agenthorizon.judging.judges.direct_selection`,
        :mod:`~agenthorizon.judging.judges.direct_summaries`): the answer's
        text and telemetry, as :meth:`ajudge` returns them.
        """
        started = time.perf_counter()
        completion, used = await post_chat(
            await self._client_for_loop(), f"{self.base_url}/chat/completions", self.request.body(self.model, messages),
            self._headers(), timeout=self.request.timeout, max_output_bytes=self.request.max_output_bytes,
            retry=self.retry, rng=self._rng,
        )
        return self._output(completion, used, time.perf_counter() - started)

    def _output(self, completion: Completion, attempts: int, latency: float) -> JudgeOutput:
        input_tokens, output_tokens = completion.input_tokens, completion.output_tokens
        cost = None
        if self.price_input_per_1m is not None and self.price_output_per_1m is not None:
            if input_tokens is not None and output_tokens is not None:
                cost = (input_tokens * self.price_input_per_1m + output_tokens * self.price_output_per_1m) / 1e6
        extra: dict[str, Any] = {"truncated_bytes": completion.truncated_bytes}
        if completion.model:
            extra["model"] = completion.model
        if completion.finish_reason:
            extra["finish_reason"] = completion.finish_reason
        if completion.reasoning_chars:
            extra["reasoning_chars"] = completion.reasoning_chars
        if completion.truncated_bytes:  # replaced in place: one copy of a long answer alive, not two
            completion.text = truncation_note(completion.truncated_bytes, self.request.max_output_bytes) + completion.text
        return JudgeOutput(
            text=completion.text, input_tokens=input_tokens, output_tokens=output_tokens, latency_s=latency, cost_usd=cost,
            attempts=attempts, extra=extra,
        )
