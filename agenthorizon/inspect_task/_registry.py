"""Inspect's entry point (group ``inspect_ai`` in pyproject.toml): importing it registers the task.

``inspect eval agenthorizon/agenthorizon`` looks the package ``agenthorizon``
up in the entry points and imports this module, whose import of
:mod:`agenthorizon.inspect_task.task` registers the task with Inspect.
"""

from agenthorizon.inspect_task.task import agenthorizon  # noqa: F401  (registers the task)
