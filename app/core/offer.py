"""What one step of a turn offers the model: the ranked tools, narrowed by what the turn has learnt.

A calculation that worked nothing out withdraws its server for the turn (app.calculon.idle); a step
made to calculate offers the calculating tools only; a step made to call after refusals offers the
servers the question names, or the tools its plan named; a question naming a file or page opens
with the servers that take one. A time-zone argument takes only the zones the question names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from app.core import events as ev
from app.core.acting import opens_with_call, place_servers
from app.core.messages import ToolSpec
from app.core.tools import ToolInfo
from app.core.zones import with_zones

Offered = list[tuple[ToolInfo, float]]


class OfferingTurn(Protocol):
    """What the narrowing uses of the running turn (app.core.session's _Turn)."""

    s: Any  # the ChatSession: its verifier and selector
    check: Any  # the turn's AnswerCheck: what the last re-ask asked for
    user_text: str
    idle_server: str
    named: tuple[str, ...]
    zones: list[str]  # the time zones the question names (app.core.zones), with UTC
    zones_told: bool

    def emit(self, event_cls: type[ev.Event], **fields: Any) -> None: ...


def as_spec(tool: ToolInfo) -> ToolSpec:
    return ToolSpec(tool.name, tool.description, tool.input_schema)


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
    return specs


def narrowed(turn: OfferingTurn, offered: Offered, step_no: int) -> tuple[Offered, bool]:
    """The step's tools, and whether the step must open with a call of one (a file or page named)."""
    offered = [(t, score) for t, score in offered if t.server != turn.idle_server]
    calculates = getattr(turn.s.verifier, "calculates", None)
    if turn.check.calculate_only and calculates is not None:
        offered = _only(offered, lambda t: bool(calculates(t.tool)))
    if turn.check.named_only:
        offered = _only(offered, lambda t: t.server in turn.named)
    if turn.check.mentioned:
        offered = _only(offered, lambda t: t.name in turn.check.mentioned)
    if turn.check.places_only:
        taking = place_servers(offered)
        offered = _only(offered, lambda t: t.server in taking)
    turn.check.calculate_only = turn.check.named_only = turn.check.places_only = False
    turn.check.mentioned = ()
    if step_no != 1:
        return offered, False
    naming = getattr(turn.s.selector, "named_servers", None)
    turn.named = tuple(naming(turn.user_text, [t for t, _ in offered])) if naming else ()
    if not opens_with_call(turn.user_text, [as_spec(t) for t, _ in offered]):
        return offered, False
    places = place_servers(offered)  # the named file or page comes first
    return [(t, score) for t, score in offered if t.server in places], True


def _only(offered: Offered, fits: Callable[[ToolInfo], bool]) -> Offered:
    """The offered tools that fit, or all of them where none does."""
    return [(t, score) for t, score in offered if fits(t)] or offered
