"""The notification budget: per second, a note for what it dropped, replies never counted."""

from __future__ import annotations

from app.mcp.flood import NotificationBudget


class Clock:
    """A clock the test moves by hand (the budget's windows are seconds long)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_past_the_budget_a_seconds_notifications_are_dropped_and_counted_in_one_note():
    notes: list[int] = []
    clock = Clock()
    budget = NotificationBudget(notes.append, per_second=3, clock=clock)
    assert [budget.allow("notifications/progress") for _ in range(5)] == [True] * 3 + [False] * 2
    assert budget.allow("notifications/cancelled")  # a server withdrawing its request always passes
    assert budget.allow("notifications/subscriptions/acknowledged")  # listen's answer too
    assert notes == []
    clock.now = 1.5
    assert budget.allow("notifications/message")  # a new second, a new budget
    assert notes == [2]
    budget.flush()
    assert notes == [2]  # nothing more was dropped: no second note


def test_a_flush_tells_the_drops_of_the_second_still_running():
    notes: list[int] = []
    budget = NotificationBudget(notes.append, per_second=1, clock=Clock())
    budget.allow("a"), budget.allow("b"), budget.allow("c")
    budget.flush()
    assert notes == [2] and not budget.allow("d")  # the second's budget stays spent
