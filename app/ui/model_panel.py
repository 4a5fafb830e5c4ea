"""Settings → Local model: the model library, with downloads and the GPU estimate.

Downloads run on a worker thread of their own (huggingface_hub blocks); their events
come back through the loop with ``call_soon_threadsafe``, never by touching a widget
from the thread. Cancel sets an event the download checks between blocks.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.core.backend import BackendError
from app.llm.library import download as dl
from app.llm.library.library import ModelEntry, download_path, list_models
from app.llm.library.offload import GpuMemory, gpu_memory
from app.llm.local.model_file import available_memory
from app.ui.model_library import ModelLibraryModel, memory_text

logger = logging.getLogger(__name__)

GpuMemoryProbe = Callable[[], Awaitable[GpuMemory]]


def _listing() -> tuple[list[ModelEntry], int | None]:
    return list_models(), available_memory()


async def probe_gpu_memory() -> GpuMemory:
    # llama.cpp's import is slow: on a plain worker thread of our own, as app.ui.gpu does.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpu-memory") as worker:
        return await asyncio.get_running_loop().run_in_executor(worker, gpu_memory)


class ModelLibraryPanel(QWidget):
    """The library's table, Download / Use / Cancel, a progress bar and the estimate.

    Signals:
        chosen(object): the :class:`ModelEntry` to use (a built-in, or a file on disk).
        download_ended(str): how the latest download ended, in words (the list is re-read next).
        listed(): the list was (re)read from disk.
    """

    chosen = Signal(object)
    download_ended = Signal(str)
    listed = Signal()

    def __init__(self, parent: QWidget | None = None, gpu_probe: GpuMemoryProbe | None = probe_gpu_memory):
        super().__init__(parent)
        self.model = ModelLibraryModel(self)
        self.table = QTableView(self)
        self.download_button = QPushButton("Download", self)
        self.use_button = QPushButton("Use this model", self)
        self.cancel_button = QPushButton("Cancel download", self)
        self.progress = QProgressBar(self)
        self.status = QLabel("", self)
        self.estimate = QLabel("", self)
        self._cancel: threading.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._listing: asyncio.Future[None] | None = None
        self._layout()
        self.refresh()
        self._probe = asyncio.ensure_future(self._take_gpu(gpu_probe)) if gpu_probe else None

    def _layout(self) -> None:
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.table.selectionModel().selectionChanged.connect(self._update)
        self.table.doubleClicked.connect(lambda _index: self.use_selected())
        self.download_button.clicked.connect(self.download_selected)
        self.use_button.clicked.connect(self.use_selected)
        self.cancel_button.clicked.connect(self.cancel_download)
        for label in (self.status, self.estimate):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
        buttons = QHBoxLayout()
        for widget in (self.download_button, self.use_button, self.cancel_button):
            buttons.addWidget(widget)
        buttons.addWidget(self.progress, 1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.table, 1)
        column.addLayout(buttons)
        column.addWidget(self.status)
        column.addWidget(self.estimate)
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)

    # --- the list and the estimate ---

    def refresh(self, select: str | None = None) -> None:
        """List the library again on a worker (GGUF headers are read from disk), then select
        ``select`` (an entry id), or keep the selection."""
        current = self.selected()
        wanted = select or (current.id if current else None)
        self._listing = asyncio.ensure_future(self._list(wanted))

    async def _list(self, select: str | None) -> None:
        loop = asyncio.get_running_loop()
        with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="model-library") as worker:
            entries, free_ram = await loop.run_in_executor(worker, _listing)
        if self._closed:
            return
        self.model.set_entries(entries, free_ram)
        if select is not None:
            self.select(select)
        self._update()
        self.listed.emit()

    def set_offload(self, layers: int, n_ctx: int) -> None:
        self.model.set_offload(layers, n_ctx)
        self._update()

    async def _take_gpu(self, probe: GpuMemoryProbe) -> None:
        gpu = await probe()
        if not self._closed:
            self.model.set_offload(self.model.layers, self.model.n_ctx, gpu)
            self._update()

    def selected(self) -> ModelEntry | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.entry(rows[0].row()) if rows else None

    def select(self, entry_id: str) -> bool:
        row = self.model.row_of(entry_id)
        if row is None:
            return False
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.table.selectionModel().select(self.model.index(row, 0), flags)
        return True

    def _update(self) -> None:
        entry, busy = self.selected(), self._cancel is not None
        self.download_button.setEnabled(bool(entry and not entry.on_disk and entry.curated) and not busy)
        self.use_button.setEnabled(bool(entry and (entry.on_disk or entry.builtin)))
        self.estimate.setText(self._estimate_text(entry))

    def _estimate_text(self, entry: ModelEntry | None) -> str:
        gpu = self.model.gpu
        if not gpu.offload:
            head = "GPU: this llama.cpp build is CPU-only; every layer runs on the CPU."
        elif gpu.free is None:
            head = "GPU: offload is built in, but llama.cpp reports no GPU's free memory."
        else:
            head = f"GPU: {', '.join(gpu.names)}, {gpu.free / 1024**3:.1f} GB free."
        if entry is None:
            return head
        row = self.model.row_of(entry.id)
        plan = self.model.plan_for(row) if row is not None else None
        suggested = entry.suggested_gpu_layers(self.model.n_ctx, gpu)
        fitting = "all (-1)" if suggested == -1 else str(suggested)
        return f"{head}\n{entry.label}: {memory_text(plan, entry)}. Layers that fit the free VRAM: {fitting}."

    # --- choosing ---

    def use_selected(self) -> None:
        entry = self.selected()
        if entry is not None and (entry.on_disk or entry.builtin):
            self.chosen.emit(entry)

    # --- downloading ---

    def download_selected(self) -> None:
        entry = self.selected()
        if entry is None or entry.curated is None or entry.on_disk or self._cancel is not None:
            return
        self._cancel = threading.Event()
        self._task = asyncio.ensure_future(self._download(entry, self._cancel))
        self.progress.setRange(0, 0)
        self.progress.setVisible(True)
        self.cancel_button.setVisible(True)
        self.status.setText(f"Connecting to download {entry.label}…")
        self._update()

    def cancel_download(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    async def _download(self, entry: ModelEntry, cancel: threading.Event) -> None:
        curated, loop = entry.curated, asyncio.get_running_loop()
        if curated is None:
            return

        def listener(event: dl.DownloadEvent) -> None:
            loop.call_soon_threadsafe(self._on_event, event)

        target = download_path(curated)
        # Not `with`: leaving it would wait for the thread, and a closing dialog must not
        # wait on a network read; the thread ends at its next block once `cancel` is set.
        worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="model-download")
        try:
            await loop.run_in_executor(worker, dl.pull, curated, target, listener, cancel)
            ended = f"Downloaded {entry.label} and checked its SHA-256."
        except dl.DownloadCancelled:
            ended = "Download cancelled. Download again to resume where it stopped."
        except BackendError as exc:
            ended = exc.message
        finally:
            worker.shutdown(wait=False)
        if not self._closed:
            self._finish(ended, target)

    def _on_event(self, event: dl.DownloadEvent) -> None:
        if self._closed:
            return
        if isinstance(event, dl.DownloadStarted) and event.total:
            self.progress.setRange(0, 1000)
        elif isinstance(event, dl.DownloadProgress):
            if event.total:
                self.progress.setValue(int(1000 * event.done / event.total))
            self.status.setText(dl.progress_text(event))
        elif isinstance(event, dl.DownloadVerifying):
            self.status.setText("Checking the SHA-256…")

    def _finish(self, ended: str, target: Path) -> None:
        self._cancel = self._task = None
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
        self.status.setText(ended)
        self.refresh(select=str(target) if target.is_file() else None)  # else: keep the selection
        self.download_ended.emit(ended)

    def close_down(self) -> None:
        """The dialog is closing: stop a download (its partial file stays) and the probe."""
        self._closed = True
        self.cancel_download()
        for task in (self._task, self._probe, self._listing):
            if task is not None:
                task.cancel()
