"""Evidence selection: which of an item's files an agentic judge opened, and what that says.

:class:`ItemEvidence` is one item's record, kept in the result file's
telemetry under ``evidence``; :func:`evidence_summary` aggregates a run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agenthorizon.scoring.bootstrap import check_bootstrap, percentile_interval, resampled_sums, resampled_totals
from agenthorizon.scoring.bootstrap import cluster_codes

__all__ = ["EVIDENCE_KEY", "FRACTION_BINS", "EvidenceSummary", "FractionBin", "ItemEvidence", "evidence_summary"]

EVIDENCE_KEY = "evidence"
"""The telemetry key a result file keeps an item's evidence under."""
FRACTION_BINS = (0.25, 0.5, 0.75, 1.0)
"""Upper edges of the fraction-viewed bins after the bin of exactly 0: (0, .25], (.25, .5], (.5, .75], (.75, 1]."""
MISTAKE_WINDOW = 2
"""A viewed step is *around the mistake* when it is at most this many steps from the mistake step."""


@dataclass(frozen=True)
class ItemEvidence:
    """What the judge of one item opened, counted over its tool calls.

    ``screenshots`` maps a step id (0-based) to the number of tool calls
    that named its screenshot; ``markdown`` and ``json`` count the calls
    naming the item's Markdown and trajectory JSON; ``tool_calls`` is how
    many tool calls the stream held. A call names a file when its arguments
    hold its name (``step_3.png``, ``<id>.md``, ``<id>.json``).

    >>> evidence = ItemEvidence({2: 1, 0: 2}, markdown=1, json=0, tool_calls=3)
    >>> evidence.to_dict()
    {'screenshots': {'0': 2, '2': 1}, 'markdown': 1, 'json': 0, 'tool_calls': 3}
    >>> ItemEvidence.from_dict(evidence.to_dict(), "r.json") == evidence, evidence.viewed_steps()
    (True, [0, 2])
    """

    screenshots: Mapping[int, int] = field(default_factory=dict)
    markdown: int = 0
    json: int = 0
    tool_calls: int = 0

    def viewed_steps(self) -> list[int]:
        """The step ids whose screenshot was opened at least once, ascending."""
        return sorted(step for step, times in self.screenshots.items() if times > 0)

    def to_dict(self) -> dict[str, Any]:
        return {"screenshots": {str(step): self.screenshots[step] for step in sorted(self.screenshots)},
                "markdown": self.markdown, "json": self.json, "tool_calls": self.tool_calls}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> ItemEvidence:
        """Validate an ``evidence`` object; the error names ``where`` and the field."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: field 'evidence': expected an object, got {type(data).__name__}")
        counts = {}
        for name in ("markdown", "json", "tool_calls"):
            value = data.get(name, 0)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{where}: field 'evidence.{name}': expected a non-negative integer, got {value!r}")
            counts[name] = value
        shots = data.get("screenshots", {})
        if not isinstance(shots, Mapping):
            raise ValueError(f"{where}: field 'evidence.screenshots': expected an object of step -> count")
        screenshots = {}
        for step, times in shots.items():
            if not str(step).isdigit() or not isinstance(times, int) or isinstance(times, bool) or times < 0:
                raise ValueError(f"{where}: field 'evidence.screenshots': expected step ids (digits) mapped to "
                                 f"non-negative integers, got {step!r}: {times!r}")
            screenshots[int(step)] = times
        return cls(screenshots, **counts)


@dataclass(frozen=True)
class FractionBin:
    """Items whose fraction of screenshots viewed lies in ``(low, high]`` (``low == high == 0``: none viewed)."""

    low: float
    high: float
    n: int
    accuracy: float | None
    interval: tuple[float, float] | None


@dataclass(frozen=True)
class EvidenceSummary:
    """What a run's judge looked at, over the items whose evidence is known.

    - ``n_items``: items scored; ``n_known``: those with evidence (a harness
      whose output shows no tool calls, or an item that failed, has none);
    - ``mean_fraction_viewed``: mean over items of viewed screenshots /
      the item's steps, in [0, 1], with its interval;
    - ``markdown_rate``, ``json_rate``: share of items whose Markdown / JSON
      was opened at least once;
    - ``first_decile_share``, ``last_decile_share``: of all viewed
      screenshots (one per item and step), the share at a step ``s`` of
      ``n`` with ``s < n/10`` (first decile) or ``s >= 9n/10`` (last);
    - ``around_mistake_share``: share of the viewed screenshots within
      :data:`MISTAKE_WINDOW` steps of the item's mistake step, over items
      whose mistake step is known (``None`` when none is: the release's
      labels do not say where a mistake is);
    - ``by_fraction``: accuracy in each fraction-viewed bin.
    """

    n_items: int
    n_known: int
    mean_fraction_viewed: float | None
    fraction_interval: tuple[float, float] | None
    markdown_rate: float | None
    json_rate: float | None
    first_decile_share: float | None
    last_decile_share: float | None
    around_mistake_share: float | None
    by_fraction: tuple[FractionBin, ...]

    def to_dict(self) -> dict[str, Any]:
        out = {name: value for name, value in self.__dict__.items() if name != "by_fraction"}
        out["fraction_interval"] = None if self.fraction_interval is None else list(self.fraction_interval)
        out["by_fraction"] = [{**b.__dict__, "interval": None if b.interval is None else list(b.interval)}
                              for b in self.by_fraction]
        return out


def _share(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def evidence_summary(
    evidence: Sequence[ItemEvidence | None],
    num_steps: Sequence[int],
    correct: Sequence[bool],
    clusters: Sequence[Any],
    *,
    mistake_steps: Sequence[int | None] | None = None,
    bootstrap: int = 0,
    seed: int = 0,
    level: float = 0.95,
) -> EvidenceSummary:
    """Aggregate the evidence of a run's items (one entry per item in each sequence) into an :class:`EvidenceSummary`.

    ``None`` evidence is unknown (left out of every rate); ``num_steps`` is the
    denominator of each item's fraction viewed; ``correct`` whether its verdict
    was valid and right; ``clusters`` the pair groups the bootstrap resamples;
    ``mistake_steps`` where each mistake is, when known.

    >>> shown = [ItemEvidence({0: 1, 9: 1}), ItemEvidence({}), None]
    >>> summary = evidence_summary(shown, [10, 4, 5], [True, False, True], ["g1", "g1", "g2"])
    >>> summary.n_known, summary.mean_fraction_viewed, summary.first_decile_share, summary.last_decile_share
    (2, 0.1, 0.5, 0.5)
    >>> [(b.low, b.high, b.n, b.accuracy) for b in summary.by_fraction][:2]
    [(0.0, 0.0, 1, 0.0), (0.0, 0.25, 1, 1.0)]
    """
    check_bootstrap(bootstrap)
    n = len(evidence)
    if not (len(num_steps) == len(correct) == len(clusters) == n) or (mistake_steps is not None and len(mistake_steps) != n):
        raise ValueError("evidence summary: every sequence needs one entry per item")
    known = np.array([item is not None for item in evidence], dtype=bool)
    fractions = np.zeros(n)
    first = last = viewed_total = around = around_total = markdown = json_read = 0
    for index, item in enumerate(evidence):
        if item is None:
            continue
        steps = int(num_steps[index])
        viewed = [step for step in item.viewed_steps() if step < steps]
        fractions[index] = len(viewed) / steps if steps else 0.0
        viewed_total += len(viewed)
        first += sum(1 for step in viewed if step < steps / 10)
        last += sum(1 for step in viewed if step >= 9 * steps / 10)
        markdown += item.markdown > 0
        json_read += item.json > 0
        mistake = None if mistake_steps is None else mistake_steps[index]
        if mistake is not None:
            around_total += len(viewed)
            around += sum(1 for step in viewed if abs(step - mistake) <= MISTAKE_WINDOW)
    n_known = int(known.sum())
    correct = np.asarray(correct, dtype=bool)
    codes = cluster_codes(list(clusters))
    fraction_interval = None
    if bootstrap and n_known:
        totals = np.zeros((int(codes.max()) + 1, 2))
        np.add.at(totals[:, 0], codes[known], fractions[known])
        np.add.at(totals[:, 1], codes[known], 1.0)
        sums = resampled_totals(totals, bootstrap, seed)
        with np.errstate(invalid="ignore", divide="ignore"):
            fraction_interval = percentile_interval(np.where(sums[:, 1] > 0, sums[:, 0] / sums[:, 1], np.nan), level)
    bins = []
    edges = (0.0, *FRACTION_BINS)
    for low, high in ((0.0, 0.0), *zip(edges[:-1], edges[1:])):
        inside = known & ((fractions == 0) if high == 0 else (fractions > low) & (fractions <= high))
        count = int(inside.sum())
        interval = None
        if bootstrap and count:
            drawn = resampled_sums(codes, [inside, inside & correct], bootstrap, seed)
            with np.errstate(invalid="ignore", divide="ignore"):
                interval = percentile_interval(np.where(drawn[:, 0] > 0, drawn[:, 1] / drawn[:, 0], np.nan), level)
        bins.append(FractionBin(low, high, count, _share(int((inside & correct).sum()), count), interval))
    return EvidenceSummary(
        n_items=n,
        n_known=n_known,
        mean_fraction_viewed=float(fractions[known].mean()) if n_known else None,
        fraction_interval=fraction_interval,
        markdown_rate=_share(markdown, n_known),
        json_rate=_share(json_read, n_known),
        first_decile_share=_share(first, viewed_total),
        last_decile_share=_share(last, viewed_total),
        around_mistake_share=_share(around, around_total),
        by_fraction=tuple(bins),
    )
