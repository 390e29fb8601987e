"""The direct judge's settings, grouped: sampling, images, transport, budget and message.

Each setting is declared once, as a :func:`~agenthorizon.judging.judges.knobs.knob`
field of a frozen dataclass below; the command line's flags, the Inspect task's
parameters, ``make_judge``'s options and the run record's keys are read from them.

>>> groups = group_options({"temperature": 0.5, "image_budget": 8, "retries": 1})
>>> groups["sampling"].temperature, groups["images"].budget, groups["transport"].retries
(0.5, 8, 1)

This module does no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from agenthorizon.judging.judges.base import DEFAULT_MAX_OUTPUT_BYTES
from agenthorizon.judging.judges.knobs import CLI_RUN, Knob, json_object, knob, knobs, record_value
from agenthorizon.judging.judges.openai_images import ImageOptions
from agenthorizon.judging.judges.openai_protocol import verdict_response_format
from agenthorizon.schema import DIRECT_LAYOUTS, LAYOUT_MARKDOWN

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_TIMEOUT",
    "DIRECT_SETTINGS",
    "BudgetSettings",
    "MessageSettings",
    "SamplingSettings",
    "TransportSettings",
    "direct_knobs",
    "group_options",
    "option_names",
    "settings_from_record",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_TIMEOUT = 900.0
"""Seconds for one request, from connecting to the end of the answer (``--timeout``'s default)."""


@dataclass(frozen=True)
class SamplingSettings:
    """What the model is asked besides the item: temperature, output tokens, extra request fields, response format.

    ``extra_body`` is sent as given (``top_p``, ``seed``, ``stream``...) and
    recorded with the sampling parameters; ``structured_output`` sends the
    verdict JSON schema as ``response_format``.

    >>> SamplingSettings(temperature=0.2).max_tokens
    2048
    """

    temperature: float = knob(
        0.0, flag="--temperature", type=float, metavar="T", record=("sampling", "temperature"),
        help="sampling temperature (default 0)",
    )
    max_tokens: int = knob(
        2048, flag="--max-tokens", type=int, metavar="N", record=("sampling", "max_tokens"),
        help="most output tokens (default 2048)",
    )
    structured_output: bool = knob(
        False, flag="--structured-output", action="store_true", record=("sampling", "response_format"),
        help="constrain answers to the verdict JSON schema (response_format json_schema)",
    )
    extra_body: Mapping[str, Any] = knob(
        default_factory=dict, flag="--extra-body", type=json_object, metavar="JSON", record=("sampling",),
        help='more request fields as a JSON object, e.g. \'{"top_p": 0.95, "seed": 0}\'',
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "temperature", float(self.temperature))
        object.__setattr__(self, "max_tokens", int(self.max_tokens))
        object.__setattr__(self, "structured_output", bool(self.structured_output))
        object.__setattr__(self, "extra_body", dict(self.extra_body or {}))
        reserved = sorted({"model", "messages"} & set(self.extra_body))
        if reserved:
            raise ValueError(
                f"openai judge: extra_body may not set {', '.join(reserved)} (the judge builds them from the item)"
            )
        if self.structured_output and "response_format" in self.extra_body:
            raise ValueError(
                "openai judge: extra_body sets response_format and structured_output is on; use one of the two"
            )

    def record(self) -> dict[str, Any]:
        """The request fields besides the item, as a run records them (``sampling``).

        >>> SamplingSettings(max_tokens=512, extra_body={"seed": 0}).record()
        {'temperature': 0.0, 'max_tokens': 512, 'seed': 0}
        """
        sampling: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens, **self.extra_body}
        if self.structured_output:
            sampling["response_format"] = verdict_response_format()
        return sampling

    def body(self, model: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The JSON body of one request."""
        return {"model": model, "messages": messages, **self.record()}


@dataclass(frozen=True)
class TransportSettings:
    """Where requests go and how one is bounded: server, key variable, retries, time, answer size.

    ``api_key_env`` names the environment variable holding the key (never
    the key); ``retries`` extra attempts after a transient failure, with
    exponential backoff from ``backoff_base`` to ``backoff_max`` seconds;
    ``timeout`` seconds for one request end to end; ``max_output_bytes`` the
    most bytes of one answer kept.

    >>> TransportSettings(base_url="ftp://x")
    Traceback (most recent call last):
    ...
    ValueError: openai judge: base_url must start with http:// or https://, got 'ftp://x'
    >>> TransportSettings(timeout=0)
    Traceback (most recent call last):
    ...
    ValueError: openai judge: timeout must be a positive number of seconds, got 0
    """

    base_url: str = knob(
        DEFAULT_BASE_URL, flag="--base-url", metavar="URL", record=("base_url",),
        help="OpenAI-compatible server, e.g. http://localhost:8000/v1",
    )
    api_key_env: str = knob(
        "OPENAI_API_KEY", flag="--api-key-env", metavar="NAME", record=("api_key_env",),
        help="environment variable holding the API key (default OPENAI_API_KEY)",
    )
    retries: int = knob(5, flag="--retries", cli=CLI_RUN, record=("retries",))
    backoff_base: float = knob(1.0)  # not recorded: how long to wait changes no answer
    backoff_max: float = knob(60.0)
    timeout: float = knob(DEFAULT_TIMEOUT, flag="--timeout", cli=CLI_RUN, record=("timeout_s",))
    max_output_bytes: int = knob(
        DEFAULT_MAX_OUTPUT_BYTES, flag="--max-output-bytes", cli=CLI_RUN, record=("max_output_bytes",),
    )

    def __post_init__(self) -> None:
        if not isinstance(self.retries, int) or self.retries < 0:
            raise ValueError(f"openai judge: retries must be >= 0, got {self.retries}")
        if not str(self.base_url).startswith(("http://", "https://")):
            raise ValueError(f"openai judge: base_url must start with http:// or https://, got {self.base_url!r}")
        if not isinstance(self.timeout, (int, float)) or not (math.isfinite(self.timeout) and self.timeout > 0):
            raise ValueError(f"openai judge: timeout must be a positive number of seconds, got {self.timeout!r}")
        if not isinstance(self.max_output_bytes, int) or isinstance(self.max_output_bytes, bool) or self.max_output_bytes < 1:
            raise ValueError(f"openai judge: max_output_bytes must be a positive integer, got {self.max_output_bytes!r}")
        object.__setattr__(self, "base_url", self.base_url.rstrip("/"))


@dataclass(frozen=True)
class BudgetSettings:
    """US dollars per million input and output tokens; a cost is recorded only with both.

    >>> BudgetSettings(2.5, 10.0).reports_cost, BudgetSettings(2.5).reports_cost
    (True, False)
    """

    price_input_per_1m: float | None = knob(
        None, flag="--price-in", type=float, metavar="USD", help="price per 1M input tokens, to record costs",
    )
    price_output_per_1m: float | None = knob(
        None, flag="--price-out", type=float, metavar="USD", help="price per 1M output tokens, to record costs",
    )

    @property
    def reports_cost(self) -> bool:
        """Whether answers carry a cost: only with both prices."""
        return self.price_input_per_1m is not None and self.price_output_per_1m is not None


@dataclass(frozen=True)
class MessageSettings:
    """What the user and system messages say: the prompt, the layout, step times, a system prompt file.

    ``prompt`` is ``"project"`` (this project's prompt), ``"release"`` or a template's text;
    ``layout`` one of :data:`~agenthorizon.schema.DIRECT_LAYOUTS`;
    ``system_prompt`` the path of a UTF-8 text file (read when the judge is made).

    >>> MessageSettings(layout="paper", timestamps=True).layout
    'paper'
    """

    prompt: str = knob("project", flag="--prompt", cli=CLI_RUN, inspect=True, record=("prompt", "text"))
    layout: str = knob(
        LAYOUT_MARKDOWN, flag="--layout", choices=DIRECT_LAYOUTS, inspect=True, record=("layout",),
        help="user message: markdown (default: prompt with the whole Markdown, then the images), interleaved "
        "(the goal, then each step's action line followed by its screenshot) or paper (the same, in the authors' "
        "words: ### Step i, **Action:**, **Timestamp:**)",
    )
    timestamps: bool = knob(
        False, flag="--timestamps", action="store_true", inspect=True, record=("timestamps",),
        help="interleaved and paper layouts: each step's text gives its time (ms)",
    )
    system_prompt: str | None = knob(
        None, flag="--system-prompt", metavar="FILE", inspect=True, record=("system_prompt", "path"),
        help="a UTF-8 text file sent as the system message (read at run time; its path and sha256 are recorded)",
    )


DIRECT_SETTINGS: dict[str, type] = {
    "sampling": SamplingSettings,
    "images": ImageOptions,
    "transport": TransportSettings,
    "budget": BudgetSettings,
    "message": MessageSettings,
}
"""The direct judge's settings groups by keyword of :class:`~agenthorizon.judging.judges.openai_compat.OpenAICompatibleJudge`."""


def direct_knobs() -> list[Knob]:
    """Every knob of the direct judge, group by group in :data:`DIRECT_SETTINGS` order."""
    return knobs(*DIRECT_SETTINGS.values())


def option_names() -> frozenset[str]:
    """The flat option names of the direct judge (``make_judge``'s keywords, a preset's keys).

    >>> {"temperature", "image_quality", "base_url"} <= option_names()
    True
    """
    return frozenset(item.option for item in direct_knobs())


def group_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Flat options (``temperature=0.5, image_budget=8``) as one settings object per group of :data:`DIRECT_SETTINGS`.

    Raises ``TypeError`` naming an option no group declares.
    """
    unknown = sorted(set(options) - option_names())
    if unknown:
        raise TypeError(f"openai judge: unknown option(s) {', '.join(unknown)}; expected some of "
                        f"{', '.join(sorted(option_names()))}")
    groups = {}
    for name, cls in DIRECT_SETTINGS.items():
        values = {item.field: options[item.option] for item in knobs(cls) if item.option in options}
        groups[name] = cls(**values)
    return groups


def settings_from_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The settings objects a judge's run record (its ``spec()``, run.json's ``judge``) describes.

    Settings a record does not hold (backoff, prices, the image cache folder:
    they change no answer) or leaves out come back as their defaults.
    """
    options = {}
    for item in direct_knobs():
        if item.record is None:
            continue
        value = record_value(record, item)
        if item.option == "extra_body":
            value = {k: v for k, v in value.items() if k not in ("temperature", "max_tokens", "response_format")}
        elif item.option == "structured_output":
            value = bool(value)  # the verdict's response_format, when it was on
        elif item.option == "image_size":
            value = tuple(value)
        elif item.option == "prompt" and value is None:  # not bound yet: the release's own prompt
            value = "release"
        options[item.option] = value
    return group_options(options)
