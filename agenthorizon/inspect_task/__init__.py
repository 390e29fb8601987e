"""Run AgentHorizon from Inspect (``inspect-ai``): a front end beside :mod:`agenthorizon.cli`.

- :mod:`~agenthorizon.inspect_task.task`: the task ``agenthorizon/agenthorizon``
  (``inspect eval agenthorizon/agenthorizon -T data=ROOT --model openai/NAME``);
- :mod:`~agenthorizon.inspect_task.samples`: its samples, the blind judge
  inputs in the direct judge's own messages;
- :mod:`~agenthorizon.inspect_task.scorer`: its scorer and metrics, the
  project's parse rule and strict scoring;
- :mod:`~agenthorizon.inspect_task._registry`: the entry point Inspect imports.

Its logs are read back as runs by :mod:`agenthorizon.judging.runs.inspect_log`.
Named ``inspect_task``, not ``inspect``, so that no module of the package
shadows the standard library's :mod:`inspect` for a reader. Needs the
``inspect`` extra (``pip install 'agenthorizon[inspect]'``); see docs/inspect.md.
"""

from agenthorizon.util.extras import require_extra

require_extra("inspect_ai", "inspect", "The Inspect task")
