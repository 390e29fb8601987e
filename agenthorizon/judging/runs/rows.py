"""The rows a run judges, in the order it judges them, read a few at a time (:class:`RowReader`).

A ``datasets.Dataset`` whose rows are plain dicts is read in slices of
:data:`SLICE_ROWS` consecutive rows, cheaper per row than ``dataset[i]`` on the
runner's event loop; anything else is read row by row. Rows are the same either way.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Iterable

__all__ = ["SLICE_ROWS", "RowReader"]

SLICE_ROWS = 4
"""Consecutive rows read as one slice (larger slices cost more per row again)."""


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

        A row whose reading raised comes as ``(position, exception)``, so that
        one unreadable row is that item's failure.
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
