"""Engine events as chat bubbles: a running call's progress bar."""

from __future__ import annotations

from app.core import events as ev
from app.ui.chat_feed import ChatFeed
from app.ui.chat_pane import ChatPane

CALL = {"turn_id": "t1", "call_id": "t1-1", "server": "slow", "tool": "work"}


def test_a_calls_bubble_shows_a_progress_bar_while_it_runs_and_drops_it_when_done(qtbot):
    pane = ChatPane()
    qtbot.addWidget(pane)
    feed = ChatFeed(pane)
    feed.handle(ev.ToolCallStarted(**CALL, arguments={"steps": 4}))
    bubble = feed._calls["t1-1"]
    feed.handle(ev.ToolCallProgress(**CALL, progress=3, total=4, message="step 3"))
    bar = bubble.progress_bar
    assert not bar.isHidden() and bar.value() == 750 and bar.text() == "3/4 (75%) step 3"
    feed.handle(ev.ToolCallProgress(**CALL, progress=5))  # no total: the bar cannot say how far
    assert (bar.minimum(), bar.maximum()) == (0, 0)
    feed.handle(ev.ToolCallFinished(**CALL, arguments={}, result="ok", is_error=False, duration_ms=1))
    assert bar.isHidden() and "t1-1" not in feed._calls
