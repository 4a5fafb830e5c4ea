"""Async tests here run on asyncio only (the app's loop, under qasync, is asyncio); supervisors
built through ``supervise`` are always closed."""

from __future__ import annotations

import pytest

from app.mcp.config import ServerEntry
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import QUICK, EventLog


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def supervise():
    """Build supervisors that are always closed, and check no process outlives them."""
    made: list[Supervisor] = []

    def build(*entries: ServerEntry, **options) -> tuple[Supervisor, EventLog]:
        options.setdefault("backoff", QUICK)
        supervisor, log = Supervisor(list(entries), **options), EventLog()
        supervisor.subscribe(log)
        made.append(supervisor)
        return supervisor, log

    yield build
    for supervisor in made:
        await supervisor.aclose()
