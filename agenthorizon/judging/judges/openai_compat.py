"""A judge that calls any OpenAI-compatible chat-completions server (vLLM, SGLang, llama.cpp, OpenRouter, hosted APIs).

:class:`OpenAICompatibleJudge` posts to ``{base_url}/chat/completions``, screenshots as base64 ``data:`` URLs.
The API key is read from the environment variable *named* by ``api_key_env`` at request time; the key is never
stored on the judge, in its spec or in a run record. httpx, not the ``openai`` client: the retries, the
end-to-end timeout and the answer cap must be exactly as documented.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.judges.base import BaseJudge, JudgeError, JudgeOutput, PreflightError
from agenthorizon.judging.judges.direct_messages import SystemPrompt, chat_messages, check_layout, protocol_record, text_chars
from agenthorizon.judging.judges.direct_settings import (
    DEFAULT_BASE_URL,
    DEFAULT_TIMEOUT,
    BudgetSettings,
    MessageSettings,
    SamplingSettings,
    TransportSettings,
    group_options,
)
from agenthorizon.judging.judges.openai_images import MERGE_REASONS, ImageOptions, ImagePlan
from agenthorizon.judging.judges.openai_protocol import (
    RETRY_STATUSES,
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
from agenthorizon.schema import ABLATE_SCREENSHOTS, IMAGE_MODE_AUTO, IMAGE_MODE_NONE, JUDGE_IMAGE_MODES

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



class OpenAICompatibleJudge(BaseJudge):
    """Judge with a chat model behind an OpenAI-compatible endpoint.

    Parameters
    ----------
    model : str
        Model name as the server knows it (``Qwen/Qwen3-VL-8B-Instruct``, ``gpt-5``).
    sampling : SamplingSettings, optional
        Temperature, output tokens, extra request fields (``top_p``, ``seed``,
        ``{"stream": true}`` reads the answer as a stream), and
        ``structured_output``: the verdict JSON schema as ``response_format``
        (:func:`verdict_response_format`).
    images : ImageOptions, optional
        The screenshots (:class:`~agenthorizon.judging.judges.openai_images.ImageOptions`).
        In mode ``auto`` an item the server refuses as too large
        (:func:`is_serving_limit_error`) is sent again as mosaics, then as
        mosaics under half the image budget. Mode ``none`` is the screenshots
        ablation (``ablation`` names ``screenshots``).
    transport : TransportSettings, optional
        Server root including ``/v1``; the *name* of the key's variable (when
        unset, no ``Authorization`` header: an error only for the default
        OpenAI URL); retries of transient failures (HTTP 408/409/425/429/5xx,
        timeouts, connection errors), the judge's only retry layer
        (``retry``); seconds per request end to end (each retry gets them
        again); the most bytes of one answer kept (a cut answer opens with a
        line saying how many bytes were dropped).
    budget : BudgetSettings, optional
        US dollars per million input / output tokens, to record a cost.
    message : MessageSettings, optional
        The prompt (``"project"``: :data:`~agenthorizon.judging.judges.prompts.DIRECT_PROMPT`;
        ``"release"``: the release's own texts, read at :meth:`bind_release`;
        or a ``{{...}}`` template), the user message's layout, step times, and
        a system prompt file (read when the judge is made, recorded by path
        and sha256).

    :meth:`from_options` builds the judge from flat option names (``temperature=0.5``).

    >>> judge = OpenAICompatibleJudge("m", sampling=SamplingSettings(temperature=0.5))
    >>> judge.spec()["sampling"]
    {'temperature': 0.5, 'max_tokens': 2048}
    """

    name = "openai"
    hosted_base_url = DEFAULT_BASE_URL  # a hosted API: a missing key is an error there

    def __init__(
        self,
        model: str,
        *,
        sampling: SamplingSettings | None = None,
        images: ImageOptions | None = None,
        transport: TransportSettings | None = None,
        budget: BudgetSettings | None = None,
        message: MessageSettings | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if not model:
            raise ValueError("openai judge: a model name is required (openai:MODEL)")
        sampling = sampling or SamplingSettings()
        transport = transport or TransportSettings()
        message = message or MessageSettings()
        self.model = model
        self.sampling, self.transport, self.budget, self.message = sampling, transport, budget or BudgetSettings(), message
        self.base_url = transport.base_url
        self.api_key_env = transport.api_key_env
        self.image_options = images or ImageOptions()
        # No image is the screenshots ablation, which the runner applies to the input (Markdown included).
        self.ablation = (ABLATE_SCREENSHOTS,) if self.image_options.mode == IMAGE_MODE_NONE else ()
        self.layout = check_layout(message.layout, bool(message.timestamps))
        self.timestamps = bool(message.timestamps)
        self.system_prompt = None if message.system_prompt is None else SystemPrompt.read(message.system_prompt)
        self.retry = RetryPolicy(transport.retries, float(transport.backoff_base), float(transport.backoff_max))
        prompt = message.prompt
        self.prompt_source = prompt if prompt in PROMPT_SOURCES else None
        if prompt == PROMPT_PROJECT:
            prompt = DIRECT_PROMPT
        self.prompt: str | None = None if prompt == PROMPT_RELEASE else prompt
        self.release: ReleaseFiles | None = None
        self.price_input_per_1m = self.budget.price_input_per_1m
        self.price_output_per_1m = self.budget.price_output_per_1m
        # Set by make_judge(..., preset=NAME): the preset's record and its run options (reask, reask_when).
        self.preset: dict[str, Any] | None = None
        self.run_defaults: dict[str, Any] = {}
        self._rng = rng or random.Random()
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def from_options(cls, model: str, *, rng: random.Random | None = None, **options: Any) -> OpenAICompatibleJudge:
        """The judge from flat options (``temperature=0.5, image_budget=8``), each grouped into its settings object.

        The names are :func:`~agenthorizon.judging.judges.direct_settings.option_names`;
        another raises ``TypeError`` naming it.

        >>> OpenAICompatibleJudge.from_options("m", image_budget=8).image_options.budget
        8
        """
        return cls(model, rng=rng, **group_options(options))

    @property
    def temperature(self) -> float:
        return self.sampling.temperature

    @property
    def timeout(self) -> float:
        """Seconds allowed for one request, end to end."""
        return self.transport.timeout

    @property
    def retries(self) -> int:
        """Extra attempts per request (``retry.retries``)."""
        return self.retry.retries

    @property
    def reports_cost(self) -> bool:
        """Whether answers carry a cost: only with both prices (``--price-in``, ``--price-out``)."""
        return self.budget.reports_cost

    # --- description ------------------------------------------------------------

    def spec(self) -> dict[str, Any]:
        spec = {
            "name": self.name,
            "spec": f"openai:{self.model}",
            "model": self.model,
            "base_url": public_url(self.base_url),
            "api_key_env": self.api_key_env,  # the variable's name, never its value
            "sampling": self.sampling.record(),
            "images": self.image_options.record(),
            "prompt": self._prompt_record(),
            "layout": self.layout,
            "timestamps": self.timestamps,
            "retries": self.retry.retries,
            "timeout_s": self.transport.timeout,
            "max_output_bytes": self.transport.max_output_bytes,
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
        """With ``prompt="release"``, read the release's judge texts under ``root`` and build the prompt; else nothing.

        The runner calls this with the release it judges before the first item.
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
        return self.sampling.body(self.model, messages)

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
        # Registered before the check: even a refused key is scrubbed from anything written later.
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
            # A client is bound to its loop (the sync judge() runs a fresh loop per call). Every phase
            # limit is the whole timeout, so none fires before post_chat's end-to-end bound.
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.transport.timeout), limits=httpx.Limits(max_connections=None)
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
            # A server may quote the key back in an error body; the message ends up in result files and logs.
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
            timeout=min(self.transport.timeout, 15.0), key_variable=self.api_key_env,
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
                    timeout=self.transport.timeout, max_output_bytes=self.transport.max_output_bytes,
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

        For helper calls (step selector, screenshot summariser); returns what :meth:`ajudge` would.
        """
        started = time.perf_counter()
        completion, used = await post_chat(
            await self._client_for_loop(), f"{self.base_url}/chat/completions", self.sampling.body(self.model, messages),
            self._headers(), timeout=self.transport.timeout, max_output_bytes=self.transport.max_output_bytes,
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
            completion.text = truncation_note(completion.truncated_bytes, self.transport.max_output_bytes) + completion.text
        return JudgeOutput(
            text=completion.text, input_tokens=input_tokens, output_tokens=output_tokens, latency_s=latency, cost_usd=cost,
            attempts=attempts, extra=extra,
        )
