"""The servers panel over the real supervisor and a real bundled server process."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.engine import Engine
from app.mcp.config import ServerEntry
from app.mcp.connection import Backoff
from app.mcp.supervisor import Supervisor
from app.settings import Settings, load_settings
from app.ui import theme
from app.ui.event_bridge import EventBridge
from app.ui.servers_panel import ServersPanel
from tests.mcp.helpers import script_entry

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def supervised(qtbot, arun):
    calculator = ServerEntry(
        "calculator",
        command=sys.executable,
        args=("-m", "app.servers.calculator"),
        env={"PYTHONPATH": str(REPO_ROOT)},
    )
    disabled = ServerEntry("spare", command=sys.executable, args=("-c", "pass"), disabled=True)
    # A long backoff: the server stays crashed until the user presses Restart.
    supervisor = Supervisor([calculator, disabled], backoff=Backoff(first_s=3600, cap_s=3600))
    panel = panel_over(supervisor, qtbot)
    arun(supervisor.start(), timeout=60)
    yield panel
    arun(supervisor.aclose(), timeout=30)


def panel_over(supervisor: Supervisor, qtbot) -> ServersPanel:
    """The panel, shown, fed the supervisor's events through the bridge as in the window."""
    bridge = EventBridge()
    supervisor.subscribe(bridge.sink)
    panel = ServersPanel(supervisor)
    bridge.engine_event.connect(panel.handle)
    qtbot.addWidget(panel)
    panel.show()
    return panel


def state_of(panel: ServersPanel, name: str) -> str:
    return panel.states[name].state


def test_a_crashed_server_shows_in_the_servers_panel_and_recovers_on_restart(qtbot, supervised):
    panel = supervised
    qtbot.waitUntil(lambda: state_of(panel, "calculator") == "ready", timeout=30_000)
    assert state_of(panel, "spare") == "disabled"
    panel.servers.setCurrentRow(list(panel.states).index("calculator"))
    tools = [panel.tools.item(i).text() for i in range(panel.tools.count())]
    assert {"add", "multiply"} <= set(tools)
    pid = panel.states["calculator"].pid
    assert pid and f"pid {pid}" in panel.servers.currentItem().text()

    os.kill(pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: state_of(panel, "calculator") == "crashed", timeout=15_000)
    assert panel.servers.currentItem().foreground().color().name() == theme.BAD_COLOUR
    assert "Last error" in panel.summary.text() and str(-signal.SIGKILL) in panel.summary.text()

    qtbot.mouseClick(panel.restart_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: state_of(panel, "calculator") == "ready", timeout=30_000)
    assert panel.states["calculator"].pid not in (None, pid)
    assert panel.servers.currentItem().foreground().color().name() == theme.OK_COLOUR


def test_a_tools_approval_is_chosen_in_the_panel_and_saved(qtbot, arun, tmp_path):
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"asking": script_entry("asking", "asking.py").to_json()}}))
    engine = Engine(Settings(), servers_path=path)
    arun(engine.start(), timeout=60)
    try:
        panel = ServersPanel(engine.supervisor, approvals=engine.approval_editor)
        qtbot.addWidget(panel)
        tools = [panel.tools.item(i).text() for i in range(panel.tools.count())]
        panel.tools.setCurrentRow(tools.index("wipe"))
        assert panel.policy.currentText() == "Approval: default (ask)"  # destructive
        panel.policy.setCurrentIndex(panel.policy.findData("always"))
        panel.policy.activated.emit(panel.policy.currentIndex())
        assert load_settings()[0].tool_approvals == {"asking.wipe": "always"}
        wipe = engine.supervisor.resolve("asking.wipe")
        assert wipe is not None and arun(engine.approvals(wipe, {"what": "x"})) is None  # runs unasked
        panel.policy.setCurrentIndex(0)
        panel.policy.activated.emit(0)
        assert load_settings()[0].tool_approvals == {}
    finally:
        arun(engine.aclose(), timeout=30)


def test_a_server_that_wants_a_sign_in_offers_sign_in_and_connects_after_it(qtbot, arun):
    import contextlib
    import dataclasses

    from app.mcp.handlers import server_handlers
    from tests.keyrings import InMemoryKeyringForTests, keyring_backend
    from tests.mcp import oauth_server as oa
    from tests.mcp import remote_servers as rs

    browser, stack = oa.ScriptedBrowser(), contextlib.AsyncExitStack()
    stack.enter_context(keyring_backend(InMemoryKeyringForTests()))
    base = arun(stack.enter_async_context(rs.serving(oa.protected_app(oa.InMemoryAuthorizationServer()))))
    supervisor = Supervisor(
        [ServerEntry("hosted", url=f"{base}/mcp")],
        handlers=lambda name, sink: dataclasses.replace(server_handlers(name, sink), open_browser=browser),
    )
    panel = panel_over(supervisor, qtbot)
    try:
        arun(supervisor.start(), timeout=30)
        qtbot.waitUntil(lambda: state_of(panel, "hosted") == "unauthorized", timeout=10_000)
        assert panel.sign_in_button.isVisible() and "needs you to sign in" in panel.summary.text()
        qtbot.mouseClick(panel.sign_in_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: state_of(panel, "hosted") == "ready", timeout=30_000)
        assert not panel.sign_in_button.isVisible() and len(browser.opened) == 1
    finally:
        arun(supervisor.aclose(), timeout=30)
        arun(stack.aclose(), timeout=30)
