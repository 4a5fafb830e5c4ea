"""The model library as a table: a Qt item model over the plain-Python list
(:func:`app.llm.library.library.list_models`), with each row's memory estimate for the
GPU layers and context size being edited."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from app.llm.library.library import ModelEntry
from app.llm.library.offload import GpuMemory, Plan

COLUMNS = ("Model", "Where", "Size", "Quantisation", "Context", "Memory with these settings")
MEMORY_COLUMN = len(COLUMNS) - 1
SOURCES = {
    "built-in": "built in",
    "calculon": "downloaded",
    "lm-studio": "LM Studio",
    "ollama": "Ollama",
    "hugging-face": "Hugging Face",
    "file": "file",
}
Index = QModelIndex | QPersistentModelIndex


class ModelLibraryModel(QAbstractTableModel):
    """Rows are :class:`ModelEntry`; ``set_offload`` recomputes the memory column only."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._entries: list[ModelEntry] = []
        self._plans: list[Plan | None] = []
        self._layers, self._n_ctx = 0, 4096
        self._gpu = GpuMemory(offload=False, free=None)
        self._free_ram: int | None = None

    def set_entries(self, entries: list[ModelEntry], free_ram: int | None) -> None:
        # A re-scan of the folders: the rows are a new snapshot, not edits of the old ones.
        self.beginResetModel()
        self._entries, self._free_ram = list(entries), free_ram
        self._plans = [self._plan(e) for e in self._entries]
        self.endResetModel()

    def set_offload(self, layers: int, n_ctx: int, gpu: GpuMemory | None = None) -> None:
        self._layers, self._n_ctx = layers, n_ctx
        self._gpu = gpu or self._gpu
        self._plans = [self._plan(e) for e in self._entries]
        if self._entries:
            last = len(self._entries) - 1
            self.dataChanged.emit(self.index(0, MEMORY_COLUMN), self.index(last, MEMORY_COLUMN))

    @property
    def gpu(self) -> GpuMemory:
        return self._gpu

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    @property
    def layers(self) -> int:
        return self._layers

    def entries(self) -> list[ModelEntry]:
        return list(self._entries)

    def entry(self, row: int) -> ModelEntry:
        return self._entries[row]

    def plan_for(self, row: int) -> Plan | None:
        return self._plans[row]

    def row_of(self, entry_id: str) -> int | None:
        return next((row for row, e in enumerate(self._entries) if e.id == entry_id), None)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._entries)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        entry, plan = self._entries[index.row()], self._plans[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cells(entry, plan)[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return str(entry.path) if entry.path else f"{entry.id} (not downloaded yet)"
        return None

    def _cells(self, entry: ModelEntry, plan: Plan | None) -> tuple[str, ...]:
        size = "?" if entry.size is None else f"{entry.size / 1e9:.2f} GB"
        context = f"{entry.context_length:,}" if entry.context_length else "?"
        return (
            entry.label,
            SOURCES.get(entry.source, entry.source),
            size,
            entry.quantisation or "?",
            context,
            memory_text(plan, entry),
        )

    def _plan(self, entry: ModelEntry) -> Plan | None:
        return entry.plan(self._layers, self._n_ctx, self._gpu, self._free_ram)


def memory_text(plan: Plan | None, entry: ModelEntry) -> str:
    if plan is None:
        return "known once unpacked (on first use)" if entry.builtin else "unknown (unreadable header)"
    verdict = "fits" if plan.fits else "does not fit"
    return f"{verdict}: {plan.describe()}"
