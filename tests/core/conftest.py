"""Fixtures the turn-loop tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.mcp.config import bundled_entry
from app.mcp.supervisor import Supervisor


@pytest.fixture(scope="module")
async def calculator(tmp_path_factory) -> AsyncIterator[Supervisor]:
    """The bundled calculator, a real child process, started once per test module."""
    supervisor = Supervisor([bundled_entry("calculator")], log_dir=tmp_path_factory.mktemp("logs"))
    await supervisor.start(wait=True, timeout=60)
    assert supervisor.resolve("evaluate") is not None, "the calculator did not start"
    yield supervisor
    await supervisor.aclose()
