"""Presets of the direct judge: one name for the settings of a published direct judge.

``paper-direct`` (``--preset paper-direct``) is the benchmark authors' direct
judge as SPEC section 5 states it (values: :data:`DIRECT_PRESETS`); its
instructions are the user's ``--system-prompt FILE``. An option given
explicitly wins; the run records the preset (:meth:`DirectPreset.record`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

__all__ = ["DIRECT_PRESETS", "PAPER_DIRECT", "DirectPreset", "direct_preset"]

PAPER_DIRECT = "paper-direct"


@dataclass(frozen=True)
class DirectPreset:
    """A named set of direct-judge options (``judge``) and run options (``run``: ``reask``, ``reask_when``)."""

    name: str
    judge: Mapping[str, Any]
    run: Mapping[str, Any]

    def judge_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The judge's effective options: the preset's values, then ``given`` (explicit options win).

        Unless given, ``budget_covers`` is dropped without an ``image_token_budget``,
        and ``timestamps`` with ``layout="markdown"`` (its Markdown has the times).

        >>> options = direct_preset("paper-direct").judge_options({"temperature": 0.7, "image_token_budget": 8000})
        >>> options["temperature"], options["layout"], options["budget_covers"]
        (0.7, 'paper', 'input')
        >>> "budget_covers" in direct_preset("paper-direct").judge_options({})
        False
        >>> "timestamps" in direct_preset("paper-direct").judge_options({"layout": "markdown"})
        False
        """
        options = {**self.judge, **given}
        if options.get("image_token_budget") is None and "budget_covers" not in given:
            options.pop("budget_covers", None)
        if options.get("layout") == "markdown" and "timestamps" not in given:
            options.pop("timestamps", None)
        return options

    def record(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """What a run records: the name, every value the preset sets, and the options ``given`` overrode.

        >>> direct_preset("paper-direct").record({"temperature": 0.7, "reask": 2})["overridden"]
        ['temperature']
        """
        values = {**self.judge, **self.run}
        overridden = sorted(name for name, value in given.items() if name in values and value != values[name])
        return {"name": self.name, "values": values, "overridden": overridden}


DIRECT_PRESETS: dict[str, DirectPreset] = {
    PAPER_DIRECT: DirectPreset(
        PAPER_DIRECT,
        judge={
            "layout": "paper",
            "timestamps": True,
            "prompt": "{{MARKDOWN}}",
            "budget_covers": "input",
            "images": "per-step",
            "image_quality": 60,
            "temperature": 0.0,
            "max_tokens": 2048,
        },
        run={"reask": 2, "reask_when": "no-success-key"},
    ),
}
"""The presets by name (``--preset NAME``)."""


def direct_preset(name: str) -> DirectPreset:
    """The preset called ``name``, or a ``ValueError`` naming the presets there are."""
    try:
        return DIRECT_PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; expected one of {', '.join(DIRECT_PRESETS)}") from None
