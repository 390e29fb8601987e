"""Stage 2, the ``datasets`` integration: Features, Arrow tables, the builder,
``load_dataset``, lazy screenshots, screenshot pixels and the Parquet export.

Imports only :mod:`agenthorizon.release` and :mod:`agenthorizon.schema`.
"""
