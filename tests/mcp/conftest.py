"""Async tests here run on asyncio only: the app's loop (under qasync) is asyncio."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
