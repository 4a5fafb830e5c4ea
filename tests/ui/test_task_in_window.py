"""A tool call the server turns into a task, in the window: its status shows on the call's trace
node as it changes, and cancelling the node sends tasks/cancel (a real server, tests/mcp/servers/tasky.py)."""

from __future__ import annotations

import json

import pytest

from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import script_entry
from tests.ui.conftest import surface_window


@pytest.fixture
def supervisor(arun):
    supervisor = Supervisor([script_entry("tasky", "tasky.py")])
    arun(supervisor.start(), timeout=60)
    yield supervisor
    arun(supervisor.aclose(), timeout=30)


def test_a_task_shows_its_status_on_its_trace_node_and_is_cancelled_from_it(qtbot, arun, supervisor):
    research = ToolCallChunk(ToolCall("c1", "research", {"topic": "otters", "stages": 100}))
    window = surface_window(qtbot, supervisor, [[research], ["It was stopped."]])
    window.controller.submit("research otters")

    def node():
        return next((n for n in window.trace.walk() if n.kind == "tool_call"), None)

    def working() -> bool:
        found = node()
        return found is not None and "task working" in str(found.data.get("progress", ""))

    qtbot.waitUntil(working, timeout=15_000)
    view = window.trace_view
    view.tree.setCurrentIndex(view.model.index_of(node()))
    view.cancel_action.trigger()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=15_000)
    assert node().status == "cancelled"
    seen = json.loads(arun(supervisor.call_tool("tasks_seen", {}), timeout=30).text)
    assert seen["cancels"] == list(seen["tasks"])
