"""The servers panel's details over a real server: introduction, tools, logs, resources, prompts."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialogButtonBox, QPlainTextEdit

from app.core import events as ev
from app.mcp.supervisor import Supervisor
from app.mcp.surface import Surface, listed
from app.ui.prompt_form import PromptForm, SlashPrompts
from app.ui.servers_panel import ServersPanel
from tests.mcp.helpers import script_entry


@pytest.fixture
def panel(qtbot, arun):
    supervisor = Supervisor([script_entry("rich", "rich.py")])
    arun(supervisor.start(), timeout=60)
    arun(listed(supervisor))
    panel = ServersPanel(supervisor)
    qtbot.addWidget(panel)
    panel.show_details(Surface(supervisor))
    yield panel
    arun(supervisor.aclose(), timeout=30)


def rows(tree, column: int = 0) -> list[str]:
    return [tree.topLevelItem(i).text(column) for i in range(tree.topLevelItemCount())]


def test_the_details_show_the_protocol_version_capabilities_instructions_and_tool_annotations(panel):
    details = panel.details
    assert details.server == "rich"
    overview = details.overview.toPlainText()
    assert (
        "Protocol version: 2026-07-28" in overview
        and '"resources"' in overview
        and "Instructions:" in overview
    )
    assert "1 resources, 1 templates, 1 prompts" in overview
    assert set(rows(details.tools)) == {"weather", "broken_weather", "picture"}
    annotations = dict(zip(rows(details.tools), rows(details.tools, 1), strict=True))
    assert (
        annotations["weather"] == "none · output schema" and annotations["picture"] == "read only, idempotent"
    )
    assert rows(details.prompts) == ["greet"] and rows(details.prompts, 1) == ["name"]


def test_log_lines_are_kept_per_server_and_filtered_by_level(panel):
    logs = panel.details.logs
    for level, text in [("debug", "noise"), ("info", "started"), ("error", "disk full")]:
        panel.handle(ev.ServerLog(server="rich", level=level, logger="rich.io", message=text))
    panel.handle(ev.ServerLog(server="other", level="error", message="not ours"))
    assert logs.text.toPlainText().splitlines() == ["[info] rich.io: started", "[error] rich.io: disk full"]
    logs.level.setCurrentIndex(logs.level.findText("error and above"))
    assert logs.text.toPlainText() == "[error] rich.io: disk full"


def test_a_resource_is_read_shown_and_attached_to_the_next_message(panel, arun, qtbot):
    view = panel.details.resources
    assert rows(view.tree) == ["note://readme", "note://{number}"]
    arun(view.read("note://readme"))
    assert "read me first" in view.last_read[1] and "note://readme" in view.status.text()
    with qtbot.waitSignal(view.attach_requested) as attached:
        view.attach_shown()
    assert attached.args[:2] == ["rich", "note://readme"] and "read me first" in attached.args[2]


def test_a_slash_prompt_asks_for_its_arguments_and_sends_its_messages(panel, arun, qtbot):
    box, sent = QPlainTextEdit(), []
    qtbot.addWidget(box)
    slash = SlashPrompts(box, panel.details.surface, sent.append)
    (listed,) = panel.details.surface.prompts()
    form = slash.open_form(listed.server, listed.item)
    assert isinstance(form, PromptForm)
    ok = form.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert not ok.isEnabled()  # name is required
    form.fields["name"].setText("Ada")
    assert ok.isEnabled() and form.values() == {"name": "Ada"}
    form.reject()
    arun(slash.fetch("rich.greet", {"name": "Ada"}))
    assert sent == ["Please greet Ada warmly."]
