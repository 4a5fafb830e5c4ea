"""An MCP App in the chat where Qt WebEngine cannot run (here: as root, offscreen): one sentence
says why, and the page is shown as plain text, never rendered. The real rendering, as an
unprivileged user under Xvfb, is tests/ui/test_app_render.py."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import json
import time
from typing import Any

from PySide6.QtWidgets import QLabel, QWidget

from app.core import events as ev
from app.core.approvals import Approvals
from app.core.asking import Asker
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.engine import Engine
from app.llm.scripted import ScriptedBackend
from app.mcp.app_bridge import AppBridge
from app.settings import Settings
from app.ui import app_teardown, app_view
from app.ui.app_view import AppFallback, AppViews, webengine_problem
from app.ui.bubbles import PlainBubble
from app.ui.chat_feed import ChatFeed
from app.ui.chat_pane import ChatPane
from app.ui.history_view import show_events
from app.ui.main import build_window
from tests.mcp.helpers import script_entry

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
    monkeypatch.setattr(app_view.sys, "frozen", True, raising=False)  # the bundle leaves WebEngine out
    assert (
        webengine_problem() == "this build of Calculon has no Qt WebEngine (run it from source for MCP Apps)."
    )


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


def test_in_the_window_as_root_a_real_servers_app_is_read_and_shown_as_text_under_its_result(
    qtbot, arun, tmp_path, monkeypatch
):
    monkeypatch.setattr(app_view.os, "geteuid", lambda: 0)  # as this machine runs: root
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"apps": script_entry("apps", "app_ui.py").to_json()}}))
    call = ToolCallChunk(ToolCall("c1", "show_sum", {"a": 2, "b": 3}))
    backend = ScriptedBackend([[call], ["It is 5."], [call], ["Still 5."]])
    settings = Settings(strict=False, tool_approvals={"apps.show_sum": "always"})
    engine = Engine(settings, servers_path=path, backend=backend)
    window = build_window(engine, settings)
    qtbot.addWidget(window)
    try:
        window.controller.submit("2 + 3 in the app, please")
        qtbot.waitUntil(lambda: window.findChild(AppFallback) is not None, timeout=60_000)
        fallback = window.findChild(AppFallback)
        assert "refuses to run as root" in fallback.reason.text()
        assert "<h2>Sum app</h2>" in fallback.page.toPlainText()
        result = next(b for b in window.chat.bubbles() if b.kind == "tool_result")
        assert result.findChild(AppFallback) is fallback and '"sum": 5' in result.text()
        opener = window.feed.open_app
        show_events(window, [])  # another conversation: the chat is cleared, apps keep opening after it
        assert window.feed.open_app is opener and not window.chat.bubbles()
        window.controller.submit("and again")
        qtbot.waitUntil(lambda: window.findChild(AppFallback) is not None, timeout=60_000)
    finally:
        arun(engine.aclose(), timeout=30)


class PageStandIn(QWidget):
    """Stands in for the web view, which Qt WebEngine cannot run here (root): the same teardown
    path (app_teardown.tear_down) and a real AppBridge; where the real page (tests/mcp/servers/app_ui.py)
    would answer ui/resource-teardown, this answers it through the bridge a moment later, or never."""

    def __init__(self, bridge: AppBridge, answers: bool) -> None:
        super().__init__()
        self.bridge, self.answers = bridge, answers
        self.told: list[dict[str, Any]] = []

    def teardown(self, reason: str) -> None:
        app_teardown.tear_down(self, self.bridge, self._page_gets, reason)

    def _page_gets(self, text: str) -> None:
        message = json.loads(text)
        self.told.append(message)
        if self.answers:
            answer = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {}})
            asyncio.get_running_loop().call_later(0.2, self._answer, answer)

    def _answer(self, answer: str) -> None:
        self.answered = asyncio.ensure_future(self.bridge.receive(answer))


def test_closing_the_window_tells_each_live_page_and_waits_a_bounded_time_for_them_to_go(qtbot, arun):
    from app.core.session import ChatSession
    from app.ui.controller import ChatController
    from app.ui.main_window import MainWindow
    from tests.ui.conftest import FakeTools, SessionRunner

    runner = SessionRunner(ChatSession(ScriptedBackend([]), FakeTools({})))
    window = MainWindow(ChatController(runner), gpu_probe=None)
    qtbot.addWidget(window)
    window.show()
    asker = Asker(None)
    pages: list[PageStandIn] = []

    def open_app(app: ev.AppReady, parent: QWidget) -> QWidget:
        page = PageStandIn(AppBridge(app, {}, Approvals(asker), asker), answers=not pages)
        pages.append(page)
        return page

    window.feed.open_app = open_app
    for call_id in ("t1-1", "t1-2"):
        call = {**CALL, "call_id": call_id}
        finished = ev.ToolCallFinished(**call, arguments={}, result="5", is_error=False, duration_ms=1)
        window.feed.handle(finished)
        window.feed.handle(dataclasses.replace(ready(), call_id=call_id))
    answering, silent = pages
    gone_at: dict[str, float] = {}
    answering.destroyed.connect(lambda: gone_at.setdefault("answering", time.monotonic()))
    silent.destroyed.connect(lambda: gone_at.setdefault("silent", time.monotonic()))
    started = time.monotonic()
    window.close()
    for page in pages:
        (told,) = page.told
        assert told["method"] == "ui/resource-teardown"
        assert told["params"] == {"reason": "the window is closing"}
    assert arun(app_teardown.wait_closed(), timeout=10) is True
    waited = time.monotonic() - started
    assert answering.bridge.torn_down and not silent.bridge.torn_down
    wait_s = app_teardown.TEARDOWN_WAIT_MS / 1000
    assert gone_at["answering"] - started < wait_s / 2  # it went on its answer...
    assert wait_s - 0.2 < gone_at["silent"] - started <= waited < wait_s + 1  # ...the other after its wait
    assert arun(app_teardown.wait_closed(), timeout=5) is True  # nothing left to wait for
