"""An MCP App in the chat where Qt WebEngine cannot run (here: as root, offscreen): one sentence
says why, and the page is shown as plain text, never rendered. The real rendering, as an
unprivileged user under Xvfb, is tests/ui/test_app_render.py."""

from __future__ import annotations

import importlib.util

from PySide6.QtWidgets import QLabel

from app.core import events as ev
from app.ui import app_view
from app.ui.app_view import AppFallback, AppViews, webengine_problem
from app.ui.bubbles import PlainBubble
from app.ui.chat_feed import ChatFeed
from app.ui.chat_pane import ChatPane

CALL = {"turn_id": "t1", "call_id": "t1-1", "server": "apps", "tool": "show_sum"}
PAGE = '<!DOCTYPE html><p onclick="x()">Sum: <b>5</b></p><script>fetch("https://evil.example/")</script>'


def ready() -> ev.AppReady:
    return ev.AppReady(
        **CALL,
        uri="ui://sum/app.html",
        html=PAGE,
        csp={},
        permissions={},
        prefers_border=None,
        arguments={"a": 2, "b": 3},
        result={"content": [{"type": "text", "text": "5"}], "isError": False},
        definition={"name": "show_sum"},
    )


def no_bridge(app: ev.AppReady) -> object:
    raise AssertionError("the fallback needs no bridge: nothing in it can call anything")


def test_as_root_the_reason_is_the_sandbox_which_calculon_does_not_turn_off(monkeypatch):
    monkeypatch.setattr(app_view.os, "geteuid", lambda: 0)
    problem = webengine_problem()
    assert (
        problem
        == "Qt WebEngine's sandbox refuses to run as root, and Calculon does not turn the sandbox off."
    )


def test_without_a_display_or_the_addons_the_reason_says_so(monkeypatch, qapp):
    monkeypatch.setattr(app_view.os, "geteuid", lambda: 1000)
    assert (
        webengine_problem() == "there is no display with OpenGL for Qt WebEngine (Qt platform 'offscreen')."
    )
    real = importlib.util.find_spec
    monkeypatch.setattr(
        app_view.importlib.util, "find_spec", lambda name: None if "WebEngine" in name else real(name)
    )
    assert webengine_problem() == "Qt WebEngine is not installed (pip install PySide6-Addons)."


def test_the_app_is_shown_as_escaped_text_under_its_result_with_the_reason(qtbot):
    pane = ChatPane()
    qtbot.addWidget(pane)
    feed = ChatFeed(pane)
    feed.open_app = AppViews(no_bridge)  # type: ignore[arg-type]
    feed.handle(
        ev.ToolCallFinished(**CALL, arguments={"a": 2, "b": 3}, result="5", is_error=False, duration_ms=1)
    )
    feed.handle(ready())
    (bubble,) = [b for b in pane.bubbles() if isinstance(b, PlainBubble)]
    assert bubble.title.endswith("· app ui://sum/app.html")
    fallback = bubble.findChild(AppFallback)
    assert fallback is not None
    reason = fallback.findChild(QLabel)
    assert reason is not None and reason.text() == (
        "The app ui://sum/app.html is shown as text: Qt WebEngine's sandbox refuses to run as root, "
        "and Calculon does not turn the sandbox off."
    )
    assert fallback.page.toPlainText() == PAGE  # the markup itself, as characters: nothing rendered


def test_a_saved_conversation_shows_no_app_and_a_stray_app_event_is_ignored(qtbot):
    pane = ChatPane()
    qtbot.addWidget(pane)
    feed = ChatFeed(pane)  # no open_app: a conversation read back from history has no live server
    feed.handle(ev.ToolCallFinished(**CALL, arguments={}, result="5", is_error=False, duration_ms=1))
    feed.handle(ready())
    assert pane.findChild(AppFallback) is None
    other = ChatFeed(pane)
    other.open_app = AppViews(no_bridge)  # type: ignore[arg-type]
    other.handle(ready())  # its call's result never shown here
    assert pane.findChild(AppFallback) is None
