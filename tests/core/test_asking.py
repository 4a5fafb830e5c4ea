"""The request channel: one question at a time, each reported with its answer and timing."""

from __future__ import annotations

import asyncio

import pytest

from app.core import events as ev
from app.core.asking import ApprovalAnswer, ApprovalRequest, Asker, FormAnswer, FormRequest, Nobody
from app.core.scripted_user import ScriptedUser
from app.core.trace import TraceStore

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _approval(tool: str = "wipe") -> ApprovalRequest:
    return ApprovalRequest(server="files", tool=tool, arguments={"path": "/tmp/x"})


async def test_each_question_and_its_answer_are_events_with_the_time_it_took():
    events: list[ev.Event] = []
    asker = Asker(ScriptedUser([ApprovalAnswer("allow")], think_s=0.05), sink=events.append)
    answer = await asker.ask(_approval())
    asked, answered = events
    assert answer.allowed
    assert isinstance(asked, ev.UserAsked) and isinstance(answered, ev.UserAnswered)
    assert asked.request == "approval" and asked.title == "Run files.wipe?"
    assert asked.details["arguments"] == {"path": "/tmp/x"}
    assert answered.request_id == asked.request_id and answered.answer == "allow"
    assert answered.duration_ms >= 50


async def test_nobody_declines_every_request_with_its_reason():
    asker = Asker(Nobody("needs approval"))
    approval = await asker.ask(_approval())
    form = await asker.ask(FormRequest(server="s", message="name?", schema={"type": "object"}))
    assert approval == ApprovalAnswer("decline", "needs approval")
    assert form.action == "decline" and form.content is None


async def test_questions_are_asked_one_at_a_time():
    user = ScriptedUser([ApprovalAnswer("allow"), ApprovalAnswer("decline")], think_s=0.05)
    asker = Asker(user)
    first = asyncio.ensure_future(asker.ask(_approval("one")))
    second = asyncio.ensure_future(asker.ask(_approval("two")))
    await user.asked_event.wait()
    assert [r.tool for r in user.asked] == ["one"]  # type: ignore[attr-defined]
    assert (await first).allowed and not (await second).allowed
    assert [r.tool for r in user.asked] == ["one", "two"]  # type: ignore[attr-defined]


async def test_a_question_during_a_turn_is_traced_under_the_call_it_interrupts():
    store = TraceStore()
    asker = Asker(ScriptedUser([FormAnswer("accept", {"name": "Ada"})]), sink=store.apply)
    store.apply(ev.TurnStarted(turn_id="t1", text="book a table"))
    asker.watch(ev.TurnStarted(turn_id="t1", text="book a table"))
    store.apply(ev.StepStarted(turn_id="t1", step=1))
    started = ev.ToolCallStarted(turn_id="t1", call_id="t1-c1", server="asking", tool="book", arguments={})
    store.apply(started)
    await asker.ask(FormRequest(server="asking", message="Who?", schema={"type": "object"}))
    call = store.roots[0].children[0].children[0]
    (question,) = call.children
    assert question.kind == "ask" and question.status == "ok"
    assert question.label == "Asked: asking asks for information → accept"
    assert question.duration_ms is not None and question.data["answered"]["content"] == {"name": "Ada"}


async def test_a_question_cancelled_with_its_turn_is_reported_cancelled():
    events: list[ev.Event] = []

    class Waits:
        async def answer(self, request):
            await asyncio.Event().wait()

    asker = Asker(Waits(), sink=events.append)
    task = asyncio.ensure_future(asker.ask(_approval()))
    await asyncio.sleep(0)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert isinstance(events[-1], ev.UserAnswered) and events[-1].answer.startswith("cancel")
