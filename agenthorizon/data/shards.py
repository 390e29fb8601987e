"""Parquet shards of exported rows, no larger than a size, named ``test-IIIII-of-NNNNN-<tag>.parquet``.

The tag is a digest of the shards' contents, so a folder exported again with
other rows has other file names and ``datasets``' folder cache cannot serve the old rows.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

from agenthorizon.schema import SPLIT_NAME
from agenthorizon.util.digests import content_tag

__all__ = ["ROW_GROUP_BYTES", "ROW_GROUP_ROWS", "ShardWriter"]

ROW_GROUP_BYTES = 64 * 2**20  # keeps memory bounded and streaming reads granular
# At most datasets' own writer batch (config.DEFAULT_MAX_BATCH_SIZE); every row group
# costs a fixed price per leaf column, so fewer, larger groups write faster.
ROW_GROUP_ROWS = 1000


class ShardWriter:
    """Write encoded rows to Parquet shards no larger than about ``max_bytes``.

    The final names ``test-IIIII-of-NNNNN-<tag>.parquet`` need the shard count
    and the contents, known only at the end, so shards are written under
    temporary names and renamed.
    """

    def __init__(self, directory: Path, features: Any, max_bytes: int) -> None:
        self.directory = directory
        self.features = features
        self.schema = features.arrow_schema  # carries the `huggingface` metadata
        self.max_bytes = max_bytes
        self.paths: list[Path] = []
        self.num_bytes = 0
        self._writer: Any = None
        self._shard_bytes = 0
        self._batch: list[dict[str, Any]] = []  # pending rows given one by one ...
        self._tables: list[Any] = []  # ... or as slices of Arrow tables
        self._batch_rows = 0
        self._batch_bytes = 0

    def _full(self, size_hint: int) -> bool:
        """Whether a row of ``size_hint`` bytes must start a new row group."""
        return bool(self._batch_rows) and (
            self._batch_bytes + size_hint > ROW_GROUP_BYTES
            or self._batch_rows >= ROW_GROUP_ROWS
            or self._shard_bytes + self._batch_bytes + size_hint > self.max_bytes
        )

    def add(self, encoded: dict[str, Any], size_hint: int) -> None:
        if self._full(size_hint):
            self._flush()
        self._batch.append(encoded)
        self._batch_rows += 1
        self._batch_bytes += size_hint

    def add_table(self, table: Any, size_hints: Sequence[int]) -> None:
        """Add rows already in the export schema, with one size hint per row; grouped as :meth:`add` groups."""
        start = 0
        for index, size_hint in enumerate(size_hints):
            if self._full(size_hint):
                if index > start:
                    self._tables.append(table.slice(start, index - start))
                    start = index
                self._flush()
            self._batch_rows += 1
            self._batch_bytes += size_hint
        if start < table.num_rows:
            self._tables.append(table.slice(start))

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self._batch_rows:
            return
        parts = list(self._tables)
        if self._batch:
            parts.append(pa.Table.from_pylist(self._batch, schema=self.schema))
        table = parts[0] if len(parts) == 1 else pa.concat_tables(parts)
        if self._writer is not None and self._shard_bytes and self._shard_bytes + table.nbytes > self.max_bytes:
            self._close_shard()
        if self._writer is None:
            path = self.directory / f".{SPLIT_NAME}-{len(self.paths):05d}.parquet.tmp"
            self.paths.append(path)
            self._writer = pq.ParquetWriter(path, self.schema)
            self._shard_bytes = 0
        self._writer.write_table(table)
        self._shard_bytes += table.nbytes
        self.num_bytes += table.nbytes
        self._batch, self._tables, self._batch_rows, self._batch_bytes = [], [], 0, 0

    def _close_shard(self) -> None:
        self._writer.close()
        self._writer = None

    def close(self) -> list[Path]:
        self._flush()
        if self._writer is not None:
            self._close_shard()
        if not self.paths:
            # One empty shard, so loading a config with no rows yields 0 rows.
            import pyarrow.parquet as pq

            path = self.directory / f".{SPLIT_NAME}-00000.parquet.tmp"
            pq.write_table(self.schema.empty_table(), path)
            self.paths.append(path)
        total = len(self.paths)
        tag = content_tag(self.paths)
        final = []
        for index, path in enumerate(self.paths):
            target = self.directory / f"{SPLIT_NAME}-{index:05d}-of-{total:05d}-{tag}.parquet"
            os.replace(path, target)
            final.append(target)
        return final
