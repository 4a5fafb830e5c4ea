"""Approvals: defaults from annotations, hints believed only from trusted servers, choices kept."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.core import events as ev
from app.core.approvals import Approvals, MemoryStore, effective_policy
from app.core.asking import ApprovalAnswer, ApprovalRequest, Asker
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.scripted_user import ScriptedUser
from app.core.session import ChatSession
from app.core.tools import ToolInfo
from app.llm.scripted import ScriptedBackend
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import script_entry

pytestmark = pytest.mark.anyio

READ_ONLY = {"readOnlyHint": True}
DESTRUCTIVE = {"readOnlyHint": False, "destructiveHint": True}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def tool(name: str, annotations: dict, server: str = "files") -> ToolInfo:
    return ToolInfo(server, name, name, f"{name} tool", {"type": "object"}, annotations)


def approvals(
    answers=(), *, trusted: bool = False, saved: dict | None = None
) -> tuple[Approvals, ScriptedUser]:
    user = ScriptedUser(list(answers))
    return Approvals(Asker(user), MemoryStore(dict(saved or {})), lambda _server: trusted), user


def test_defaults_follow_the_annotations_of_a_trusted_server():
    assert effective_policy(tool("peek", READ_ONLY), {}, True)[0] == "always"
    assert effective_policy(tool("wipe", DESTRUCTIVE), {}, True)[0] == "ask"
    assert effective_policy(tool("echo", {}), {}, True)[0] == "conversation"


def test_an_untrusted_servers_read_only_hint_is_not_believed_but_its_destructive_hint_is():
    assert effective_policy(tool("peek", READ_ONLY), {}, False)[0] == "conversation"
    assert effective_policy(tool("wipe", DESTRUCTIVE), {}, False)[0] == "ask"


async def test_a_read_only_tool_of_a_trusted_server_runs_without_asking():
    gate, user = approvals(trusted=True)
    assert await gate(tool("peek", READ_ONLY), {}) is None
    assert user.asked == []


async def test_allow_for_this_conversation_asks_once_until_the_conversation_ends():
    gate, user = approvals([ApprovalAnswer("conversation"), ApprovalAnswer("decline")])
    assert await gate(tool("echo", {}), {"text": "a"}) is None
    assert await gate(tool("echo", {}), {"text": "b"}) is None
    assert len(user.asked) == 1
    gate.new_conversation()
    assert await gate(tool("echo", {}), {}) == "declined: the user declined this call"


async def test_a_destructive_tool_asks_every_time_even_after_it_was_allowed():
    gate, user = approvals([ApprovalAnswer("allow"), ApprovalAnswer("allow")], trusted=True)
    wipe = tool("wipe", DESTRUCTIVE)
    assert await gate(wipe, {"what": "a"}) is None
    assert await gate(wipe, {"what": "b"}) is None
    request = user.asked[1]
    assert isinstance(request, ApprovalRequest)
    assert request.arguments == {"what": "b"} and request.reason == "the server marks this tool destructive"
    assert request.annotations == DESTRUCTIVE


async def test_a_destructive_tool_asks_even_when_always_was_set_for_its_server():
    gate, user = approvals([ApprovalAnswer("decline")], saved={"files.*": "always"})
    assert await gate(tool("peek", READ_ONLY), {}) is None
    assert await gate(tool("wipe", DESTRUCTIVE), {}) == "declined: the user declined this call"
    assert [r.tool for r in user.asked] == ["wipe"]  # type: ignore[attr-defined]


async def test_always_and_never_are_remembered_and_then_nobody_is_asked():
    gate, user = approvals([ApprovalAnswer("always"), ApprovalAnswer("never")])
    assert await gate(tool("echo", {}), {}) is None
    assert await gate(tool("rm", {}), {}) == "declined: the user declined this call"
    assert gate.store.policies() == {"files.echo": "always", "files.rm": "never"}
    assert await gate(tool("echo", {}), {}) is None
    assert await gate(tool("rm", {}), {}) == "declined: you chose never to run files.rm"
    assert len(user.asked) == 2


async def test_a_decline_nobody_could_answer_says_why():
    gate, _ = approvals([ApprovalAnswer("decline", "needs approval")])
    assert await gate(tool("echo", {}), {}) == "declined: needs approval"


@pytest.fixture(scope="module")
async def asking_server() -> AsyncIterator[Supervisor]:
    supervisor = Supervisor([script_entry("asking", "asking.py")], tool_timeout_s=10)
    await supervisor.start()
    yield supervisor
    await supervisor.aclose()


async def test_a_declined_call_goes_back_to_the_model_as_a_tool_error_and_the_turn_goes_on(asking_server):
    gate, _ = approvals([ApprovalAnswer("decline")])
    backend = ScriptedBackend(
        [[ToolCallChunk(ToolCall("c1", "wipe", {"what": "disk"}))], ["I did not wipe it."]]
    )
    session = ChatSession(backend, asking_server, approve=gate)
    outcome = await session.run_turn("wipe the disk")
    (record,) = outcome.tool_calls
    assert (
        record.is_error
        and record.result == "Call to wipe was not approved: declined: the user declined this call"
    )
    told = backend.requests[1].messages[-1]
    assert told.role == "tool" and told.is_error and "declined" in told.text
    assert outcome.answer == "I did not wipe it." and not outcome.error
    finished = [e for e in outcome.events if isinstance(e, ev.ToolCallFinished)]
    assert finished[0].is_error
