"""What an answer may write after this turn's tool result, and where the turn begins.

The local step grammar reads these from the conversation: the result's forms and unit, the
other numbers and the one formula allowed before it; and the messages since the user's own
latest words (not the app's re-ask), whose calls count against the per-message limit.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.backend import ModelRequest
from app.core.calculator_text import call_formula, exact_part
from app.core.failed_note import APP_SAID
from app.core.messages import Message, ToolCall
from app.core.records import looks_failed
from app.llm.local.backed import backed_forms, result_units


def last_result_forms(request: ModelRequest) -> frozenset[str]:
    """The written forms of the numbers in this turn's last tool result (none for an error)."""
    last = _last_result(request)
    if last is None or last.is_error:
        return frozenset()
    return backed_forms([last.text], parts=False).text


def answer_units(request: ModelRequest) -> frozenset[str]:
    """The one word an answer may write after the result, before its full stop: the result's
    own ("ft" of "6.56 ft", or "feet" where the user asked how many feet), or else what the user
    counted ("books" of "58 books", "days" of "how many days"). After the result a small model
    ran on: "2014 is double the number x x x", "157464 is a result of the original function ...",
    "221.25 is exactly $ $ $"; and on the app's re-ask, "16.68 is exactly one-sixth of the
    original value", its "one-sixth" unbacked."""
    result = _last_result(request)
    own = result_units(result.text) if result is not None else frozenset()
    read = request.arithmetic  # app.calculon's reading of the user's words
    asked, counted = (read.asked_for, read.counted) if read is not None else (frozenset(), frozenset())
    # a conversion's result is in its own unit, never the one converted from ("231.745536 miles")
    return own | asked if own else counted


def head_forms(request: ModelRequest) -> frozenset[str]:
    """The numbers an answer may write before it states the last result: every backed number
    except the parts of that result's own fraction ("71" of "71/3 ≈ 23.67"), which a small
    model otherwise states as the answer ("The average is 71.")."""
    result = _last_result(request)
    last = result.text if result is not None and not result.is_error else None
    texts = [t for t in request.backed or () if t != last]
    whole = backed_forms([last], parts=False).text if last is not None else frozenset()
    return backed_forms(texts).text | whole


def formulas(request: ModelRequest) -> frozenset[str]:
    """The calculation behind this turn's last result, as an answer may write it ("12 * 7" or
    "12 × 7"): the expression ``evaluate`` ran, or a two-number tool's operation; and the
    result's exact fraction, which may stand before its rounded value."""
    result = _last_result(request)
    if result is None or result.is_error:
        return frozenset()
    calls = (c for m in request.messages for c in m.tool_calls if c.id == result.tool_call_id)
    call = next(calls, None)
    if call is None:
        return frozenset()
    written = call_formula(call.name, call.arguments, shown=False)
    if written is None or call.name.rsplit(".", 1)[-1] in ("power", "mod"):
        return frozenset()
    shown = call_formula(call.name, call.arguments) or ""
    return frozenset({written, shown, exact_part(result.text)} - {""})  # "1/3" of "1/3 ≈ 0.333"


def _last_result(request: ModelRequest) -> Message | None:
    """This turn's last tool result, error or not."""
    results = [m for m in this_turn(request.messages, request.backed) if m.role == "tool"]
    return results[-1] if results else None


def this_turn(messages: Sequence[Message], backed: Sequence[str] | None = None) -> Sequence[Message]:
    """The messages after the latest user message; in Calculon mode (``backed``), after the
    user's own words, not the app's re-ask: a re-ask after the one call may only answer, and
    must state that call's result ("198.5 is exactly one ninth" was re-asked into an answer
    with no number at all)."""
    return messages[asked_index(messages, backed) + 1 :]


def asked_index(messages: Sequence[Message], backed: Sequence[str] | None) -> int:
    """The index of the user's latest own message (not the app's re-ask), or -1."""
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    own = [i for i in users if backed is None or messages[i].text in backed]
    return max(own or users, default=-1)


def calls_this_turn(messages: Sequence[Message], backed: Sequence[str] | None = None) -> int:
    return sum(len(m.tool_calls) for m in this_turn(messages, backed) if m.role == "assistant")


def answered_this_turn(messages: Sequence[Message], backed: Sequence[str] | None = None) -> bool:
    """Whether a call of this turn reached its server: a result or the server's own error, not
    the app's refusal (app.core.failed_note.APP_SAID), which told the model nothing of the world."""
    turn = this_turn(messages, backed)
    return any(m.role == "tool" and not m.text.startswith(APP_SAID) for m in turn)


def repeats_earlier_call(
    call: ToolCall, messages: Sequence[Message], backed: Sequence[str] | None = None
) -> bool:
    """Whether this turn already made the same call: its result is in the conversation. A call
    that failed and after which another call worked is made afresh: told "No changes staged.
    Use git_add first", the 1.5B model staged the file, and its commit, the same call as the one
    that had failed, was dropped as a repeat."""
    turn = this_turn(messages, backed)
    failed = {m.tool_call_id for m in turn if m.role == "tool" and (m.is_error or looks_failed(m.text))}
    worked = [i for i, m in enumerate(turn) if m.role == "tool" and m.tool_call_id not in failed]
    for i, message in enumerate(turn):
        for earlier in message.tool_calls if message.role == "assistant" else ():
            if _same(earlier, call) and not (earlier.id in failed and any(w > i for w in worked)):
                return True
    return False


def _same(one: ToolCall, other: ToolCall) -> bool:
    return one.name == other.name and dict(one.arguments) == dict(other.arguments)


def repeats_failed_call(
    call: ToolCall, messages: Sequence[Message], backed: Sequence[str] | None = None
) -> bool:
    """Whether this turn already made the same call and the tool answered it with an error."""
    turn = this_turn(messages, backed)
    failed = {m.tool_call_id for m in turn if m.role == "tool" and (m.is_error or looks_failed(m.text))}
    earlier = (c for m in turn if m.role == "assistant" for c in m.tool_calls if c.id in failed)
    return any(_same(c, call) for c in earlier)
