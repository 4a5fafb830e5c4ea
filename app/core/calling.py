"""One tool call of a turn, from its start event to its result in the conversation
(:func:`run_call`), and what the app does around it: the calls it refuses
(a calculation that works nothing out, app.calculon.idle; a tool fed its own reply,
app.core.echoed; an edit of text never read, app.core.unread; a read of a folder or of a file
still to write, app.core.no_file; a commit of a file not staged, app.core.unstaged; a call that
just failed as it is, app.core.refailed; a place no one gave, app.core.ungrounded), the note
Calculon mode adds to a result (app.calculon.counts), and how an inline result stands in a worked
answer's prose.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

from app.core import events as ev
from app.core import running
from app.core.described import described_result, described_value
from app.core.echoed import echoed_reply
from app.core.fitted import fitted_edit
from app.core.messages import Message, ToolCall
from app.core.missing import missing_note
from app.core.no_file import no_file_read, no_file_result
from app.core.outcome import TurnOutcome
from app.core.records import CallRecord, call_label, looks_failed, records_of
from app.core.refailed import failed_before, refailed_result
from app.core.toolrun import ECHO_NOT_RUN, IDLE_NOT_RUN, OVERUSED_NOT_RUN
from app.core.tools import Source, ToolResult
from app.core.ungrounded import ungrounded_place, ungrounded_result
from app.core.unread import UNCHANGED_NOT_RUN, unchanged_edit, unread_edit, unread_result
from app.core.unsaid import unsaid_options
from app.core.unstaged import unstaged_commit, unstaged_result


class CallingTurn(Protocol):
    """What the call path uses of the running turn (app.core.session's _Turn)."""

    s: Any  # the ChatSession: its verifier, runner, running calls and trust
    id: str
    user_text: str
    idle_server: str  # set here: whose calculation was refused, withdrawn for the turn
    idle_told: bool
    outcome: TurnOutcome
    messages: list[Message]  # the turn's own, after the session's history
    sources: list[Source]  # what the turn's calls returned, for the number check
    inserted: list[str]  # how each inline result stands in a worked answer ("= 9")

    def emit(self, event_cls: type[ev.Event], **fields: Any) -> None: ...


async def run_call(turn: CallingTurn, call: ToolCall) -> None:
    """Run one of the model's calls: fitted, or refused before any server sees it, timed, its
    node finished in the trace (cancelled too), and its result, with any count the app made of
    it, added to the conversation and, where it worked, to the sources the answer is checked against."""
    server, tool = turn.s.runner.identify(call)
    call = fitted_call(turn, call)
    named = {"call_id": f"{turn.id}-{call.id}", "server": server, "tool": tool}
    turn.emit(ev.ToolCallStarted, **named, arguments=call.arguments, inline=call.inline)
    started = time.perf_counter()
    refused = refusal(turn, server, tool, call)
    try:
        result, ms = await turn.s.running.run(
            named["call_id"],
            (lambda: _given(refused)) if refused else (lambda: turn.s.runner.run(call)),
            lambda update: turn.emit(ev.ToolCallProgress, **named, **update.event_fields()),
        )
    except asyncio.CancelledError:  # the whole turn stopped: the call's node says so too
        _finished(turn, call, named, running.CANCELLED, (time.perf_counter() - started) * 1000)
        raise
    _finished(turn, call, named, result, ms)
    if call.inline:
        turn.inserted.append(inserted(turn, call, result))
    shown = running.as_message(result)
    shown["text"] += counted(turn, result)
    turn.messages.append(Message("tool", tool_call_id=call.id, tool_name=call.name, **shown))
    if not result.is_error:
        if server != turn.idle_server:
            # new data: a calculation withdrawn as idle may be needed again ("together" after
            # the second file is read: the 1.5B model answered the first file's 13)
            turn.idle_server = ""
        trusted = turn.s.trusted(server)
        turn.sources.append(Source(shown["text"], call_label(tool, call.arguments), server, trusted))


def _siblings(turn: CallingTurn, server: str) -> list[tuple[str, str]]:
    """The server's tools, as name and description: what a refusal may name as the fix."""
    return [(t.tool, t.description) for t in turn.s.tools.list_tools() if t.server == server]


async def _given(result: ToolResult) -> tuple[ToolResult, float]:
    return result, 0.0


def _finished(
    turn: CallingTurn, call: ToolCall, named: dict[str, str], result: ToolResult, ms: float
) -> None:
    turn.emit(ev.ToolCallFinished, **named, arguments=call.arguments, **running.finished_fields(result, ms))
    turn.outcome.tool_calls.append(
        CallRecord(named["server"], named["tool"], call.arguments, result.text, result.is_error, ms)
    )


def fitted_call(turn: CallingTurn, call: ToolCall) -> ToolCall:
    """The call, its edits fitted to the text read where they differ from it only in punctuation
    and spacing (app.core.fitted), and in Calculon mode without the optional numbers nobody said
    (app.core.unsaid); each said in the trace."""
    results = (m.text for m in (*turn.s.history, *turn.messages) if m.role == "tool" and not m.is_error)
    fitted = fitted_edit(call.arguments, results)
    if fitted is not None:
        arguments, what = fitted
        turn.emit(ev.Notice, message=f"The edit was fitted to the text read: {what}.")
        call = dataclasses.replace(call, arguments=arguments)
    info = turn.s.runner.provider.resolve(call.name)
    if info is None or call.inline or not getattr(turn.s.verifier, "backs_numbers", False):
        return call
    said = [
        turn.user_text,
        *(
            m.text
            for m in (*turn.s.history, *turn.messages)
            if m.role == "user" or (m.role == "tool" and not m.is_error)
        ),
    ]
    unsaid = unsaid_options(call.arguments, info.input_schema, said)
    if unsaid is None:
        return call
    arguments, names = unsaid
    left = ", ".join(f"{name} ({call.arguments[name]})" for name in names)
    turn.emit(ev.Notice, message=f"Left out of {call.name}, as no one said these numbers: {left}.")
    return dataclasses.replace(call, arguments=arguments)


def not_run(reason: str) -> ToolResult:
    told = (
        f"{IDLE_NOT_RUN} {reason}. The results above already hold what the request needs: answer it"
        " from them, or make the call it still needs, with a tool other than the calculator."
    )
    return ToolResult(told, is_error=True)


def refusal(turn: CallingTurn, server: str, tool: str, call: ToolCall) -> ToolResult | None:
    """What the app answers instead of running the call; None: the call runs."""
    idle = _idle(turn, server, tool, call)
    if idle:
        return not_run(idle)
    overused = _overused(turn, server, tool, call)
    if overused is not None:
        return overused
    results = (m.text for m in (*turn.s.history, *turn.messages) if m.role == "tool" and not m.is_error)
    done = turn.outcome.tool_calls

    def unstaged() -> str:  # the calls of the turns before are read only for a commit
        return unstaged_commit(
            tool, turn.user_text, done, _siblings(turn, server), records_of(turn.s.history)
        )

    # each check gives why the call is not run ("" to let it run), then what the model is told
    checks: tuple[tuple[Callable[[], str], Callable[[str], str]], ...] = (
        (lambda: unchanged_edit(tool, call.arguments), lambda why: f"{UNCHANGED_NOT_RUN} {why}."),
        (lambda: unread_edit(tool, call.arguments, results, turn.user_text), unread_result),
        (lambda: no_file_read(tool, call.arguments, turn.user_text, done), no_file_result),
        (unstaged, unstaged_result),
        (lambda: failed_before(server, tool, call.arguments, done), refailed_result),
        (lambda: echoed_reply(tool, call.arguments, done), _echo_result),
        (lambda: ungrounded_place(tool, call.arguments, _given_texts(turn)), ungrounded_result),
        (
            lambda: described_value(
                call.arguments,
                _schema(turn, call),
                tool,
                turn.user_text,
                [n for n, _ in _siblings(turn, server)],
            ),
            described_result,
        ),
    )
    for check, told in checks:
        why = check()
        if why:
            turn.emit(ev.Notice, message=f"Not run: {why}.")
            return ToolResult(told(why), is_error=True)
    return None


def _schema(turn: CallingTurn, call: ToolCall) -> Mapping[str, Any]:
    info = turn.s.runner.provider.resolve(call.name)
    return info.input_schema if info is not None else {}


def _given_texts(turn: CallingTurn) -> Iterator[str]:
    """What the conversation gave: the user's words, and what its calls returned."""
    yield turn.user_text
    for message in (*turn.s.history, *turn.messages):
        if message.role == "user" or (message.role == "tool" and not message.is_error):
            yield message.text


def _echo_result(why: str) -> str:
    return f"{ECHO_NOT_RUN} {why}. Make the call the request still needs, or answer."


def _overused(turn: CallingTurn, server: str, tool: str, call: ToolCall) -> ToolResult | None:
    """A calculation on data that uses one of its values more often than the data holds it is
    refused, to be written again (app.calculon.idle.overused); None: it is no such call."""
    overused = getattr(turn.s.verifier, "overused_call", None)
    if overused is None or call.inline:
        return None
    reason = str(overused(server, tool, call.arguments, turn.outcome.tool_calls, turn.user_text))
    if not reason:
        return None
    turn.emit(ev.Notice, message=f"Not run: {reason}.")
    again = "Write the calculation again, each value as often as the data holds it."
    return ToolResult(f"{OVERUSED_NOT_RUN} {reason}. {again}", is_error=True)


def _idle(turn: CallingTurn, server: str, tool: str, call: ToolCall) -> str:
    """Why Calculon mode does not run a calculation that works nothing out, or "". From then on
    the turn offers no calculator: the model answers or does the task."""
    idle = getattr(turn.s.verifier, "idle_call", None)
    if idle is None or call.inline:
        return ""
    reason = str(idle(server, tool, call.arguments, turn.outcome.tool_calls, turn.user_text))
    if reason:
        turn.idle_server, turn.idle_told = server, True
        turn.emit(ev.Notice, message=f"Not run: {reason}. The turn goes on without the calculator.")
    return reason


def counted(turn: CallingTurn, result: ToolResult) -> str:
    """What Calculon mode counted, compared or listed in a text result for the question; under an
    error that names a column or table that does not exist, the names the turn read (app.core.missing)."""
    read = (m.text for m in turn.messages if m.role == "tool" and not m.is_error)
    # the sqlite server's "Database error: ..." is no isError; a log whose lines open "ERROR" is data
    missing = missing_note(result.text, read) if result.is_error or looks_failed(result.text) else ""
    if result.is_error or missing:
        return missing
    note = getattr(turn.s.verifier, "count_note", None)
    return "" if note is None else str(note(turn.user_text, result.text))


def inserted(turn: CallingTurn, call: ToolCall, result: ToolResult) -> str:
    """How an inline call's result stands in the answer's prose, as app.calculon writes it."""
    inline = getattr(turn.s.verifier, "inline_result", None)
    if inline is None:
        return f"= {result.text}"
    return str(inline(result.text, result.is_error, turn.user_text, call.arguments))
