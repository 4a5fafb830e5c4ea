"""The sandboxed Qt WebEngine view of one MCP App (imported only where WebEngine can run).

How the page is held in:

- its own off-the-record profile (no disk: no cookies, cache or storage kept), JavaScript on
  in that profile only; no file access, no popups or new windows, no clipboard, no
  downloads, no permission (camera, location...) ever granted, no navigation away;
- the page runs in an ``<iframe sandbox="allow-scripts">`` of a host page of ours: an opaque
  origin (so no storage at all), the parent it posts JSON-RPC to is ours, as the spec's
  desktop hosts do;
- network: the CSP built from what the page declares (:func:`app.mcp.apps.content_security_policy`)
  on the host page, which its ``srcdoc`` frame inherits, and in the page itself; and a request
  interceptor that blocks every request to an origin the page did not declare;
- the bridge: a script of ours in an isolated world (the page cannot reach it) relays the
  frame's messages to :class:`app.mcp.app_bridge.AppBridge` through a QWebChannel, and posts
  the answers back;
- height: starts at :data:`START_HEIGHT`, follows ``size-changed`` up to ``MAX_HEIGHT``; in
  fullscreen (``ui/request-display-mode``) the view fills the chat's visible height until the page
  asks for inline again or the user presses Escape. Picture-in-picture is never granted.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
from typing import Any

import shiboken6
from PySide6.QtCore import QFile, QIODevice, QObject, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import (
    QWebEngineDownloadRequest,
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineScript,
    QWebEngineSettings,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
)
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QScrollArea, QSizePolicy, QWidget

from app.core import events as ev
from app.mcp.app_bridge import MAX_HEIGHT, AppBridge
from app.mcp.apps import allowed_by, content_security_policy, declared_origins, with_policy
from app.ui.app_teardown import tear_down

logger = logging.getLogger(__name__)

START_HEIGHT = 160
MIN_HEIGHT = 48
_LOCAL_SCHEMES = ("data", "about", "blob")  # the host page, its srcdoc frame, what the page makes itself

_OFF = (
    "LocalContentCanAccessFileUrls",
    "LocalContentCanAccessRemoteUrls",
    "JavascriptCanOpenWindows",
    "JavascriptCanAccessClipboard",
    "JavascriptCanPaste",
    "LocalStorageEnabled",
    "PluginsEnabled",
    "ScreenCaptureEnabled",
    "AllowWindowActivationFromJavaScript",
    "FullScreenSupportEnabled",
    "PdfViewerEnabled",
    "NavigateOnDropEnabled",
    "AllowRunningInsecureContent",
    "AllowGeolocationOnInsecureOrigins",
    "AutoLoadIconsForPage",
    "TouchIconsEnabled",
    "DnsPrefetchEnabled",
)

HOST_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<style>html, body {{ margin: 0; padding: 0; overflow: hidden; }}
iframe {{ border: 0; width: 100%; height: 100vh; display: block; }}</style></head>
<body><iframe id="app" sandbox="allow-scripts" title="MCP App"></iframe></body></html>"""

# Runs in an isolated world: the app's scripts (in the frame) cannot see qt.webChannelTransport.
RELAY = """
new QWebChannel(qt.webChannelTransport, function (channel) {
  var bridge = channel.objects.bridge;
  var frame = document.getElementById("app");
  bridge.to_page.connect(function (text) { frame.contentWindow.postMessage(JSON.parse(text), "*"); });
  window.addEventListener("message", function (event) {
    if (event.source !== frame.contentWindow) { return; }
    var text;
    try { text = JSON.stringify(event.data); } catch (e) { return; }
    if (typeof text === "string") { bridge.from_page(text); }
  });
  bridge.page(function (page) { frame.srcdoc = page; });
});
"""


class RequestFilter(QWebEngineUrlRequestInterceptor):
    """Blocks every request but the page's own and those to origins its CSP declares."""

    def __init__(self, csp: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.declared = declared_origins(csp)
        self.blocked: list[str] = []

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        url = info.requestUrl()
        if url.scheme().lower() in _LOCAL_SCHEMES or allowed_by(self.declared, url.toString()):
            return
        self.blocked.append(url.toString())
        logger.info("an MCP App's request to %s was blocked: its CSP does not declare it", url.toString())
        info.block(True)


class SandboxedPage(QWebEnginePage):
    """Loads the host page once; every other navigation, new window and permission is refused."""

    def __init__(self, profile: QWebEngineProfile, parent: QObject | None = None) -> None:
        super().__init__(profile, parent)
        self._loaded = False
        self.permissionRequested.connect(lambda permission: permission.deny())
        self.fileSystemAccessRequested.connect(lambda request: request.reject())

    def acceptNavigationRequest(
        self, url: QUrl | str, kind: QWebEnginePage.NavigationType, main: bool
    ) -> bool:
        target = QUrl(url)
        if main and not self._loaded:
            self._loaded = True  # setHtml's own load
            return True
        if not main and target.scheme() == "about":  # the frame's about:blank and about:srcdoc
            return True
        logger.info("an MCP App tried to navigate to %s; refused", target.toString())
        return False

    def createWindow(self, _kind: QWebEnginePage.WebWindowType) -> QWebEnginePage:
        return None  # type: ignore[return-value]  # Qt's "no window": a popup or target=_blank opens nothing

    def javaScriptConsoleMessage(self, level: Any, message: str, line: int, source: str) -> None:
        logger.debug("MCP App console (%s:%d): %s", source, line, message)


class Relay(QObject):
    """What the relay script sees: the page to load, and the bridge's JSON-RPC both ways."""

    to_page = Signal(str)

    def __init__(self, page_html: str, bridge: AppBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._html = page_html
        self.bridge = bridge
        self._answering: set[asyncio.Future[None]] = set()

    @Slot(result=str)
    def page(self) -> str:
        return self._html

    @Slot(str)
    def from_page(self, text: str) -> None:
        task = asyncio.ensure_future(self._answer(text))
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)

    async def _answer(self, text: str) -> None:
        answers = await self.bridge.receive(text)  # may wait on the user (an approval card)
        if not shiboken6.isValid(self):
            return  # the view went (a new conversation) while the user was asked
        for message in answers:
            self.to_page.emit(json.dumps(message))


def _relay_script() -> QWebEngineScript:
    source = QFile(":/qtwebchannel/qwebchannel.js")
    if not source.open(QIODevice.OpenModeFlag.ReadOnly):
        raise RuntimeError("qwebchannel.js is missing from QtWebChannel's resources")
    script = QWebEngineScript()
    script.setName("mcp-app-relay")
    script.setSourceCode(bytes(source.readAll().data()).decode("utf-8") + RELAY)
    source.close()
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentReady)
    script.setWorldId(QWebEngineScript.ScriptWorldId.ApplicationWorld)
    script.setRunsOnSubFrames(False)
    return script


def sandboxed_profile(csp: Any) -> tuple[QWebEngineProfile, RequestFilter]:
    profile = QWebEngineProfile()  # no storage name: off the record, nothing on disk
    profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.MemoryHttpCache)
    profile.setPersistentCookiesPolicy(QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies)
    profile.setPersistentPermissionsPolicy(QWebEngineProfile.PersistentPermissionsPolicy.AskEveryTime)
    profile.setSpellCheckEnabled(False)
    settings = profile.settings()
    for name in _OFF:
        attribute = getattr(QWebEngineSettings.WebAttribute, name, None)
        if attribute is not None:  # a newer Qt's attribute an older one lacks
            settings.setAttribute(attribute, False)
    settings.setAttribute(QWebEngineSettings.WebAttribute.JavascriptEnabled, True)
    settings.setUnknownUrlSchemePolicy(QWebEngineSettings.UnknownUrlSchemePolicy.DisallowUnknownUrlSchemes)
    profile.downloadRequested.connect(_refuse_download)
    requests = RequestFilter(csp, profile)
    profile.setUrlRequestInterceptor(requests)
    return profile, requests


def _refuse_download(download: QWebEngineDownloadRequest) -> None:
    logger.info("an MCP App tried to download %s; refused", download.url().toString())
    download.cancel()


class AppWebView(QWebEngineView):
    """One MCP App, rendered sandboxed, talking to ``bridge``."""

    def __init__(self, app: ev.AppReady, bridge: AppBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app = app
        self.bridge = bridge
        self.profile, self.requests = sandboxed_profile(app.csp)
        self.sandboxed = SandboxedPage(self.profile, self)
        self.profile.setParent(self.sandboxed)  # a profile must outlive its page: it goes with it, after it
        policy = content_security_policy(app.csp)
        self.relay = Relay(with_policy(app.html, policy), bridge, self)
        channel = QWebChannel(self.sandboxed)
        channel.registerObject("bridge", self.relay)
        self.sandboxed.setWebChannel(channel, QWebEngineScript.ScriptWorldId.ApplicationWorld)
        self.sandboxed.scripts().insert(_relay_script())
        self.setPage(self.sandboxed)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(START_HEIGHT)
        bridge.on_size = self._resize_to
        bridge.on_display_mode = self._display
        self._inline_height = START_HEIGHT
        leave = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        leave.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)  # the page's own keys have focus
        leave.activated.connect(self._leave_fullscreen)
        self.sandboxed.setHtml(HOST_PAGE.format(policy=html.escape(policy, quote=True)))

    def teardown(self, reason: str) -> None:
        """Tell the page it is going (``ui/resource-teardown``) and go once it has answered, or
        after a bounded wait (:func:`app.ui.app_teardown.tear_down`)."""
        tear_down(self, self.bridge, self.relay.to_page.emit, reason)

    def _resize_to(self, _width: float | None, height: float | None) -> None:
        if height is not None:
            self._inline_height = int(min(max(height, MIN_HEIGHT), MAX_HEIGHT))
            if self.bridge.display_mode == "inline":  # in fullscreen it is the height to go back to
                self.setFixedHeight(self._inline_height)

    def _chat_area(self) -> QScrollArea | None:
        widget = self.parentWidget()
        while widget is not None and not isinstance(widget, QScrollArea):
            widget = widget.parentWidget()
        return widget

    def _display(self, mode: str) -> str:
        """The page asked for ``mode``: fullscreen fills the chat's visible height (the page's
        container, fixed); inline goes back to the page's own height. Returns the mode now."""
        area = self._chat_area()
        if mode == "fullscreen" and area is not None:
            height = max(area.viewport().height() - 16, START_HEIGHT)
            self.bridge.dimensions = {"height": height}
            self.setFixedHeight(height)
            area.ensureWidgetVisible(self, 0, 0)
            return mode
        if mode == "inline":
            self.bridge.dimensions = {"maxHeight": MAX_HEIGHT}
            self.setFixedHeight(self._inline_height)
            return mode
        return self.bridge.display_mode

    def _leave_fullscreen(self) -> None:
        if self.bridge.display_mode == "fullscreen":  # the user's Escape: the page is told, as the spec says
            self.relay.to_page.emit(json.dumps(self.bridge.switched(self._display("inline"))))
