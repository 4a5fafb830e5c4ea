"""The conversation list beside the chat: search box, conversations (pinned first), search hits.

It shows what it is given and reports what the user asks; it never touches the history.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.history import Conversation, Hit

IdRole = Qt.ItemDataRole.UserRole + 1
HIGHLIGHT = '<b style="background-color: #ffe08a; color: #000">'
SEARCH_DELAY_MS = 150  # type a word, then search: not one query per key


class ConversationList(QWidget):
    """Signals:
    chosen(str): a conversation was opened (clicked or Enter).
    new_requested(): the New button.
    renamed(str, str): a title was edited (id, new title).
    delete_requested(str), pin_requested(str, bool): from the context menu or the keyboard.
    search_changed(str): the search text, once typing pauses ("" when cleared).
    """

    chosen = Signal(str)
    new_requested = Signal()
    renamed = Signal(str, str)
    delete_requested = Signal(str)
    pin_requested = Signal(str, bool)
    search_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search conversations and tool results")
        self.search.setClearButtonEnabled(True)
        self.new_button = QPushButton("New conversation", self)
        self.list = QListWidget(self)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self._pinned: dict[str, bool] = {}
        self._timer = QTimer(self, singleShot=True, interval=SEARCH_DELAY_MS)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.new_button, self.search, self.list):
            layout.addWidget(widget)
        self._connect()

    def _connect(self) -> None:
        self.new_button.clicked.connect(self.new_requested)
        self.search.textChanged.connect(lambda _: self._timer.start())
        self._timer.timeout.connect(lambda: self.search_changed.emit(self.search.text().strip()))
        self.list.itemActivated.connect(self._chosen)
        self.list.itemClicked.connect(self._chosen)
        self.list.itemChanged.connect(self._edited)
        self.list.customContextMenuRequested.connect(self._menu)
        delete = QAction("Delete", self.list, shortcut=QKeySequence(QKeySequence.StandardKey.Delete))
        delete.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        delete.triggered.connect(lambda: self._on_current(self.delete_requested.emit))
        rename = QAction("Rename", self.list, shortcut=QKeySequence(Qt.Key.Key_F2))
        rename.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        rename.triggered.connect(self.rename_current)
        self.list.addActions([delete, rename])

    # --- showing ---

    def show_conversations(self, conversations: list[Conversation], current: str | None = None) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        for conversation in conversations:
            self.list.addItem(self._item(conversation))
        self.list.blockSignals(False)
        self.select(current)

    def _item(self, conversation: Conversation) -> QListWidgetItem:
        item = QListWidgetItem(conversation.title)
        item.setData(IdRole, conversation.id)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
        self._pinned[conversation.id] = conversation.pinned
        if conversation.pinned:
            font = QFont(item.font())
            font.setBold(True)
            item.setFont(font)
            item.setToolTip("Pinned")
        return item

    def show_hits(self, hits: list[Hit]) -> None:
        """Search results: each conversation's title over its matching text, the hits in bold."""
        self.list.blockSignals(True)
        self.list.clear()
        for hit in hits:
            item = QListWidgetItem()
            item.setData(IdRole, hit.conversation.id)
            label = QLabel(_hit_html(hit))
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            item.setSizeHint(label.sizeHint())
            self.list.addItem(item)
            self.list.setItemWidget(item, label)
        self.list.blockSignals(False)

    def select(self, conversation_id: str | None) -> None:
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(IdRole) == conversation_id:
                self.list.setCurrentItem(item)
                return
        self.list.clearSelection()

    def rename_current(self) -> None:
        item = self.list.currentItem()
        if item is not None and item.flags() & Qt.ItemFlag.ItemIsEditable:
            self.list.editItem(item)

    # --- what the user does ---

    def _chosen(self, item: QListWidgetItem) -> None:
        self.chosen.emit(item.data(IdRole))

    def _edited(self, item: QListWidgetItem) -> None:
        if title := item.text().strip():
            self.renamed.emit(item.data(IdRole), title)

    def _on_current(self, act: object) -> None:
        item = self.list.currentItem()
        if item is not None and callable(act):
            act(item.data(IdRole))

    def _menu(self, position: QPoint) -> None:
        item = self.list.itemAt(position)
        if item is None:
            return
        conversation_id = item.data(IdRole)
        pinned = self._pinned.get(conversation_id, False)
        menu = QMenu(self)
        menu.addAction("Open", lambda: self.chosen.emit(conversation_id))
        menu.addAction("Rename", lambda: self.list.editItem(item))
        menu.addAction(
            "Unpin" if pinned else "Pin", lambda: self.pin_requested.emit(conversation_id, not pinned)
        )
        menu.addAction("Delete", lambda: self.delete_requested.emit(conversation_id))
        menu.popup(self.list.viewport().mapToGlobal(position))


def _hit_html(hit: Hit) -> str:
    marks = ("\x02", "\x03")  # escaped as text first, then turned into tags
    snippet = html.escape(hit.marked(*marks)).replace(marks[0], HIGHLIGHT).replace(marks[1], "</b>")
    return f"<div><b>{html.escape(hit.conversation.title)}</b><br/><span>{snippet}</span></div>"
