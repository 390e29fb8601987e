"""Fixtures of the data-stage tests."""

from __future__ import annotations

import pytest

from agenthorizon.data.builder import AgentHorizon


@pytest.fixture()
def generation_count(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The config name of every Arrow cache build (``AgentHorizon._generate_tables`` call), in order."""
    calls: list[str] = []
    real = AgentHorizon._generate_tables

    def counting(self, **kwargs):
        calls.append(self.config.name)
        yield from real(self, **kwargs)

    monkeypatch.setattr(AgentHorizon, "_generate_tables", counting)
    return calls
