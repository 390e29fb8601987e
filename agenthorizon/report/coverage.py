"""Which items some results are about, against a config's items: :func:`coverage`, :func:`check_coverage`.

Results for the wrong items are refused; partial results are scored strictly
and labelled; results for other items of the release are left out and listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet, Iterable, Mapping

__all__ = ["Coverage", "WrongItemsError", "check_coverage", "coverage", "infer_config"]


class WrongItemsError(ValueError):
    """The results are not about the config's items; the message gives the counts and an example of each."""


@dataclass(frozen=True)
class Coverage:
    """The results' ids against a config's ``n_items`` items, each group sorted.

    ``matched``: of the config; ``outside``: of the release, not the config;
    ``unknown``: of no item of the release; ``missing``: config items without a result.

    >>> c = coverage({"a", "x"}, {"a", "b"}, {"a", "b", "c"}, config="AH")
    >>> c.matched, c.unknown, c.missing, c.is_wrong
    (('a',), ('x',), ('b',), True)
    >>> coverage({"a"}, {"a", "b"}, {"a", "b"}, config="AH").is_partial
    True
    """

    config: str
    n_items: int
    matched: tuple[str, ...]
    outside: tuple[str, ...]
    unknown: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def n_results(self) -> int:
        """Ids with a result, of any kind."""
        return len(self.matched) + len(self.outside) + len(self.unknown)

    @property
    def is_wrong(self) -> bool:
        """Results exist, and none is an item of the config or some are no item of the release."""
        return self.n_results > 0 and (not self.matched or bool(self.unknown))

    @property
    def is_partial(self) -> bool:
        """Not wrong, but some items of the config have no result."""
        return not self.is_wrong and bool(self.missing)

    def counts_line(self) -> str:
        """``matched M of N items of CONFIG; unknown U; missing K``, with one example of each non-empty kind.

        >>> coverage({"a", "x"}, {"a", "b"}, {"a", "b"}, config="AH").counts_line()
        'matched 1 of 2 items of AH (e.g. a); unknown 1 (e.g. x, in no label file of the release); missing 1 (e.g. b)'
        """
        parts = [f"matched {len(self.matched)} of {self.n_items} items of {self.config}" + _example(self.matched)]
        if self.outside:
            parts.append(f"outside {self.config} {len(self.outside)} (e.g. {self.outside[0]}, an item of another config)")
        parts.append(
            f"unknown {len(self.unknown)}"
            + (f" (e.g. {self.unknown[0]}, in no label file of the release)" if self.unknown else "")
        )
        parts.append(f"missing {len(self.missing)}" + _example(self.missing))
        return "; ".join(parts)


def _example(ids: tuple[str, ...]) -> str:
    return f" (e.g. {ids[0]})" if ids else ""


def coverage(
    result_ids: Iterable[str], config_ids: AbstractSet[str], release_ids: AbstractSet[str], *, config: str
) -> Coverage:
    """Split ``result_ids`` by where they belong: ``config_ids``, the rest of ``release_ids`` (both label files), nowhere.

    >>> coverage(["b", "z"], {"a", "b"}, {"a", "b", "z"}, config="AH").outside
    ('z',)
    """
    found = set(result_ids)
    return Coverage(
        config=config,
        n_items=len(config_ids),
        matched=tuple(sorted(found & config_ids)),
        outside=tuple(sorted((found - config_ids) & release_ids)),
        unknown=tuple(sorted(found - release_ids)),
        missing=tuple(sorted(config_ids - found)),
    )


def check_coverage(found: Coverage, what: str, *, advice: str = "") -> Coverage:
    """``found``, or :class:`WrongItemsError` when the results are about the wrong items.

    ``what`` names the results (their paths); ``advice``, when given, is
    appended: a step that can fix the mismatch (another ``--config``).

    >>> check_coverage(coverage({"x"}, {"a"}, {"a"}, config="AH"), "run/")
    Traceback (most recent call last):
    ...
    agenthorizon.report.coverage.WrongItemsError: run/ holds results for other items than config AH: matched 0 of 1 items of AH; unknown 1 (e.g. x, in no label file of the release); missing 1 (e.g. a); expected results for the items of the release given with --data
    """
    if not found.is_wrong:
        return found
    if found.unknown:
        expected = "expected results for the items of the release given with --data"
    else:
        expected = f"expected results for items of {found.config}"
    raise WrongItemsError(
        f"{what} holds results for other items than config {found.config}: {found.counts_line()}; {expected}"
        + (f"; {advice}" if advice else "")
    )


def infer_config(result_ids: Iterable[str], config_ids: Mapping[str, AbstractSet[str]]) -> str:
    """The config whose items are exactly ``result_ids``; else ValueError listing the configs holding every id, with their coverage.

    >>> infer_config({"a", "b"}, {"AH": {"a", "b"}, "all": {"a", "b", "c"}})
    'AH'
    >>> infer_config({"a"}, {"AH": {"a", "b"}, "all": {"a", "b", "c"}})
    Traceback (most recent call last):
    ...
    ValueError: the results' 1 ids are not exactly the items of one config, so --config cannot be guessed; candidates (configs holding every id): AH (1 of 2 items), all (1 of 3 items); pass --config
    """
    ids = set(result_ids)
    if not ids:
        raise ValueError("no results to tell the config from; pass --config")
    exact = [name for name, items in config_ids.items() if set(items) == ids]
    if len(exact) == 1:
        return exact[0]
    candidates = [f"{name} ({len(ids)} of {len(items)} items)" for name, items in config_ids.items() if ids <= set(items)]
    listing = ", ".join(candidates) if candidates else "none: the ids are not all items of one config of this release"
    raise ValueError(
        f"the results' {len(ids)} ids are not exactly the items of one config, so --config cannot be guessed; "
        f"candidates (configs holding every id): {listing}; pass --config"
    )
