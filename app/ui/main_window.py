"""The main window: chat beside the trace, a servers tab, and the status bar."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QIcon, QKeySequence
from PySide6.QtWidgets import QMainWindow, QSplitter, QTabWidget, QWidget

from app import paths
from app.core import events as ev
from app.core.trace import TraceStore
from app.mcp.config import ServersConfig, load_config
from app.settings import Settings
from app.ui import window_state
from app.ui.chat_feed import ChatFeed
from app.ui.chat_pane import ChatPane
from app.ui.controller import ChatController
from app.ui.gpu import probe_gpu
from app.ui.servers_panel import ApprovalControl, ServerControl, ServersPanel
from app.ui.settings_dialog import GpuProbe, SettingsDialog
from app.ui.status_bar import StatusBar
from app.ui.trace_view import TraceView


class MainWindow(QMainWindow):
    """Wires widgets to the controller; owns the trace store the tree shows.

    Signals:
        settings_saved(object): the user saved new :class:`Settings`.
        closed(): the window was closed (its state is saved by then).
    """

    settings_saved = Signal(object)
    closed = Signal()

    def __init__(
        self,
        controller: ChatController,
        *,
        settings: Settings | None = None,
        servers: ServerControl | None = None,
        approvals: ApprovalControl | None = None,
        servers_config: Callable[[], ServersConfig] = load_config,
        gpu_probe: GpuProbe | None = probe_gpu,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Calculon")
        self.setWindowIcon(QIcon(str(paths.resources_dir() / "icons" / "calculon-256.png")))
        self.controller = controller
        self.settings = settings or Settings()
        self._servers_config = servers_config
        self._gpu_probe = gpu_probe
        self.trace = TraceStore()
        self.chat = ChatPane(self)
        self.feed = ChatFeed(self.chat)
        self.trace_view = TraceView(self.trace, self)
        self.servers_panel = ServersPanel(servers, self, approvals)
        self.side = QTabWidget(self)
        self.side.addTab(self.trace_view, "Trace")
        self.side.addTab(self.servers_panel, "Servers")
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.chat)
        self.splitter.addWidget(self.side)
        self.splitter.setSizes([600, 600])  # the trace's rows are sentences too: half the width each
        self.setCentralWidget(self.splitter)
        self.status = StatusBar(self)
        self.setStatusBar(self.status)
        self._menus()
        self._connect()
        if not window_state.restore(self, self._splitters()):
            self.resize(1200, 780)

    def _splitters(self) -> dict[str, QSplitter]:
        return {"main": self.splitter, "trace": self.trace_view.splitter}

    def _menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.settings_action = QAction("&Settings…", self)
        self.settings_action.setShortcut(QKeySequence.StandardKey.Preferences)
        self.settings_action.triggered.connect(self.open_settings)
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addActions([self.settings_action, quit_action])
        chat_menu = self.menuBar().addMenu("&Chat")
        stop = QAction("&Stop", self)
        stop.triggered.connect(self.controller.cancel)
        chat_menu.addAction(stop)

    def _connect(self) -> None:
        self.controller.bridge.engine_event.connect(self.on_event)
        self.controller.busy_changed.connect(self.chat.set_busy)
        self.controller.failed.connect(self.feed.show_error)
        self.chat.submitted.connect(self.controller.submit)
        self.chat.stop_requested.connect(self.controller.cancel)

    def on_event(self, event: ev.Event) -> None:
        self.trace.apply(event)
        self.feed.handle(event)
        self.status.handle(event)
        self.servers_panel.handle(event)

    def set_model_label(self, text: str) -> None:
        self.status.set_model(text)
        self.setWindowTitle(f"Calculon — {text}")

    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self.settings, self._servers_config(), self, gpu_probe=self._gpu_probe)
        dialog.saved.connect(self._saved)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def _saved(self, settings: Settings) -> None:
        self.settings = settings
        self.settings_saved.emit(settings)

    def closeEvent(self, event: QCloseEvent) -> None:
        window_state.save(self, self._splitters())
        self.feed.close_apps("the window is closing")  # each page is told; run() waits for their answers
        self.controller.cancel()
        super().closeEvent(event)
        self.closed.emit()
