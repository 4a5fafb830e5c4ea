"""The turn loop with a scripted model and the real supervisor over a real server."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Sequence
from fractions import Fraction

import pytest

from app.core import events as ev
from app.core.backend import Chunk, ToolCallChunk
from app.core.messages import ToolCall
from app.core.session import ChatSession
from app.core.tools import CheckResult, Source
from app.llm.scripted import ScriptedBackend
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import EventLog, script_entry, started

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def tools() -> AsyncIterator[Supervisor]:
    """One real server for the whole module: these tests are about the loop, not the server."""
    async with started(script_entry("basic", "basic.py"), tool_timeout_s=10) as supervisor:
        yield supervisor


def session_with(tools: Supervisor, steps: Sequence[Sequence[Chunk | str]], **options) -> ChatSession:
    return ChatSession(ScriptedBackend(steps, delay=options.pop("delay", 0.0)), tools, **options)


def call(name: str, call_id: str = "c1", **arguments) -> ToolCallChunk:
    return ToolCallChunk(ToolCall(call_id, name, arguments))


async def server_calls(tools: Supervisor) -> list[str]:
    return (await tools.call_tool("calls", {})).structured["result"]


async def test_tool_turn_emits_events_in_order_and_returns_the_result_to_the_model(tools):
    session = session_with(tools, [[call("add", a=2, b=3)], ["The sum ", "is 5."]])
    log = EventLog()
    session.subscribe(log)
    outcome = await session.run_turn("add 2 and 3")
    kinds = [e.kind for e in log.events]
    assert kinds == [
        "turn_started",
        *("step_started", "step_finished", "tool_call_started", "tool_call_finished"),
        *("step_started", "text_delta", "text_delta", "step_finished"),
        "answer_ready",
        "turn_finished",
    ]
    finished = next(e for e in log.events if isinstance(e, ev.ToolCallFinished))
    assert (finished.server, finished.tool, finished.result) == ("basic", "add", "5.0")
    assert not finished.is_error
    second_request = session.backend.requests[1]  # type: ignore[attr-defined]
    tool_message = second_request.messages[-1]
    assert (tool_message.role, tool_message.text, tool_message.tool_call_id) == ("tool", "5.0", "c1")
    assert outcome.answer == "The sum is 5." and outcome.tool_calls[0].result == "5.0"


async def test_every_tool_is_offered_to_the_model(tools):
    session = session_with(tools, [["nothing to do"]])
    await session.run_turn("hello")
    offered = {spec.name for spec in session.backend.requests[0].tools}  # type: ignore[attr-defined]
    assert offered == {t.name for t in tools.list_tools()} and "echo" in offered


async def test_schema_invalid_arguments_come_back_as_an_error_without_reaching_the_server(tools):
    before = await server_calls(tools)
    session = session_with(tools, [[call("add", a=1)], ["I could not add."]])
    outcome = await session.run_turn("add 1")
    record = outcome.tool_calls[0]
    assert record.is_error and "do not match the schema of add" in record.result and "'b'" in record.result
    assert await server_calls(tools) == before


async def test_arguments_that_were_not_json_come_back_as_an_error_without_reaching_the_server(tools):
    before = await server_calls(tools)
    broken = ToolCallChunk(ToolCall("c1", "add", {}, raw_arguments_error="Expecting value at char 5"))
    session = session_with(tools, [[broken], ["Sorry."]])
    outcome = await session.run_turn("add")
    assert outcome.tool_calls[0].is_error
    assert "not a JSON object: Expecting value at char 5" in outcome.tool_calls[0].result
    tool_message = session.backend.requests[1].messages[-1]  # type: ignore[attr-defined]
    assert tool_message.is_error and "Expecting value" in tool_message.text
    assert await server_calls(tools) == before


async def test_unknown_tool_comes_back_as_an_error_naming_the_available_tools(tools):
    session = session_with(tools, [[call("teleport", where="mars")], ["I cannot."]])
    outcome = await session.run_turn("go to mars")
    record = outcome.tool_calls[0]
    assert (record.server, record.is_error) == ("?", True)
    assert "Unknown tool 'teleport'" in record.result and "echo" in record.result


async def test_cancel_mid_turn_leaves_the_history_as_it_was(tools):
    words = [f"word{i} " for i in range(40)]
    session = session_with(tools, [["First answer."], words], delay=0.02)
    await session.run_turn("first")
    history = list(session.history)
    log = EventLog()
    session.subscribe(log)
    turn = asyncio.ensure_future(session.run_turn("second"))
    await log.wait_for(lambda e: isinstance(e, ev.TextDelta), timeout=10)
    session.cancel()
    outcome = await asyncio.wait_for(turn, 10)
    assert outcome.cancelled and not outcome.answer
    assert session.history == history
    assert [e.category for e in log.events if isinstance(e, ev.TurnError)] == ["cancelled"]
    assert sum(isinstance(e, ev.TextDelta) for e in log.events) < len(words)
    assert isinstance(log.events[-1], ev.TurnFinished) and log.events[-1].cancelled


async def test_a_model_that_keeps_calling_tools_is_stopped_at_the_round_cap(tools):
    steps = [[call("add", f"c{i}", a=i, b=1)] for i in range(3)]
    session = session_with(tools, steps, max_rounds=2)
    outcome = await session.run_turn("loop forever")
    assert "did not reach an answer within 2 steps" in outcome.error
    assert len(outcome.tool_calls) == 2 and session.history == []
    assert len(session.backend.steps) == 1  # type: ignore[attr-defined]  # the third step never ran


async def test_history_is_kept_across_turns(tools):
    session = session_with(tools, [[call("echo", text="hi")], ["Echoed."], ["Again."]])
    await session.run_turn("echo hi")
    await session.run_turn("and again?")
    messages = session.backend.requests[-1].messages  # type: ignore[attr-defined]
    assert [(m.role, m.text) for m in messages] == [
        ("user", "echo hi"),
        ("assistant", ""),
        ("tool", "basic:hi"),
        ("assistant", "Echoed."),
        ("user", "and again?"),
    ]
    assert len(session.history) == 6 and session.history[-1].text == "Again."


class NumbersFromSources:
    """A trivial verifier: every number in the answer must appear in some source."""

    def check(self, answer: str, sources: Sequence[str | Source]) -> CheckResult:
        texts = [s if isinstance(s, str) else s.text for s in sources]
        known = {n for text in texts for n in re.findall(r"\d+(?:\.\d+)?", text)}
        unbacked = tuple(n for n in re.findall(r"\d+(?:\.\d+)?", answer) if n not in known)
        return CheckResult(verified=not unbacked, unbacked=unbacked)


async def test_unbacked_numbers_make_the_model_answer_again(tools):
    steps = [["It is 7."], [call("add", a=2, b=3)], ["It is 5.0."]]
    session = session_with(tools, steps, verifier=NumbersFromSources())
    log = EventLog()
    session.subscribe(log)
    outcome = await session.run_turn("add 2 and 3")
    checks = [e for e in log.events if isinstance(e, ev.CheckFinished)]
    assert [(c.verified, c.unbacked, c.will_reask) for c in checks] == [
        (False, ("7",), True),
        (True, (), False),
    ]
    reask = session.backend.requests[1].messages[-1]  # type: ignore[attr-defined]
    assert reask.role == "user" and "7" in reask.text and "calculator" in reask.text
    assert (outcome.answer, outcome.verified, outcome.unbacked) == ("It is 5.0.", True, ())


async def test_a_reply_that_recites_the_instructions_is_asked_again_then_never_shown(tools):
    prompt = "You are Calculon. You never do arithmetic in your head: your calculator tools do every step."
    steps = [[prompt], [prompt]]
    session = session_with(tools, steps, system_prompt=prompt, verifier=NumbersFromSources())
    outcome = await session.run_turn("What is 2 plus 2?")
    assert outcome.answer == "" and "repeated its instructions" in outcome.error
    reask = session.backend.requests[1].messages[-1]  # type: ignore[attr-defined]
    assert reask.role == "user" and "one short sentence" in reask.text


async def test_retrieval_ranks_the_user_s_words_and_not_the_reask_text(tools):
    seen: list[str] = []

    class Recording:
        def select(self, context, offered):
            seen.append(context)
            return None

    steps = [["It is 7."], ["It is 2."]]
    session = session_with(tools, steps, verifier=NumbersFromSources(), selector=Recording())
    await session.run_turn("add 2 and 3 and 0")
    await asyncio.get_running_loop().shutdown_default_executor()  # ranking ran off the loop
    assert seen == ["add 2 and 3 and 0", "add 2 and 3 and 0"]


async def test_calculon_mode_hands_the_backend_the_formula_it_read_in_the_users_words(tools):
    from app.calculon import CalculonMode

    steps = [[call("add", a=84, b=16)], ["It is 100."], [call("add", a=9, b=4)], ["13."]]
    session = session_with(tools, steps, verifier=CalculonMode())
    session._earlier = Fraction(84)  # as after a verified "What is 12 times 7?"
    await session.run_turn("Now add 16 to that.")
    first, after_call = session.backend.requests[:2]  # type: ignore[attr-defined]
    assert first.formula is not None and (first.formula.expression, first.formula.source) == (
        "84 + 16",
        "transcription",
    )
    assert after_call.formula == first.formula  # the backend, not the session, knows when to use it
    await session.run_turn("Sam had 9 marbles. He gave 4 to Ann. How many marbles does Sam have left?")
    story = session.backend.requests[2].formula  # type: ignore[attr-defined]
    assert story is not None and story.source == "ranked"


async def test_calculon_mode_reads_the_users_arithmetic_once_and_hands_it_to_the_backend_typed(tools):
    from app.calculon import CalculonMode
    from app.core.messages import Message, ToolCall
    from app.core.tools import Source

    session = session_with(tools, [[call("add", a=84, b=16)], ["84 + 16 = 100."]], verifier=CalculonMode())
    asked = "What is 12 times 7?"
    made = ToolCall("c0", "multiply", {"a": 12, "b": 7})
    earlier = [
        Message("user", asked),
        Message("assistant", "", (made,)),
        Message("tool", "84", tool_call_id="c0", tool_name="multiply"),
        Message("assistant", "12 × 7 = 84."),
    ]
    session.restore(earlier, [Source(asked, "your message"), Source("84", "multiply(12, 7)", "calculator")])
    await session.run_turn("Now add 16 to that.")
    requests = session.backend.requests  # type: ignore[attr-defined]
    # "that" is the last result, as the call's grammar must use it; read once a turn, not per step
    assert len(requests) == 2 and requests[0].arithmetic == requests[1].arithmetic
    read = requests[0].arithmetic
    assert (read.text, read.earlier, read.spelled_out) == ("Now add 16 to 84.", "84", True)
    assert [sorted(leaf.forms)[0] for leaf in read.reading] == ["16", "84"]


async def test_without_calculon_mode_no_formula_is_read(tools):
    session = session_with(tools, [["It is 84."]])
    await session.run_turn("What is 12 times 7?")
    assert session.backend.requests[0].formula is None  # type: ignore[attr-defined]
    assert session.backend.requests[0].arithmetic is None  # type: ignore[attr-defined]
