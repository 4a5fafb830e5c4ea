"""The engine asks the user: tool approvals kept in the settings file, a server's questions and
sampling through the engine's own backend, all of it in the trace."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.core import events as ev
from app.core.asking import ApprovalAnswer, ApprovalRequest, SamplingAnswer
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.scripted_user import ScriptedUser
from app.core.trace import TraceStore
from app.engine import Engine
from app.llm.scripted import ScriptedBackend
from app.settings import Settings, load_settings
from tests.mcp.helpers import EventLog, script_entry

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def servers_file(tmp_path):
    path = tmp_path / "servers.json"
    entries = [script_entry("asking", "asking.py"), script_entry("basic", "basic.py")]
    path.write_text(json.dumps({"mcpServers": {e.name: e.to_json() for e in entries}}))
    return path


def calls(*names_and_args: tuple[str, dict]) -> list[list]:
    """One model step per call, then an answer."""
    steps: list[list] = [
        [ToolCallChunk(ToolCall(f"c{i}", name, args))] for i, (name, args) in enumerate(names_and_args)
    ]
    return [*steps, ["Done."]]


async def run(servers_file, steps, user, settings: Settings | None = None) -> tuple[Engine, list, EventLog]:
    engine, outcome, log = await run_turn(servers_file, steps, user, settings)
    return engine, outcome.tool_calls, log


async def run_turn(
    servers_file, steps, user, settings: Settings | None = None
) -> tuple[Engine, Any, EventLog]:
    log = EventLog()
    engine = Engine(
        settings or Settings(), servers_path=servers_file, backend=ScriptedBackend(steps), sink=log, user=user
    )
    try:
        outcome = await engine.ask("go")
    finally:
        await engine.aclose()
    return engine, outcome, log


async def test_always_allow_is_saved_and_holds_after_a_restart(servers_file):
    user = ScriptedUser([ApprovalAnswer("always")])
    _, first, log = await run(servers_file, calls(("echo", {"text": "a"})), user)
    assert not first[0].is_error and first[0].result == "basic:a"
    assert load_settings()[0].tool_approvals == {"basic.echo": "always"}
    assert any(isinstance(e, ev.ApprovalRemembered) and e.key == "basic.echo" for e in log.events)
    again = ScriptedUser()
    _, second, _ = await run(servers_file, calls(("echo", {"text": "b"})), again, load_settings()[0])
    assert second[0].result == "basic:b" and again.asked == []


async def test_a_destructive_tool_stops_the_turn_and_asks_even_when_its_server_is_always_allowed(
    servers_file,
):
    user = ScriptedUser([ApprovalAnswer("decline")])
    settings = Settings(tool_approvals={"asking.*": "always"}, trusted_servers=["asking"])
    _, outcome, _ = await run_turn(
        servers_file, calls(("peek", {"what": "x"}), ("wipe", {"what": "x"})), user, settings
    )
    records = outcome.tool_calls
    assert [r.is_error for r in records] == [False, True]
    kinds = [e["kind"] for e in outcome.to_dict()["events"]]  # what `ask --json` prints
    assert kinds.index("user_asked") < kinds.index("user_answered")
    (asked,) = user.asked
    assert isinstance(asked, ApprovalRequest) and asked.tool == "wipe" and asked.arguments == {"what": "x"}
    assert "declined" in records[1].result


async def test_without_a_user_a_call_that_needs_approval_is_declined_not_hung(servers_file):
    _, records, _ = await run(servers_file, calls(("echo", {"text": "a"})), None)
    assert records[0].is_error and "declined: needs approval" in records[0].result


async def test_sampling_runs_on_the_engines_backend_and_every_question_is_in_the_trace(servers_file):
    backend = ScriptedBackend(
        [[ToolCallChunk(ToolCall("c1", "muse", {"topic": "sky"}))], ["Blue"], ["Done."]]
    )
    user = ScriptedUser([ApprovalAnswer("allow"), SamplingAnswer(True), SamplingAnswer(True)])
    store = TraceStore()
    engine = Engine(Settings(), servers_path=servers_file, backend=backend, sink=store.apply, user=user)
    try:
        outcome = await engine.ask("ask the server to muse")
    finally:
        await engine.aclose()
    assert outcome.tool_calls[0].result == "the model said: Blue"
    assert backend.requests[1].system == "Answer in one word." and backend.requests[1].tools == ()
    call = next(n for n in store.walk() if n.kind == "tool_call")
    asked = [n.label for n in call.children]
    assert asked == [
        "Asked: Run asking.muse? → allow",
        "Asked: asking asks the model for a completion → approve",
        "Asked: Send this completion to asking? → approve",
    ]
    assert all(n.duration_ms is not None for n in call.children)
