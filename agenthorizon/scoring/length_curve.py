"""Accuracy against trajectory length (:func:`length_curve`): a logistic fit with a pair-clustered band, and bins."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from agenthorizon.scoring.bootstrap import cluster_codes, resample_cluster_counts

__all__ = ["LengthBin", "LengthCurve", "fit_logistic", "length_curve"]

_ITERATIONS = 50
_TOLERANCE = 1e-10


def _standardise(steps: np.ndarray) -> tuple[float, float]:
    # Newton steps on a centred, scaled length converge in a few iterations; coefficients are mapped back.
    centre, scale = float(steps.mean()), float(steps.std()) or 1.0
    return centre, scale


def _newton(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted logistic regression of y on (1, x), for each row of ``weights`` at once: (R, 2) coefficients.

    A small ridge (1e-6) keeps a separable resample finite.
    """
    beta = np.zeros((weights.shape[0], 2))
    for _ in range(_ITERATIONS):
        eta = beta[:, :1] + beta[:, 1:] * x[None, :]
        p = 1.0 / (1.0 + np.exp(-eta))
        residual = weights * (y[None, :] - p)
        curvature = weights * p * (1 - p)
        gradient = np.stack([residual.sum(axis=1), residual @ x], axis=1) - 1e-6 * beta
        h00 = curvature.sum(axis=1) + 1e-6
        h01 = curvature @ x
        h11 = curvature @ (x * x) + 1e-6
        det = h00 * h11 - h01 * h01
        step = np.stack([(h11 * gradient[:, 0] - h01 * gradient[:, 1]) / det,
                         (h00 * gradient[:, 1] - h01 * gradient[:, 0]) / det], axis=1)
        beta += step
        if np.abs(step).max() < _TOLERANCE:
            break
    return beta


def fit_logistic(steps: Sequence[float], correct: Sequence[bool]) -> tuple[float, float]:
    """Maximum-likelihood ``(intercept, slope)`` of P(correct) = 1 / (1 + exp(-(intercept + slope × steps))).

    The slope is per step: negative when longer trajectories are judged worse.

    >>> a, b = fit_logistic([10, 20, 30, 40, 50, 60], [1, 1, 0, 1, 0, 0])
    >>> round(b, 3) < 0
    True
    """
    x = np.asarray(steps, dtype=float)
    y = np.asarray(correct, dtype=float)
    centre, scale = _standardise(x)
    (a, b), = _newton((x - centre) / scale, y, np.ones((1, x.size)))
    return float(a - b * centre / scale), float(b / scale)


@dataclass(frozen=True)
class LengthBin:
    """Items whose length lies in [low, high] (steps): their count and accuracy (correct / items)."""

    low: int
    high: int
    n: int
    accuracy: float


@dataclass(frozen=True)
class LengthCurve:
    """A logistic fit of correctness on the step count, its band over ``grid`` and the binned accuracies."""

    intercept: float
    slope: float
    """Change of the log-odds of a correct verdict per step (0: length does not matter)."""
    grid: list[float]
    fitted: list[float]
    """P(correct) at each grid length."""
    band: list[tuple[float, float]] | None
    """Pair-clustered percentile band of P(correct) at each grid length; ``None`` without resamples."""
    slope_interval: tuple[float, float] | None
    bins: list[LengthBin]
    n: int
    n_resamples: int
    level: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "intercept": self.intercept, "slope": self.slope, "n": self.n, "n_resamples": self.n_resamples,
            "level": self.level, "slope_interval": None if self.slope_interval is None else list(self.slope_interval),
            "curve": [{"steps": x, "accuracy": y, "interval": None if self.band is None else list(self.band[i])}
                      for i, (x, y) in enumerate(zip(self.grid, self.fitted))],
            "bins": [{"low": b.low, "high": b.high, "n": b.n, "accuracy": b.accuracy} for b in self.bins],
        }


def length_curve(
    steps: Sequence[float], correct: Sequence[bool], clusters: Sequence[Any] | None = None, *,
    n_resamples: int = 0, seed: int = 0, level: float = 0.95, n_bins: int = 5, n_grid: int = 25,
) -> LengthCurve:
    """Accuracy against trajectory length: logistic fit, pair-clustered band and quantile bins.

    The fit is :func:`fit_logistic` of per-item correctness (an invalid
    verdict is incorrect) on the step count. The band refits on each of
    ``n_resamples`` resamples of whole ``clusters`` (pair groups) and takes
    the central ``level`` percentiles of P(correct) at ``n_grid`` lengths
    from the shortest to the longest item. Bins split the items at the
    length quantiles into ``n_bins`` groups of near-equal size (ties kept
    together), each with its accuracy in [0, 1].

    Examples
    --------
    >>> curve = length_curve([10, 20, 30, 40, 50, 60, 70, 80], [1, 1, 1, 0, 1, 0, 0, 0], n_bins=2)
    >>> curve.slope < 0, [(b.low, b.high, b.n, b.accuracy) for b in curve.bins]
    (True, [(10, 40, 4, 0.75), (50, 80, 4, 0.25)])
    """
    x = np.asarray(steps, dtype=float)
    y = np.asarray(correct, dtype=bool)
    if x.size == 0 or x.shape != y.shape:
        raise ValueError(f"a length curve needs one step count per item, got {x.size} lengths and {y.size} verdicts")
    if not np.isfinite(x).all() or (x < 0).any():
        raise ValueError("a length curve needs every item's step count (a finite number >= 0); some are missing")
    intercept, slope = fit_logistic(x, y)
    grid = np.linspace(x.min(), x.max(), n_grid)
    fitted = 1 / (1 + np.exp(-(intercept + slope * grid)))
    band = slope_interval = None
    if n_resamples:
        codes = cluster_codes(list(range(x.size)) if clusters is None else list(clusters))
        centre, scale = _standardise(x)
        z = (x - centre) / scale
        lows, highs, slopes = [], [], []
        for draws in resample_cluster_counts(int(codes.max()) + 1, n_resamples, seed):
            beta = _newton(z, y.astype(float), draws[:, codes].astype(float))
            curves = 1 / (1 + np.exp(-(beta[:, :1] + beta[:, 1:] * ((grid - centre) / scale)[None, :])))
            lows.append(curves)
            slopes.append(beta[:, 1] / scale)
        curves = np.concatenate(lows)
        tail = 100 * (1 - level) / 2
        low, high = np.percentile(curves, [tail, 100 - tail], axis=0)
        band = [(float(a), float(b)) for a, b in zip(low, high)]
        slope_low, slope_high = np.percentile(np.concatenate(slopes), [tail, 100 - tail])
        slope_interval = (float(slope_low), float(slope_high))
    return LengthCurve(
        intercept=intercept, slope=slope, grid=[float(g) for g in grid], fitted=[float(f) for f in fitted], band=band,
        slope_interval=slope_interval, bins=_bins(x, y, n_bins), n=int(x.size), n_resamples=int(n_resamples),
        level=level,
    )


def _bins(x: np.ndarray, y: np.ndarray, n_bins: int) -> list[LengthBin]:
    order = np.argsort(x, kind="stable")
    bins, start = [], 0
    for k in range(1, n_bins + 1):
        end = int(round(k * x.size / n_bins))
        if end <= start:
            continue
        # keep equal lengths in one bin: move the edge past the items of the edge's length
        while end < x.size and x[order[end]] == x[order[end - 1]]:
            end += 1
        members = order[start:end]
        bins.append(LengthBin(int(x[members].min()), int(x[members].max()), int(members.size),
                              float(y[members].mean())))
        start = end
        if start >= x.size:
            break
    return bins
