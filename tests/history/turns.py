"""Engine events of made-up turns, for tests of what is stored, shown and exported."""

from __future__ import annotations

from typing import Any

from app.core import events as ev


def call_events(
    turn_id: str, call: str, arguments: dict[str, Any], result: str, server: str = "calc", tool: str = "add"
) -> list[ev.Event]:
    """A tool call's start and finish."""
    named = {"turn_id": turn_id, "call_id": f"{turn_id}-{call}", "server": server, "tool": tool}
    return [
        ev.ToolCallStarted(**named, arguments=arguments),
        ev.ToolCallFinished(**named, arguments=arguments, result=result, is_error=False, duration_ms=1.5),
    ]


def a_turn(turn_id: str, question: str, answer: str) -> list[ev.Event]:
    """A question, one step calling add(2, 40), and a verified answer."""
    return [
        ev.TurnStarted(turn_id=turn_id, text=question),
        ev.StepStarted(turn_id=turn_id, step=1, offered=(("add", 1.0),)),
        ev.StepFinished(turn_id=turn_id, step=1, tokens=3, duration_ms=2.0),
        *call_events(turn_id, "c1", {"a": 2, "b": 40}, "42"),
        ev.StepStarted(turn_id=turn_id, step=2),
        ev.TextDelta(turn_id=turn_id, text=answer),
        ev.StepFinished(turn_id=turn_id, step=2, tokens=1, duration_ms=2.0),
        ev.AnswerReady(turn_id=turn_id, text=answer, verified=True, backing=(("42", "add(2, 40)"),)),
        ev.TurnFinished(turn_id=turn_id, duration_ms=9.0),
    ]
