"""The window wired to what servers offer (app.ui.surface_ui), over real servers: cancelling one
call from its trace node, and a resource attached to the next message."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.running import CANCELLED_TEXT
from app.mcp.supervisor import Supervisor
from app.ui import surface_ui
from app.ui.main_window import MainWindow
from tests.mcp.helpers import script_entry
from tests.ui.conftest import surface_window


@pytest.fixture
def window(qtbot, arun, tmp_path):
    supervisor = Supervisor(
        [script_entry("slow", "slow.py", str(tmp_path / "x")), script_entry("rich", "rich.py")]
    )
    arun(supervisor.start(), timeout=60)
    steps = [
        [ToolCallChunk(ToolCall("c1", "work", {"steps": 100, "step_s": 0.1}))],
        ["Stopped it."],
        ["Seen."],
    ]
    yield surface_window(qtbot, supervisor, steps)
    arun(supervisor.aclose(), timeout=30)


def call_node(window: MainWindow):
    return next((n for n in window.trace.walk() if n.kind == "tool_call"), None)


def test_a_running_call_is_cancelled_alone_from_its_trace_node(qtbot, window):
    window.controller.submit("work")
    qtbot.waitUntil(
        lambda: (node := call_node(window)) is not None and "progress" in node.data, timeout=15_000
    )
    view = window.trace_view
    view.tree.setCurrentIndex(view.model.index_of(call_node(window)))
    assert view.running_call().endswith("-c1")
    view.cancel_action.trigger()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=15_000)
    node = call_node(window)
    assert node.status == "cancelled" and node.data["result"] == CANCELLED_TEXT
    assert window.chat.bubbles()[-1].text().strip() == "Stopped it."  # the turn went on to an answer


def test_a_resource_read_in_the_view_goes_with_the_next_message_only(qtbot, arun, window):
    resources = window.servers_panel.details.resources
    window.servers_panel.servers.setCurrentRow(list(window.servers_panel.states).index("rich"))
    arun(resources.read("note://readme"))
    resources.attach_shown()
    assert "note://readme" in surface_parts(window).label.text()
    window.chat.input.setPlainText("summarise it")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(window.chat.bubbles()), timeout=5_000)
    sent = window.chat.bubbles()[0].text()
    assert sent.startswith("summarise it") and "[Attached resource note://readme from server rich]" in sent
    assert "read me first" in sent
    assert surface_parts(window).pending == [] and surface_parts(window).label.isHidden()


def surface_parts(window: MainWindow) -> surface_ui.Attachments:
    return window.findChild(surface_ui.Attachments)
