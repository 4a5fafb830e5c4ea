"""Async tests in this folder run on asyncio only (the app's loop under qasync)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from app.llm.local import LocalBackend, LocalOptions


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def smol() -> Iterator[LocalBackend]:
    """The default built-in model, SmolLM2 135M Instruct, with short replies."""
    backend = LocalBackend(LocalOptions(builtin_model="smollm2-135m-instruct", n_ctx=2048, max_tokens=96))
    asyncio.run(backend.load())
    yield backend
    asyncio.run(backend.aclose())


LLAMA_KEY = "llama-test-key"  # the real server checks it, so a wrong key is a real 401


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """One real ``llama_cpp.server`` on the embedded SmolLM2 for the whole run (started before
    any test's leak check looks, stopped at the end of the session)."""
    from bench._llama_server import llama_server as start

    with start(tmp_path_factory.mktemp("llama") / "server.log", api_key=LLAMA_KEY) as server:
        yield server
