"""Stage 2, the ``datasets`` integration: the builder, ``load_dataset``, lazy screenshots, pixels and the Parquet export.

Imports only :mod:`agenthorizon.release`, :mod:`agenthorizon.schema` and :mod:`agenthorizon.util`.
"""
