"""The checks that keep a turn doing its task: an answer that describes the task, plans it or
gives it up where an offered tool could do it, is asked again (app.core.acting holds the words).

:class:`ActChecks` is the part of app.core.answer_check's ``AnswerCheck`` that decides those
re-asks; it keeps its counters on the same object, which lives as long as the turn.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from app.core import events as ev
from app.core.acting import (
    ACT_REASK,
    EMPTY_OPENING,
    FAILED_OPENING,
    MAX_ACT_REASKS,
    REFUSAL_REASK,
    RETRY_OPENING,
    UNTOUCHED_OPENING,
    act_reask,
    empty_result,
    fix_first_reask,
    lookups,
    mentioned_tools,
    results_reask,
    unfinished,
    untouched_place,
)
from app.core.backend import BackendError
from app.core.declined import changes_things
from app.core.deeds import asked_deed, deed_reask, undone_deed
from app.core.messages import Message, ToolSpec
from app.core.offer import as_spec
from app.core.outcome import TurnOutcome
from app.core.prompts import calculate_reask
from app.core.records import CallRecord
from app.core.toolrun import REFUSED_HERE
from app.core.tools import USER_SOURCE, Source

DIGIT = re.compile(r"\d")
# a fenced block (closed or cut off) that calls a function: "```\nmake_file("a.txt")"
CODE_CALL = re.compile(r"```[\w+-]*[ \t]*\n(?:(?!```).)*?\b[A-Za-z_][\w.]*\(", re.DOTALL)
CODE_FAILURE = (
    "The model wrote code for the task instead of using a tool, even when asked to use one: nothing"
    " was done, and its code is not shown as an answer (the trace keeps it)."
)
_AGGREGATE = re.compile(r"\b(?:average|mean|total|sum|altogether|combined|in all)\b", re.IGNORECASE)
MAX_RETRIES = 2  # re-asks to make a fixed failure's call again: the second one makes the call
# act re-asks in a turn, however many calls came between: a 1.5B model that kept failing and
# apologising on a commit was asked 9 times and took 538 s
MAX_ACT_TOTAL = 4


class CheckedTurn(Protocol):
    """What the checks use of the running turn (app.core.session's _Turn, which makes them)."""

    s: Any  # the ChatSession: its verifier, system prompt, re-ask limit and last verified result
    messages: list[Message]
    outcome: TurnOutcome
    user_text: str
    specs: tuple[ToolSpec, ...]
    named: tuple[str, ...]  # the servers the question names, among those offered
    sources: list[Source]  # this turn's: the user's words and each result as the model read it

    def emit(self, event_cls: type[ev.Event], **fields: Any) -> None: ...

    def all_sources(self) -> list[Source]: ...


class ActChecks:
    """The act re-asks of one turn, each kind bounded so a turn always ends."""

    def __init__(self, turn: CheckedTurn):
        self.turn = turn
        self.calculate_asked = False  # an answer with no calculation was asked again
        self.act_asked = 0  # answers that described or gave up a task instead of doing it, asked again
        self.must_call = False  # the next step may only call a tool (after that re-ask)
        self.calculate_only = False  # and only a tool that calculates (after the re-ask to calculate)
        self.named_only = False  # or only a tool of a server the question names (after refusals)
        self.mentioned: tuple[str, ...] = ()  # or only the tools a plan named (after that re-ask)
        self.place = ""  # or only the tools that take a place, held to this one (a named place unused)
        self.server_only = ""  # or every tool of the server whose call failed (to fix what it named)
        self.act_progress = 0  # the calls that worked when the act re-asks were last counted
        self.retries = 0  # re-asks to make again a call whose failure was since fixed
        self.act_total = 0  # every act re-ask of the turn, progress or not
        self.deed_asked = False  # the deed the request opens with was asked for (app.core.deeds)
        self.reading_due = False  # the next step may make Calculon's reading (ModelRequest.reading_due)

    def asks_to_act(self, answer: str, worked: bool) -> bool:
        """An answer that describes the task, or gives it up, where offered tools could do it
        (app.core.acting) is asked again, at most twice a turn and once more after each call made
        since (four at most), its next step a call where it planned or a call failed."""
        turn = self.turn
        calls = turn.outcome.tool_calls
        progress = sum(1 for c in calls if not c.result.startswith(REFUSED_HERE))
        if progress > self.act_progress:
            # a call made since the last re-ask is progress, or news (a new error to fix): one
            # more re-ask is allowed. Asked twice to act, the 1.5B model described the table it
            # had read, then wrote a plan again; MAX_ACT_TOTAL still bounds them all.
            self.act_asked, self.act_progress = min(self.act_asked, MAX_ACT_REASKS - 1), progress
        if worked or self._only_calculating():
            return False
        # the last call failed or found nothing: its server's tools fix that
        failed = calls[-1] if calls and (calls[-1].failed or empty_result(calls[-1].result)) else None
        fixers = _server_specs(turn, failed.server) if failed is not None else ()
        reask = act_reask(answer, turn.user_text, turn.specs, calls, fixers)
        if reask is None:
            return self._deed_undone()
        told, self.must_call = reask
        retry = told.startswith(RETRY_OPENING)
        over = self.act_asked >= MAX_ACT_REASKS or self.act_total >= MAX_ACT_TOTAL
        if over and not (retry and self.retries < MAX_RETRIES):
            if self.act_asked and CODE_CALL.search(answer):
                # asked to do the task, the model still wrote a program for it: the built-in
                # answered "add a line to todo.md" with create_file_with_output_file_path(...) in
                # a fence, cut off in a loop. Code for a deed no tool did is no answer to show.
                raise BackendError(CODE_FAILURE, category="model")
            return False
        if retry:
            left = unfinished(calls)
            self._retry(left)
            fixes = self._named_fixes(left) if left is not None else ()
            if left is not None and fixes:
                told, self.mentioned, self.must_call = fix_first_reask(left, fixes), fixes, True
            elif left is not None and (deed := self._deed(left)):
                # its fix made, a deed still undone is the next call: asked only, the 1.5B model
                # staged draft.txt, repeated that, and was made to call git_show instead of git_commit
                self.mentioned, self.must_call = (deed,), True
        if failed is not None and told.startswith((FAILED_OPENING, EMPTY_OPENING)):
            self._to_fix(told, failed, fixers)
            self.mentioned = self._named_fixes(failed) or self.mentioned
        if told == REFUSAL_REASK and self.act_asked >= 1 and turn.named:
            # refused twice where the question names a server on offer ("Check my memory",
            # "the shop database"): the next step calls one of its tools
            self.must_call = self.named_only = True
        # a named place no call has used: the next step calls a tool that takes one
        untouched = told.startswith(UNTOUCHED_OPENING)
        self.place = (untouched_place(turn.user_text, calls, turn.specs) or "") if untouched else ""
        if told == ACT_REASK:
            told = self._planned(answer)
        self.act_asked += 1
        self.act_total += 1
        turn.emit(
            ev.Notice,
            message="The model described or gave up the task instead of doing it; it was asked to do it.",
        )
        turn.messages.append(Message("user", told))
        return True

    def _only_calculating(self) -> bool:
        """Only tools that calculate are on offer: the task is a calculation, and an answer that
        made none is asked to calculate, once, with Calculon's readings (needs_reask). Asked to
        act first, the 0.5B model wrote the same words twice more for a story, at 2.5 s each."""
        calculates = getattr(self.turn.s.verifier, "calculates", None)
        specs = self.turn.specs
        return (
            calculates is not None
            and bool(specs)
            and all(calculates(s.name.rsplit(".", 1)[-1]) for s in specs)
        )

    def _deed_undone(self) -> bool:
        """Once a turn: the deed the request opens with, which no call has done, is the next call
        (app.core.deeds); its server's tools are on offer, those that do it first."""
        turn = self.turn
        if self.deed_asked:
            return False
        doers = undone_deed(turn.user_text, turn.outcome.tool_calls, turn.s.tools.list_tools())
        if not doers:
            return False
        self.deed_asked = self.must_call = True
        self.mentioned = tuple(t.name for t in doers)
        servers = {t.server for t in doers}
        self.server_only = servers.pop() if len(servers) == 1 else ""
        turn.emit(
            ev.Notice, message="The deed the request asks for was not done yet; the model was asked to do it."
        )
        turn.messages.append(Message("user", deed_reask(asked_deed(turn.user_text), turn.user_text)))
        return True

    def _to_fix(self, told: str, failed: CallRecord, fixers: tuple[ToolSpec, ...]) -> None:
        """The fix is the failed server's to make: told "no such column", the 1.5B model, offered
        every tool, searched the files for the database. Found nothing again: a look-up of its
        server not made yet is the next call (told to shorten its search, the model made it
        longer four times over)."""
        calls = self.turn.outcome.tool_calls
        self.server_only = failed.server
        if told.startswith(EMPTY_OPENING) and sum(c.tool == failed.tool for c in calls) > 1:
            ran = {c.tool for c in calls}
            self.mentioned = tuple(n for n in lookups(fixers, failed.tool) if n.split(".")[-1] not in ran)

    def _deed(self, call: CallRecord) -> str:
        """The name of the call's tool, where it changes things (app.core.declined); else ""."""
        tools = self.turn.s.tools.list_tools()
        info = next((t for t in tools if t.server == call.server and t.tool == call.tool), None)
        return info.name if info is not None and changes_things(info) else ""

    def _named_fixes(self, failed: CallRecord) -> tuple[str, ...]:
        """The tools of its server a failed call's error names that have not worked since: told
        "No changes staged for commit. Use git_add to stage changes first; git_status shows what
        is currently staged", the 1.5B model ran git_status and git_show, and never git_add."""
        calls = self.turn.outcome.tool_calls
        since = calls[next((i for i, c in enumerate(calls) if c is failed), len(calls)) + 1 :]
        ran = {c.tool for c in since if not c.failed} | {failed.tool}
        named = mentioned_tools(failed.result, _server_specs(self.turn, failed.server))
        return tuple(n for n in named if n.split(".")[-1] not in ran)

    def _planned(self, answer: str) -> str:
        """What a plan is told, and what its next step may call. A plan that names the tool to use
        ("Use the get_time function with the timezone 'Asia/Tokyo'") has chosen it: the next step
        calls it (asked only, the 1.5B model wrote the same plan twice more). A tool that already
        worked has its result above: the request is written out again (made to call evaluate
        again, the model repeated its sum). A plan naming no tool, for a server the question
        names ("the shop database"), calls one of that server's tools (asked only, the model
        described the table it had just read and asked the user to go on); else it is only asked."""
        turn = self.turn
        ran = {c.tool for c in turn.outcome.tool_calls if not c.failed}
        named = mentioned_tools(answer, turn.specs)
        self.mentioned = tuple(n for n in named if n not in ran)
        self.must_call = bool(self.mentioned)
        if named and not self.mentioned:
            return results_reask(turn.user_text)
        calculates = getattr(turn.s.verifier, "calculates", None)
        if not named and calculates is not None and any(calculates(t) for t in ran):
            # the calculation ran ("15 * 6" gave 90) and the answer describes it ("we need to
            # multiply the cost per user by the number of users"): the result is above, answer it
            return results_reask(turn.user_text)
        if not named and ran and not self.calculate_asked and self._data_to_calculate():
            # the data is in hand ("[{'price': 12.75}, {'price': 89.9}, ...]" for "the average
            # price") and the answer describes how to work it out: asked only, the 1.5B model
            # listed the tables and described the table three times over, and never calculated
            self.calculate_asked = self.must_call = self.calculate_only = True
            return self._calculate_reask()
        if not named and turn.named:
            self.must_call = self.named_only = True
        return ACT_REASK

    def _data_to_calculate(self) -> bool:
        """In Calculon mode, the question names an operation or an aggregate ("the average price")
        and a tool's result holds numbers."""
        turn = self.turn
        named = getattr(turn.s.verifier, "asks_an_operation", None)
        if named is None or not (named(turn.user_text) or _AGGREGATE.search(turn.user_text)):
            return False
        return any(DIGIT.search(text) for text in self._read())

    def _read(self) -> list[str]:
        """What the model read this conversation: the tool results, not the user's words."""
        return [s.text for s in self.turn.sources if s.label != USER_SOURCE]

    def _calculate_reask(self) -> str:
        """The re-ask to calculate, with the readings Calculon sees; the next step's reading is due."""
        readings = getattr(self.turn.s.verifier, "readings", None)
        self.reading_due = True
        return calculate_reask(readings(self.turn.user_text, self._read()) if readings is not None else ())

    def _retry(self, left: CallRecord | None) -> None:
        """The deed whose failure was fixed is asked for beyond the re-ask budget, the second
        time as a call of its server's tools: told "No changes staged", the 1.5B model staged the
        file, then answered with the old error's text, its commit never made. The server's, not
        the tool's alone: after git_status only, the fix (git_add) was still to make."""
        self.retries += 1
        if self.retries == MAX_RETRIES and left is not None:
            self.server_only, self.must_call = left.server, True
        self.act_asked = min(self.act_asked, MAX_ACT_REASKS - 1)


def _server_specs(turn: CheckedTurn, server: str) -> tuple[ToolSpec, ...]:
    tools = turn.s.tools.list_tools()
    return tuple(as_spec(t) for t in tools if t.server == server)
