"""One server's resources and resource templates: read one (a template's variables are asked
for), subscribe to its updates, or attach it to the next message.

Signals of :class:`ResourcesView`: ``attach_requested(str, str, str)`` (server, URI, text).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPushButton,
    QScrollArea,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.mcp.content import resource_part
from app.mcp.uritemplate import expand, variables
from app.ui.content_view import ContentParts, describe
from app.ui.icons import decorate

logger = logging.getLogger(__name__)

_URI = Qt.ItemDataRole.UserRole


class SurfaceControl(Protocol):
    """What the window needs to reach resources and prompts (``app.mcp.surface.Surface``)."""

    def catalog(self, server: str) -> tuple[Any, tuple[Any, ...]] | None: ...

    def prompts(self) -> list[Any]: ...

    async def read(self, server: str, uri: str) -> Any: ...

    async def prompt(self, name: str, arguments: dict[str, str]) -> Any: ...

    async def complete(
        self, server: str, ref: str, argument: str, value: str, context: dict[str, str]
    ) -> list[str]: ...

    async def subscribe(self, server: str, uri: str) -> str: ...


def _for_model(part: dict[str, Any]) -> str:
    if part.get("type") == "image":  # no backend here takes images yet: the model is told, not shown
        return f"[an {part.get('mime_type')} image is attached; this model cannot see images]"
    return describe(part)


class ResourcesView(QWidget):
    attach_requested = Signal(str, str, str)

    def __init__(self, surface: SurfaceControl, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.surface = surface
        self.server = ""
        self.tasks: set[asyncio.Future[Any]] = set()
        self.last_read: tuple[str, str] = ("", "")  # (uri, text) of the resource shown
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Resource", "Type", "Description"])
        self.tree.setColumnWidth(0, 300)  # URIs are long; the description can be cut first
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.contents = QScrollArea(self)
        self.contents.setWidgetResizable(True)
        self.buttons = {
            name: QPushButton(name, self) for name in ("Read", "Subscribe", "Attach to next message")
        }
        self._layout()
        self.tree.itemDoubleClicked.connect(lambda _item, _col: self.read_selected())
        self.buttons["Read"].clicked.connect(self.read_selected)
        self.buttons["Subscribe"].clicked.connect(self.subscribe_selected)
        self.buttons["Attach to next message"].clicked.connect(self.attach_shown)

    def _layout(self) -> None:
        row = QHBoxLayout()
        for button in self.buttons.values():
            row.addWidget(button)
        row.addStretch(1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.tree, 2)
        column.addLayout(row)
        column.addWidget(self.status)
        column.addWidget(self.contents, 3)

    def show_server(self, server: str, catalog: Any) -> None:
        self.server = server
        self.tree.clear()
        for resource in catalog.resources if catalog is not None else ():
            decorate(
                self._row(resource.uri, resource.mime_type, resource.description or resource.name),
                resource.icons,
            )
        for template in catalog.templates if catalog is not None else ():
            self._row(
                template.uri_template,
                template.mime_type,
                f"template: {template.description or template.name}",
            )

    def _row(self, uri: str, mime: str | None, text: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem([uri, mime or "", text])
        item.setData(0, _URI, uri)
        self.tree.addTopLevelItem(item)
        return item

    def selected_uri(self) -> str:
        item = self.tree.currentItem()
        return str(item.data(0, _URI)) if item is not None else ""

    def read_selected(self) -> None:
        uri = self._filled(self.selected_uri())
        if uri:
            self.read_soon(uri)

    def read_soon(self, uri: str) -> None:
        self._run(self.read(uri))

    def _filled(self, uri: str) -> str:
        """A template's URI with its variables asked for; "" when the user backs out."""
        values = {}
        for name in variables(uri):
            value, ok = QInputDialog.getText(self, "Resource template", f"{name}:")
            if not ok:
                return ""
            values[name] = value
        return expand(uri, values) if values else uri

    async def read(self, uri: str) -> None:
        self.status.setText(f"Reading {uri}…")
        result = await self.surface.read(self.server, uri)
        parts = [resource_part(c) for c in result.contents]
        self.last_read = (uri, "\n".join(_for_model(p) for p in parts))
        shown = ContentParts(parts)
        shown.link_activated.connect(self.read_soon)
        self.contents.setWidget(shown)
        self.status.setText(f"{uri}: {len(parts)} part(s)")

    def subscribe_selected(self) -> None:
        uri = self.selected_uri()
        if uri and not variables(uri):
            self._run(self._subscribe(uri))

    async def _subscribe(self, uri: str) -> None:
        await self.surface.subscribe(self.server, uri)
        self.status.setText(f"Subscribed to {uri}: updates appear here.")

    def updated(self, server: str, uri: str) -> None:
        if server == self.server:
            self.status.setText(f"Updated on the server: {uri} (Read to see it)")

    def attach_shown(self) -> None:
        uri, text = self.last_read
        if uri:
            self.attach_requested.emit(self.server, uri, text)
            self.status.setText(f"{uri} will go with your next message.")

    def _run(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Future[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            logger.info("resource request failed: %s", error)
            self.status.setText(str(error))
