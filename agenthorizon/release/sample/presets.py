"""The three sizes of the sample corpus: ``tiny`` (unit tests), ``small`` (the demo), ``full``.

``full`` has the real release's shape (SPEC section 2): its item, label and
mistake-type counts per file, its median and maximum step count and items with
at least 200 steps, and an AH-D of the paper's 162 = 62 + 100 items with its
type mix. Where it differs (the 90th percentile of steps): docs/sample.md.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DevTarget:
    """What AH-D (the authors' derivation, 50 groups) must contain."""

    positives: int
    mistake_types: tuple[int, int, int, int]  # critical, bad side effect, misunderstanding, untyped


@dataclass(frozen=True)
class StepShape:
    """Item-level step-count statistics to reproduce (over every item)."""

    median: float
    p90: float
    maximum: int
    at_least_200: int
    lognormal_p90: float  # the draw's 90th percentile: the exact-200 adjustment lifts p90 by about 1


@dataclass(frozen=True)
class Preset:
    """Shape of a sample corpus.

    ``pairs`` two-deliverable groups plus one triangle (three deliverables,
    four negatives) give ``2 * pairs + 3`` deliverables and ``2 * pairs + 4``
    negatives; ``positives`` of the deliverables keep their positive item.
    """

    name: str
    pairs: int
    positives: int
    hard_positives: int
    hard_negatives: int
    mistake_types: tuple[int, int, int, int]  # critical, bad side effect, misunderstanding, untyped
    step_range: tuple[int, int] | None = None  # uniform step counts (tiny, small)
    step_shape: StepShape | None = None  # release-like step counts (full)
    dev: DevTarget | None = None

    @property
    def deliverables(self) -> int:
        return 2 * self.pairs + 3

    @property
    def negatives(self) -> int:
        return 2 * self.pairs + 4

    @property
    def items(self) -> int:
        return self.positives + self.negatives

    def check(self) -> None:
        """Raise ``ValueError`` when the numbers cannot describe a corpus."""
        if self.pairs < 3:
            raise ValueError(f"preset {self.name}: needs at least 3 pairs to hold groups of 2, 3 and 4 items")
        if not 3 <= self.positives <= self.deliverables - 3:
            raise ValueError(f"preset {self.name}: positives must be between 3 and {self.deliverables - 3}")
        if sum(self.mistake_types) != self.negatives:
            raise ValueError(
                f"preset {self.name}: mistake types sum to {sum(self.mistake_types)}; expected {self.negatives}"
            )
        if not 0 <= self.hard_positives <= self.positives or not 0 <= self.hard_negatives <= self.negatives:
            raise ValueError(f"preset {self.name}: hard-file counts exceed the item counts")
        if (self.step_range is None) == (self.step_shape is None):
            raise ValueError(f"preset {self.name}: give exactly one of step_range and step_shape")


PRESETS: dict[str, Preset] = {
    "tiny": Preset(
        name="tiny",
        pairs=4,
        positives=7,
        hard_positives=3,
        hard_negatives=5,
        mistake_types=(4, 3, 4, 1),
        step_range=(5, 15),
    ),
    "small": Preset(
        name="small",
        pairs=64,
        positives=81,
        hard_positives=44,
        hard_negatives=49,
        mistake_types=(42, 36, 52, 2),
        step_range=(20, 60),
    ),
    "full": Preset(
        name="full",
        # 423 pairs + the triangle: 849 deliverables, 850 negatives. The paper's
        # "425 pairs" count the triangle as two pairs that share their parent.
        pairs=423,
        positives=523,
        hard_positives=287,
        hard_negatives=318,
        mistake_types=(273, 232, 339, 6),
        step_shape=StepShape(median=121, p90=186, maximum=358, at_least_200=83, lognormal_p90=185),
        dev=DevTarget(positives=62, mistake_types=(32, 26, 41, 1)),
    ),
}
"""Sample presets by name."""
