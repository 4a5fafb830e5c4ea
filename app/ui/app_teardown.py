"""Before an MCP App's view goes (the chat cleared, the window closed): its page is told, and waited for.

:func:`tear_down` tells the page (``ui/resource-teardown``) and keeps the view until the page
answers or :data:`TEARDOWN_WAIT_MS` pass; :func:`wait_closed` waits for every such view, so the
window's close waits for its pages before the servers stop. Its own module so that the
WebEngine view (:mod:`app.ui.app_web`) and the chat's app views (:mod:`app.ui.app_view`) need not
import each other.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from app.mcp.app_bridge import AppBridge

TEARDOWN_WAIT_MS = 2000  # how long a page may take to answer ui/resource-teardown

_closing: set[QWidget] = set()  # views told to tear down, kept alive here until they are deleted
_all_gone: list[asyncio.Event] = []  # waiters of wait_closed


def tear_down(view: QWidget, bridge: AppBridge, post: Callable[[str], object], reason: str) -> None:
    """Tell the page it is going (``post`` takes the JSON for it) and delete ``view`` once the page
    has answered, or after :data:`TEARDOWN_WAIT_MS`; out of the chat meanwhile, so the chat can be
    cleared, or the window closed, now."""
    view.setParent(None)
    view.hide()
    _closing.add(view)
    view.destroyed.connect(lambda: _gone(view))
    bridge.on_torn_down = view.deleteLater
    post(json.dumps(bridge.teardown(reason)))
    QTimer.singleShot(TEARDOWN_WAIT_MS, view.deleteLater)


def _gone(view: QWidget) -> None:
    _closing.discard(view)
    if not _closing:
        for waiter in _all_gone:
            waiter.set()


async def wait_closed(limit_s: float = TEARDOWN_WAIT_MS / 1000 + 1) -> bool:
    """Until every view told to tear down has gone (True), or ``limit_s`` (False)."""
    if not _closing:
        return True
    gone = asyncio.Event()
    _all_gone.append(gone)
    try:
        await asyncio.wait_for(gone.wait(), limit_s)
        return True
    except TimeoutError:
        return False
    finally:
        _all_gone.remove(gone)
