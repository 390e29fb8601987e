"""The sample corpus in memory: deliverables, pair groups, label rows, trajectories.

:func:`build_plan` runs the construction in the order the release was built,
one step per function, all from one random stream (why: docs/architecture.md,
"Design notes by module").
"""

from __future__ import annotations

import math
import random
import uuid
from dataclasses import dataclass
from statistics import NormalDist

from agenthorizon.release.sample.presets import PRESETS, Preset
from agenthorizon.release.sample.tasks import SCREEN_RESOLUTIONS, TEMPLATES, TaskTemplate
from agenthorizon.release.sample.trajectories import MODES, Evidence, FillerCycle, Trajectory, build_trajectory
from agenthorizon.schema import (
    BAD_SIDE_EFFECT,
    CHILD,
    CRITICAL_MISTAKE,
    LABEL_FILE_EASY,
    LABEL_FILE_HARD,
    LABEL_FIELDS,
    MISUNDERSTANDING,
    NEGATIVE,
    PARENT,
    POSITIVE,
    UNTYPED,
)
from agenthorizon.release.splits import dev_groups

_TYPE_ORDER = (CRITICAL_MISTAKE, BAD_SIDE_EFFECT, MISUNDERSTANDING, UNTYPED)
_OS_WEIGHTS = (("linux", 0.4), ("windows", 0.35), ("macos", 0.25))
_EPOCH_US = 1_735_689_600_000_000  # 2025-01-01: recordings start after it

# How often each evidence mode is drawn (among the modes a task supports). Most
# trajectories type their detail, as most recorded demonstrations do; the
# others need the screenshots or some reading to be judged.
_MODE_WEIGHTS = {"typed": 0.68, "selected": 0.12, "reformatted": 0.1, "corrected": 0.1}
_DISTRACTOR_RATE = 0.2
_HARDNESS_NOISE = 0.45  # standard deviation: the files are not perfectly separable by mode


@dataclass(frozen=True)
class Deliverable:
    """One recorded demonstration: an instruction and the trajectory that accomplishes it."""

    deliverable_id: str
    role: str  # parent / child
    template: TaskTemplate
    detail: str
    os: str
    screen_resolution: tuple[int, int]
    trajectory: Trajectory | None = None

    @property
    def instruction(self) -> str:
        return self.template.render(self.template.instruction, self.detail)


@dataclass(frozen=True)
class CorpusPlan:
    """Everything the writer needs; nothing is on disk yet."""

    preset: Preset
    seed: int
    deliverables: dict[str, Deliverable]
    groups: list[tuple[str, ...]]  # deliverable ids per group, parent first
    label_files: dict[str, list[dict]]  # file name -> rows (seven fields, release order)
    dev_groups: list[tuple[str, ...]]

    def evidence(self, steps_id: str) -> Evidence:
        """How the trajectory of ``steps_id`` shows its detail."""
        return self.deliverables[steps_id].trajectory.evidence

    def rows(self) -> list[dict]:
        return [row for name in (LABEL_FILE_HARD, LABEL_FILE_EASY) for row in self.label_files[name]]

    def trajectory_json(self, row: dict) -> dict:
        """The blind trajectory JSON of an item (null-valued keys dropped)."""
        shown = self.deliverables[row["instruction_id"]]
        recorded = self.deliverables[row["steps_id"]]
        template = shown.template
        task = {
            "instruction": shown.instruction,
            "category": template.category,
            "subcategory": template.subcategory,
            "task_type": template.task_type,
            "applications": list(recorded.trajectory.applications),
        }
        return {
            "trajectory_id": row["trajectory_id"],
            "task": {key: value for key, value in task.items() if value is not None},
            "environment": {"os": recorded.os, "screen_resolution": list(recorded.screen_resolution)},
            "steps": recorded.trajectory.steps,
        }


def deliverable_id(number: int) -> str:
    """A deliverable id in the release format.

    >>> deliverable_id(234004)
    '000234004-234004-0000-000000234004'
    """
    return f"{number:09d}-{number:06d}-0000-{number:012d}"


def _pick_details(rng: random.Random, values: tuple[str, ...], count: int) -> list[str]:
    """``count`` distinct values, none a substring of another (case-insensitive)."""
    for _ in range(100):
        chosen = rng.sample(values, count)
        lowered = [value.lower() for value in chosen]
        if not any(a != b and a in b for a in lowered for b in lowered):
            return chosen
    raise ValueError(f"cannot pick {count} distinct details from {values!r}")  # pragma: no cover


def _weighted_os(rng: random.Random) -> str:
    roll, total = rng.random(), 0.0
    for name, weight in _OS_WEIGHTS:
        total += weight
        if roll < total:
            return name
    return _OS_WEIGHTS[-1][0]


def _survivors(
    rng: random.Random, pairs: list[tuple[str, str]], loose: list[str], count: int
) -> set[str]:
    """Choose ``count`` surviving positives among the pairs' and loose deliverables.

    The first three pairs (in the shuffled order) keep 2, 1 and 0 positives, so
    groups of 4, 3 and 2 items always exist; the rest is drawn at random.
    """
    pairs = list(pairs)
    rng.shuffle(pairs)
    survivors: set[str] = set()
    candidates = list(loose)
    if len(pairs) >= 3 and count >= 3:
        survivors.update(pairs[0])
        survivors.add(pairs[1][0])
        for pair in pairs[3:]:
            candidates.extend(pair)
        remaining = count - 3
    else:
        for pair in pairs:
            candidates.extend(pair)
        remaining = count
    if remaining > len(candidates):
        raise ValueError(f"cannot keep {count} positives among {len(pairs)} pairs")
    survivors.update(rng.sample(candidates, remaining))
    return survivors


def _siblings(group: tuple[str, ...], member: str) -> list[str]:
    """Deliverables whose instruction is paired with ``member``'s (the triangle's children only know the parent)."""
    if member == group[0]:
        return list(group[1:])
    return [group[0]]


def _assign_evidence(
    rng: random.Random, order: list[tuple[str, ...]], deliverables: dict[str, Deliverable]
) -> dict[str, Evidence]:
    """An evidence mode (and, now and then, a distractor) for every deliverable.

    Each deliverable, in random order, gets the supported mode furthest behind
    its share of ``_MODE_WEIGHTS``. A mode that did not come up is then given
    to one typed trajectory that supports it, so even ``tiny`` shows each.
    """
    members = [member for group in order for member in group]
    visit = list(members)
    rng.shuffle(visit)
    modes: dict[str, str] = {}
    counts = dict.fromkeys(MODES, 0)
    for seen, member in enumerate(visit):
        allowed = deliverables[member].template.modes
        mode = max(allowed, key=lambda m: (_MODE_WEIGHTS[m] * (seen + 1) - counts[m], rng.random()))
        modes[member] = mode
        counts[mode] += 1
    for mode in MODES:
        if mode not in modes.values():
            typed = [m for m in members if modes[m] == "typed" and mode in deliverables[m].template.modes]
            if typed:
                modes[rng.choice(typed)] = mode
    distracted = {m for m in members if rng.random() < _DISTRACTOR_RATE}
    if not distracted:
        distracted = {rng.choice(members)}
    evidence: dict[str, Evidence] = {}
    for group in order:
        for member in group:
            other = deliverables[rng.choice(_siblings(group, member))].detail
            evidence[member] = Evidence(
                modes[member],
                wrong=other if modes[member] == "corrected" else None,
                distractor=other if member in distracted else None,
            )
    return evidence


def item_hardness(label: str, shown_detail: str, evidence: Evidence) -> float:
    """How hard an item is to judge from its text, in [0, 1.3] (0: the typed text settles it).

    A negative is hard when its text holds no contradiction of its instruction
    (the sibling's value ``selected``, typed ``reformatted``, or the instruction's
    own value ``corrected`` away); a positive when its value must be confirmed
    from screenshots, recognised in another form, or another value was typed on
    the way. A document mentioning the other value adds to either.

    >>> item_hardness("negative", "PNG", Evidence("selected"))
    1.0
    >>> item_hardness("positive", "PNG", Evidence("typed"))
    0.0
    """
    if label == NEGATIVE:
        base = {"typed": 0.0, "selected": 1.0, "reformatted": 1.0}.get(evidence.mode)
        if base is None:  # corrected: hard only when the value typed first is this instruction's
            base = 1.0 if evidence.wrong == shown_detail else 0.2
        return base + (0.3 if evidence.distractor == shown_detail else 0.0)
    base = {"typed": 0.0, "selected": 0.5, "reformatted": 0.7, "corrected": 0.7}[evidence.mode]
    return base + (0.3 if evidence.distractor is not None else 0.0)


def _type_multiset(counts: tuple[int, int, int, int]) -> list[str]:
    return [name for name, count in zip(_TYPE_ORDER, counts) for _ in range(count)]


def _uniform_steps(rng: random.Random, groups: list[tuple[str, ...]], low: int, high: int) -> dict[str, int]:
    steps: dict[str, int] = {}
    for group in groups:
        base = rng.randint(low, high)
        for member in group:  # siblings were recorded with near-identical step counts
            steps[member] = min(high, max(low, base + rng.randint(-2, 2)))
    return steps


def _release_steps(
    rng: random.Random, groups: list[tuple[str, ...]], weight: dict[str, int], shape
) -> dict[str, int]:
    """Per-deliverable step counts whose item-weighted statistics match ``shape``.

    Group bases are stratified quantiles of a log-normal with the release's
    median and 90th percentile; siblings differ by a few percent. Then the
    longest group is set to the maximum and deliverables near 200 steps are
    nudged across the threshold until exactly ``shape.at_least_200`` items have
    at least 200 steps.
    """
    sigma = math.log(shape.lognormal_p90 / shape.median) / NormalDist().inv_cdf(0.9)
    ranks = list(range(len(groups)))
    rng.shuffle(ranks)
    steps: dict[str, int] = {}
    longest = max(range(len(groups)), key=lambda index: ranks[index])
    for index, group in enumerate(groups):
        quantile = (ranks[index] + 0.5) / len(groups)
        base = shape.median * math.exp(sigma * NormalDist().inv_cdf(quantile))
        for member in group:
            steps[member] = min(shape.maximum - 8, max(12, round(base * (1 + rng.uniform(-0.03, 0.03)))))
    top = groups[longest]
    steps[top[0]] = shape.maximum
    for member in top[1:]:
        steps[member] = shape.maximum - rng.randint(3, 8)
    fixed = set(top)

    def items_at_least_200() -> int:
        return sum(weight[d] for d, n in steps.items() if n >= 200)

    while (excess := items_at_least_200() - shape.at_least_200) != 0:
        if excess > 0:
            pool = [d for d, n in steps.items() if n >= 200 and d not in fixed and weight[d] <= excess]
            chosen = min(pool, key=lambda d: (steps[d], d))
            steps[chosen] = rng.randint(188, 199)
        else:
            pool = [d for d, n in steps.items() if n < 200 and weight[d] <= -excess]
            chosen = max(pool, key=lambda d: (steps[d], d))
            steps[chosen] = rng.randint(200, 212)
        fixed.add(chosen)
    return steps


def build_plan(preset: str | Preset = "small", seed: int = 0) -> CorpusPlan:
    """Build the whole sample corpus in memory (deterministic in ``preset`` and ``seed``).

    The corpus depends on the order of the draws; ``tests/release/test_sample.py`` pins its bytes.

    >>> plan = build_plan("tiny", seed=0)
    >>> len(plan.rows()) == plan.preset.items
    True
    """
    if isinstance(preset, str):
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; expected one of {', '.join(PRESETS)}")
        preset = PRESETS[preset]
    preset.check()
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    rng = random.Random(f"agenthorizon-sample:{preset.name}:{seed}")

    ids, groups, order, deliverables = _draw_deliverables(rng, preset)  # 1.
    negatives = _swapped_negatives(groups)  # 2.
    dev = _dev_groups_of(negatives)  # 3.
    survivors = _review(rng, preset, groups, order[0], negatives, dev)  # 4.
    evidence = _assign_evidence(rng, order, deliverables)  # 5.
    files = _label_files(rng, preset, ids, survivors, negatives, deliverables, evidence)  # 6.
    _record_trajectories(rng, preset, ids, order, survivors, negatives, deliverables, evidence)  # 7.
    return CorpusPlan(preset, seed, deliverables, order, files, dev)


def _draw_deliverables(
    rng: random.Random, preset: Preset
) -> tuple[list[str], list[tuple[str, ...]], list[tuple[str, ...]], dict[str, Deliverable]]:
    """Step 1: deliverable ids, groups (``pairs`` pairs plus one triangle), and a task per group.

    Returns the ids in draw order, the groups in corpus order (the triangle at
    a random place), the groups in template order (triangle first) and the
    deliverables (without trajectories yet).
    """
    numbers = rng.sample(range(230_000, 240_000), preset.deliverables)
    ids = [deliverable_id(number) for number in numbers]
    groups: list[tuple[str, ...]] = [tuple(ids[2 * i : 2 * i + 2]) for i in range(preset.pairs)]
    triangle = tuple(ids[2 * preset.pairs :])
    triangle_at = rng.randrange(len(groups) + 1)
    groups.insert(triangle_at, triangle)

    templates = list(TEMPLATES)
    rng.shuffle(templates)
    # the triangle and the first pair use templates with a long typed text, so
    # even the tiny corpus cuts text over 80 characters in its Markdown
    long_first = sorted(range(len(templates)), key=lambda i: not _has_long_text(templates[i]))
    templates = [templates[i] for i in long_first[:2]] + [templates[i] for i in long_first[2:]]

    deliverables: dict[str, Deliverable] = {}
    order = [triangle] + [group for group in groups if group is not triangle]
    for index, group in enumerate(order):
        template = templates[index % len(templates)]
        details = _pick_details(rng, template.values, len(group))
        os_name = _weighted_os(rng)
        resolution = rng.choice(SCREEN_RESOLUTIONS[os_name])
        for position, (member, detail) in enumerate(zip(group, details)):
            role = PARENT if position == 0 else CHILD
            deliverables[member] = Deliverable(member, role, template, detail, os_name, resolution)
    return ids, groups, order, deliverables


def _swapped_negatives(groups: list[tuple[str, ...]]) -> list[dict]:
    """Step 2: both directions of every sibling link (the triangle links its parent to each child)."""
    negatives = []
    for group in groups:
        for child in group[1:]:
            negatives.append({"instruction_id": group[0], "steps_id": child})
            negatives.append({"instruction_id": child, "steps_id": group[0]})
    return negatives


def _dev_groups_of(negatives: list[dict]) -> list[tuple[str, ...]]:
    """Step 3: the AH-D groups, which depend only on deliverable ids, so they are known before review."""
    probe = [dict(row, trajectory_id=str(index)) for index, row in enumerate(negatives)]
    return dev_groups(probe)


def _review(
    rng: random.Random,
    preset: Preset,
    groups: list[tuple[str, ...]],
    triangle: tuple[str, ...],
    negatives: list[dict],
    dev: list[tuple[str, ...]],
) -> set[str]:
    """Step 4: which positives survived review; sets each negative's ``mistake_type``.

    With an AH-D target (``full``), survivors and types are drawn separately
    inside and outside the dev groups so AH-D gets the paper's exact counts.
    """
    dev_members = {member for group in dev for member in group}
    pairs = [group for group in groups if len(group) == 2]
    if preset.dev is None:
        survivors = _survivors(rng, pairs, list(triangle), preset.positives)
        types = _type_multiset(preset.mistake_types)
        rng.shuffle(types)
        for row in negatives:
            row["mistake_type"] = types.pop()
        return survivors
    dev_pairs = [group for group in pairs if group[0] in dev_members]
    other_pairs = [group for group in pairs if group[0] not in dev_members]
    survivors = _survivors(rng, dev_pairs, [], preset.dev.positives)
    survivors |= _survivors(rng, other_pairs, list(triangle), preset.positives - preset.dev.positives)
    dev_types = _type_multiset(preset.dev.mistake_types)
    rest = [t - d for t, d in zip(preset.mistake_types, preset.dev.mistake_types)]
    other_types = _type_multiset(tuple(rest))
    rng.shuffle(dev_types)
    rng.shuffle(other_types)
    for row in negatives:
        pool = dev_types if row["instruction_id"] in dev_members else other_types
        row["mistake_type"] = pool.pop()
    return survivors


def _label_files(
    rng: random.Random,
    preset: Preset,
    ids: list[str],
    survivors: set[str],
    negatives: list[dict],
    deliverables: dict[str, Deliverable],
    evidence: dict[str, Evidence],
) -> dict[str, list[dict]]:
    """Step 6: label rows with trajectory ids, split into the two files by hardness, each file shuffled."""
    rows: list[dict] = []
    for member in ids:
        if member in survivors:
            rows.append({"label": POSITIVE, "instruction_id": member, "instruction_source": "",
                         "steps_id": member, "steps_source": "", "mistake_type": ""})
    for row in negatives:
        rows.append({"label": NEGATIVE, "instruction_id": row["instruction_id"],
                     "instruction_source": deliverables[row["instruction_id"]].role,
                     "steps_id": row["steps_id"], "steps_source": deliverables[row["steps_id"]].role,
                     "mistake_type": row["mistake_type"]})
    for row in rows:
        row["trajectory_id"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    positives = [row for row in rows if row["label"] == POSITIVE]
    negative_rows = [row for row in rows if row["label"] == NEGATIVE]
    hard: set[int] = set()
    for label_rows, quota in ((positives, preset.hard_positives), (negative_rows, preset.hard_negatives)):
        scored = [
            (item_hardness(row["label"], deliverables[row["instruction_id"]].detail, evidence[row["steps_id"]])
             + rng.gauss(0.0, _HARDNESS_NOISE), index)
            for index, row in enumerate(label_rows)
        ]
        scored.sort(reverse=True)
        hard |= {id(label_rows[index]) for _, index in scored[:quota]}
    files: dict[str, list[dict]] = {LABEL_FILE_HARD: [], LABEL_FILE_EASY: []}
    for row in rows:
        ordered = {name: row[name] for name in LABEL_FIELDS}
        files[LABEL_FILE_HARD if id(row) in hard else LABEL_FILE_EASY].append(ordered)
    for file_rows in files.values():
        rng.shuffle(file_rows)
    return files


def _record_trajectories(
    rng: random.Random,
    preset: Preset,
    ids: list[str],
    order: list[tuple[str, ...]],
    survivors: set[str],
    negatives: list[dict],
    deliverables: dict[str, Deliverable],
    evidence: dict[str, Evidence],
) -> None:
    """Step 7: every deliverable's trajectory, step counts weighted by the items that show it.

    Replaces each entry of ``deliverables`` by one that holds its trajectory.
    """
    weight = {member: (1 if member in survivors else 0) for member in ids}
    for row in negatives:
        weight[row["steps_id"]] += 1
    if preset.step_shape is not None:
        step_counts = _release_steps(rng, order, weight, preset.step_shape)
    else:
        step_counts = _uniform_steps(rng, order, *preset.step_range)
    cycle = FillerCycle(random.Random(rng.getrandbits(64)))
    for index, member in enumerate(group_member for group in order for group_member in group):
        deliverable = deliverables[member]
        # the first trajectory shows a step without screenshot and one without timestamp
        flags = {"no_screenshot": 1, "no_timestamp": 2} if index == 0 else None
        trajectory = build_trajectory(
            member, deliverable.template, deliverable.detail, deliverable.os, deliverable.screen_resolution,
            step_counts[member], _EPOCH_US + rng.randrange(300 * 86_400 * 10**6),
            random.Random(rng.getrandbits(64)), cycle, flags, evidence[member],
        )
        deliverables[member] = Deliverable(
            member, deliverable.role, deliverable.template, deliverable.detail, deliverable.os,
            deliverable.screen_resolution, trajectory,
        )


def _has_long_text(template: TaskTemplate) -> bool:
    # only beats that carry the detail survive in the shortest trajectories
    return any(beat[0] == "type" and len(beat[1]) > 90 and "{d}" in beat[1] for beat in template.beats)
