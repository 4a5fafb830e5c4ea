"""Everything one server offers, under the servers list: how it introduced itself (protocol
version, capabilities, instructions), its tools with their annotations, its log messages with
a level filter, its resources and templates (read, subscribe, attach: :mod:`app.ui.resources_view`)
and its prompts. All text from a server is shown as plain text."""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Sequence
from typing import Any

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QComboBox,
    QPlainTextEdit,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core import events as ev
from app.ui.icons import decorate, icon_and_note
from app.ui.resources_view import ResourcesView, SurfaceControl

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_KEPT = 500  # log lines kept per server


class ServerDetails(QTabWidget):
    """Tabs for the selected server; ``show_server(name)`` fills them, ``handle(event)`` keeps them live."""

    def __init__(self, surface: SurfaceControl, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.surface = surface
        self.server = ""
        self.overview = _text_view(self, "How the server introduced itself.")
        self.tools = QTreeWidget(self)
        self.tools.setHeaderLabels(["Tool", "Annotations"])
        self.logs = LogView(self)
        self.resources = ResourcesView(surface, self)
        self.prompts = QTreeWidget(self)
        self.prompts.setHeaderLabels(["Prompt", "Arguments", "Description"])
        for widget, title in (
            (self.overview, "Overview"),
            (self.tools, "Tools"),
            (self.logs, "Logs"),
            (self.resources, "Resources"),
            (self.prompts, "Prompts"),
        ):
            self.addTab(widget, title)

    def show_server(self, name: str) -> None:
        self.server = name
        found = self.surface.catalog(name)
        catalog, tools = found if found is not None else (None, ())
        self.overview.setPlainText(overview_text(catalog) if catalog is not None else "Not connected.")
        icon, _ = icon_and_note(catalog.icons if catalog is not None else ())
        self.setTabIcon(0, icon or QIcon())  # the server's own icon, beside "Overview"
        _fill(self.tools, [(t.name, _annotations(t)) for t in tools], [t.icons for t in tools])
        prompts = catalog.prompts if catalog is not None else ()
        rows = [(p.name, _arguments(p), p.description or "") for p in prompts]
        _fill(self.prompts, rows, [p.icons for p in prompts])
        self.logs.show_server(name)
        self.resources.show_server(name, catalog)

    def handle(self, event: ev.Event) -> None:
        if isinstance(event, ev.ServerLog):
            self.logs.add(event)
        elif isinstance(event, ev.ResourceUpdated):
            self.resources.updated(event.server, event.uri)
        elif isinstance(event, ev.ServerListChanged | ev.ServerStateChanged) and event.server == self.server:
            self.show_server(self.server)


def overview_text(catalog: Any) -> str:
    name = f"{catalog.server_name} {catalog.server_version}".strip() or "(no name given)"
    capabilities = (
        json.dumps(catalog.capabilities, indent=2, ensure_ascii=False) if catalog.capabilities else "{}"
    )
    sizes = (len(catalog.resources), len(catalog.templates), len(catalog.prompts))
    counts = "{} resources, {} templates, {} prompts".format(*sizes)
    instructions = catalog.instructions or "(none)"
    icons = icon_and_note(catalog.icons)[1] or "Icons: none"
    return (
        f"Server: {name}\nProtocol version: {catalog.protocol_version}\nOffers: {counts}\n{icons}\n\n"
        f"Capabilities:\n{capabilities}\n\nInstructions:\n{instructions}"
    )


def _annotations(tool: Any) -> str:
    hints = tool.annotations.model_dump(exclude_none=True) if tool.annotations is not None else {}
    marks = [name.removesuffix("_hint").replace("_", " ") for name, on in hints.items() if on is True]
    extra = " · output schema" if tool.output_schema else ""
    return (", ".join(marks) or "none") + extra


def _arguments(prompt: Any) -> str:
    return ", ".join(a.name + ("" if a.required else "?") for a in prompt.arguments or ())


def _fill(tree: QTreeWidget, rows: Sequence[tuple[str, ...]], icons: Sequence[Any]) -> None:
    """One row each, its first column with the item's icon (when one can be drawn)."""
    tree.clear()
    items = [QTreeWidgetItem(list(row)) for row in rows]
    for item, given in zip(items, icons, strict=True):
        decorate(item, given)
    tree.addTopLevelItems(items)
    tree.resizeColumnToContents(0)


def _text_view(parent: QWidget, placeholder: str) -> QPlainTextEdit:
    view = QPlainTextEdit(parent)
    view.setReadOnly(True)
    view.setPlaceholderText(placeholder)
    return view


class LogView(QWidget):
    """A server's ``notifications/message`` lines at or above the chosen level."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lines: dict[str, deque[ev.ServerLog]] = defaultdict(lambda: deque(maxlen=_KEPT))
        self.server = ""
        self.level = QComboBox(self)
        self.level.addItems([f"{level} and above" for level in LEVELS])
        self.level.setCurrentIndex(LEVELS.index("info"))
        self.level.currentIndexChanged.connect(lambda _i: self._render())
        self.text = _text_view(self, "Log messages the server sends appear here.")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.level)
        column.addWidget(self.text, 1)

    def show_server(self, name: str) -> None:
        self.server = name
        self._render()

    def add(self, event: ev.ServerLog) -> None:
        self.lines[event.server].append(event)
        if event.server == self.server and self._shown(event):
            self.text.appendPlainText(_log_line(event))

    def _shown(self, event: ev.ServerLog) -> bool:
        level = LEVELS.index(event.level) if event.level in LEVELS else len(LEVELS) - 1
        return level >= self.level.currentIndex()

    def _render(self) -> None:
        shown = [_log_line(e) for e in self.lines.get(self.server, ()) if self._shown(e)]
        self.text.setPlainText("\n".join(shown))
        self.text.verticalScrollBar().setValue(self.text.verticalScrollBar().maximum())


def _log_line(event: ev.ServerLog) -> str:
    source = f" {event.logger}" if event.logger else ""
    return f"[{event.level}]{source}: {event.message}"
