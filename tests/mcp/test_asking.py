"""Elicitation, sampling and roots against real servers: one on the Python SDK's MCPServer
(the 2026-07-28 input-required path) and the official server-everything (an older protocol's
server-to-client requests)."""

from __future__ import annotations

import dataclasses

import anyio
import pytest

from app.core import events as ev
from app.core.asking import Asker, FormAnswer, FormRequest, SamplingAnswer, SamplingRequest, UrlRequest
from app.core.sampling import SamplingGate
from app.core.scripted_user import ScriptedUser
from app.mcp.asking import AskingHandlers
from tests.core.models import RecordingModel
from tests.everything import everything_entry
from tests.mcp.helpers import script_entry

pytestmark = pytest.mark.anyio


def handlers(
    user: ScriptedUser, events: list, model: RecordingModel | None = None, roots=()
) -> AskingHandlers:
    asker = Asker(user, sink=events.append)
    return AskingHandlers(asker, SamplingGate(asker, model or RecordingModel()), lambda _server: list(roots))


@pytest.fixture(params=["mcpserver", "everything"])
def server(request):
    """(entry, the form tool, the sampling tool and its arguments, the roots tool)."""
    if request.param == "mcpserver":
        return script_entry("asking", "asking.py"), "book", ("muse", {"topic": "sky"}), "roots"
    entry = everything_entry()
    return (
        entry,
        "trigger-elicitation-request",
        ("trigger-sampling-request", {"prompt": "sky"}),
        "get-roots-list",
    )


async def test_an_accepted_form_reaches_the_server(supervise, server):
    entry, form_tool, _, _ = server
    answer = {"name": "Ada", "seats": 3} if entry.name == "asking" else {"name": "Ada", "check": True}
    user, events = ScriptedUser([FormAnswer("accept", answer)]), []
    supervisor, _ = supervise(entry, handlers=handlers(user, events))
    await supervisor.start()
    result = await supervisor.call_tool(form_tool, {})
    assert not result.is_error
    assert ("booked 3 seats for Ada" if entry.name == "asking" else "- Name: Ada") in result.text
    (request,) = user.asked
    assert isinstance(request, FormRequest) and "name" in request.schema["properties"]
    assert [e.kind for e in events] == ["user_asked", "user_answered"]


async def test_a_declined_form_tells_the_server_so(supervise, server):
    entry, form_tool, _, _ = server
    supervisor, _ = supervise(entry, handlers=handlers(ScriptedUser([FormAnswer("decline")]), []))
    await supervisor.start()
    result = await supervisor.call_tool(form_tool, {})
    assert ("no booking: decline" if entry.name == "asking" else "declined") in result.text


async def test_an_answer_that_does_not_fit_the_form_is_never_sent(supervise):
    entry = script_entry("asking", "asking.py")
    user = ScriptedUser([FormAnswer("accept", {"name": "Ada", "seats": 40})])
    supervisor, _ = supervise(entry, handlers=handlers(user, []))
    await supervisor.start()
    result = await supervisor.call_tool("book", {})
    assert result.is_error and "seats" in result.text and "booked" not in result.text


async def test_an_approved_sampling_request_is_answered_by_the_hosts_model(supervise, server):
    entry, _, (tool, arguments), _ = server
    user, model = ScriptedUser([SamplingAnswer(True), SamplingAnswer(True)]), RecordingModel()
    supervisor, _ = supervise(entry, handlers=handlers(user, [], model))
    await supervisor.start()
    result = await supervisor.call_tool(tool, arguments)
    assert not result.is_error and "Blue" in result.text
    request = user.asked[0]
    assert isinstance(request, SamplingRequest) and "sky" in request.messages[0][1]
    assert model.asked[0][2] == request.max_tokens


async def test_a_declined_sampling_request_never_reaches_the_model(supervise, server):
    entry, _, (tool, arguments), _ = server
    model = RecordingModel()
    supervisor, _ = supervise(entry, handlers=handlers(ScriptedUser([SamplingAnswer(False)]), [], model))
    await supervisor.start()
    result = await supervisor.call_tool(tool, arguments)
    assert result.is_error and "declined the sampling request" in result.text
    assert model.asked == []


async def test_the_server_lists_the_roots_its_entry_names(supervise, server, tmp_path):
    entry, _, _, roots_tool = server
    supervisor, _ = supervise(entry, handlers=handlers(ScriptedUser(), [], roots=[str(tmp_path)]))
    await supervisor.start()
    result = await supervisor.call_tool(roots_tool, {})
    assert tmp_path.as_uri() in result.text


async def test_url_consent_is_asked_with_the_full_url(supervise):
    user = ScriptedUser([FormAnswer("accept"), FormAnswer("decline")])
    supervisor, _ = supervise(everything_entry(), handlers=handlers(user, []))
    await supervisor.start()
    url = "https://accounts.example.com/authorize?client=calculon"
    accepted = await supervisor.call_tool("trigger-url-elicitation", {"url": url})
    declined = await supervisor.call_tool("trigger-url-elicitation", {"url": url})
    request = user.asked[0]
    assert isinstance(request, UrlRequest) and request.url == url
    assert '"action": "accept"' in accepted.text and '"action": "decline"' in declined.text


async def test_a_calls_timeout_does_not_run_while_the_user_is_asked(supervise, server):
    entry, form_tool, _, _ = server
    answer = {"name": "Ada"}
    user = ScriptedUser([FormAnswer("accept", answer)], think_s=1.5)  # longer than the tool timeout
    supervisor, _ = supervise(entry, handlers=handlers(user, []), tool_timeout_s=1.0)
    await supervisor.start()
    result = await supervisor.call_tool(form_tool, {})
    assert not result.is_error, result.text


async def test_questions_are_traced_in_the_turn_that_caused_them(supervise):
    user, events = ScriptedUser([FormAnswer("accept", {"name": "Ada"})]), []
    built = handlers(user, events)
    built.asker.watch(ev.TurnStarted(turn_id="t9", text="book"))
    supervisor, _ = supervise(script_entry("asking", "asking.py"), handlers=built)
    await supervisor.start()
    await supervisor.call_tool("book", {})
    assert {e.turn_id for e in events} == {"t9"}
    assert events[-1].duration_ms > 0


async def test_a_server_is_told_when_its_roots_change_and_keeps_running(supervise, server, tmp_path):
    entry, _, _, roots_tool = server
    first, second = tmp_path / "first", tmp_path / "second"
    roots = {entry.name: [str(first)]}
    built = AskingHandlers(Asker(ScriptedUser()), None, lambda name: roots[name])
    supervisor, log = supervise(
        dataclasses.replace(entry, extra={"roots": roots[entry.name]}), handlers=built
    )
    await supervisor.start()
    pid = supervisor.states()[0].pid
    assert first.as_uri() in (await supervisor.call_tool(roots_tool, {})).text
    roots[entry.name] = [str(second)]
    await supervisor.update([dataclasses.replace(entry, extra={"roots": [str(second)]})])
    assert supervisor.connections[entry.name].entry.extra == {"roots": [str(second)]}
    listed = ""
    with anyio.fail_after(20):  # the server asks again after the notification, on its own time
        while second.as_uri() not in listed:
            listed = (await supervisor.call_tool(roots_tool, {})).text
    assert supervisor.states()[0].pid == pid and log.states(entry.name).count("starting") == 1
