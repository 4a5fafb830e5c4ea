"""The turn loop with retrieval on, against a real calculator server child."""

from __future__ import annotations

import pytest

from app.core import events as ev
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.session import ChatSession
from app.llm.scripted import ScriptedBackend
from app.mcp.retrieval.embed import MiniLMEncoder
from app.mcp.retrieval.selector import ToolRetriever
from tests.mcp.retrieval.stdio_provider import StdioToolProvider

pytestmark = pytest.mark.anyio


async def test_a_tool_that_was_not_offered_can_still_be_called(encoder: MiniLMEncoder) -> None:
    async with StdioToolProvider("calculator", "app.servers.calculator") as provider:
        retriever = ToolRetriever(threshold=1, top_k=1, encoder=encoder)
        await retriever.refresh(provider.list_tools())
        call = ToolCall("c1", "multiply", {"a": 6, "b": 7})
        backend = ScriptedBackend([[ToolCallChunk(call)], ["Done."]])
        session = ChatSession(backend, provider, selector=retriever)
        seen: list[ev.Event] = []
        session.subscribe(seen.append)

        outcome = await session.run_turn("What is the square root of 2?")

    offered = next(e for e in seen if isinstance(e, ev.StepStarted))
    assert offered.selected and [name for name, _ in offered.offered] == ["sqrt"]
    assert [s.name for s in backend.requests[0].tools] == ["sqrt"]
    assert [(c.tool, c.result, c.is_error) for c in outcome.tool_calls] == [("multiply", "42", False)]


async def test_a_question_asked_while_the_index_builds_waits_for_it_rather_than_offer_every_tool(
    encoder: MiniLMEncoder,
) -> None:
    # the model is often ready before the servers' tools are indexed: the first step used to
    # see no index and offer every tool, a longer prompt than retrieval would have given
    async with StdioToolProvider("calculator", "app.servers.calculator") as provider:
        retriever = ToolRetriever(threshold=1, top_k=1, encoder=encoder)
        building = retriever.notify_tools_changed(provider.list_tools())
        backend = ScriptedBackend([["It is about 1.414."]])
        session = ChatSession(backend, provider, selector=retriever)
        seen: list[ev.Event] = []
        session.subscribe(seen.append)

        await session.run_turn("What is the square root of 2?")

    assert building.done()
    step = next(e for e in seen if isinstance(e, ev.StepStarted))
    assert step.selected and [name for name, _ in step.offered] == ["sqrt"]
    assert [s.name for s in backend.requests[0].tools] == ["sqrt"]


async def test_a_step_goes_on_with_every_tool_when_the_index_is_not_ready_in_time(
    encoder: MiniLMEncoder,
) -> None:
    async with StdioToolProvider("calculator", "app.servers.calculator") as provider:
        retriever = ToolRetriever(threshold=1, top_k=1, encoder=encoder)
        tools = provider.list_tools()

        covered = await retriever.settle(tools, timeout=0)

        assert not covered and retriever.select("square root", tools) is None
        assert await retriever.settle(tools) and retriever.select("square root", tools)
