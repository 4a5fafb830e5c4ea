"""Starting the window: one qasync loop for Qt and asyncio, the engine behind a controller.

``app.__main__`` calls :func:`main` with the command-line arguments (only
``--config FILE`` matters here). Everything that goes wrong at the top level
is logged and shown once, in the chat, by :class:`ErrorReporter`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from types import TracebackType
from typing import Any

import qasync
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from app.core import events as ev
from app.core.backend import Backend, BackendError, load_under_way
from app.engine import Engine
from app.mcp.config import ConfigError, load_config
from app.mcp.known import started_later
from app.mcp.retrieval.meter import schema_tokens  # here, not in the handler: a first import stalls a step
from app.mcp.review import Review
from app.mcp.surface import Surface
from app.settings import Settings, load_settings
from app.ui import app_teardown, app_view, surface_ui
from app.ui.ask_cards import CardUser
from app.ui.controller import ChatController
from app.ui.gc_guard import MainThreadCollector
from app.ui.history_view import WindowHistory
from app.ui.main_window import MainWindow
from app.ui.passphrase_dialog import ask_passphrase

logger = logging.getLogger(__name__)

_background: set[asyncio.Future[Any]] = set()


def main(argv: list[str]) -> int:
    """Run the window until it is closed; returns the process exit code."""
    options, _ = _parser().parse_known_args(argv)
    # Qt WebEngine (MCP Apps) shares OpenGL contexts with the window: this must precede the QApplication.
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "calculon"])
    assert isinstance(app, QApplication)
    app.setApplicationName("Calculon")
    app.setDesktopFileName("calculon")
    app.setQuitOnLastWindowClosed(False)  # the coroutine below decides when to stop, after cleanup
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    collector = MainThreadCollector()
    collector.start()
    try:
        with loop:
            return int(loop.run_until_complete(run(options.config, collector, options.quit_after)))
    finally:
        collector.stop()
        asyncio.set_event_loop(None)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--config", type=Path, default=None)
    # For smoke tests of a packaged build: close by itself this long after it is ready.
    parser.add_argument("--quit-after", type=float, default=None, metavar="SECONDS")
    return parser


async def run(
    servers_path: Path | None = None,
    collector: MainThreadCollector | None = None,
    quit_after: float | None = None,
) -> int:
    settings, problems = load_settings()
    try:
        engine = build_engine(settings, servers_path)
    except ConfigError as exc:
        QMessageBox.critical(None, "Calculon", f"The MCP servers file cannot be used:\n\n{exc}")
        return 1
    loading = await start_loading(engine)  # the model's process starts while the window is built
    window = build_window(engine, settings)
    saved = WindowHistory.attach(window, engine, settings.history_keep_days)
    reporter = ErrorReporter(window)
    reporter.install()
    for problem in problems:
        window.feed.show_error(problem, "Settings")
    closed = asyncio.Event()
    window.closed.connect(closed.set)
    window.show()
    warm_up = asyncio.ensure_future(prepare(engine, window, collector, loading))
    if quit_after is not None:
        warm_up.add_done_callback(lambda _: asyncio.get_running_loop().call_later(quit_after, window.close))
    try:
        await closed.wait()
    finally:
        warm_up.cancel()
        loading.cancel()  # a window closed while the model still loads
        await asyncio.gather(warm_up, loading, return_exceptions=True)
        await (
            app_teardown.wait_closed()
        )  # the apps' pages answer ui/resource-teardown while servers still run
        await engine.aclose()
        saved.close()
        reporter.uninstall()
    return 0


async def start_loading(engine: Engine) -> asyncio.Future[Backend]:
    """Start loading the model; return the load once its process is started. Building the
    window takes about half a second of this process, and the model loads meanwhile;
    ``prepare`` awaits the load and shows its error, if it fails."""
    loading = asyncio.ensure_future(engine.ensure_backend())
    await asyncio.sleep(0)  # the task builds the backend and starts its load
    if engine.backend is not None:
        await load_under_way(engine.backend, loading)
    return loading


def build_engine(settings: Settings, servers_path: Path | None = None) -> Engine:
    """The engine as the window runs it: Calculon mode and tool retrieval following the settings.
    Servers known from their last run wait until the first question is answered (``prepare``)."""
    later = started_later(load_config(servers_path), settings.strict)
    return Engine.from_settings(settings, servers_path=servers_path, on_demand=later)


def build_window(engine: Engine, settings: Settings) -> MainWindow:
    window = MainWindow(
        ChatController(engine),
        settings=settings,
        servers=engine.supervisor,
        approvals=engine.approval_editor,
        servers_config=lambda: load_config(engine.config.path),
    )
    window.set_model_label(model_label(settings))
    surface_ui.install(window, Surface(engine.supervisor))
    window.feed.open_app = app_view.AppViews(lambda app: engine.app_bridge(app, window.controller.submit))
    window.servers_panel.show_review(Review(engine.supervisor))
    window.settings_saved.connect(lambda new: _reconfigure(engine, window, new))
    engine.subscribe(lambda event: _meter(engine, window, event))
    # Questions become cards in the chat; a choice remembered there is in the settings dialog next time.
    engine.asker.user = CardUser(window.chat.add_widget)
    engine.subscribe(lambda event: _remembered(engine, window, event))
    return window


def _remembered(engine: Engine, window: MainWindow, event: ev.Event) -> None:
    if isinstance(event, ev.ApprovalRemembered):
        window.settings = engine.settings
        window.servers_panel.show_policy()


def _meter(engine: Engine, window: MainWindow, event: ev.Event) -> None:
    """How much of the local model's context the offered tools' schemas take, per step."""
    if not isinstance(event, ev.StepStarted):
        return
    offered = [engine.supervisor.resolve(name) for name, _ in event.offered]
    context = engine.backend.context_tokens if engine.backend else None
    used = schema_tokens([tool for tool in offered if tool is not None])
    window.status.set_context_meter(used, context or 0)


def model_label(settings: Settings, loaded: str = "") -> str:
    """ "Backend · model" for the status bar; ``loaded`` is the backend's own label once it loaded."""
    if settings.backend == "gemini":
        return f"Gemini · {loaded or settings.gemini_model}"
    name = Path(settings.model_path).name if settings.model_path else "default model"
    return f"Local · {loaded or name}"


async def prepare(
    engine: Engine,
    window: MainWindow,
    collector: MainThreadCollector | None = None,
    loading: asyncio.Future[Backend] | None = None,
) -> None:
    """Start the servers and load the model (or wait for ``loading``, a load already under way)
    as soon as the window is up."""
    await ask_passphrase(window)  # an opted-in token file, still locked: before servers sign in with it
    servers = asyncio.ensure_future(engine.start(wait=False))  # each server's tools join as it is ready
    try:
        backend = await (loading if loading is not None else engine.ensure_backend())
    except BackendError as exc:
        window.feed.show_error(exc.message, "Model")
        if exc.category == "model":  # no usable model yet: the settings are where to pick one
            window.feed.show_error("Choose a GGUF file or switch to Gemini in Settings.", "Getting started")
            window.open_settings()
    else:
        window.set_model_label(model_label(engine.settings, backend.model_label))
    await servers
    _wake_later(engine)
    if collector is not None:
        collector.freeze_startup()


# How long after the model is ready the servers left idle start anyway: a first question asked
# at once has the CPU to itself, and the Servers tab soon lists every server's resources and prompts.
WAKE_IDLE_AFTER_S = 5.0


def _wake_later(engine: Engine) -> None:
    task = asyncio.ensure_future(_wake_idle(engine))
    _background.add(task)
    task.add_done_callback(_background.discard)


async def _wake_idle(engine: Engine) -> None:
    await asyncio.sleep(WAKE_IDLE_AFTER_S)
    while engine.session is not None and engine.session.busy:  # the turn keeps the CPU first
        await asyncio.sleep(0.5)
    engine.supervisor.wake_idle()


def _reconfigure(engine: Engine, window: MainWindow, settings: Settings) -> None:
    window.set_model_label(model_label(settings))
    window.status.showMessage("Settings saved.", 5000)
    task = asyncio.ensure_future(_apply(engine, settings))
    _background.add(task)  # the loop keeps only weak references to tasks
    task.add_done_callback(_background.discard)


async def _apply(engine: Engine, settings: Settings) -> None:
    """New settings take effect now: the model on the next turn, changed servers restart."""
    await engine.reconfigure(settings)
    await engine.reload_servers()


class ErrorReporter:
    """The one top-level handler: logs what nobody caught and shows it in the chat."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self._previous_hook = sys.excepthook

    def install(self) -> None:
        asyncio.get_running_loop().set_exception_handler(self.loop_error)
        sys.excepthook = self.hook

    def uninstall(self) -> None:
        sys.excepthook = self._previous_hook
        asyncio.get_running_loop().set_exception_handler(None)  # the window is going away

    def loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        logger.error("unhandled: %s", context.get("message"), exc_info=error)
        self.show(str(error) if error else str(context.get("message", "unknown error")))

    def hook(self, kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        logger.error("unhandled exception", exc_info=(kind, error, trace))
        self.show(f"{kind.__name__}: {error}")

    def show(self, message: str) -> None:
        self.window.feed.show_error(f"Something went wrong inside Calculon: {message}", "Internal error")
