"""A Qt item model over :class:`app.core.trace.TraceStore`.

The store owns the tree; this model only adapts it. It listens to the store and
turns each insert into ``beginInsertRows``/``endInsertRows`` and each update into
``dataChanged``, so the view updates live and nothing is ever rebuilt. Every
method is constant time: an index points at its node, and a node knows its
parent and its row.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from app.core.headline import headline
from app.core.trace import TraceNode, TraceStore, status_text
from app.ui import theme

COLUMNS = ("Step", "Server.tool", "Status", "Duration")
NodeRole = Qt.ItemDataRole.UserRole + 1
CONTAINER_KINDS = ("turn", "step")  # every other node is a leaf, and says so to spare the view

# Roles arrive as plain ints; the view asks for about eight per cell on every paint.
_DISPLAY, _FOREGROUND, _TOOLTIP, _ALIGN = (
    int(r)
    for r in (
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.ForegroundRole,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.TextAlignmentRole,
    )
)
_NODE = int(NodeRole)
_ANSWERED_ROLES = frozenset((_DISPLAY, _FOREGROUND, _TOOLTIP, _ALIGN, _NODE))
_DURATION_ALIGN = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)  # digits line up
_BRANCH_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_LEAF_FLAGS = _BRANCH_FLAGS | Qt.ItemFlag.ItemNeverHasChildren

AnyIndex = QModelIndex | QPersistentModelIndex


class TraceModel(QAbstractItemModel):
    """Read-only tree of turns, steps, thoughts, text, tool calls and errors."""

    def __init__(self, store: TraceStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        store.subscribe(self)

    def set_store(self, store: TraceStore) -> None:
        """Show another trace (a saved conversation): one reset, not an insert per node."""
        self.beginResetModel()
        self.store.unsubscribe(self)
        self.store = store
        store.subscribe(self)
        self.endResetModel()

    # --- TraceListener ---

    def node_inserting(self, parent: TraceNode | None, row: int) -> None:
        self.beginInsertRows(self.index_of(parent), row, row)

    def node_inserted(self, node: TraceNode) -> None:
        self.endInsertRows()

    def node_changed(self, node: TraceNode) -> None:
        first = self.createIndex(node.row, 0, node)
        self.dataChanged.emit(first, first.siblingAtColumn(len(COLUMNS) - 1))

    # --- QAbstractItemModel ---

    def index_of(self, node: TraceNode | None) -> QModelIndex:
        return QModelIndex() if node is None else self.createIndex(node.row, 0, node)

    def node(self, index: AnyIndex) -> TraceNode | None:
        return index.internalPointer() if index.isValid() else None

    def index(self, row: int, column: int, parent: AnyIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        siblings = self._children(parent)
        if not (0 <= row < len(siblings) and 0 <= column < len(COLUMNS)):
            return QModelIndex()
        return self.createIndex(row, column, siblings[row])

    def parent(self, index: AnyIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        node = self.node(index)
        return self.index_of(node.parent) if node is not None else QModelIndex()

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.column() > 0:
            return 0
        return len(self._children(parent))

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def hasChildren(self, parent: AnyIndex = QModelIndex()) -> bool:  # noqa: B008
        return self.rowCount(parent) > 0

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        node = self.node(index)
        if node is None:
            return Qt.ItemFlag.NoItemFlags
        return _BRANCH_FLAGS if node.kind in CONTAINER_KINDS else _LEAF_FLAGS

    def data(self, index: AnyIndex, role: int = _DISPLAY) -> Any:
        if role not in _ANSWERED_ROLES or not index.isValid():
            return None
        node: TraceNode = index.internalPointer()
        if role == _DISPLAY:
            return _cell(node, index.column())
        if role == _FOREGROUND:
            return _foreground(node, index.column())
        if role == _TOOLTIP:  # the whole text of a cell the column's width cut short
            return node.label if index.column() == 0 else (_cell(node, index.column()) or None)
        if role == _ALIGN:
            return _DURATION_ALIGN if index.column() == 3 else None
        return node

    def _children(self, parent: AnyIndex) -> list[TraceNode]:
        node = self.node(parent)
        return self.store.roots if node is None else node.children


def _cell(node: TraceNode, column: int) -> str:
    if column == 0:
        return headline(node.kind, node.label) if node.kind != "tool_call" else "Tool call"
    if column == 1:
        return node.label if node.kind == "tool_call" else ""
    if column == 2:
        return status_text(node)
    return _duration(node.duration_ms)


def _duration(ms: float | None) -> str:
    if ms is None:
        return ""
    return f"{ms:.1f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


def _foreground(node: TraceNode, column: int) -> QColor | None:
    if node.status == "error":
        return QColor(theme.BAD_COLOUR)  # errors read red across the whole row
    if column == 2 and (colour := theme.status_colour(node.status)):
        return QColor(colour)
    return None
