"""``gemini-direct:MODEL``: the direct judge over Gemini's native ``generateContent`` API.

The request shape is the benchmark authors' Gemini path (SPEC section 5):
``POST {base_url}/models/MODEL:generateContent``, the key in ``x-goog-api-key``,
one ``user`` content (:func:`gemini_contents`) and a ``generationConfig``.
Everything else is :class:`~agenthorizon.judging.judges.openai_compat.OpenAICompatibleJudge`'s.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.judges.base import PreflightError
from agenthorizon.judging.judges.direct_settings import SamplingSettings, TransportSettings, group_options
from agenthorizon.judging.judges.openai_answer import Completion, NotACompletion
from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge
from agenthorizon.judging.judges.openai_protocol import public_url
from agenthorizon.judging.secrets import scrub

if TYPE_CHECKING:
    from agenthorizon.judging.judges.output_cap import TailBuffer

__all__ = ["GEMINI_BASE_URL", "GEMINI_MAX_TOKENS", "GEMINI_THINKING_MAX_TOKENS", "GeminiDirectJudge",
           "gemini_completion", "gemini_contents"]

GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
GEMINI_MAX_TOKENS = 1024
"""The authors' output cap on Gemini's API without thinking."""
GEMINI_THINKING_MAX_TOKENS = 16384
"""Their cap with thinking (the thoughts count against it)."""


def gemini_contents(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat messages as Gemini ``contents``: one ``user`` turn, the system text folded in as its first part.

    Text parts become ``{"text"}``, ``image_url`` data URLs ``{"inlineData": {"mimeType", "data"}}``
    (the base64 unchanged), in the messages' order; any other part raises ``ValueError``.

    >>> gemini_contents([{"role": "system", "content": "Judge."},
    ...                  {"role": "user", "content": [{"type": "text", "text": "Goal"},
    ...                                               {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}}]}])
    [{'role': 'user', 'parts': [{'text': 'Judge.'}, {'text': 'Goal'}, {'inlineData': {'mimeType': 'image/jpeg', 'data': 'AAAA'}}]}]
    """
    parts: list[dict[str, Any]] = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            parts.append({"text": content})
            continue
        for part in content:
            if part.get("type") == "text":
                parts.append({"text": part["text"]})
            elif part.get("type") == "image_url":
                url = part["image_url"]["url"]
                head, _, data = url.partition(",")
                if not head.startswith("data:") or not head.endswith(";base64"):
                    raise ValueError(f"gemini-direct judge: expected a base64 data URL for an image, got {url[:40]!r}")
                parts.append({"inlineData": {"mimeType": head[len("data:"):-len(";base64")], "data": data}})
            else:
                raise ValueError(f"gemini-direct judge: a message part of type {part.get('type')!r} has no Gemini form")
    return [{"role": "user", "parts": parts}]


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def gemini_completion(body: TailBuffer) -> Completion:
    """The answer in a ``generateContent`` response body.

    The text is the first candidate's non-thought parts, joined; thought parts
    are only counted (``reasoning_chars``). ``output_tokens`` is
    ``candidatesTokenCount + thoughtsTokenCount`` (both billed as output). A
    body cut at the cap, one that is not a response, or one with no candidate
    (a blocked prompt) raises :class:`~agenthorizon.judging.judges.openai_answer.NotACompletion`.

    >>> from agenthorizon.judging.judges.output_cap import TailBuffer
    >>> body = TailBuffer(10**6)
    >>> body.add(b'{"candidates": [{"content": {"parts": [{"text": "hm", "thought": true}, {"text": "ok"}]},'
    ...          b' "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 2,'
    ...          b' "thoughtsTokenCount": 5}}')
    >>> answer = gemini_completion(body)
    >>> answer.text, answer.input_tokens, answer.output_tokens, answer.reasoning_chars, answer.finish_reason
    ('ok', 9, 7, 2, 'STOP')
    """
    dropped = body.dropped
    text = body.take_text()
    if dropped:
        raise NotACompletion(f"is longer than --max-output-bytes ({dropped} bytes dropped); a Gemini answer is read whole")
    try:
        payload = json.loads(text)
        candidates = payload.get("candidates")
    except (ValueError, AttributeError):
        raise NotACompletion(f"is not a Gemini generateContent response: {text[:300]!r}") from None
    if not candidates:
        feedback = payload.get("promptFeedback") or {}
        reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
        detail = f"the prompt was blocked ({reason})" if reason else f"no candidate: {text[:300]!r}"
        raise NotACompletion(f"holds no answer: {detail}")
    candidate = candidates[0] if isinstance(candidates[0], dict) else {}
    parts = (candidate.get("content") or {}).get("parts") or []
    answer = "".join(part.get("text", "") for part in parts if isinstance(part, dict) and not part.get("thought"))
    thoughts = sum(len(part.get("text", "")) for part in parts if isinstance(part, dict) and part.get("thought"))
    usage = payload.get("usageMetadata") if isinstance(payload.get("usageMetadata"), dict) else {}
    output = _count(usage.get("candidatesTokenCount"))
    if output is not None:
        output += _count(usage.get("thoughtsTokenCount")) or 0
    version = payload.get("modelVersion")
    reason = candidate.get("finishReason")
    return Completion(
        text=answer, input_tokens=_count(usage.get("promptTokenCount")), output_tokens=output,
        model=version if isinstance(version, str) else None, finish_reason=reason if isinstance(reason, str) else None,
        reasoning_chars=thoughts,
    )


GEMINI_KEY_ENV = "GEMINI_API_KEY"


def _cap(thinking: bool) -> int:
    return GEMINI_THINKING_MAX_TOKENS if thinking else GEMINI_MAX_TOKENS


class GeminiDirectJudge(OpenAICompatibleJudge):
    """The direct judge in Gemini's native request shape (module docstring).

    Parameters
    ----------
    model : str
        The model as the API names it (``gemini-3.1-pro``).
    thinking : bool
        Output cap of 16,384 tokens instead of 1,024. The model's own
        thinking setting is left as it is.
    sampling, images, transport, budget, message, rng
        As for :class:`~agenthorizon.judging.judges.openai_compat.OpenAICompatibleJudge`.
        Defaults: the cap ``thinking`` gives, Google's server and the key in
        ``GEMINI_API_KEY``. ``extra_body`` fields go at the top of the body;
        its ``generationConfig`` is merged into the judge's.
        ``structured_output`` raises ``ValueError``.

    >>> judge = GeminiDirectJudge("gemini-3.1-pro", thinking=True)
    >>> judge.spec()["spec"], judge.request_body([{"role": "user", "content": "hi"}])["generationConfig"]
    ('gemini-direct:gemini-3.1-pro', {'temperature': 0.0, 'maxOutputTokens': 16384})
    """

    name = "gemini-direct"
    hosted_base_url = GEMINI_BASE_URL

    def __init__(self, model: str, *, thinking: bool = False, **settings: Any) -> None:
        sampling = settings.pop("sampling", None) or SamplingSettings(max_tokens=_cap(thinking))
        if sampling.structured_output:
            raise ValueError("gemini-direct judge: structured_output is the OpenAI response_format; "
                             "pass Gemini's responseSchema in --extra-body's generationConfig instead")
        transport = settings.pop("transport", None) or TransportSettings(GEMINI_BASE_URL, GEMINI_KEY_ENV)
        super().__init__(model, sampling=sampling, transport=transport, **settings)
        self.thinking = bool(thinking)

    @classmethod
    def from_options(cls, model: str, *, rng: Any = None, thinking: bool = False, **options: Any) -> GeminiDirectJudge:
        """The judge from flat options, Gemini's defaults under them (``max_tokens`` given wins over ``thinking``)."""
        defaults = {"max_tokens": _cap(thinking), "base_url": GEMINI_BASE_URL, "api_key_env": GEMINI_KEY_ENV}
        return cls(model, thinking=thinking, rng=rng, **group_options({**defaults, **options}))

    def spec(self) -> dict[str, Any]:
        spec = super().spec()
        spec.update(name=self.name, spec=f"{self.name}:{self.model}", thinking=self.thinking, api="generateContent")
        return spec

    def endpoint(self) -> str:
        return f"{self.base_url}/models/{self.model}:generateContent"

    def request_body(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        extra = dict(self.sampling.extra_body)
        config = {"temperature": self.sampling.temperature, "maxOutputTokens": self.sampling.max_tokens,
                  **(extra.pop("generationConfig", None) or {})}
        return {"contents": gemini_contents(messages), "generationConfig": config, **extra}

    def parse_answer(self, body: Any) -> Completion:
        return gemini_completion(body)

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"x-goog-api-key": key}

    async def apreflight(self) -> None:
        """Fail fast on a refused key, an unreachable server or a model it does not serve: ``GET models/MODEL``."""
        import httpx

        headers = self._headers()
        where = public_url(self.base_url)
        client = await self._client_for_loop()
        try:
            response = await client.get(f"{self.base_url}/models/{self.model}", headers=headers,
                                        timeout=min(self.transport.timeout, 15.0))
        except (httpx.TimeoutException, httpx.TransportError) as error:
            detail = scrub(f"{type(error).__name__}: {error}")
            raise PreflightError(f"gemini-direct judge: cannot reach {where} ({detail}); is --base-url right?") from None
        if response.status_code in (401, 403):
            sent = "sent" if headers else "not set"
            raise PreflightError(f"gemini-direct judge: {where} refused the key (HTTP {response.status_code}; "
                                 f"{self.api_key_env} {sent})")
        if response.status_code == 404:
            raise PreflightError(f"gemini-direct judge: {where} does not serve model {self.model!r} (HTTP 404 "
                                 f"for models/{self.model})")

