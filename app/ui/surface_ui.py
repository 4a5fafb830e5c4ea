"""Wires the window to what servers offer besides tools: the servers panel's details (logs,
resources, prompts), resources attached to the next message, ``/`` prompts in the message
box, and cancelling one call from its trace node. One call from the composition root:
``install(window, Surface(engine.supervisor))``."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QLabel

from app.ui.main_window import MainWindow
from app.ui.prompt_form import SlashPrompts
from app.ui.resources_view import SurfaceControl


class Attachments(QObject):
    """Resources chosen in the Resources view, sent with the next message (then forgotten)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)  # lives as long as the window
        self.window = window
        self.pending: list[tuple[str, str, str]] = []  # (server, uri, text)
        self.label = QLabel(window.chat)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.hide()
        layout = window.chat.layout()
        if layout is not None:
            layout.addWidget(self.label)

    def add(self, server: str, uri: str, text: str) -> None:
        self.pending.append((server, uri, text))
        self.label.setText("Attached to your next message: " + ", ".join(uri for _, uri, _ in self.pending))
        self.label.show()

    def submit(self, text: str) -> None:
        attached = [
            f"[Attached resource {uri} from server {server}]\n{body}" for server, uri, body in self.pending
        ]
        if self.window.controller.submit("\n\n".join([text, *attached])) and attached:
            self.pending.clear()
            self.label.hide()


def show_resource(window: MainWindow, server: str, uri: str) -> None:
    """A resource link clicked in a result: read it in its server's Resources view."""
    panel = window.servers_panel
    if panel.details is None or server not in panel.states:
        return
    window.side.setCurrentWidget(panel)
    panel.servers.setCurrentRow(list(panel.states).index(server))
    panel.details.setCurrentWidget(panel.details.resources)
    panel.details.resources.read_soon(uri)


def install(window: MainWindow, surface: SurfaceControl) -> tuple[Attachments, SlashPrompts]:
    details = window.servers_panel.show_details(surface)
    attachments = Attachments(window)
    details.resources.attach_requested.connect(attachments.add)
    window.chat.submitted.disconnect(window.controller.submit)
    window.chat.submitted.connect(attachments.submit)
    slash = SlashPrompts(window.chat.input, surface, window.chat.submitted.emit)
    window.trace_view.cancel_call_requested.connect(window.controller.cancel_call)
    window.feed.read_link = lambda server, uri: show_resource(window, server, uri)
    return attachments, slash
