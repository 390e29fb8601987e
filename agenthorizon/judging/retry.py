"""The one retry policy (:class:`RetryPolicy`), used by the runner and by judges that retry themselves.

A judge that carries a ``retry`` policy retries on its own and the runner then
makes one attempt, so ``--retries N`` means at most ``N + 1`` attempts per item.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["RetryPolicy"]


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts and exponential backoff with jitter.

    Attempt ``k`` (1-based) that failed waits
    ``min(backoff_max, backoff_base * 2**(k-1))`` seconds scaled by a random
    factor in ``[0.5, 1]`` (jitter, so concurrent requests do not retry in
    lockstep), or the server's ``Retry-After`` when that is longer (itself
    capped at ``max(backoff_max, 120)`` seconds).

    Parameters
    ----------
    retries : int, default=2
        Extra attempts after a transient failure; ``0`` means one attempt.
    backoff_base : float, default=1.0
        Seconds before the first retry (before jitter).
    backoff_max : float, default=60.0
        Ceiling on the wait between attempts (before ``Retry-After``).

    Examples
    --------
    >>> policy = RetryPolicy(retries=0)
    >>> policy.attempts
    1
    >>> RetryPolicy(retries=3, backoff_base=1.0, backoff_max=3.0).delay(4, rng=random.Random(0)) <= 3.0
    True
    """

    retries: int = 2
    backoff_base: float = 1.0
    backoff_max: float = 60.0

    def __post_init__(self) -> None:
        if not isinstance(self.retries, int) or isinstance(self.retries, bool) or self.retries < 0:
            raise ValueError(f"retries must be an integer >= 0 (0: one attempt), got {self.retries!r}")
        if self.backoff_base < 0 or self.backoff_max < 0:
            raise ValueError(
                f"backoff must be >= 0 seconds, got base {self.backoff_base!r} and max {self.backoff_max!r}"
            )

    @property
    def attempts(self) -> int:
        """Most attempts per item: ``retries + 1``."""
        return self.retries + 1

    def delay(self, attempt: int, retry_after: float | None = None, *, rng: random.Random | None = None) -> float:
        """Seconds to wait after failed attempt ``attempt`` (1-based)."""
        ceiling = min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1))
        delay = ceiling * (0.5 + 0.5 * (rng or random).random())
        if retry_after is not None:
            delay = max(delay, min(retry_after, max(self.backoff_max, 120.0)))
        return delay

    def to_dict(self) -> dict[str, float | int]:
        """The policy as run records show it."""
        return {"retries": self.retries, "backoff_base_s": self.backoff_base, "backoff_max_s": self.backoff_max}
