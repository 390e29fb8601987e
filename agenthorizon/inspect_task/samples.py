"""Inspect samples: the project's blind judge inputs in the direct judge's own messages (:func:`item_sample`)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, ContentImage, ContentText

from agenthorizon.judging.inputs import build_judge_input
from agenthorizon.judging.runs.inspect_log import IMAGE_KEYS, IMAGE_SIZE
from agenthorizon.schema import IMAGE_MODE_MOSAIC

__all__ = ["image_telemetry", "inspect_messages", "item_sample"]

def inspect_messages(messages: Iterable[Mapping[str, Any]]) -> list[ChatMessage]:
    """OpenAI chat messages as Inspect chat messages: a format conversion only.

    A ``text`` part becomes ``ContentText``, an ``image_url`` part
    ``ContentImage`` holding the same data URL.

    Raises
    ------
    ValueError
        For a role or content part the direct judge never sends (naming it).
    """
    kinds = {"user": ChatMessageUser, "system": ChatMessageSystem}
    converted = []
    for message in messages:
        kind = kinds.get(message.get("role"))
        if kind is None:
            raise ValueError(f"chat message role {message.get('role')!r}: expected one of {', '.join(kinds)}")
        content = message["content"]
        if not isinstance(content, str):
            parts = []
            for part in content:
                if part.get("type") == "text":
                    parts.append(ContentText(text=part["text"]))
                elif part.get("type") == "image_url":
                    parts.append(ContentImage(image=part["image_url"]["url"]))
                else:
                    raise ValueError(f"content part of type {part.get('type')!r}: expected text or image_url")
            content = parts
        converted.append(kind(content=content))
    return converted


def image_telemetry(plan: Any, messages: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The image telemetry the OpenAI judge records for one item: mode, merged, why, how many.

    Keyed by :data:`~agenthorizon.judging.runs.inspect_log.IMAGE_KEYS`, plus
    :data:`~agenthorizon.judging.runs.inspect_log.IMAGE_SIZE` when an image
    token budget chose the size.
    """
    n_images = sum(
        part.get("type") == "image_url"
        for message in messages if not isinstance(message["content"], str)
        for part in message["content"]
    )
    merged = plan.mode == IMAGE_MODE_MOSAIC and n_images > 0
    telemetry = dict(zip(IMAGE_KEYS, (plan.mode, merged, plan.merge_reason if merged else None, n_images)))
    if plan.size is not None:  # an image token budget chose the size
        telemetry[IMAGE_SIZE] = list(plan.size)
    return telemetry


def item_sample(row: Mapping[str, Any], reference: Mapping[str, Any], builder: Any) -> Sample:
    """The Inspect ``Sample`` of one dataset row.

    ``input`` holds the messages ``builder`` would send (its own
    ``build_messages`` of the blind judge input; only the format is
    converted), ``id`` the trajectory id, ``target`` ``[label,
    mistake_type]`` (Inspect shows it only to the scorer) and ``metadata``
    the :func:`image_telemetry`. No label, type or pairing field is ever in
    a sample's input or metadata.

    Parameters
    ----------
    row : mapping
        A row of :func:`agenthorizon.load_dataset` (``images="paths"``); only
        its blind view (:func:`~agenthorizon.judging.inputs.build_judge_input`)
        is read.
    reference : mapping
        The item's label row: ``label`` and ``mistake_type`` become the target.
    builder : OpenAICompatibleJudge
        The judge whose messages the sample holds (its prompt, image and
        layout settings); it sends nothing.
    """
    judge_input = build_judge_input(row, ablate=builder.ablation)  # images=none withholds them, as in a run
    plan = builder.plan_images(judge_input)
    messages = builder.build_messages(judge_input, plan)
    return Sample(
        id=judge_input.trajectory_id,
        input=inspect_messages(messages),
        target=[str(reference["label"]), str(reference.get("mistake_type") or "")],
        metadata=image_telemetry(plan, messages),
    )
