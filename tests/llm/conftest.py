"""Async tests in this folder run on asyncio only (the app's loop under qasync)."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
