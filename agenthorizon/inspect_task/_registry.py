"""Inspect's entry point (group ``inspect_ai`` in pyproject.toml): importing it registers the task."""

from agenthorizon.inspect_task.task import agenthorizon  # noqa: F401  (registers the task)
