"""Fixtures for the bundled servers: a real child process per server, shared by a module's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from mcp import Client

from tests.servers.stdio import server_params


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def _connected(module: str) -> AsyncIterator[Client]:
    async with Client(server_params("-m", module), read_timeout_seconds=30) as client:
        yield client


@pytest.fixture(scope="module")
async def calculator() -> AsyncIterator[Client]:
    async for client in _connected("app.servers.calculator"):
        yield client


@pytest.fixture(scope="module")
async def converter() -> AsyncIterator[Client]:
    async for client in _connected("app.servers.converter"):
        yield client


@pytest.fixture(scope="module")
async def clock() -> AsyncIterator[Client]:
    async for client in _connected("app.servers.clock"):
        yield client
