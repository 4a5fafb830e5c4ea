"""GeminiBackend through the real google-genai SDK against the local wire fixture."""

from __future__ import annotations

import base64
import socket
from collections.abc import AsyncIterator, Iterator

import anyio
import pytest

from app.core.backend import (
    Backend,
    BackendError,
    Chunk,
    ModelRequest,
    StepDone,
    TextChunk,
    ThoughtChunk,
    ToolCallChunk,
)
from app.core.messages import Message, ToolSpec
from app.llm.gemini import GeminiBackend
from app.llm.gemini.failures import DEFAULT_RETRY_S
from app.llm.registry import create_backend
from app.settings import Settings
from tests.llm import gemini_fixture as g

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]}
REQUEST = ModelRequest(
    "Use tools for arithmetic.", (Message("user", "What is 2 + 3?"),), (ToolSpec("add", "Add.", SCHEMA),)
)


@pytest.fixture
def wire() -> Iterator[g.GeminiWireServer]:
    with g.GeminiWireServer() as server:
        yield server


@pytest.fixture
async def backend(wire: g.GeminiWireServer) -> AsyncIterator[GeminiBackend]:
    instance = GeminiBackend("gemini-test", api_key="test-key", base_url=wire.base_url, timeout_s=10)
    yield instance
    await instance.aclose()


async def run(backend: Backend, request: ModelRequest = REQUEST) -> list[Chunk]:
    return [chunk async for chunk in backend.stream(request)]


def step_done(chunks: list[Chunk]) -> StepDone:
    last = chunks[-1]
    assert isinstance(last, StepDone)
    return last


async def failure(backend: GeminiBackend) -> tuple[list[Chunk], BackendError]:
    chunks: list[Chunk] = []
    with pytest.raises(BackendError) as info:
        async for chunk in backend.stream(REQUEST):
            chunks.append(chunk)
    return chunks, info.value


def thought_then_call_then_text() -> g.Stream:
    return g.Stream(
        [
            g.chunk(g.text_part("I should add.", thought=True)),
            g.chunk(g.call_part("add", {"a": 2}, call_id="c-1", sig=g.signature("call"))),
            g.chunk(g.text_part("Calling ")),
            g.chunk(
                g.text_part("the tool.", sig=g.signature("text")), finish="STOP", usage=g.usage(20, 7, 11)
            ),
        ]
    )


async def test_stream_yields_thoughts_calls_and_text_in_order(backend, wire):
    wire.script(thought_then_call_then_text())

    chunks = await run(backend)

    assert chunks[0] == ThoughtChunk("I should add.")
    assert isinstance(chunks[1], ToolCallChunk)
    assert (chunks[1].call.id, chunks[1].call.name, chunks[1].call.arguments) == ("c-1", "add", {"a": 2})
    assert type(chunks[1].call.arguments) is dict
    assert chunks[2:4] == [TextChunk("Calling "), TextChunk("the tool.")]
    assert isinstance(chunks[4], StepDone)
    assert chunks[4].tokens == 7 + 11  # output and thinking tokens: what the model generated


async def test_step_content_keeps_every_part_and_thought_signature(backend, wire):
    wire.script(thought_then_call_then_text())

    done = step_done(await run(backend))

    parts = done.provider_data.parts
    assert [p.thought for p in parts] == [True, None, None]
    assert parts[1].thought_signature == base64.b64decode(g.signature("call"))
    assert parts[2].text == "Calling the tool."
    assert parts[2].thought_signature == base64.b64decode(g.signature("text"))


async def test_calls_without_an_id_get_a_distinct_one_but_history_keeps_the_call_as_sent(backend, wire):
    wire.script(
        g.Stream([g.chunk(g.call_part("add", {"a": 1}), g.call_part("add", {"a": 2}), finish="STOP")])
    )

    chunks = await run(backend)

    ids = [c.call.id for c in chunks if isinstance(c, ToolCallChunk)]
    assert len(set(ids)) == 2 and all(ids)
    assert [p.function_call.id for p in step_done(chunks).provider_data.parts] == [None, None]


async def test_request_carries_system_instruction_json_schema_tools_thinking_and_key(backend, wire):
    wire.script(g.answer("Five."))

    await run(backend)

    sent = wire.requests[0]
    assert sent.path.endswith("/models/gemini-test:streamGenerateContent")
    assert sent.query == "alt=sse"
    assert sent.headers["x-goog-api-key"] == "test-key"
    assert sent.body["systemInstruction"]["parts"] == [{"text": "Use tools for arithmetic."}]
    declaration = sent.body["tools"][0]["functionDeclarations"][0]
    schema = declaration.get("parametersJsonSchema", declaration.get("parameters_json_schema"))
    assert schema == SCHEMA and "parameters" not in declaration
    thinking = sent.body["generationConfig"]["thinkingConfig"]
    assert thinking.get("includeThoughts", thinking.get("include_thoughts")) is True


async def test_sdk_base_url_environment_variable_is_honoured(wire, monkeypatch):
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", wire.base_url)
    monkeypatch.setenv("GEMINI_API_KEY", "env-key")
    backend = create_backend("gemini", gemini_model="gemini-env")
    wire.script(g.answer("Hi."))

    try:
        chunks = await run(backend)
    finally:
        await backend.aclose()

    assert "".join(c.text for c in chunks if isinstance(c, TextChunk)) == "Hi."
    assert wire.requests[0].model == "gemini-env"
    assert wire.requests[0].headers["x-goog-api-key"] == "env-key"


async def test_registry_builds_the_backend_from_settings_fields():
    backend = create_backend("gemini", **Settings(backend="gemini", gemini_model="gemini-x").to_dict())

    assert backend.model_label == "gemini:gemini-x"
    assert backend.context_tokens is None


async def test_load_without_a_key_says_how_to_set_one():
    backend = GeminiBackend("gemini-test")

    with pytest.raises(BackendError) as info:
        await backend.load()

    assert info.value.category == "auth"
    assert "GEMINI_API_KEY" in info.value.message and "Settings" in info.value.message


async def test_load_with_a_key_reports_ready_without_a_request(backend, wire):
    progress: list[tuple[float, str]] = []

    await backend.load(lambda fraction, text: progress.append((fraction, text)))

    assert progress == [(1.0, "gemini:gemini-test ready")]
    assert wire.requests == []


@pytest.mark.parametrize(
    ("status", "body", "category"),
    [
        (
            401,
            g.error_body(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."),
            "auth",
        ),
        (403, g.error_body(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers."), "auth"),
        (
            400,
            g.error_body(400, "INVALID_ARGUMENT", "API key not valid.", [{"reason": "API_KEY_INVALID"}]),
            "auth",
        ),
        (404, g.error_body(404, "NOT_FOUND", "models/gemini-test is not found."), "model"),
        (400, g.error_body(400, "INVALID_ARGUMENT", "The input token count exceeds the maximum."), "context"),
        (500, g.error_body(500, "INTERNAL", "An internal error has occurred."), "error"),
    ],
)
async def test_http_errors_become_worded_backend_errors_after_one_attempt(
    backend, wire, status, body, category
):
    wire.script(g.Error(status, body))

    _, error = await failure(backend)

    assert error.category == category
    assert body["error"]["message"] in error.message
    assert error.retry_after is None
    assert len(wire.requests) == 1  # the SDK's own retries are off: the turn loop owns retrying


@pytest.mark.parametrize(
    ("details", "retry_after"),
    [
        ([g.retry_info("7s")], 7.0),
        ([g.retry_info("0.5s")], 0.5),
        ([], DEFAULT_RETRY_S),
        ([g.retry_info("3600s")], None),
    ],
)
async def test_quota_errors_carry_the_delay_the_server_asked_for(backend, wire, details, retry_after):
    wire.script(g.Error(429, g.error_body(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", details)))

    _, error = await failure(backend)

    assert error.category == "quota"
    assert error.retry_after == retry_after
    assert len(wire.requests) == 1


async def test_a_stream_broken_mid_answer_says_the_answer_was_cut_off(backend, wire):
    wire.script(
        g.Stream([g.chunk(g.text_part("The answer is")), g.chunk(g.text_part(" 5."), finish="STOP")], 1)
    )

    chunks, error = await failure(backend)

    assert chunks == [TextChunk("The answer is")]
    assert error.category == "network"
    assert "cut off" in error.message


async def test_an_error_event_mid_stream_says_the_answer_was_cut_off(backend, wire):
    overloaded = g.error_body(503, "UNAVAILABLE", "The model is overloaded.")
    wire.script(g.Stream([g.chunk(g.text_part("The answer is")), overloaded]))

    chunks, error = await failure(backend)

    assert chunks == [TextChunk("The answer is")]
    assert error.category == "network"
    assert "cut off" in error.message and "overloaded" in error.message


async def test_a_reply_that_is_not_json_is_reported_as_unreadable(backend, wire):
    wire.script(g.Stream(["this is not json"]))

    _, error = await failure(backend)

    assert error.category == "model"
    assert "could not be read" in error.message


async def test_a_stream_that_ends_without_a_finish_reason_is_cut_off(backend, wire):
    wire.script(g.Stream([g.chunk(g.text_part("The answer is"))]))

    _, error = await failure(backend)

    assert error.category == "network"
    assert "cut off" in error.message


async def test_a_refused_connection_is_a_network_error():
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    backend = GeminiBackend("gemini-test", api_key="k", base_url=f"http://127.0.0.1:{port}")

    try:
        _, error = await failure(backend)
    finally:
        await backend.aclose()

    assert error.category == "network"
    assert "Could not reach Gemini" in error.message


async def test_a_server_that_never_answers_times_out_as_a_network_error(wire):
    backend = GeminiBackend("gemini-test", api_key="k", base_url=wire.base_url, timeout_s=0.3)
    wire.script(g.Stall())

    try:
        _, error = await failure(backend)
    finally:
        await backend.aclose()

    assert error.category == "network"
    assert "in time" in error.message


async def test_cancelling_the_consumer_stops_a_pending_request_promptly(backend, wire):
    wire.script(g.Stall())

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, backend)
        assert await anyio.to_thread.run_sync(wire.wait_for_requests, 1)
        tg.cancel_scope.cancel()

    assert len(wire.requests) == 1


@pytest.mark.parametrize(
    "reply",
    [
        g.Stream([g.chunk(g.text_part("Here is how to")), g.chunk(finish="SAFETY")]),
        g.Stream([g.blocked_prompt("SAFETY")]),
        g.Stream([g.chunk(finish="STOP")]),
        g.Stream([{"candidates": []}, g.chunk(finish="STOP")]),
        g.Stream([g.chunk(g.text_part("hmm", thought=True), finish="STOP")]),
    ],
    ids=["finish-safety", "prompt-blocked", "empty-candidate", "no-candidates", "thoughts-only"],
)
async def test_blocked_or_empty_answers_are_blocked_errors(backend, wire, reply):
    wire.script(reply)

    _, error = await failure(backend)

    assert error.category == "blocked"


async def test_a_malformed_function_call_is_reported_as_an_arguments_error(backend, wire):
    wire.script(g.Stream([g.chunk(finish="MALFORMED_FUNCTION_CALL")]))

    _, error = await failure(backend)

    assert error.category == "arguments"


async def test_hitting_the_output_limit_keeps_the_answer_with_a_notice(backend, wire):
    wire.script(g.Stream([g.chunk(g.text_part("A long"), finish="MAX_TOKENS")]))

    chunks = await run(backend)

    assert chunks[0] == TextChunk("A long")
    assert "output token limit" in step_done(chunks).notices[0]


async def test_spending_the_output_limit_on_thinking_alone_is_a_model_error(backend, wire):
    wire.script(g.Stream([g.chunk(g.text_part("Let me think", thought=True), finish="MAX_TOKENS")]))

    _, error = await failure(backend)

    assert error.category == "model"
    assert "token limit" in error.message
