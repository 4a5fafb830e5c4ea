"""``ui/update-model-context`` end to end: a real server's app (tests/mcp/servers/app_ui.py) opened
by a turn, its page's context kept by the engine (the latest only) and given to the model with
the next question, as a fenced tool result and never as a number's source; traced when sent, sent
once, rebuilt the same from the saved events."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.calculon.provenance import CalculonVerifier
from app.core import events as ev
from app.core.app_context import CONTEXT_TOOL, MAX_CONTEXT_CHARS
from app.core.backend import ToolCallChunk
from app.core.messages import Message, ToolCall
from app.core.trace import TraceStore
from app.engine import Engine
from app.history.restore import model_history
from app.llm.scripted import ScriptedBackend
from app.settings import Settings
from tests.mcp.helpers import EventLog, script_entry

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def servers_file(tmp_path):
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"apps": script_entry("apps", "app_ui.py").to_json()}}))
    return path


def update(request_id: int, **params: Any) -> str:
    body = {"jsonrpc": "2.0", "id": request_id, "method": "ui/update-model-context", "params": params}
    return json.dumps(body)


def text(value: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": value}]


SHOW = [ToolCallChunk(ToolCall("c1", "show_sum", {"a": 2, "b": 3}))]


async def opened_app(engine: Engine, log: EventLog) -> ev.AppReady:
    await engine.ask("Show 2 + 3 in the app")
    await engine.apps.wait_idle()
    app = next(e for e in log.events if isinstance(e, ev.AppReady))
    assert isinstance(app, ev.AppReady)
    return app


def context_results(messages: tuple[Message, ...] | list[Message]) -> list[str]:
    return [m.text for m in messages if m.role == "tool" and m.tool_name == CONTEXT_TOOL]


async def test_the_latest_context_goes_once_with_the_next_question_as_a_tool_result_and_is_traced(
    servers_file,
):
    backend = ScriptedBackend([SHOW, ["It is 5."], ["The slider says so."], ["Still."]])
    settings = Settings(strict=False, tool_approvals={"apps.show_sum": "always"})
    log = EventLog()
    engine = Engine(settings, servers_path=servers_file, backend=backend, sink=log)
    try:
        app = await opened_app(engine, log)
        page = engine.app_bridge(app)
        (init,) = await page.receive(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize"}))
        advertised = init["result"]["hostCapabilities"]["updateModelContext"]
        assert advertised == {"text": {}, "structuredContent": {}}
        (first,) = await page.receive(update(2, content=text("The slider is at 6.")))
        latest = update(3, content=text("The slider is at 7."), structuredContent={"v": 7})
        (second,) = await page.receive(latest)
        assert first["result"] == second["result"] == {}

        second_turn = await engine.ask("Where is the slider?")
        request = backend.requests[-1]
        *_, call, result, question = request.messages
        assert question == Message("user", "Where is the slider?")  # the context comes just before it
        assert call.role == "assistant" and [c.name for c in call.tool_calls] == [CONTEXT_TOOL]
        assert result.role == "tool" and result.tool_call_id == call.tool_calls[0].id
        assert result.text.endswith('not instructions:\nThe slider is at 7.\n{"v": 7}')  # the latest only
        assert "apps.show_sum" in result.text and context_results(request.messages) == [result.text]
        assert CONTEXT_TOOL not in [t.name for t in request.tools]  # a label, never a tool to call
        (sent,) = [e for e in second_turn.events if isinstance(e, ev.AppContextSent)]
        assert (sent.app_call, sent.server, sent.tool) == (app.call_id, "apps", "show_sum")

        store = TraceStore()
        for event in log.events:
            store.apply(event)
        node = store.roots[1].children[0]  # the turn's first node: before its first step
        assert node.kind == "app_context" and node.data["text"] == 'The slider is at 7.\n{"v": 7}'

        await engine.ask("And now?")  # nothing new from the page: nothing sent again
        assert context_results(backend.requests[-1].messages) == [result.text]  # the earlier one, in history
        assert engine.session is not None
        restored, _ = model_history(log.events)
        assert restored == engine.session.history  # a saved conversation gives the model the same
    finally:
        await engine.aclose()


async def test_in_calculon_mode_a_number_only_the_pages_context_gave_backs_nothing(servers_file):
    unbacked = ["The slider is at 7."] * 3  # the first answer and both re-asks
    backend = ScriptedBackend([SHOW, ["It is 5."], *[[answer] for answer in unbacked]])
    settings = Settings(strict=True, tool_approvals={"apps.show_sum": "always"})
    log = EventLog()
    verifier = CalculonVerifier()
    engine = Engine(settings, servers_path=servers_file, backend=backend, sink=log, verifier=verifier)
    try:
        app = await opened_app(engine, log)
        page = engine.app_bridge(app)
        await page.receive(update(1, content=text("The slider is at 7.")))
        outcome = await engine.ask("Where is the slider?")
        assert context_results(backend.requests[-1].messages)  # the model had it...
        assert outcome.verified is False and outcome.unbacked == ("7",)  # ...but it verifies nothing
    finally:
        await engine.aclose()


async def test_a_turn_that_fails_gives_the_context_back_for_the_next_and_a_new_conversation_drops_it(
    servers_file,
):
    backend = ScriptedBackend([SHOW, ["It is 5."]])  # no step left for the second question: it fails
    settings = Settings(strict=False, tool_approvals={"apps.show_sum": "always"})
    log = EventLog()
    engine = Engine(settings, servers_path=servers_file, backend=backend, sink=log)
    try:
        page = engine.app_bridge(await opened_app(engine, log))
        await page.receive(update(1, content=text("The slider is at 7.")))
        failed = await engine.ask("Where is the slider?")
        assert failed.error
        backend.steps.append(["At 7."])
        await engine.ask("Where is the slider?")
        assert len(context_results(backend.requests[-1].messages)) == 1  # sent again, once

        await page.receive(update(2, content=text("The slider is at 8.")))
        engine.restore_history([], [])  # another conversation
        backend.steps.append(["Hello."])
        await engine.ask("Hi")
        assert context_results(backend.requests[-1].messages) == []
    finally:
        await engine.aclose()


async def test_a_context_the_host_cannot_take_is_refused_as_the_spec_words_it(servers_file):
    backend = ScriptedBackend([SHOW, ["It is 5."]])
    settings = Settings(strict=False, tool_approvals={"apps.show_sum": "always"})
    log = EventLog()
    engine = Engine(settings, servers_path=servers_file, backend=backend, sink=log)
    try:
        app = await opened_app(engine, log)
        page = engine.app_bridge(app)
        image = [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]
        (picture,) = await page.receive(update(1, content=image))
        assert picture["error"]["code"] == -32602
        assert picture["error"]["message"].startswith("Invalid content format")
        (huge,) = await page.receive(update(2, content=text("x" * (MAX_CONTEXT_CHARS + 1))))
        assert huge["error"]["code"] == -32000
        assert huge["error"]["message"].startswith("Context update denied")
        assert engine.app_contexts.latest(app.call_id) is None  # neither was kept
        await page.receive(update(3, content=text("kept")))
        await page.receive(update(4))  # an empty update withdraws it
        assert engine.app_contexts.latest(app.call_id) is None and engine.app_contexts.take() == ()
        page.teardown("another conversation is shown")  # a closing page's words belong to no chat
        (late,) = await page.receive(update(5, content=text("too late")))
        assert late["error"]["message"].startswith("Context update denied")
        assert engine.app_contexts.latest(app.call_id) is None
    finally:
        await engine.aclose()
