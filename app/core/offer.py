"""What one step of a turn offers the model: the ranked tools, narrowed by what the turn has learnt.

A calculation that worked nothing out withdraws its server for the turn (app.calculon.idle); a step
made to calculate offers the calculating tools only; a step made to call after refusals offers the
servers the question names, or the tools its plan named; a question naming a file or page opens
with the servers that take one. A time-zone argument takes only the zones the question names; a
deed the request rules out ("without committing") is not offered (app.core.declined).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from app.core import events as ev
from app.core.acting import opens_with_call
from app.core.declined import changes_things, declined_verbs, only_asks, rules_out
from app.core.messages import ToolSpec
from app.core.places import place_servers, takes_place, with_place
from app.core.toolrun import REFUSED_HERE
from app.core.tools import Source, ToolInfo, ToolSelector
from app.core.zones import asks_of_time, gives_clock_time, keeps_time, takes_clock_time, with_zones

Offered = list[tuple[ToolInfo, float]]
Standing = Callable[[str, str], bool]  # whether a tool (its server, its bare name) can be called this step


class OfferingTurn(Protocol):
    """What the narrowing uses of the running turn (app.core.session's _Turn)."""

    s: Any  # the ChatSession: its verifier and selector
    check: Any  # the turn's AnswerCheck: what the last re-ask asked for
    user_text: str
    idle_server: str
    named: tuple[str, ...]
    zones: list[str]  # the time zones the question names (app.core.zones), with UTC
    zones_told: bool
    outcome: Any  # the turn's TurnOutcome: the calls made so far
    listed: tuple[ToolSpec, ...]  # the tools the prompt has listed so far this turn
    formula: Any  # the calculation Calculon mode read in the user's words (FormulaHint), or None

    def all_sources(self) -> list[Source]: ...  # the user's words and the conversation's results

    def emit(self, event_cls: type[ev.Event], **fields: Any) -> None: ...


def as_spec(tool: ToolInfo) -> ToolSpec:
    return ToolSpec(tool.name, tool.description, tool.input_schema, tool.server)


def step_specs(turn: OfferingTurn, offered: Offered) -> tuple[ToolSpec, ...]:
    """The offered tools as the model sees them: a time-zone argument held to the zones the
    question names (said once a turn, in the trace)."""
    specs = tuple(with_zones(as_spec(t), turn.zones) for t, _ in offered)
    held = any(s.input_schema is not t.input_schema for s, (t, _) in zip(specs, offered, strict=True))
    if held and not turn.zones_told:
        turn.zones_told = True
        zones = ", ".join(turn.zones)
        turn.emit(
            ev.Notice, message=f"Time-zone arguments may only name the zones of your question: {zones}."
        )
    place, turn.check.place = turn.check.place, ""  # held for this step only
    return tuple(with_place(s, place) for s in specs) if place else specs


def ranked_offer(
    selector: ToolSelector | None, every: list[ToolInfo], context: str, keep: Callable[[ToolInfo], bool]
) -> tuple[Offered, bool]:
    """The tools retrieval ranks for the step, and whether it chose among them. Those the request
    rules out (``keep`` says no: :func:`ruled_out`) take no place of one it can use: the next ranked
    of the same servers fill their places, and they stay in the list for the narrowing to drop and
    name. For "How many commits are in the git repository?" git_commit and git_add ranked first and
    second, and git_log, 7th, was never offered. The same servers only: for "How many lines in
    server.log are ERROR lines?" edit_file's place went to git_log (the file is a log), and the
    1.5B model called it on the file. A tool the step cannot call for now (a calculator withdrawn,
    or with no number yet) leaves its place empty: refilled, a calculator withdrawn after the sum
    was made gave its place to the memory server's add_observations, and the 1.5B model wrote the
    total into memory."""
    chosen = selector.select(context, every) if selector is not None else None
    if chosen is None:
        return [(t, 1.0) for t in every], False
    chosen = _by_time_of_day(context, chosen)
    dropped = [(t, score) for t, score in chosen if not keep(t)]
    if not dropped:
        return chosen, True
    taken, servers = {t.name for t, _ in chosen}, {t.server for t, _ in chosen}
    spare = [t for t in every if keep(t) and t.server in servers and t.name not in taken]
    kept = [(t, score) for t, score in chosen if keep(t)]
    return [*dropped, *kept, *_next_ranked(selector, context, spare, len(dropped))], True


def _by_time_of_day(context: str, chosen: Offered) -> Offered:
    """Where the request gives a time of day, the tools that need one (app.core.zones.
    takes_clock_time) come first. For "If it's 9:30 in New York, what time is that in London?"
    get_current_time ranked above convert_time, and a call of it leaves the 9:30 unused. Where it
    gives none they keep their place: put last for "How many hours ahead of London is Tokyo right
    now?", the 1.5B model converted noon from UTC to each city and answered 0 hours, where with
    convert_time first it had converted a time of its own choosing from London to Tokyo, right."""
    if not gives_clock_time(context):
        return chosen
    return sorted(chosen, key=lambda pair: not takes_clock_time(pair[0].input_schema))


def _next_ranked(selector: ToolSelector | None, context: str, tools: list[ToolInfo], count: int) -> Offered:
    """The best ``count`` of ``tools`` by the selector's own ranking; none from a selector that
    cannot rank a list (a threshold would offer all of a server's tools where a few were wanted)."""
    rank = getattr(selector, "rank", None)
    if rank is None or not tools:
        return []
    return [(r.tool, r.score) for r in rank(context, tools, count)]


def listed(turn: OfferingTurn, ranked: Offered, offered: Offered, stays: Standing) -> tuple[ToolSpec, ...]:
    """The tools the step's prompt lists: those listed at the turn's earlier steps, then the ones
    retrieval ranked and the step may call that are new. Narrowing changes what a step may call
    (``offered``), not this list, so the local model reads its prompt's opening once a turn."""
    names = {s.name for s in turn.listed}
    out = ruled_out(turn.user_text)
    new = []
    for tool, _ in [*ranked, *offered]:
        if tool.name not in names and not out(tool):
            names.add(tool.name)
            new.append(with_zones(as_spec(tool), turn.zones))
    turn.listed = (*turn.listed, *new)
    # a tool the whole step cannot call leaves the prompt too (once or twice a turn, unlike the
    # narrowing): listed still, the calculator refused for a count the app had made, the 1.5B
    # model opened its call again and was made to call another tool, read_text_file, instead
    return tuple(s for s in turn.listed if stays(s.server, s.name.rsplit(".", 1)[-1]))


def narrowed(turn: OfferingTurn, offered: Offered, step_no: int, stays: Standing) -> tuple[Offered, bool]:
    """The step's tools, and whether the step must open with a call of one (a file or page named)."""
    offered = [(t, score) for t, score in offered if stays(t.server, t.tool)]
    check = turn.check
    if check.server_only:  # every tool of the server whose call failed (the filters below may narrow it)
        offered = _fixers(turn, offered)
    elif not (check.calculate_only or check.named_only or check.mentioned or check.place):
        # nothing asked of this step: each server a call failed at this turn brings its other tools
        offered = _with_fixers(turn, offered)
    calculates = getattr(turn.s.verifier, "calculates", None)
    if check.calculate_only and calculates is not None:
        offered = _only(offered, lambda t: bool(calculates(t.tool)))
    if check.named_only:
        offered = _only(offered, lambda t: t.server in turn.named)
    if check.mentioned:
        offered = _only(offered, lambda t: t.name in check.mentioned)
    if check.place:
        # the tools that can take the named place no call has used: their place held to it
        # (app.core.places.with_place). Made to call another tool, the 1.5B model read the
        # log it had read again, with read_file, where the count was to be saved in errors.txt
        offered = _only(offered, lambda t: takes_place(as_spec(t)))
    check.calculate_only = check.named_only = False
    check.server_only, check.mentioned = "", ()
    offered = _declined(turn, offered, step_no)
    if step_no != 1:
        return offered, False
    naming = getattr(turn.s.selector, "named_servers", None)
    turn.named = tuple(naming(turn.user_text, [t for t, _ in offered])) if naming else ()
    if not opens_with_call(turn.user_text, [as_spec(t) for t, _ in offered]):
        return offered, False
    places = place_servers(offered)  # the named file or page comes first
    return [(t, score) for t, score in offered if t.server in places], True


def standing(turn: OfferingTurn) -> Standing:
    """Whether a tool (its server, its bare name) can be called at all this step: not where its
    calculation was refused this turn (app.calculon.idle), nor a calculating tool while the turn
    holds no number. After creating a folder, the 1.5B model opened a call of evaluate, whose
    expression may only hold the conversation's numbers, and went round in a loop inside it for
    512 tokens (3 of 47 real tasks). Nor while the request asks a deed and no number worked out."""
    calculates = getattr(turn.s.verifier, "calculates", None)
    numbered = getattr(turn.s.verifier, "holds_numbers", None)
    deed = getattr(turn.s.verifier, "asks_a_deed", None)
    if calculates is not None and deed is not None and deed(turn.user_text):
        # "Add a product ..., priced 19.99, with 4 in stock, to the products table": offered the
        # calculator, the built-in called add(4, 19.99) and answered 23.99, the table untouched
        return lambda server, tool: server != turn.idle_server and not calculates(tool)
    # "How many cups are in a gallon?" holds no digit, yet its words name a conversion
    asked = turn.formula is not None
    if calculates is None or numbered is None or asked or numbered([s.text for s in turn.all_sources()]):
        return lambda server, tool: server != turn.idle_server
    return lambda server, tool: server != turn.idle_server and not calculates(tool)


def _only(offered: Offered, fits: Callable[[ToolInfo], bool]) -> Offered:
    """The offered tools that fit, or all of them where none does."""
    return [(t, score) for t, score in offered if fits(t)] or offered


def _fixers(turn: OfferingTurn, offered: Offered) -> Offered:
    """Every tool of the server whose call failed, those retrieval ranked first: told "no such
    column: quantity", the fix (describe_table) was not among the five tools retrieved."""
    server = turn.check.server_only
    scores = {t.name: score for t, score in offered if t.server == server}
    tools = [t for t in turn.s.tools.list_tools() if t.server == server]
    return sorted(((t, scores.get(t.name, 0.0)) for t in tools), key=lambda pair: -pair[1]) or offered


def ruled_out(asked: str) -> Callable[[ToolInfo], bool]:
    """Whether the request rules a tool out: a deed it declines, a change where it only asks, or
    a tool with a time-zone argument where it asks nothing of time. Asked what 6 users of a $15
    plan cost, the 1.5B model had its 90 refused as an idle "90 + 0", then called convert_time
    from UTC to New York and answered with the hours between them."""
    said, timeless = _said_out(asked), not asks_of_time(asked)
    return lambda tool: said(tool) or (timeless and keeps_time(tool.input_schema))


def _said_out(asked: str) -> Callable[[ToolInfo], bool]:
    """The part of :func:`ruled_out` the trace names: a deed declined, or a change where it only
    asks. A clock left out goes unsaid, as retrieval's choices do: said under every story, it was
    noise in the chat."""
    stems, asks = declined_verbs(asked), only_asks(asked)
    return lambda tool: bool(stems and rules_out(tool, stems)) or (asks and changes_things(tool))


def _declined(turn: OfferingTurn, offered: Offered, step_no: int) -> Offered:
    """The tools left once those the request rules out are gone (said in the trace at step 1)."""
    out = ruled_out(turn.user_text)
    kept = [(t, score) for t, score in offered if not out(t)]
    if step_no == 1 and len(kept) < len(offered):
        said = _said_out(turn.user_text)
        gone = [t for t, _ in offered if said(t)]
        why = "only asks, and these change things" if only_asks(turn.user_text) else "rules it out"
        if gone:
            names = ", ".join(t.name for t in gone)
            turn.emit(ev.Notice, message=f"Not offered, as your request {why}: {names}.")
    return kept


def _with_fixers(turn: OfferingTurn, offered: Offered) -> Offered:
    """The offer, and every tool of each server a call failed at this turn: made to call again
    after "no such column", the model had only list_tables, already run, where describe_table
    would have shown the columns. Kept for the rest of the turn, fixed or not: each change to
    the tools offered has the local model read the whole conversation again."""
    calls = turn.outcome.tool_calls
    servers = {c.server for c in calls if c.failed and not c.result.startswith(REFUSED_HERE)}
    if not servers:
        return offered
    have = {t.name for t, _ in offered}
    extra = [(t, 0.0) for t in turn.s.tools.list_tools() if t.server in servers and t.name not in have]
    return offered + extra
