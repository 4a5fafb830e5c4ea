"""A server's prompt as a slash command: ``/`` in the message box lists the prompts, choosing one
opens a form of its arguments (each field suggests values through ``completion/complete``),
and the prompt's messages are sent as the user's message, so they enter the conversation visibly.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QStringListModel, Qt
from PySide6.QtWidgets import (
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QWidget,
)

from app.mcp.surface import SurfaceError
from app.ui.resources_view import SurfaceControl

logger = logging.getLogger(__name__)


class PromptForm(QDialog):
    """One field per argument; OK is enabled once every required one is filled."""

    def __init__(
        self, surface: SurfaceControl, server: str, prompt: Any, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"/{prompt.name}")
        self.surface, self.server, self.prompt = surface, server, prompt
        self.tasks: set[asyncio.Future[Any]] = set()
        self.fields: dict[str, QLineEdit] = {}
        form = QFormLayout(self)
        about = QLabel(prompt.description or "", self)
        about.setTextFormat(Qt.TextFormat.PlainText)
        form.addRow(about)
        for argument in prompt.arguments or ():
            form.addRow(argument.name + ("" if argument.required else " (optional)"), self._field(argument))
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form.addRow(self.buttons)
        self._check()

    def _field(self, argument: Any) -> QLineEdit:
        field = QLineEdit(self)
        field.setToolTip(argument.description or "")
        field.setCompleter(QCompleter(QStringListModel(field), field))
        field.textEdited.connect(lambda text, name=argument.name: self._suggest(name, text))
        field.textChanged.connect(lambda _text: self._check())
        self.fields[argument.name] = field
        return field

    def values(self) -> dict[str, str]:
        return {name: field.text() for name, field in self.fields.items() if field.text()}

    def _check(self) -> None:
        required = [a.name for a in self.prompt.arguments or () if a.required]
        filled = all(self.fields[name].text() for name in required)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(filled)

    def _suggest(self, name: str, text: str) -> None:
        task = asyncio.ensure_future(self.suggestions(name, text))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def suggestions(self, name: str, text: str) -> list[str]:
        """Ask the server for values of ``name`` starting from ``text``; show them under the field."""
        context = {k: v for k, v in self.values().items() if k != name}
        try:
            found = await self.surface.complete(self.server, self.prompt.name, name, text, context)
        except SurfaceError as error:  # a server without completions: the field still takes any text
            logger.info("no completions for %s: %s", name, error)
            return []
        completer = self.fields[name].completer()
        model = completer.model()
        assert isinstance(model, QStringListModel)
        model.setStringList(found)
        if found and self.fields[name].hasFocus():
            completer.complete()
        return found


def prompt_menu(surface: SurfaceControl, parent: QWidget, chosen: Callable[[str, Any], object]) -> QMenu:
    """Every prompt of every running server, ``/name`` with the server beside it."""
    menu = QMenu(parent)
    listed = surface.prompts()
    for entry in listed:
        action = menu.addAction(f"/{entry.item.name}  ·  {entry.server}")
        action.setToolTip(entry.item.description or "")
        action.triggered.connect(lambda _checked=False, e=entry: chosen(e.server, e.item))
    if not listed:
        menu.addAction("No server offers prompts").setEnabled(False)
    return menu


def messages_text(result: Any) -> str:
    """A prompt's messages as one message from the user; other roles and non-text content are named."""
    lines = []
    for message in result.messages:
        content = message.content
        text = getattr(content, "text", None)
        if text is None and hasattr(content, "resource"):
            text = getattr(content.resource, "text", None) or f"[resource {content.resource.uri}]"
        text = text if text is not None else f"[{getattr(content, 'type', 'content')}]"
        lines.append(text if message.role == "user" else f"({message.role}) {text}")
    return "\n\n".join(lines)


class SlashPrompts(QObject):
    """Watches the message box: a lone ``/`` opens the prompt menu."""

    def __init__(self, box: QPlainTextEdit, surface: SurfaceControl, send: Callable[[str], None]) -> None:
        super().__init__(box)  # lives as long as the box
        self.box, self.surface, self.send = box, surface, send
        self.tasks: set[asyncio.Future[Any]] = set()
        self.menu: QMenu | None = None
        box.textChanged.connect(self._changed)

    def _changed(self) -> None:
        if self.box.toPlainText() == "/":
            self.menu = prompt_menu(self.surface, self.box, self.open_form)
            self.menu.popup(self.box.mapToGlobal(self.box.cursorRect().bottomLeft()))

    def open_form(self, server: str, prompt: Any) -> PromptForm:
        form = PromptForm(self.surface, server, prompt, self.box)
        form.accepted.connect(lambda: self._get(f"{server}.{prompt.name}", form.values()))
        form.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        form.open()
        return form

    def _get(self, name: str, values: dict[str, str]) -> None:
        task = asyncio.ensure_future(self.fetch(name, values))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def fetch(self, name: str, values: dict[str, str]) -> None:
        try:
            result = await self.surface.prompt(name, values)
        except SurfaceError as error:  # say it where the user typed
            logger.info("prompt %s failed: %s", name, error)
            self.box.setPlainText(f"(prompt {name} failed: {error})")
            return
        self.box.clear()
        self.send(messages_text(result))
