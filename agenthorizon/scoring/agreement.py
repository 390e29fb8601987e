"""Agreement of judges with each other and of one judge with itself, and majority-vote ensembles.

A verdict here is one of three categories: ``success``, ``failure`` or
``invalid`` (no valid verdict, as the strict validation decides). Cohen's and
Fleiss' kappa count ``invalid`` as a category of its own; Krippendorff's
alpha treats it as a missing value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from agenthorizon.scoring.outcomes import item_outcomes

__all__ = [
    "CATEGORIES",
    "Agreement",
    "agreement",
    "agreement_of_codes",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "majority_vote",
    "pairwise_cohen_kappa",
    "verdict_categories",
]

CATEGORIES = ("success", "failure", "invalid")
"""The categories a verdict falls in, in the order of the codes :func:`verdict_categories` gives (0, 1, 2)."""


def verdict_categories(predictions: Any, references: Any) -> np.ndarray:
    """Per reference item, the code of its verdict's category: 0 success, 1 failure, 2 invalid.

    >>> verdict_categories([True, False, "yes"], ["positive", "negative", "negative"]).tolist()
    [0, 1, 2]
    """
    outcomes = item_outcomes(predictions, references)
    return np.where(~outcomes.valid, 2, np.where(outcomes.predicted_success, 0, 1))


def cohen_kappa(a: np.ndarray, b: np.ndarray) -> float | None:
    """Cohen's kappa of two judges' category codes: (p_o - p_e) / (1 - p_e).

    p_o is the share of items where they agree, p_e the agreement expected
    from their marginal category shares. In [-1, 1]: 1 is perfect agreement,
    0 what chance gives. ``None`` when p_e is 1 (both always say the same
    single category).

    >>> cohen_kappa(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]))
    0.5

    References
    ----------
    .. [1] J. Cohen, "A coefficient of agreement for nominal scales",
       Educational and Psychological Measurement 20(1), 1960.
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.size == 0:
        raise ValueError(f"kappa needs two equal, non-empty sets of codes, got {a.size} and {b.size}")
    observed = float((a == b).mean())
    expected = float(sum((a == code).mean() * (b == code).mean() for code in range(len(CATEGORIES))))
    return None if expected == 1 else (observed - expected) / (1 - expected)


def fleiss_kappa(codes: np.ndarray) -> float | None:
    """Fleiss' kappa of ``codes`` (items × raters, category codes), every item rated by every rater.

    With ``n_ij`` raters putting item i in category j and ``m`` raters,
    P_i = (sum_j n_ij^2 - m) / (m (m - 1)), P-bar its mean, p_j the category
    shares and P_e = sum_j p_j^2: kappa = (P-bar - P_e) / (1 - P_e). In
    [-1, 1] (its lower bound depends on m); ``None`` when P_e is 1.

    >>> round(fleiss_kappa(np.array([[0, 0, 0], [1, 1, 1], [0, 1, 1]])), 4)
    0.55

    References
    ----------
    .. [1] J. L. Fleiss, "Measuring nominal scale agreement among many
       raters", Psychological Bulletin 76(5), 1971.
    """
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.shape[1] < 2 or codes.shape[0] == 0:
        raise ValueError(f"Fleiss' kappa needs items x raters codes with at least two raters, got shape {codes.shape}")
    raters = codes.shape[1]
    counts = np.stack([(codes == code).sum(axis=1) for code in range(len(CATEGORIES))], axis=1)
    per_item = ((counts**2).sum(axis=1) - raters) / (raters * (raters - 1))
    shares = counts.sum(axis=0) / counts.sum()
    chance = float((shares**2).sum())
    return None if chance == 1 else (float(per_item.mean()) - chance) / (1 - chance)


def krippendorff_alpha(codes: np.ndarray) -> float | None:
    """Krippendorff's alpha (nominal) of ``codes`` (items × raters), ``invalid`` as a missing value.

    Computed by the maintained ``krippendorff`` package (the ``analysis``
    extra). In [-1, 1] (1 perfect, 0 chance); ``None`` when no item has two
    valid ratings or every valid rating is one category.
    """
    from agenthorizon.util.extras import require_extra

    krippendorff = require_extra("krippendorff", "analysis", "Krippendorff's alpha")
    codes = np.asarray(codes, dtype=float)
    data = np.where(codes == 2, np.nan, codes).T  # raters x items, invalid missing
    valid = ~np.isnan(data)
    if not (valid.sum(axis=0) >= 2).any() or np.unique(data[valid]).size < 2:
        return None
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def majority_vote(codes: np.ndarray) -> list[dict[str, bool] | None]:
    """The majority verdict of each item's raters, as predictions :func:`agenthorizon.score` takes.

    An item gets ``{"success": True}`` or ``{"success": False}`` when more
    than half of its raters (``codes`` rows: items × raters) gave that valid
    verdict, and ``None`` (invalid: wrong, never dropped) otherwise: a tie,
    or too many invalid answers, is no verdict.

    >>> majority_vote(np.array([[0, 0, 1], [1, 2, 2], [0, 1, 2]]))
    [{'success': True}, None, None]
    """
    codes = np.asarray(codes)
    half = codes.shape[1] / 2
    said = np.where((codes == 0).sum(axis=1) > half, 0, np.where((codes == 1).sum(axis=1) > half, 1, 2))
    verdicts = ({"success": True}, {"success": False}, None)
    return [None if code == 2 else dict(verdicts[code]) for code in said.tolist()]


def pairwise_cohen_kappa(codes: np.ndarray) -> np.ndarray:
    """Cohen's kappa of every pair of columns of ``codes`` (items × raters) at once: a raters × raters matrix.

    Entry (i, j) is :func:`cohen_kappa` of columns i and j (NaN where it is undefined).

    >>> round(float(pairwise_cohen_kappa(np.array([[0, 0], [0, 1], [1, 1], [1, 1]]))[0, 1]), 6)
    0.5
    """
    codes = np.asarray(codes)
    n, raters = codes.shape
    onehot = np.stack([(codes == code) for code in range(len(CATEGORIES))], axis=2).astype(np.float64)  # n x m x 3
    flat = onehot.reshape(n, -1)
    # the diagonal blocks' traces are the agreements
    gram = (flat.T @ flat).reshape(raters, len(CATEGORIES), raters, len(CATEGORIES))
    observed = np.einsum("icjc->ij", gram) / n
    shares = onehot.mean(axis=0)  # m x 3
    expected = shares @ shares.T
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.isclose(expected, 1), np.nan, (observed - expected) / (1 - expected))


@dataclass(frozen=True)
class Agreement:
    """How a set of judges (or repeated runs of one judge) agree; see :func:`agreement`."""

    judges: tuple[str, ...]
    n: int
    cohen_kappa: dict[tuple[str, str], float | None]
    """Every pair's Cohen's kappa."""
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    flip_rate: float
    """Share of items on which not every judge gave the same category, in [0, 1]."""
    majority: list[dict[str, bool] | None]
    """The majority-vote verdict per reference item (:func:`majority_vote`)."""
    item_counts: np.ndarray | None = None
    """Per reference item, how many judges said success, failure, invalid (items × 3)."""

    @property
    def item_disagreement(self) -> np.ndarray:
        """Per reference item, the share of pairs of judges that gave it different categories, in [0, 1].

        With ``n_j`` judges in category j of ``m``: 1 - sum_j n_j (n_j - 1) / (m (m - 1)),
        one minus the item's Fleiss agreement P_i; 0 when all agree. Three
        judges saying success, success, failure give 0.667.
        """
        counts = np.asarray(self.item_counts)
        raters = counts.sum(axis=1)
        return 1 - (counts * (counts - 1)).sum(axis=1) / (raters * (raters - 1))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible dict (pairs as ``"A | B"`` keys)."""
        return {
            "judges": list(self.judges), "n": self.n, "fleiss_kappa": self.fleiss_kappa,
            "krippendorff_alpha": self.krippendorff_alpha, "flip_rate": self.flip_rate,
            "cohen_kappa": {f"{a} | {b}": value for (a, b), value in self.cohen_kappa.items()},
        }


def agreement(predictions: Mapping[str, Any], references: Any, *, alpha: bool = True) -> Agreement:
    """Agreement of several judges' (or runs') verdicts on the same items, and their majority vote.

    Predictions and references are as :func:`agenthorizon.score` takes them.
    ``alpha`` also computes Krippendorff's alpha (the ``krippendorff`` package).

    >>> refs = ["positive", "negative", "negative", "positive"]
    >>> result = agreement({"r1": [True, False, True, True], "r2": [True, False, False, True],
    ...                     "r3": [True, False, False, None]}, refs, alpha=False)
    >>> result.flip_rate, result.majority
    (0.5, [{'success': True}, {'success': False}, {'success': False}, {'success': True}])
    """
    if len(predictions) < 2:
        raise ValueError(f"agreement needs at least two judges or runs, got {len(predictions)}")
    names = tuple(predictions)
    codes = np.stack([verdict_categories(predictions[name], references) for name in names], axis=1)
    return agreement_of_codes(codes, names, alpha=alpha)


def agreement_of_codes(codes: np.ndarray, names: Sequence[str], *, alpha: bool = True) -> Agreement:
    """:func:`agreement` of category codes (items × raters, :func:`verdict_categories`' codes) already made.

    >>> agreement_of_codes(np.array([[0, 0], [1, 0]]), ["a", "b"], alpha=False).flip_rate
    0.5
    """
    codes = np.asarray(codes)
    names = tuple(names)
    kappas = pairwise_cohen_kappa(codes)
    pairs = {(a, b): None if np.isnan(kappas[i, j]) else float(kappas[i, j])
             for i, a in enumerate(names) for j, b in enumerate(names) if i < j}
    return Agreement(
        judges=names, n=int(codes.shape[0]), cohen_kappa=pairs, fleiss_kappa=fleiss_kappa(codes),
        krippendorff_alpha=krippendorff_alpha(codes) if alpha else None,
        flip_rate=float((codes != codes[:, :1]).any(axis=1).mean()), majority=majority_vote(codes),
        item_counts=np.stack([(codes == code).sum(axis=1) for code in range(len(CATEGORIES))], axis=1),
    )
