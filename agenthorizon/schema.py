"""The names of the benchmark, defined once: configs, label values, mistake types, release paths, field lists.

No I/O, standard library only.
"""

from __future__ import annotations

import re
from typing import Final

# --- configs and label files -------------------------------------------------

CONFIG_AH: Final = "AH"
CONFIG_AH_S: Final = "AH-S"
CONFIG_AH_D: Final = "AH-D"
CONFIG_ALL: Final = "all"
CONFIG_NAMES: Final = (CONFIG_AH, CONFIG_AH_S, CONFIG_AH_D, CONFIG_ALL)

LABEL_FILE_HARD: Final = "AgentHorizon.jsonl"
LABEL_FILE_EASY: Final = "AgentHorizon-Simple.jsonl"
LABEL_FILES: Final = (LABEL_FILE_HARD, LABEL_FILE_EASY)
"""Both label files, in the order their rows are concatenated for ``all``."""

DIFFICULTY_BY_LABEL_FILE: Final = {LABEL_FILE_HARD: "hard", LABEL_FILE_EASY: "easy"}

CONFIG_DESCRIPTIONS: Final = {
    CONFIG_AH: f"main (hard) split: the items of `{LABEL_FILE_HARD}`",
    CONFIG_AH_S: f"simple split: the items of `{LABEL_FILE_EASY}`",
    CONFIG_AH_D: "pair-aware development set derived from the whole release (the paper's AH-D)",
    CONFIG_ALL: "both label files, hard rows first",
}
"""One line per config, for the builder's configs and the exported dataset card."""

LOAD_IMAGE_MODES: Final = ("lazy", "paths", "eager", None)
"""``images=`` of loading: decoded on access, as paths, decoded eagerly, or as
paths with no media fetched from the Hub (``docs/data.md``)."""

EXPORT_IMAGE_MODES: Final = ("none", "paths", "thumbnails", "full")
"""``images=`` of a Parquet export: no column, release-relative paths, 512x332
JPEG thumbnails or the original PNG bytes (``docs/export.md``). Not to be
confused with :data:`LOAD_IMAGE_MODES` nor with the model-input modes of
:mod:`agenthorizon.data.images`."""

SPLIT_NAME: Final = "test"
"""The release has one split; ``datasets`` users expect it to be called test."""

DEFAULT_HUB_REPO: Final = "ServiceNow/AgentHorizon"

CITATION_BIBTEX: Final = """\
@misc{agenthorizon,
  title        = {AgentHorizon},
  author       = {{ServiceNow}},
  howpublished = {\\url{https://huggingface.co/datasets/ServiceNow/AgentHorizon}},
  note         = {Hugging Face dataset; cite the benchmark's paper as its dataset card asks}
}
"""
"""How to cite the benchmark: the Hub dataset (the paper's own entry is on its card)."""

# --- the authors' AH-D derivation (SPEC section 2) -----------------------------

DEV_SEED: Final = 42
DEV_GROUPS: Final = 50
DEV_GROUP_SIZE: Final = 2  # groups that join exactly two deliverables
GROUP_KEY_SEPARATOR: Final = "::"
PAIR_GROUP_ID_LENGTH: Final = 12

# --- label rows ---------------------------------------------------------------

UUID_PATTERN: Final = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
"""Trajectory ids are UUIDs; result files are named ``<uuid>.json``. Use it with
``fullmatch`` (``$`` of ``match`` would accept a trailing newline)."""
DELIVERABLE_ID_PATTERN: Final = re.compile(r"[0-9]{1,20}(?:-[0-9]{1,20}){3}")
"""A deliverable id (``instruction_id``, ``steps_id``; an image folder's name): four dash-separated groups of
digits, as the release writes them (``000234004-234004-0000-000000234004``), at most 83 characters."""

POSITIVE: Final = "positive"
NEGATIVE: Final = "negative"
LABEL_VALUES: Final = (POSITIVE, NEGATIVE)

PARENT: Final = "parent"
CHILD: Final = "child"
SOURCE_VALUES: Final = (PARENT, CHILD)

LABEL_FIELDS: Final = (
    "trajectory_id",
    "label",
    "instruction_id",
    "instruction_source",
    "steps_id",
    "steps_source",
    "mistake_type",
)
"""Exactly the seven fields of every label row, in the release's order."""

# --- mistake types --------------------------------------------------------------

CRITICAL_MISTAKE: Final = "Critical Mistake"
BAD_SIDE_EFFECT: Final = "Bad Side Effect"
MISUNDERSTANDING: Final = "Misunderstanding of the Instructions"
"""Spelled as in the label files (plural); the authors' prompt uses the singular."""

MISTAKE_TYPES: Final = (CRITICAL_MISTAKE, BAD_SIDE_EFFECT, MISUNDERSTANDING)
UNTYPED: Final = ""

_MISTAKE_TYPE_KEYS: Final = {
    "critical mistake": CRITICAL_MISTAKE,
    "bad side effect": BAD_SIDE_EFFECT,
    "misunderstanding of the instructions": MISUNDERSTANDING,
    "misunderstanding of the instruction": MISUNDERSTANDING,
}
_WHITESPACE = re.compile(r"\s+")


def canonical_mistake_type(text: object) -> str | None:
    """Map a mistake-type spelling to its canonical label-file name.

    Matching ignores case and runs of white space; the singular and plural
    spellings of the third type are the same type.

    Returns the canonical name, or ``None`` when ``text`` is not a string naming
    one of the three types (an empty string, ``None`` or free text).

    >>> canonical_mistake_type("  misunderstanding of the   Instruction ")
    'Misunderstanding of the Instructions'
    >>> canonical_mistake_type("typo") is None
    True
    """
    if not isinstance(text, str):
        return None
    return _MISTAKE_TYPE_KEYS.get(_WHITESPACE.sub(" ", text.strip()).lower())


# --- prediction validity (one vocabulary for verdict parsing and scoring) --------

STATUS_OK: Final = "ok"
STATUS_MISSING: Final = "missing"  # no result at all for the item
STATUS_NO_JSON: Final = "no_json"  # text with no JSON object in it
STATUS_MALFORMED_JSON: Final = "malformed_json"
STATUS_NOT_OBJECT: Final = "not_object"  # a prediction that is not a mapping (a list); text never gives it (the one parse rule)
STATUS_MISSING_SUCCESS: Final = "missing_success"
STATUS_NON_BOOLEAN: Final = "non_boolean"  # null, "true", 1, ...
STATUS_ERROR: Final = "error"  # the judge failed (exception, timeout, HTTP error)
STATUS_ID_MISMATCH: Final = "id_mismatch"  # a result file holding another item's result
STATUS_JUDGE_MISMATCH: Final = "judge_mismatch"  # a result written by another judge than its run's
INVALID_STATUSES: Final = (
    STATUS_MISSING,
    STATUS_NO_JSON,
    STATUS_MALFORMED_JSON,
    STATUS_NOT_OBJECT,
    STATUS_MISSING_SUCCESS,
    STATUS_NON_BOOLEAN,
    STATUS_ERROR,
    STATUS_ID_MISMATCH,
    STATUS_JUDGE_MISMATCH,
)
PARSE_STATUSES: Final = (STATUS_OK, *INVALID_STATUSES)

CONFIDENCE_VALUES: Final = ("low", "medium", "high")

# --- screenshots for model input ---------------------------------------------------

IMAGE_MODE_AUTO: Final = "auto"
IMAGE_MODE_PER_STEP: Final = "per-step"
IMAGE_MODE_MOSAIC: Final = "mosaic"
IMAGE_MODE_NONE: Final = "none"
MODEL_IMAGE_MODES: Final = (IMAGE_MODE_PER_STEP, IMAGE_MODE_MOSAIC, IMAGE_MODE_NONE)
"""What :mod:`agenthorizon.data.images` produces: one image per step, 2x2 mosaics, or none."""
JUDGE_IMAGE_MODES: Final = (IMAGE_MODE_AUTO, *MODEL_IMAGE_MODES)
"""What a direct judge accepts: ``auto`` is the protocol's rule (per-step while the
serving limit allows, mosaics beyond it)."""

# --- information ablations (paper Table 9) -----------------------------------------

ABLATE_INSTRUCTION: Final = "instruction"
ABLATE_ACTIONS: Final = "actions"
ABLATE_SCREENSHOTS: Final = "screenshots"
ABLATION_PARTS: Final = (ABLATE_INSTRUCTION, ABLATE_ACTIONS, ABLATE_SCREENSHOTS)
"""The parts of a judge input a run can withhold (``--ablate``), in the order
they are written in run records; what each removes is
:func:`agenthorizon.judging.inputs.build_judge_input`'s to decide."""

LAYOUT_MARKDOWN: Final = "markdown"
LAYOUT_INTERLEAVED: Final = "interleaved"
LAYOUT_PAPER: Final = "paper"
DIRECT_LAYOUTS: Final = (LAYOUT_MARKDOWN, LAYOUT_INTERLEAVED, LAYOUT_PAPER)
"""How a direct judge's user message is laid out: the prompt with the whole Markdown, then
every screenshot (``markdown``); the goal, then each step's line in this project's words
followed by its screenshot (``interleaved``); or the same order in the words of the benchmark
authors' direct harness (``paper``: ``### Step i``, ``**Action:**``, ``**Timestamp:**``)."""

# --- release layout -------------------------------------------------------------

SANDBOX_DIR: Final = "sandbox"
DATA_DIR: Final = f"{SANDBOX_DIR}/data"
JSONS_DIR: Final = f"{DATA_DIR}/jsons"
MARKDOWNS_DIR: Final = f"{DATA_DIR}/markdowns"
IMAGES_DIR: Final = f"{DATA_DIR}/media/images"
PROMPT_FILE: Final = f"{SANDBOX_DIR}/prompt.md"
FRAMEWORK_FILES: Final = (f"{SANDBOX_DIR}/AGENTS.md", f"{SANDBOX_DIR}/CLAUDE.md")
PROMPT_PLACEHOLDER: Final = "{{TRAJECTORY_ID}}"
WORKDIR_FRAMEWORK_NAMES: Final = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
"""Where agentic CLIs look for their instructions in a working directory (Codex and
OpenCode read AGENTS.md, Claude Code CLAUDE.md, Gemini CLI GEMINI.md): a command
judge's working directory holds the release's framework text under each name."""


def json_relpath(trajectory_id: str) -> str:
    """Release-relative path of a trajectory's JSON file."""
    return f"{JSONS_DIR}/{trajectory_id}.json"


def markdown_relpath(trajectory_id: str) -> str:
    """Release-relative path of a trajectory's Markdown file."""
    return f"{MARKDOWNS_DIR}/{trajectory_id}.md"


def screenshot_filename(step_id: int) -> str:
    """File name of a step's screenshot: file names are 1-based, step ids 0-based.

    >>> screenshot_filename(0)
    'step_1.png'
    """
    return f"step_{step_id + 1}.png"


def screenshot_folder_relpath(steps_id: str) -> str:
    """Release-relative path of the screenshot folder of a steps id."""
    return f"{IMAGES_DIR}/{steps_id}"


SCREENSHOT_REF_PREFIX: Final = "../media/images/"
"""How a JSON or Markdown file (under ``jsons/`` or ``markdowns/``) reaches :data:`IMAGES_DIR`."""


def screenshot_ref(steps_id: str, step_id: int) -> str:
    """Screenshot path as written inside a JSON or Markdown file (relative to it).

    >>> screenshot_ref("000234004-234004-0000-000000234004", 0)
    '../media/images/000234004-234004-0000-000000234004/step_1.png'
    """
    return f"{SCREENSHOT_REF_PREFIX}{steps_id}/{screenshot_filename(step_id)}"


# --- dataset rows -----------------------------------------------------------------

HIDDEN_FIELDS: Final = (
    "label",
    "mistake_type",
    "instruction_id",
    "instruction_source",
    "steps_id",
    "steps_source",
    "pair_group_id",
    "difficulty",
    "in_dev",
)
"""Row fields that reveal the label or the pairing; never shown to a judge."""

TRAJECTORY_FIELDS: Final = (
    "instruction",
    "category",
    "subcategory",
    "task_type",
    "applications",
    "os",
    "screen_resolution",
    "num_steps",
)
"""Item-level row fields read from an item's trajectory json (not its steps, Markdown or label row)."""

STEP_BUCKETS: Final = ((0, 100, "<100"), (100, 200, "100-199"), (200, None, ">=200"))
"""Step-count buckets used by slices and reports: (low inclusive, high exclusive, name)."""


def step_bucket(num_steps: int) -> str:
    """Name of the step-count bucket that holds ``num_steps``.

    >>> step_bucket(99), step_bucket(100), step_bucket(358)
    ('<100', '100-199', '>=200')
    """
    for low, high, name in STEP_BUCKETS:
        if num_steps >= low and (high is None or num_steps < high):
            return name
    raise ValueError(f"num_steps must be a non-negative integer, got {num_steps!r}")


# --- step-parameter columns of a dataset row ----------------------------------------------------

FLOAT_PARAMETERS = ("x", "y", "start_x", "start_y", "end_x", "end_y", "amount", "duration_s")
"""Action parameters with a float64 column in ``steps`` (null when absent or not a finite number)."""
STRING_PARAMETERS = ("button", "text", "key", "direction")
"""Action parameters with a string column in ``steps`` (null when absent or not a string)."""
STEP_PARAMETER_COLUMNS = (*FLOAT_PARAMETERS, *STRING_PARAMETERS, "num_clicks", "keys")
"""Every flat action-parameter column of ``steps``; the lossless ``parameters`` JSON holds the rest."""
