"""Run AgentHorizon from Inspect (``inspect-ai``): a front end beside :mod:`agenthorizon.cli`.

``inspect eval agenthorizon/agenthorizon -T data=ROOT --model openai/NAME``; see docs/inspect.md.
Named ``inspect_task`` so as not to shadow the standard library's :mod:`inspect` for a reader.
Needs the ``inspect`` extra (``pip install 'agenthorizon[inspect]'``).
"""

from agenthorizon.util.extras import require_extra

require_extra("inspect_ai", "inspect", "The Inspect task")
