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
    bridge = EventBridge()
    supervisor.subscribe(bridge.sink)
    panel = ServersPanel(supervisor)
    bridge.engine_event.connect(panel.handle)
    qtbot.addWidget(panel)
    panel.show()
    arun(supervisor.start(), timeout=60)
    yield panel
    arun(supervisor.aclose(), timeout=30)


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
