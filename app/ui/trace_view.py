"""The trace tree with its details pane: what the model did, step by step."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QFontMetrics, QGuiApplication, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QHeaderView,
    QMenu,
    QPlainTextEdit,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.core.headline import at_word
from app.core.trace import TraceStore
from app.ui.trace_model import TraceModel

MIN_TOOL_WIDTH = 96


class TraceTree(QTreeView):
    """A tree whose Copy key copies the node's details rather than its label.

    Signals:
        copy_requested(): Ctrl+C (the platform's Copy key) was pressed.
    """

    copy_requested = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_requested.emit()
        else:
            super().keyPressEvent(event)


class WordElide(QStyledItemDelegate):
    """The step column's sentences end at a word with "…" where the column is too narrow for
    them, rather than mid-word where Qt's own eliding cuts ("a reading o…")."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        if index.column() == 0 and option.text:
            style = option.widget.style() if option.widget is not None else None
            room = option.rect.width()
            if style is not None:  # what the style keeps for the text, less the margins it draws inside
                text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, option.widget)
                margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, option, option.widget) + 1
                room = text_rect.width() - 2 * margin
            option.text = row_line(option.text, option.fontMetrics, room)


def row_line(text: str, metrics: QFontMetrics, width: int) -> str:
    """``text`` as the step column shows it in ``width`` pixels."""
    return at_word(text, lambda line: metrics.horizontalAdvance(line) <= width)


class TraceView(QWidget):
    """Tree over the trace store; the selected node's JSON shows below it.

    Ctrl+C or the context menu copies the selected node's details.

    Signals:
        cancel_call_requested(str): the user asked to stop this running tool call alone.
    """

    cancel_call_requested = Signal(str)

    def __init__(self, store: TraceStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = TraceModel(store, self)
        self.tree = TraceTree(self)
        self.tree.setModel(self.model)
        self.tree.setItemDelegate(WordElide(self.tree))
        self.tree.setUniformRowHeights(True)  # keeps layout cheap with thousands of nodes
        self.tree.setAlternatingRowColors(True)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header = self.tree.header()
        header.setStretchLastSection(False)
        # The nested "Step" column, which holds the sentences ("Turn 2: What is 15% of 240...",
        # "Check 1: every number..."), takes what is left; "Server.tool" starts narrow and grows
        # to each call's name as calls arrive (sizing to contents would visit every row of a
        # long trace); status and duration are short. At 1280x800 a fixed 150-pixel step column
        # cut every label to "Turn 1: A crate hol...".
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # status and duration as wide as their longest words, so the step column keeps the rest
        metrics = self.tree.fontMetrics()
        status_width = max(metrics.horizontalAdvance(w) for w in ("Status", "cancelled", "running")) + 16
        duration_width = max(metrics.horizontalAdvance(w) for w in ("Duration", "999.9 ms")) + 16
        for column, width in ((1, MIN_TOOL_WIDTH), (2, status_width), (3, duration_width)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, width)
        self.tree.setIndentation(14)  # four levels (turn, step, call, approval) at 20 took 80 pixels
        self._following = True  # the latest call is selected as it happens, until the user picks
        self._moving = False
        self.details = QPlainTextEdit(self)
        self.details.setReadOnly(True)
        self.details.setPlaceholderText("Select a node to see its arguments, result and timing.")
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(self.details)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        self._actions()
        self._connect()

    def set_store(self, store: TraceStore) -> None:
        self.details.clear()
        self._following = True
        self.model.set_store(store)
        self.tree.expandToDepth(0)

    def _actions(self) -> None:
        self.copy_action = QAction("Copy", self.tree)
        self.copy_action.setShortcut(
            QKeySequence.StandardKey.Copy
        )  # shown in the menu; the tree handles the key
        self.copy_action.triggered.connect(self.copy_selected)
        self.tree.copy_requested.connect(self.copy_selected)
        self.expand_action = QAction("Expand all", self.tree)
        self.expand_action.triggered.connect(self.tree.expandAll)
        self.collapse_action = QAction("Collapse all", self.tree)
        self.collapse_action.triggered.connect(self.tree.collapseAll)
        self.cancel_action = QAction("Cancel this call", self.tree)
        self.cancel_action.triggered.connect(self._cancel_selected)

    def _connect(self) -> None:
        self.tree.selectionModel().currentChanged.connect(lambda current, _previous: self._picked(current))
        self.tree.customContextMenuRequested.connect(self._menu)
        self.model.rowsInserted.connect(self._follow)
        self.model.dataChanged.connect(self._refresh)

    def _follow(self, parent: QModelIndex, first: int, last: int) -> None:
        """Keep the running turn open; fold the previous turn away when a new one starts. Each
        new tool call is selected, so its arguments and result show below as they arrive,
        unless the user has picked a node in this turn."""
        if parent.isValid():
            self.tree.expand(parent)
        else:
            self._following = True
            if first > 0:
                self.tree.collapse(self.model.index(first - 1, 0))
        for row in range(first, last + 1):
            index = self.model.index(row, 0, parent)
            node = self.model.node(index)
            if node is None or node.kind != "tool_call":
                continue
            self._fit_tool_column(node.label)
            if self._following:
                self._moving = True
                try:
                    self.tree.setCurrentIndex(index)
                finally:
                    self._moving = False

    def _fit_tool_column(self, label: str) -> None:
        header = self.tree.header()
        wanted = self.tree.fontMetrics().horizontalAdvance(label) + 16
        widest = max(MIN_TOOL_WIDTH, self.tree.viewport().width() // 3)
        if wanted > header.sectionSize(1):
            header.resizeSection(1, min(wanted, widest))

    def _picked(self, current: QModelIndex) -> None:
        if not self._moving:
            self._following = False  # the user chose a node: leave it where they put it
        self._show(current)

    def _show(self, index: QModelIndex) -> None:
        node = self.model.node(index)
        self.details.setPlainText(node.details() if node is not None else "")

    def _refresh(self, top_left: QModelIndex, bottom_right: QModelIndex) -> None:
        current = self.tree.currentIndex()
        if current.isValid() and self.model.node(current) is self.model.node(top_left):
            self._show(current)

    def _menu(self, position: QPoint) -> None:
        menu = QMenu(self)
        self.copy_action.setEnabled(self.tree.currentIndex().isValid())
        menu.addActions([self.copy_action, self.expand_action, self.collapse_action])
        if self.running_call():
            menu.addAction(self.cancel_action)
        menu.popup(self.tree.viewport().mapToGlobal(position))

    def running_call(self) -> str:
        """The id of the selected tool call while it runs, else ""."""
        node = self.model.node(self.tree.currentIndex())
        running = node is not None and node.kind == "tool_call" and node.status == "running"
        return str(node.data.get("call_id", "")) if running and node is not None else ""

    def _cancel_selected(self) -> None:
        if call_id := self.running_call():
            self.cancel_call_requested.emit(call_id)

    def selected_details(self) -> str:
        node = self.model.node(self.tree.currentIndex())
        return node.details() if node is not None else ""

    def copy_selected(self) -> None:
        if text := self.selected_details():
            QGuiApplication.clipboard().setText(text)
