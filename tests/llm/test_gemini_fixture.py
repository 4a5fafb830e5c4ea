"""The wire fixture itself, driven by the plain google-genai SDK (no Calculon code)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from google import genai
from google.genai import errors, types

from tests.llm import gemini_fixture as g

pytestmark = pytest.mark.anyio


@pytest.fixture
def wire() -> Iterator[g.GeminiWireServer]:
    with g.GeminiWireServer() as server:
        yield server


def client(wire: g.GeminiWireServer) -> genai.Client:
    return genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=wire.base_url))


async def test_generate_content_answers_with_the_scripted_body(wire):
    wire.script(
        g.Stream([g.chunk(g.text_part("Hello from the fixture."), finish="STOP", usage=g.usage(3, 4))])
    )
    sdk = client(wire)

    try:
        response = await sdk.aio.models.generate_content(model="gemini-test", contents="Hi")
    finally:
        await sdk.aio.aclose()

    assert response.text == "Hello from the fixture."
    assert response.usage_metadata.candidates_token_count == 4
    assert wire.requests[0].path.endswith("/models/gemini-test:generateContent")
    assert wire.requests[0].body["contents"] == [{"role": "user", "parts": [{"text": "Hi"}]}]


async def test_stream_generate_content_delivers_each_chunk_as_its_own_response(wire):
    wire.script(g.Stream([g.chunk(g.text_part("one ")), g.chunk(g.text_part("two"), finish="STOP")]))
    sdk = client(wire)

    try:
        texts = [r.text async for r in await sdk.aio.models.generate_content_stream(model="m", contents="Hi")]
    finally:
        await sdk.aio.aclose()

    assert texts == ["one ", "two"]


async def test_a_request_beyond_the_script_gets_a_server_error_that_says_so(wire):
    sdk = client(wire)

    try:
        with pytest.raises(errors.ServerError) as info:
            await sdk.aio.models.generate_content(model="gemini-test", contents="Hi")
    finally:
        await sdk.aio.aclose()

    assert "no scripted reply" in (info.value.message or "")
