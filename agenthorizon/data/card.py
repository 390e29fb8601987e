"""The dataset card (``README.md``) of an export: YAML header and prose (:func:`dataset_card`)."""

from __future__ import annotations

from importlib import resources
from string import Template
from typing import Any

from agenthorizon.data.export_summary import ExportSummary
from agenthorizon.schema import (
    CITATION_BIBTEX,
    CONFIG_DESCRIPTIONS,
    CONFIG_AH,
    DEFAULT_HUB_REPO,
    DEV_GROUPS,
    DEV_SEED,
    HIDDEN_FIELDS,
    LABEL_FILE_EASY,
    LABEL_FILE_HARD,
    MISTAKE_TYPES,
    SPLIT_NAME,
)

__all__ = ["card_metadata", "dataset_card", "field_rows"]



def card_metadata(summary: ExportSummary, features: Any) -> Any:
    """The card's YAML header as ``huggingface_hub.DatasetCardData``.

    ``configs`` maps each config to its shards (split ``test``); the main
    split AH is the default config when exported. ``dataset_info`` declares
    the features and the number of examples of each config, written with
    ``datasets``' own serializer so ``datasets`` reads back the same types.
    """
    import datasets
    from huggingface_hub import DatasetCardData

    data = DatasetCardData(
        task_categories=["image-text-to-text"],
        language=["en"],
        tags=["agents", "computer-use", "llm-as-a-judge", "evaluation", "trajectories"],
        pretty_name="AgentHorizon",
        size_categories=[_size_category(max((e.n_rows for e in summary.configs.values()), default=0))],
    )
    configs = []
    for name, export in summary.configs.items():
        entry: dict[str, Any] = {
            "config_name": name,
            # The exact files, not a glob: their names carry their contents' tag, and datasets keys
            # its cache of a local folder on this entry, so new rows get a new cache entry.
            "data_files": [{"split": SPLIT_NAME, "path": list(export.files)}],
        }
        if name == CONFIG_AH:
            entry["default"] = True
        configs.append(entry)
    data["configs"] = configs
    infos = datasets.info.DatasetInfosDict(
        {
            name: datasets.DatasetInfo(
                features=features,
                splits=datasets.SplitDict(
                    {SPLIT_NAME: datasets.SplitInfo(name=SPLIT_NAME, num_examples=export.n_rows, num_bytes=export.num_bytes)}
                ),
                dataset_size=export.num_bytes,
            )
            for name, export in summary.configs.items()
        }
    )
    infos.to_dataset_card_data(data)
    return data


def _size_category(n: int) -> str:
    """The Hub's size bucket for ``n`` rows.

    >>> _size_category(213), _size_category(1373)
    ('n<1K', '1K<n<10K')
    """
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M"


_FIELD_MEANINGS = {
    "trajectory_id": "item id (UUID); the file stem under `markdowns/` and `jsons/`",
    "instruction": "the task instruction shown to the judge",
    "label": "`positive` / `negative`",
    "mistake_type": "`Critical Mistake`, `Bad Side Effect`, `Misunderstanding of the Instructions` or `\"\"`",
    "instruction_id": "deliverable whose instruction the item shows (as in the label files)",
    "instruction_source": "`parent` / `child` on a negative, `\"\"` on a positive",
    "steps_id": "deliverable whose recorded trajectory the item shows",
    "steps_source": "`parent` / `child` on a negative, `\"\"` on a positive",
    "pair_group_id": "id of the item's connected pair group (bootstrap cluster)",
    "difficulty": "`hard` (AgentHorizon.jsonl) / `easy` (AgentHorizon-Simple.jsonl)",
    "in_dev": "member of AH-D",
    "category": "task metadata (null when absent)",
    "subcategory": "task metadata (null when absent)",
    "task_type": "task metadata (null when absent)",
    "applications": "desktop applications used",
    "os": "`linux`, `windows` or `macos` (null when absent)",
    "screen_resolution": "`[width, height]` (null when absent)",
    "num_steps": "number of steps",
    "steps": "one entry per action: `step_id`, `action_type`, coordinates, text, keys, `parameters` (the action's full parameters as JSON), `timestamp_us`, `screenshot` (release-relative path)",
    "screenshots": "aligned with `steps`, null where a step has none (see below)",
    "markdown": "the trajectory in the release's Markdown layout (judge input)",
}
"""What each exported column means; its type comes from the Features, its blind status from ``HIDDEN_FIELDS``."""


def _feature_type(feature: Any) -> str:
    """A column's type as the card's field table prints it, read from its ``datasets`` feature.

    >>> import datasets
    >>> from agenthorizon.data.features import list_feature
    >>> _feature_type(datasets.Value("int32")), _feature_type(list_feature({"x": datasets.Value("float64")}))
    ('int32', 'list of struct')
    >>> _feature_type(list_feature(datasets.Image())), _feature_type(list_feature(datasets.Value("string")))
    ('list of image', 'list of string')
    """
    import datasets

    if isinstance(feature, datasets.Value):
        return feature.dtype
    if isinstance(feature, datasets.Image):
        return "image"
    if isinstance(feature, dict):
        return "struct"
    if isinstance(feature, list):
        return f"list of {_feature_type(feature[0])}"
    inner = getattr(feature, "feature", None)  # datasets.List / Sequence
    if inner is not None:
        return f"list of {_feature_type(inner)}"
    raise ValueError(f"no card type for feature {feature!r}; expected a Value, Image, struct or list")


def field_rows(features: Any) -> list[str]:
    """The card's field table body: one row per exported column, in column order.

    The type is read from ``features`` and every column of
    :data:`~agenthorizon.schema.HIDDEN_FIELDS` is marked hidden from judges, so
    the table cannot drift from what the Parquet files hold.

    Raises
    ------
    ValueError
        Naming a column that has no meaning written in ``_FIELD_MEANINGS``.
    """
    undocumented = [name for name in features if name not in _FIELD_MEANINGS]
    if undocumented:
        raise ValueError(f"columns {undocumented} have no meaning for the dataset card; add them to _FIELD_MEANINGS")
    return [
        f"| `{name}` | {_feature_type(feature)} | {_FIELD_MEANINGS[name]}"
        + (" — **hidden from judges**" if name in HIDDEN_FIELDS else "")
        + " |"
        for name, feature in features.items()
    ]


_CARD_TEMPLATE = "templates/dataset_card.md"

SYNTHETIC_NOTICE = (
    "> **Synthetic data.** This export was made from a sample corpus generated by `agenthorizon sample`, "
    "not from the AgentHorizon release: its trajectories, screenshots and labels are made up, laid out like "
    "the release so that code can be built and tested against it. Numbers measured on it say nothing about "
    "real judges; do not publish it as AgentHorizon.\n\n"
)
"""What the card of an export of a sample corpus says first."""

_SCREENSHOT_DOCS = {
    "none": "not exported (no `screenshots` column)",
    "paths": "`screenshots`: list of release-relative path strings aligned with `steps` (null where a step has none); pair with the release's `sandbox/data/media/images/`",
    "thumbnails": "`screenshots`: list of `Image` aligned with `steps`: each screenshot downscaled to fit 512×332 and stored as JPEG bytes (what direct judges see); null where a step has none",
    "full": "`screenshots`: list of `Image` aligned with `steps`: the original PNG bytes; null where a step has none",
}


def dataset_card(
    summary: ExportSummary, features: Any, *, dev_groups: int = DEV_GROUPS, repo_id: str | None = None
) -> str:
    """The README.md text of an export: YAML header (:func:`card_metadata`) and prose.

    The prose is ``templates/dataset_card.md`` filled in (:class:`string.Template`)
    with counts per config, the AH-D settings, the field table
    (:func:`field_rows`), the screenshot mode and the hidden fields.
    """
    metadata = card_metadata(summary, features)
    config_rows = []
    for name, export in summary.configs.items():
        counts = export.counts
        types = counts["by_mistake_type"]
        config_rows.append(
            f"| `{name}` | {CONFIG_DESCRIPTIONS[name]} | {counts['n']} | {counts['positive']} | {counts['negative']} "
            f"| {types[MISTAKE_TYPES[0]]} | {types[MISTAKE_TYPES[1]]} | {types[MISTAKE_TYPES[2]]} | {types['untyped']} |"
        )
    template = Template(resources.files("agenthorizon.data").joinpath(_CARD_TEMPLATE).read_text(encoding="utf-8"))
    prose = template.substitute(
        repo=repo_id or DEFAULT_HUB_REPO,
        first_config=next(iter(summary.configs)),
        split=SPLIT_NAME,
        config_rows="\n".join(config_rows),
        hard_file=LABEL_FILE_HARD,
        easy_file=LABEL_FILE_EASY,
        dev_seed=DEV_SEED,
        dev_groups=dev_groups,
        field_rows="\n".join(field_rows(features)),
        images=summary.images,
        screenshots=_SCREENSHOT_DOCS[summary.images],
        hidden_fields=", ".join(f"`{name}`" for name in HIDDEN_FIELDS),
        hidden_list=", ".join(f'"{name}"' for name in HIDDEN_FIELDS),
        source_repo=DEFAULT_HUB_REPO,
        citation=CITATION_BIBTEX.rstrip("\n"),
        synthetic=SYNTHETIC_NOTICE if summary.synthetic else "",
    )
    # Not DatasetCard: it would parse and re-dump this YAML to the same text (tested).
    return f"---\n{metadata.to_yaml()}\n---\n\n" + prose
