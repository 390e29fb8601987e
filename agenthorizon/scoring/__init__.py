"""Stage 4, scoring: verdict parsing, the strict protocol metrics, pair-clustered
bootstrap intervals, comparisons of judges and the ``evaluate`` module. Pure logic
on numpy (the ``evaluate`` script aside); of the package it imports only
:mod:`agenthorizon.schema` (and :mod:`agenthorizon.util.extras` for optional extras).
"""
