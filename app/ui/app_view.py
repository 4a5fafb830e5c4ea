"""An MCP App in the chat: rendered sandboxed where Qt WebEngine can run, else shown as text.

The feed calls :class:`AppViews` for each ``AppReady``. Where WebEngine cannot run here,
:func:`webengine_problem` says why in one sentence and the page's HTML is shown as plain,
escaped text (never rendered): PySide6-Addons missing, no display, or running as root
(Chromium's sandbox refuses root, and Calculon never turns the sandbox off). The WebEngine
side lives in :mod:`app.ui.app_web`, imported only when it can run.

Before a view goes (the chat cleared, the window closed), :mod:`app.ui.app_teardown` tells its
page and waits a bounded time for it.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.core import events as ev
from app.mcp.app_bridge import AppBridge
from app.ui import theme
from app.ui.text_view import TextView

logger = logging.getLogger(__name__)

BridgeFactory = Callable[[ev.AppReady], AppBridge]


def webengine_problem() -> str | None:
    """Why an MCP App cannot be rendered here, in one sentence; None when it can."""
    if getattr(sys, "frozen", False):
        return "this build of Calculon has no Qt WebEngine (run it from source for MCP Apps)."
    if importlib.util.find_spec("PySide6.QtWebEngineWidgets") is None:
        return "Qt WebEngine is not installed (pip install PySide6-Addons)."
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return "Qt WebEngine's sandbox refuses to run as root, and Calculon does not turn the sandbox off."
    platform = QGuiApplication.platformName()
    if platform in ("offscreen", "minimal", ""):
        return f"there is no display with OpenGL for Qt WebEngine (Qt platform {platform or 'none'!r})."
    return None


class AppFallback(QWidget):
    """The sentence saying why the app is not rendered, and its page as plain text."""

    def __init__(self, app: ev.AppReady, problem: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("appFallback")
        self.reason = QLabel(f"The app {app.uri} is shown as text: {problem}", self)
        self.reason.setTextFormat(Qt.TextFormat.PlainText)
        self.reason.setWordWrap(True)
        self.page = TextView(self)
        self.page.set_plain(app.html)  # plain text: nothing in it is rendered, loaded or run
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 4, 0, 0)
        column.addWidget(self.reason)
        column.addWidget(self.page)


class AppViews:
    """Makes the widget for each app: the sandboxed view, or the fallback with its reason.

    ``bridge(app)`` gives the host side the view talks to (``Engine.app_bridge``).
    """

    def __init__(self, bridge: BridgeFactory, problem: Callable[[], str | None] = webengine_problem) -> None:
        self.bridge = bridge
        self.problem = problem

    def __call__(self, app: ev.AppReady, parent: QWidget | None = None) -> QWidget:
        problem = self.problem()
        if problem is not None:
            logger.info("app %s shown as text: %s", app.uri, problem)
            return AppFallback(app, problem, parent)
        from app.ui.app_web import AppWebView

        bridge = self.bridge(app)
        bridge.theme = "dark" if theme.is_dark() else "light"
        return AppWebView(app, bridge, parent)
