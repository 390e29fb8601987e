"""Stage 4, scoring: verdict parsing, predictions, the strict protocol metrics,
pair-clustered bootstrap intervals and paired comparisons, and the ``evaluate``
module. Pure logic (numpy at most); imports only :mod:`agenthorizon.release`
and :mod:`agenthorizon.schema`.
"""
