"""The window over the real engine: real supervisor and calculator, a scripted model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.engine import Engine
from app.llm.scripted import ScriptedBackend
from app.settings import Settings, save_settings
from app.ui import main as app_main
from app.ui.controller import ChatController
from app.ui.main import ErrorReporter, build_engine, build_window, main, prepare
from app.ui.main_window import MainWindow
from tests.ui.test_controller import FakeRunner

REPO_ROOT = Path(__file__).resolve().parents[2]


def servers_file(tmp_path: Path, servers: dict) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


CALCULATOR = {
    "command": sys.executable,
    "args": ["-m", "app.servers.calculator"],
    "env": {"PYTHONPATH": str(REPO_ROOT)},
}


def test_a_question_runs_through_the_engine_and_the_real_calculator(qtbot, arun, tmp_path):
    call = ToolCall("c1", "multiply", {"a": 48, "b": 37})
    backend = ScriptedBackend([[ToolCallChunk(call)], ["48 boxes of 37 bolts make **1776** bolts."]])
    settings = Settings(strict=False, trusted_servers=["calculator"])  # its read-only tools run unasked
    engine = Engine(
        settings, servers_path=servers_file(tmp_path, {"calculator": CALCULATOR}), backend=backend
    )
    window = build_window(engine, settings)
    qtbot.addWidget(window)
    window.show()
    try:
        window.controller.submit("How many bolts are in 48 boxes of 37?")
        qtbot.waitUntil(lambda: not window.controller.busy, timeout=60_000)
        result = next(b for b in window.chat.bubbles() if b.kind == "tool_result")
        assert result.text().split("\n")[0] == "1776" and "calculator.multiply" in result.title
        assert '"exact": true' in result.text()  # the calculator's structured content, as JSON
        assert window.chat.bubbles()[-1].text().strip() == "48 boxes of 37 bolts make 1776 bolts."
        assert window.servers_panel.states["calculator"].state == "ready"
        # The calculator's 8 offered schemas are metered in the status bar.
        meter = window.status.context_label.text()
        assert meter.startswith("Tool schemas: ") and int(meter.split()[2]) > 100
    finally:
        arun(engine.aclose(), timeout=30)


HUNG = {
    "command": sys.executable,
    "args": [str(REPO_ROOT / "tests" / "mcp" / "servers" / "hostile.py"), "hung"],
}


def test_the_window_answers_with_the_calculator_while_a_hung_server_is_still_starting(
    qtbot, qloop, arun, tmp_path
):
    call = ToolCall("c1", "multiply", {"a": 12, "b": 7})
    backend = ScriptedBackend([[ToolCallChunk(call)], ["12 times 7 is 84."]])
    settings = Settings(strict=False, trusted_servers=["calculator"])
    servers = servers_file(tmp_path, {"calculator": CALCULATOR, "hung": HUNG})  # never answers initialize
    engine = Engine(settings, servers_path=servers, backend=backend)
    window = build_window(engine, settings)
    qtbot.addWidget(window)
    window.show()
    warm_up = qloop.create_task(prepare(engine, window))  # as the window's start does
    try:
        states = window.servers_panel.states
        qtbot.waitUntil(
            lambda: "calculator" in states and states["calculator"].state == "ready", timeout=30_000
        )
        window.controller.submit("What is 12 times 7?")
        qtbot.waitUntil(lambda: not window.controller.busy, timeout=30_000)
        assert window.chat.bubbles()[-1].text().strip() == "12 times 7 is 84."
        hung = states["hung"].state
        assert hung == "starting", hung  # its connect wait (30 s) is not over: nothing waited for it
        assert warm_up.done() and warm_up.exception() is None  # the window's start-up did not wait either
    finally:
        arun(engine.aclose(), timeout=30)


@pytest.fixture
def no_keyring():
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


def test_main_shows_a_missing_gemini_key_in_the_chat_and_returns_when_closed(qapp, tmp_path, no_keyring):
    save_settings(Settings(backend="gemini"))
    seen: list[str] = []
    deadline = QTimer()
    deadline.setSingleShot(True)
    deadline.start(30_000)

    def close_once_the_error_shows() -> None:
        window = next((w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)), None)
        errors = [b.text() for b in window.chat.bubbles() if b.kind == "error"] if window else []
        if window is not None and (errors or not deadline.isActive()):
            seen.extend(errors)
            window.close()
        else:
            QTimer.singleShot(20, close_once_the_error_shows)

    QTimer.singleShot(0, close_once_the_error_shows)
    assert main(["--config", str(servers_file(tmp_path, {}))]) == 0
    assert any("Gemini" in text and "key" in text for text in seen), seen


def test_an_error_nobody_caught_is_logged_and_shown_once_in_the_chat(qtbot, qloop, caplog):
    window = MainWindow(ChatController(FakeRunner()), gpu_probe=None)
    qtbot.addWidget(window)
    reporter = ErrorReporter(window)
    reporter.loop_error(
        qloop, {"message": "Task exception was never retrieved", "exception": KeyError("gone")}
    )
    errors = [b.text() for b in window.chat.bubbles() if b.kind == "error"]
    assert len(errors) == 1 and "gone" in errors[0]
    assert "Task exception was never retrieved" in caplog.text


def test_a_server_known_from_its_last_run_starts_soon_after_the_window_is_ready(
    qtbot, qloop, arun, tmp_path, monkeypatch
):
    servers = servers_file(tmp_path, {"calculator": CALCULATOR})
    settings = Settings(strict=False)
    first = Engine(settings, servers_path=servers)  # nothing known yet: it starts at once, and is remembered
    arun(first.start(), timeout=60)
    assert first.supervisor.states()[0].state == "ready"
    arun(first.aclose(), timeout=30)
    assert build_engine(settings, servers).supervisor.on_demand == {"calculator"}  # what the window builds
    monkeypatch.setattr(app_main, "WAKE_IDLE_AFTER_S", 0.2)
    engine = Engine(settings, servers_path=servers, backend=ScriptedBackend([]), on_demand={"calculator"})
    window = build_window(engine, settings)
    qtbot.addWidget(window)
    window.show()
    warm_up = qloop.create_task(prepare(engine, window))
    try:
        states = window.servers_panel.states
        qtbot.waitUntil(
            lambda: "calculator" in states and states["calculator"].state == "idle", timeout=30_000
        )
        assert engine.supervisor.resolve("multiply") is not None  # offered while idle
        qtbot.waitUntil(lambda: states["calculator"].state == "ready", timeout=30_000)  # woken, unasked
        assert warm_up.done() and warm_up.exception() is None
    finally:
        arun(engine.aclose(), timeout=30)
