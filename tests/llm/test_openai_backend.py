"""OpenAIBackend through the real ``openai`` SDK against a fake endpoint, for what a real
server will not do on cue: malformed JSON, dropped streams, 401/404/429/500, reasoning text."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from app.core.backend import (
    BackendError,
    Chunk,
    ModelRequest,
    StepDone,
    TextChunk,
    ThoughtChunk,
    ToolCallChunk,
)
from app.core.messages import Message, ToolCall, ToolSpec
from app.core.session import ChatSession
from app.llm.openai import OpenAIBackend
from app.llm.openai.backend import UNSTREAMED
from app.llm.registry import create_backend
from app.settings import Settings
from tests.llm import openai_fixture as o
from tests.llm.gemini_tools import ChildServerTools

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}
REQUEST = ModelRequest(
    "Use tools for arithmetic.", (Message("user", "What is 2 + 3?"),), (ToolSpec("add", "Add.", SCHEMA),)
)


@pytest.fixture
def wire() -> Iterator[o.FakeOpenAIServer]:
    with o.FakeOpenAIServer() as server:
        yield server


@pytest.fixture
async def backend(wire: o.FakeOpenAIServer) -> AsyncIterator[OpenAIBackend]:
    instance = OpenAIBackend(wire.base_url, o.FAKE_MODEL, api_key="test-key", timeout_s=10)
    yield instance
    await instance.aclose()


async def run(backend: OpenAIBackend, request: ModelRequest = REQUEST) -> list[Chunk]:
    return [chunk async for chunk in backend.stream(request)]


async def failure(backend: OpenAIBackend, request: ModelRequest = REQUEST) -> BackendError:
    with pytest.raises(BackendError) as caught:
        await run(backend, request)
    return caught.value


def calls(chunks: list[Chunk]) -> list[ToolCall]:
    return [chunk.call for chunk in chunks if isinstance(chunk, ToolCallChunk)]


async def test_text_and_reasoning_stream_as_they_arrive(wire, backend):
    wire.script(
        o.streamed(
            o.delta(role="assistant", reasoning_content="Two plus three. "),
            o.delta(content="It is "),
            o.delta(content="5.", finish="stop"),
        )
    )
    chunks = await run(backend)
    assert chunks[:3] == [ThoughtChunk("Two plus three. "), TextChunk("It is "), TextChunk("5.")]
    assert isinstance(chunks[-1], StepDone) and chunks[-1].tokens == 3
    headers = {name.lower(): value for name, value in wire.requests[0].headers.items()}
    assert headers["authorization"] == "Bearer test-key"


async def test_parallel_calls_with_arguments_in_pieces_are_joined_per_index(wire, backend):
    wire.script(
        o.streamed(
            o.delta(tool_calls=[o.call_piece(0, call_id="c0", name="add", arguments='{"a": ')]),
            o.delta(tool_calls=[o.call_piece(1, call_id="c1", name="add", arguments='{"a": 4,')]),
            o.delta(tool_calls=[o.call_piece(0, arguments="2, "), o.call_piece(1, arguments=' "b": 5}')]),
            o.delta(tool_calls=[o.call_piece(0, arguments='"b": 3}')], finish="tool_calls"),
        )
    )
    found = calls(await run(backend))
    assert found == [ToolCall("c0", "add", {"a": 2, "b": 3}), ToolCall("c1", "add", {"a": 4, "b": 5})]


async def test_malformed_tool_call_json_reaches_the_model_as_a_call_error(wire, backend):
    wire.script(
        o.streamed(
            o.delta(tool_calls=[o.call_piece(0, call_id="c0", name="add", arguments='{"a": 2,')]),
            o.delta(finish="tool_calls"),
        )
    )
    (call,) = calls(await run(backend))
    assert call.name == "add" and call.arguments == {}
    assert "invalid JSON" in call.raw_arguments_error and '{"a": 2,' in call.raw_arguments_error


async def test_the_request_carries_history_tools_and_an_explicit_tool_choice(wire, backend):
    wire.script(o.streamed(o.delta(content="5", finish="stop")))
    history = (
        Message("user", "2 + 3?"),
        Message("assistant", "", (ToolCall("c0", "add", {"a": 2, "b": 3}),)),
        Message("tool", "5", tool_call_id="c0", tool_name="add"),
    )
    await run(backend, ModelRequest("sys", history, REQUEST.tools))
    body = wire.requests[0].body
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool"]
    assert body["messages"][2]["tool_calls"][0]["function"] == {
        "name": "add",
        "arguments": '{"a": 2, "b": 3}',
    }
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "c0", "content": "5"}
    assert body["tools"][0]["function"]["parameters"] == SCHEMA and body["tool_choice"] == "auto"
    assert body["stream"] is True


async def test_a_stream_dropped_mid_answer_is_a_network_error(wire, backend):
    wire.script(o.streamed(o.delta(content="It is "), o.delta(content="5"), break_after=1))
    error = await failure(backend)
    assert error.category == "network" and "cut off" in error.message


async def test_a_stream_that_ends_without_a_finish_is_cut_off(wire, backend):
    wire.script(o.streamed(o.delta(content="It is ")))
    error = await failure(backend)
    assert error.category == "network" and "cut off" in error.message


async def test_a_server_that_cannot_stream_tool_calls_is_asked_again_unstreamed(wire, backend):
    wire.script(
        o.streamed(break_after=0),
        o.whole(
            {
                "content": None,
                "tool_calls": [
                    {
                        "id": "c0",
                        "type": "function",
                        "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
                    }
                ],
            },
            finish="tool_calls",
        ),
        o.whole({"content": "5"}),
    )
    chunks = await run(backend)
    assert calls(chunks) == [ToolCall("c0", "add", {"a": 2, "b": 3})]
    assert isinstance(chunks[-1], StepDone) and chunks[-1].notices == (UNSTREAMED,)
    assert [r.body["stream"] for r in wire.requests] == [True, False]
    assert await run(backend) == [TextChunk("5"), StepDone(tokens=1)]  # later tool steps: unstreamed
    assert wire.requests[-1].body["stream"] is False


@pytest.mark.parametrize(
    ("status", "category", "words"),
    [
        (401, "auth", "refused the API key"),
        (404, "model", "no model named 'fake-model'"),
        (500, "error", "had an error (500: boom)"),
    ],
)
async def test_http_failures_are_worded_for_the_user(wire, backend, status, category, words):
    wire.script(o.error(status, "boom"))
    error = await failure(backend)
    assert error.category == category and words in error.message


async def test_a_rate_limit_carries_the_servers_retry_after(wire, backend):
    wire.script(o.error(429, "slow down", {"Retry-After": "3"}))
    error = await failure(backend)
    assert error.category == "quota" and error.retry_after == 3.0


async def test_a_model_without_tool_support_says_which_flags_to_set(wire, backend):
    wire.script(o.error(400, "registry.ollama.ai/library/gemma:2b does not support tools"))
    error = await failure(backend)
    assert error.category == "model" and "cannot call tools" in error.message
    assert "--enable-auto-tool-choice" in error.message


async def test_no_server_at_the_address_is_a_clear_network_error():
    backend = OpenAIBackend("http://127.0.0.1:9/v1", "m", timeout_s=5)
    try:
        error = await failure(backend)
    finally:
        await backend.aclose()
    assert error.category == "network" and "Could not reach the model server" in error.message


async def test_loading_with_no_model_named_takes_the_first_the_server_lists(wire):
    backend = create_backend("openai", **Settings(backend="openai", openai_base_url=wire.base_url).to_dict())
    try:
        await backend.load()
    finally:
        await backend.aclose()
    assert backend.model_label == f"openai:{o.FAKE_MODEL}@{wire.base_url}"


async def test_a_hermes_call_left_in_the_text_by_the_server_is_run_not_shown(wire, backend):
    """A llama.cpp server started without --jinja passes Qwen's ``<tool_call>`` through as text."""
    written = '<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>'
    wire.script(
        o.streamed(o.delta(role="assistant", content=written), o.delta(finish="stop")),
        o.streamed(o.delta(role="assistant", content="2 + 3 = 5."), o.delta(finish="stop")),
    )
    async with ChildServerTools.start() as tools:
        outcome = await ChatSession(backend, tools, system_prompt="Use tools.").run_turn("What is 2 + 3?")
    assert tools.calls == [("add", {"a": 2, "b": 3})]
    assert outcome.answer == "2 + 3 = 5."
    sent = o.sent_messages(wire.requests[1])
    assert [call["function"]["name"] for call in sent[-2]["tool_calls"]] == ["add"]
    assert sent[-1]["role"] == "tool"
