"""OpenAIBackend and ``calculon ask --backend openai`` against a real ``llama_cpp.server``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest

from app.core.backend import BackendError, ModelRequest, StepDone, TextChunk, ToolCallChunk
from app.core.messages import Message, ToolSpec
from app.llm.openai import OpenAIBackend
from app.llm.openai.backend import UNSTREAMED
from tests.llm.conftest import LLAMA_KEY

pytestmark = pytest.mark.anyio

MULTIPLY = ToolSpec(
    "multiply",
    "Multiply two numbers.",
    {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    },
)


@pytest.fixture
async def backend(llama_server) -> AsyncIterator[OpenAIBackend]:
    instance = OpenAIBackend(llama_server.base_url, api_key=LLAMA_KEY, timeout_s=120)
    await instance.load()
    yield instance
    await instance.aclose()


async def test_the_model_is_listed_and_text_streams_in_pieces(backend):
    assert backend.model.endswith(".gguf")
    request = ModelRequest("Answer briefly.", (Message("user", "List the days of the week."),), ())
    chunks = [chunk async for chunk in backend.stream(request)]
    texts = [chunk.text for chunk in chunks if isinstance(chunk, TextChunk)]
    assert len(texts) > 1 and "".join(texts).strip()
    assert isinstance(chunks[-1], StepDone) and chunks[-1].tokens >= len(texts)


async def test_a_tool_call_comes_back_with_parsed_arguments(backend):
    request = ModelRequest("Use the tools.", (Message("user", "What is 12 times 7?"),), (MULTIPLY,))
    chunks = [chunk async for chunk in backend.stream(request)]
    (call,) = [chunk.call for chunk in chunks if isinstance(chunk, ToolCallChunk)]
    assert call.name == "multiply" and not call.raw_arguments_error
    assert set(call.arguments) == {"a", "b"}  # the schema's grammar makes both numbers
    # llama-cpp-python cannot stream an automatic tool call: the step was asked again, unstreamed
    assert isinstance(chunks[-1], StepDone) and UNSTREAMED in chunks[-1].notices


async def test_a_wrong_key_is_refused_by_the_server(llama_server):
    backend = OpenAIBackend(llama_server.base_url, api_key="wrong", timeout_s=30)
    try:
        with pytest.raises(BackendError) as caught:
            await backend.load()
    finally:
        await backend.aclose()
    assert caught.value.category == "auth" and "refused the API key" in caught.value.message


@pytest.mark.slow
def test_calculon_ask_on_the_openai_backend_runs_the_calculator(
    llama_server, isolated_dirs, shared_cache_dir
):
    config = isolated_dirs / "config"
    config.mkdir(exist_ok=True)
    (config / "servers.json").write_text(
        json.dumps({"mcpServers": {"calculator": {"command": "calculon", "args": ["serve", "calculator"]}}})
    )
    (config / "settings.json").write_text(json.dumps({"max_rounds": 2}))  # SmolLM2 may call again and again
    env = {**os.environ, "OPENAI_API_KEY": LLAMA_KEY, "CALCULON_CACHE_DIR": str(shared_cache_dir)}
    argv = [sys.executable, "-m", "app", "ask", "What is 12 times 7?", "--backend", "openai"]
    argv += ["--base-url", llama_server.base_url, "--json", "--yes"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=240)
    turn = json.loads(done.stdout)
    assert turn["tool_calls"], done.stderr
    assert {call["server"] for call in turn["tool_calls"]} == {"calculator"}
