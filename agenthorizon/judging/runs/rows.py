"""The rows a run judges, in the order it judges them, read a few at a time.

Reading a row of a ``datasets.Dataset`` (``dataset[i]``) converts its
Arrow data, about 130 step records, to Python, and each call also pays for
``datasets``' indexing and formatting. The runner does this once per item
on its event loop, where every millisecond delays all the items in flight;
reading a few consecutive rows as one slice (``dataset[a:b]``) and splitting
the batch into row dicts costs about a third less per row
(``benchmarks/bench_runner.py``). Larger slices cost more again: a slice of
32 rows builds more objects at once than the caches hold.

Only datasets whose rows are plain Python dicts (no format, the Python
format, or the ``"agenthorizon"`` lazy-screenshot formats) are read in
slices, where a batch's row equals ``dataset[i]``; any other ``Sequence``
(a list of rows, a dataset with a ``numpy`` format or a transform) is read
with ``dataset[position]`` as before. Rows are the same either way.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Iterable

__all__ = ["SLICE_ROWS", "RowReader"]

SLICE_ROWS = 4
"""Consecutive rows read as one slice."""


def _reads_slices(dataset: Any) -> bool:
    """True when ``dataset[a:b]`` split by row gives exactly the rows ``dataset[i]`` gives."""
    try:
        import datasets
    except ImportError:  # pragma: no cover - a dependency of the package
        return False
    from agenthorizon.data.formatting import BLIND_FORMAT_TYPE, FORMAT_TYPE

    return isinstance(dataset, datasets.Dataset) and dataset.format.get("type") in (
        None, "python", FORMAT_TYPE, BLIND_FORMAT_TYPE,
    )


class RowReader:
    """``positions`` of ``dataset`` handed out in order, each with its row (or what reading it raised).

    >>> reader = RowReader([{"id": "a"}, {"id": "b"}, {"id": "c"}], [2, 0])
    >>> reader.next(), reader.next(), reader.next()
    ((2, {'id': 'c'}), (0, {'id': 'a'}), None)
    """

    def __init__(self, dataset: Any, positions: Iterable[int], slice_rows: int = SLICE_ROWS) -> None:
        self.dataset = dataset
        self.positions = deque(positions)
        self.slice_rows = slice_rows if _reads_slices(dataset) else 1
        self.ready: deque[tuple[int, Any]] = deque()

    def __len__(self) -> int:
        """Positions not handed out yet."""
        return len(self.positions) + len(self.ready)

    def next(self) -> tuple[int, Any] | None:
        """The next ``(position, row)``; ``None`` when every position was handed out.

        A row whose reading raised comes as ``(position, exception)``, for the
        caller to raise where it would have read the row, so that one
        unreadable row is that item's failure, as with ``dataset[position]``.
        """
        if not self.ready:
            if not self.positions:
                return None
            self._read_some()
        return self.ready.popleft()

    def _read_some(self) -> None:
        first = self.positions.popleft()
        run = [first]
        while len(run) < self.slice_rows and self.positions and self.positions[0] == run[-1] + 1:
            run.append(self.positions.popleft())
        if len(run) > 1:
            try:
                batch = self.dataset[run[0] : run[-1] + 1]
            except Exception:  # read them one by one: each row's own error goes to its item
                pass
            else:
                names = list(batch)
                self.ready.extend(zip(run, (dict(zip(names, values)) for values in zip(*batch.values()))))
                return
        for position in run:
            try:
                self.ready.append((position, self.dataset[position]))
            except Exception as error:
                self.ready.append((position, error))
