"""The Inspect task ``agenthorizon/agenthorizon``: a direct judge of AgentHorizon, run by Inspect.

::

    inspect eval agenthorizon/agenthorizon -T data=./release -T config=AH --model openai/NAME

The options mirror ``agenthorizon judge``'s for an ``openai:`` judge, without
re-asking (one generate call per item). The judge only builds the messages;
Inspect's model provider sends them.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate

from agenthorizon.inspect_task.samples import item_sample
from agenthorizon.inspect_task.scorer import expected_counts, metrics, verdict_scorer
from agenthorizon.judging.judges.openai_images import BUDGET_IMAGES
from agenthorizon.judging.runs.inspect_log import TASK_METADATA, TASK_NAME, judge_settings
from agenthorizon.schema import CONFIG_AH, DEV_GROUPS, IMAGE_MODE_AUTO, LAYOUT_MARKDOWN

__all__ = ["agenthorizon", "inspect_parameters", "message_builder"]

DEFAULT_TEMPERATURE = 0.0
DEFAULT_MAX_TOKENS = 2048
"""The direct judge's sampling defaults, the task's generate config (``--temperature`` / ``--max-tokens`` override)."""


def inspect_parameters() -> dict[str, Any]:
    """The task's judge parameters and their defaults, named as the flags' dests.

    >>> inspect_parameters()["jpeg_quality"] is None, inspect_parameters()["images"]
    (True, 'auto')
    """
    from agenthorizon.judging.judges.direct_settings import direct_knobs

    return {item.dest: item.default for item in direct_knobs() if item.inspect}


def message_builder(**parameters: Any) -> Any:
    """The OpenAI-compatible judge whose messages the samples hold, built as ``agenthorizon judge`` builds it.

    ``parameters`` are :func:`inspect_parameters` names; another name is
    refused (``ValueError`` naming the known ones). The judge checks every
    value: an unknown ``layout`` or image mode, or a missing ``system_prompt``
    file, is refused by name.
    """
    from agenthorizon.judging.judges.direct_settings import direct_knobs
    from agenthorizon.judging.judges.factory import make_judge
    from agenthorizon.judging.judges.release_prompt import prompt_option

    declared = {item.dest: item for item in direct_knobs() if item.inspect}
    unknown = sorted(set(parameters) - set(declared))
    if unknown:
        raise ValueError(f"agenthorizon task: unknown parameter(s) {', '.join(unknown)}; expected some of "
                         f"{', '.join(declared)}")
    options = {declared[name].option: value for name, value in parameters.items()}
    if "prompt" in options:
        options["prompt"] = prompt_option(options["prompt"], "prompt")
    # The model name is Inspect's (--model); the builder never sends a request.
    return make_judge(f"openai:{TASK_NAME}", **options)


@task(name=TASK_NAME)
def agenthorizon(
    data: str,
    config: str = CONFIG_AH,
    revision: str | None = None,
    prompt: str = "project",
    images: str = IMAGE_MODE_AUTO,
    max_images: int | None = None,
    image_budget: int | None = None,
    image_token_budget: int | None = None,
    budget_covers: str = BUDGET_IMAGES,
    jpeg_quality: int | None = None,
    layout: str = LAYOUT_MARKDOWN,
    timestamps: bool = False,
    system_prompt: str | None = None,
    limit: int | None = None,
    shard: str | None = None,
    exclude_dev: bool = False,
    dev_groups: int = DEV_GROUPS,
    dev_manifest: str | None = None,
) -> Task:
    """AgentHorizon with a direct judge: each item's blind input, one answer, scored strictly.

    The items are selected as the runner selects them (shard, then limit);
    the task metadata under :data:`~agenthorizon.judging.runs.inspect_log.TASK_METADATA`
    records what a run's ``run.json`` records (judge, selection, data, versions).

    Parameters
    ----------
    data : str
        Release root (a local folder) or Hub repo id, as ``--data``.
    config : str
        ``AH``, ``AH-S``, ``AH-D`` or ``all``, as ``--config``.
    revision : str, optional
        Branch, tag or commit of a Hub repo id.
    prompt : str
        ``project``, ``release`` or a template file, as ``--prompt``.
    images, max_images, image_budget, image_token_budget, jpeg_quality : as ``--images``, ``--max-images``,
        ``--image-budget``, ``--image-token-budget``, ``--jpeg-quality``.
    budget_covers : str
        ``images`` or ``input``, as ``--budget-covers``: what the image token budget covers.
    layout : str
        ``markdown``, ``interleaved`` or ``paper``, as ``--layout``: how the
        prompt and screenshots are laid out in the message.
    timestamps : bool
        Each step's text gives its time, as ``--timestamps``.
    system_prompt : str, optional
        A UTF-8 text file sent as the system message, as ``--system-prompt``.
    limit, shard : as ``--limit`` and ``--shard`` (shard first, then limit).
    exclude_dev, dev_groups, dev_manifest : as ``--exclude-dev``, ``--dev-groups``, ``--dev-manifest``.
    """
    import agenthorizon as package
    from agenthorizon.judging.runs.provenance import data_root_record, git_revision, versions
    from agenthorizon.judging.runs.selection import resolve_references, select_items
    from agenthorizon.judging.runs.shards import parse_shard

    # The judge parameters, by their declared names (tests/inspect checks this signature against them).
    given = locals()
    builder = message_builder(**{name: given[name] for name in inspect_parameters()})
    parsed_shard = parse_shard(shard)
    root = package.resolve_release(
        data, config, images="paths", revision=revision, dev_groups=dev_groups, dev_manifest=dev_manifest,
    )
    dataset = package.load_dataset(
        root, config, split="test", images="paths", exclude_dev=exclude_dev, dev_groups=dev_groups,
        dev_manifest=dev_manifest,
    )
    ids, positions = select_items(dataset, parsed_shard, limit)
    data_options = {"dev_groups": dev_groups, "exclude_dev": exclude_dev, "dev_manifest": dev_manifest}
    references, selection = resolve_references(dataset, ids, config, root, data_options)
    if builder.needs_release:
        builder.bind_release(root)
    by_id = {row["trajectory_id"]: row for row in references}
    selected = [ids[position] for position in positions]
    samples = [item_sample(dataset[position], by_id[ids[position]], builder) for position in positions]
    record = {
        "judge": judge_settings(builder.spec()),
        "ablation": list(builder.ablation),
        "selection": selection.to_dict(),
        "data": {**data_root_record(root), "n_items": len(ids), "n_selected": len(selected)},
        "shard": None if parsed_shard is None else list(parsed_shard),
        "limit": limit,
        "versions": versions(),
        "git_revision": git_revision(),
    }
    expected = expected_counts([by_id[trajectory_id] for trajectory_id in selected])
    return Task(
        dataset=MemoryDataset(samples, name=f"agenthorizon-{config}"),
        solver=generate(),
        scorer=verdict_scorer(),
        metrics=metrics(expected),
        config=GenerateConfig(temperature=DEFAULT_TEMPERATURE, max_tokens=DEFAULT_MAX_TOKENS),
        metadata={TASK_METADATA: record},
    )
