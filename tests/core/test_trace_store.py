"""The trace store closes what a failed or stopped turn left open: no step stays "running"."""

from __future__ import annotations

import pytest

from app.core import events as ev
from app.core.trace import TraceStore


@pytest.mark.parametrize(
    ("cancelled", "failed", "shown"), [(False, True, "error"), (True, False, "cancelled")]
)
def test_a_step_the_turn_ended_inside_is_closed_with_the_turns_status(cancelled, failed, shown) -> None:
    store = TraceStore()
    for event in (
        ev.TurnStarted(turn_id="t", text="Add up the prices in prices.csv."),
        ev.StepStarted(turn_id="t", step=1, offered=(), selected=False),
        ev.TurnError(
            turn_id="t", message="The message is too long for the model's context.", category="context"
        ),
        ev.TurnFinished(turn_id="t", cancelled=cancelled, failed=failed, duration_ms=37.0),
    ):
        store.apply(event)
    step = next(node for node in store.walk() if node.kind == "step")
    assert step.status == shown
    assert [n.status for n in store.walk() if n.status == "running"] == []
