"""A deterministic sample corpus laid out exactly like the AgentHorizon release.

:func:`generate` writes the two label files, the sandbox texts, each item's
blind trajectory JSON and rendered Markdown, and the screenshots
(``media/images/<steps_id>/step_N.png``, N = step_id + 1). See docs/sample.md.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from agenthorizon.util.progress import progress_bar
from agenthorizon.util.system import available_cpus
from agenthorizon.release.labels import count_labels
from agenthorizon.release.output_folder import FolderNotEmpty
from agenthorizon.release.render import to_markdown
from agenthorizon.release.sample.plan import CorpusPlan, build_plan, deliverable_id
from agenthorizon.release.sample.presets import PRESETS, Preset
from agenthorizon.release.sample.sandbox_text import FRAMEWORK_TEXT, PROMPT_TEXT
from agenthorizon.release.sample.screens import ScreenSpec, write_screens, write_screens_task
from agenthorizon.schema import (
    FRAMEWORK_FILES,
    IMAGES_DIR,
    JSONS_DIR,
    LABEL_FILES,
    MARKDOWNS_DIR,
    NEGATIVE,
    POSITIVE,
    PROMPT_FILE,
    SANDBOX_DIR,
    json_relpath,
    markdown_relpath,
)
from agenthorizon.release.splits import derive_dev_set

__all__ = ["generate", "generate_sample", "build_plan", "SampleSummary", "PRESETS", "Preset", "CorpusPlan", "deliverable_id"]

DEFAULT_IMAGE_SIZE = (320, 200)
_PARALLEL_MIN_DELIVERABLES = 64  # below this, starting worker processes costs more than it saves


@dataclass(frozen=True)
class SampleSummary:
    """What :func:`generate` wrote: ``root``, ``preset`` and ``seed``, and its counts.

    ``labels``: per label file ``{"positive": n, "negative": n}``;
    ``mistake_types``: negatives per type present (``schema.MISTAKE_TYPES`` order,
    ``""`` last); ``n_items``, ``n_deliverables``, ``n_groups``, ``n_steps`` (each
    trajectory once), ``n_images`` (0 with ``images=False``), ``dev_items`` (AH-D,
    50 groups); ``label_paths`` (hard first); ``seconds`` (ignored in comparisons).
    """

    root: Path
    preset: str
    seed: int
    labels: dict[str, dict[str, int]]
    mistake_types: dict[str, int]
    n_items: int
    n_deliverables: int
    n_groups: int
    n_steps: int
    n_images: int
    dev_items: int
    label_paths: tuple[Path, ...] = field(repr=False)
    seconds: float = field(default=0.0, compare=False)

    def describe(self) -> str:
        """A few lines for the terminal."""
        lines = [f"sample corpus '{self.preset}' (seed {self.seed}) at {self.root}"]
        for name, counts in self.labels.items():
            lines.append(
                f"  {name}: {counts[POSITIVE] + counts[NEGATIVE]} items "
                f"({counts[POSITIVE]} positive / {counts[NEGATIVE]} negative)"
            )
        types = ", ".join(f"{name or 'untyped'} {count}" for name, count in self.mistake_types.items())
        lines.append(f"  mistake types: {types}")
        lines.append(
            f"  {self.n_groups} pair groups, {self.n_deliverables} trajectories, {self.n_steps} steps, "
            f"{self.n_images} screenshots; AH-D {self.dev_items} items; {self.seconds:.2f} s"
        )
        return "\n".join(lines)


def _check_root(root: Path, overwrite: bool) -> None:
    if root.exists() and not root.is_dir():
        raise ValueError(f"{root} is a file; expected a new or empty directory")
    ours = [root / name for name in LABEL_FILES] + [root / SANDBOX_DIR]
    present = [path for path in ours if path.exists()]
    if not overwrite:
        # Any file, not just a corpus: writing a release layout among someone's files mixes the two.
        held = present[0].name if present else next((path.name for path in sorted(root.iterdir())), None) if root.is_dir() else None
        if held is not None:
            raise FolderNotEmpty(str(root), held, "write the sample corpus there anyway, replacing only its "
                                 "label files and sandbox/")
    for path in present:  # only the release layout's own paths are ever removed
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def _parse_image_size(image_size) -> tuple[int, int]:
    try:
        width, height = (int(value) for value in image_size)
    except (TypeError, ValueError):
        raise ValueError(f"image_size must be (width, height), got {image_size!r}") from None
    if width < 64 or height < 48:
        raise ValueError(f"image_size must be at least 64x48 pixels, got {width}x{height}")
    return width, height


def _screen_specs(plan: CorpusPlan) -> list[ScreenSpec]:
    specs = []
    for group in plan.groups:
        for member in group:
            deliverable = plan.deliverables[member]
            trajectory = deliverable.trajectory
            specs.append(ScreenSpec(
                steps_id=member,
                os=deliverable.os,
                screen_resolution=deliverable.screen_resolution,
                applications=trajectory.applications,
                document=deliverable.template.document,
                side_panel=deliverable.template.side_panel,
                states=tuple(trajectory.states),
                overlays=tuple(trajectory.overlays),
                frames=tuple(trajectory.frames),
            ))
    return specs


def _write_images(root: Path, specs: list[ScreenSpec], size: tuple[int, int], workers: int, progress: bool) -> int:
    jobs = [(spec, root / IMAGES_DIR / spec.steps_id, size) for spec in specs]
    written = 0
    with progress_bar(len(jobs), "sample screenshots", "trajectory", **({} if progress else {"disable": True})) as bar:
        if workers <= 1 or len(jobs) < _PARALLEL_MIN_DELIVERABLES:
            results = (write_screens(*job) for job in jobs)
            for count in results:
                written += count
                bar.update(1)
            return written
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for count in pool.map(write_screens_task, jobs, chunksize=8):
                written += count
                bar.update(1)
    return written


def generate(
    root: str | os.PathLike,
    preset: str = "small",
    seed: int = 0,
    *,
    image_size: tuple[int, int] = DEFAULT_IMAGE_SIZE,
    images: bool = True,
    workers: int | None = None,
    overwrite: bool = False,
    progress: bool = False,
) -> SampleSummary:
    """Write a deterministic sample corpus in the exact release layout; same preset and seed, same bytes.

    ``preset``: ``tiny`` (5 pair groups, 5-15 steps), ``small`` (65 groups,
    20-60 steps) or ``full`` (the release's shape: 1,373 items, median 121
    steps). ``root`` must be new or empty unless ``overwrite`` (then only the
    release's own paths are replaced). ``image_size`` is the screenshot size (at
    least 64x48; JSON coordinates keep the recorded resolution);
    ``images=False`` writes no PNG; ``workers`` draw screenshots (default: the
    available CPUs). ValueError for a bad argument;
    :class:`~agenthorizon.release.output_folder.FolderNotEmpty` (a ValueError)
    for a non-empty ``root``.

    >>> import tempfile
    >>> summary = generate(tempfile.mkdtemp() + "/release", preset="tiny")
    >>> summary.labels["AgentHorizon.jsonl"]["positive"] + summary.labels["AgentHorizon.jsonl"]["negative"]
    8
    >>> summary.n_items, summary.n_groups
    (19, 5)
    >>> sorted(path.name for path in summary.root.iterdir())
    ['AgentHorizon-Simple.jsonl', 'AgentHorizon.jsonl', 'sandbox']
    """
    started = time.perf_counter()
    size = _parse_image_size(image_size)
    plan = build_plan(preset, seed)
    root = Path(root)
    _check_root(root, overwrite)
    root.mkdir(parents=True, exist_ok=True)
    label_paths = _write_labels(root, plan)
    _write_trajectories(root, plan)
    n_images = 0
    if images:
        (root / IMAGES_DIR).mkdir(parents=True, exist_ok=True)
        n_images = _write_images(root, _screen_specs(plan), size, workers or available_cpus(), progress)
    return _summary(root, plan, label_paths, n_images, seconds=time.perf_counter() - started)


def _write_labels(root: Path, plan: CorpusPlan) -> tuple[Path, ...]:
    """The two label files (rows with the release's spacing) and the sandbox texts."""
    label_paths = []
    for name in LABEL_FILES:
        path = root / name
        lines = [json.dumps(row, ensure_ascii=False) + "\n" for row in plan.label_files[name]]
        path.write_text("".join(lines), encoding="utf-8")
        label_paths.append(path)
    for relpath in FRAMEWORK_FILES:
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(FRAMEWORK_TEXT, encoding="utf-8")
    (root / PROMPT_FILE).write_text(PROMPT_TEXT, encoding="utf-8")
    return tuple(label_paths)


def _write_trajectories(root: Path, plan: CorpusPlan) -> None:
    """Each item's blind trajectory JSON and the release Markdown rendered from it."""
    (root / JSONS_DIR).mkdir(parents=True, exist_ok=True)
    (root / MARKDOWNS_DIR).mkdir(parents=True, exist_ok=True)
    for row in plan.rows():
        document = plan.trajectory_json(row)
        (root / json_relpath(row["trajectory_id"])).write_text(
            json.dumps(document, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        (root / markdown_relpath(row["trajectory_id"])).write_text(to_markdown(document), encoding="utf-8")


def _summary(
    root: Path, plan: CorpusPlan, label_paths: tuple[Path, ...], n_images: int, *, seconds: float
) -> SampleSummary:
    """The counts of what was written, labels counted by :func:`~agenthorizon.release.labels.count_labels`."""
    per_file = {name: count_labels(plan.label_files[name]) for name in LABEL_FILES}
    rows = plan.rows()
    types = count_labels(rows).mistake_types
    return SampleSummary(
        root=root,
        preset=plan.preset.name,
        seed=plan.seed,
        labels={name: {POSITIVE: counts.positives, NEGATIVE: counts.negatives} for name, counts in per_file.items()},
        mistake_types={name: count for name, count in types.items() if count},
        n_items=len(rows),
        n_deliverables=len(plan.deliverables),
        n_groups=len(plan.groups),
        n_steps=sum(len(d.trajectory.steps) for d in plan.deliverables.values()),
        n_images=n_images,
        dev_items=len(derive_dev_set(rows).trajectory_ids),
        label_paths=label_paths,
        seconds=seconds,
    )


generate_sample = generate
"""The name :mod:`agenthorizon` exports :func:`generate` under."""
