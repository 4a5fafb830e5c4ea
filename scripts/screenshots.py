"""Screenshots of the real window, for the README.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots]

Runs the window on X11 (it starts ``Xvfb :99`` itself when there is no
``DISPLAY``; ``xvfb-run`` works too) through a scripted conversation: the model
is a ScriptedBackend, everything else is real: the engine, the supervisor, the
bundled calculator, converter and clock servers, and one server that cannot
start. Config and cache go to a temporary folder, never the user's own.

Needs Xvfb and the X libraries Qt's xcb plugin loads; on Debian:
``apt-get install -y xvfb libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxkbcommon-x11-0``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # the real imports wait until the display and folders are set up
    from PySide6.QtWidgets import QApplication, QWidget

    from app.core.backend import Chunk
    from app.engine import Engine
    from app.settings import Settings
    from app.ui.main_window import MainWindow

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

T = TypeVar("T")
BROKEN_SERVER = "echo 'weather: WEATHER_TOKEN is not set' >&2; exit 2"  # fails the same way each start


def start_display() -> subprocess.Popen[bytes] | None:
    """An Xvfb on :99 unless a display is already there."""
    if os.environ.get("DISPLAY"):
        return None
    if shutil.which("Xvfb") is None:
        raise SystemExit("No DISPLAY and no Xvfb: install it (apt-get install -y xvfb) or use xvfb-run.")
    xvfb = subprocess.Popen(["Xvfb", ":99", "-screen", "0", "1600x1000x24", "-nolisten", "tcp"])
    socket = Path("/tmp/.X11-unix/X99")
    deadline = time.monotonic() + 10
    while not socket.exists():
        if xvfb.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("Xvfb did not start on :99")
        time.sleep(0.05)
    os.environ["DISPLAY"] = ":99"
    return xvfb


def isolate(folder: Path) -> Path:
    """Fresh config and cache folders, and a servers file with one server that cannot start."""
    os.environ["CALCULON_CONFIG_DIR"] = str(folder / "config")
    os.environ["CALCULON_CACHE_DIR"] = str(folder / "cache")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        os.environ.pop(key, None)
    from app.mcp.config import default_config

    servers = default_config().to_json()
    servers["mcpServers"]["weather"] = {"command": "sh", "args": ["-c", BROKEN_SERVER]}
    path = folder / "servers.json"
    path.write_text(json.dumps(servers), encoding="utf-8")
    return path


def script() -> list[list[Chunk | str]]:
    from app.core.backend import ThoughtChunk, ToolCallChunk
    from app.core.messages import ToolCall

    def call(n: int, tool: str, **arguments: object) -> ToolCallChunk:
        return ToolCallChunk(ToolCall(f"c{n}", tool, arguments))

    def words(text: str) -> list[Chunk | str]:
        return [w + " " for w in text.split(" ")]

    return [
        # 1: a thought, two calculator calls, a verified answer
        [
            ThoughtChunk("One crate is 48 boxes × 37 bolts; then times 12 crates."),
            call(1, "multiply", a=48, b=37),
        ],
        [call(2, "multiply", a=1776, b=12)],
        words("Each crate holds **1,776** bolts (48 × 37), so 12 crates hold **21,312** bolts."),
        # 2: the model guesses; Calculon re-asks; the last answer still has a number no tool gave
        words("15% of 240 is 36, and adding 7 gives **43**."),
        [call(3, "multiply", a=240, b=0.15)],
        words("15% of 240 is 36; plus 7 that makes **43**."),
        words("The result is **43** (36 + 7)."),
        # 3: a tool error comes back from the server and the model explains it
        [call(4, "divide", a=10, b=0)],
        words("The calculator refuses: **division by zero** is undefined, so 10 ÷ 0 has no value."),
    ]


QUESTIONS = (
    "A crate holds 48 boxes of 37 bolts. How many bolts are in 12 crates?",
    "What is 15% of 240, plus 7?",
    "What is 10 divided by 0?",
)


async def converse(window: MainWindow, engine: Engine) -> None:
    await engine.start()
    for question in QUESTIONS:
        window.controller.submit(question)
        await asyncio.wait_for(window.controller.wait_idle(), 60)


async def settle(app: QApplication, seconds: float = 0.4) -> None:
    """Let layouts and paints finish before a grab (the Qt loop runs while this sleeps)."""
    await asyncio.sleep(seconds)


@contextlib.asynccontextmanager
async def real_window(
    settings: Settings, servers_path: Path, states: Mapping[str, str]
) -> AsyncIterator[MainWindow]:
    """The real window at 1280x800 (the size the trace must read at), its model loaded and each
    server named in ``states`` in that state: a question typed before the calculator is up is
    answered without it."""
    from app.engine import Engine
    from app.ui.main import build_window, prepare

    engine = Engine.from_settings(settings, servers_path=servers_path)
    window = build_window(engine, settings)
    window.resize(1280, 800)
    window.show()
    try:
        await prepare(engine, window)
        await engine.ensure_backend()
        shown = window.servers_panel.states
        while not all(name in shown and shown[name].state == state for name, state in states.items()):
            await asyncio.sleep(0.1)
        yield window
    finally:
        window.close()
        await engine.aclose()


async def answers_shot(app: QApplication, window: MainWindow, path: Path) -> Path:
    """Print each answer with its badge, as the window shows them, then save the window to ``path``."""
    for bubble in window.chat.bubbles():
        if bubble.title == "Answer":
            print(f"{bubble.text().strip()!r}: {bubble.badge.text()!r}")
    await settle(app, 1.0)
    window.grab().save(str(path))
    return path


async def shoot(app: QApplication, out: Path, servers_path: Path) -> list[Path]:
    from app.calculon import CalculonMode
    from app.engine import Engine
    from app.llm.scripted import ScriptedBackend
    from app.settings import Settings
    from app.ui.main import build_window

    settings = Settings(strict=True)
    backend = ScriptedBackend(script(), delay=0.01)
    engine = Engine(settings, servers_path=servers_path, backend=backend, verifier=CalculonMode())
    window = build_window(engine, settings)
    window.set_model_label("Local · gemma-3-270m (scripted for the screenshots)")
    window.resize(1440, 900)
    window.show()
    saved: list[Path] = []
    try:
        await converse(window, engine)
        saved += await views(app, window, out)
    finally:
        window.close()
        await engine.aclose()
    return saved


def go_dark(app: QApplication) -> None:
    """What the system switching to dark does; Xvfb has no platform theme, so set the palette too."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor, QPalette

    app.styleHints().setColorScheme(Qt.ColorScheme.Dark)
    if app.palette().color(QPalette.ColorRole.Window).lightness() < 128:
        return
    palette = QPalette()
    roles = QPalette.ColorRole
    for role, colour in (
        (roles.Window, "#2b2b2b"),
        (roles.WindowText, "#e6e6e6"),
        (roles.Base, "#1f1f1f"),
        (roles.AlternateBase, "#292929"),
        (roles.Text, "#e6e6e6"),
        (roles.Button, "#353535"),
        (roles.ButtonText, "#e6e6e6"),
        (roles.Highlight, "#2f65ca"),
        (roles.HighlightedText, "#ffffff"),
        (roles.PlaceholderText, "#8c8c8c"),
        (roles.ToolTipBase, "#353535"),
        (roles.ToolTipText, "#e6e6e6"),
    ):
        palette.setColor(role, QColor(colour))
    for role in (roles.ButtonText, roles.WindowText, roles.Text):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6e6e6e"))
    app.setPalette(palette)


async def views(app: QApplication, window: MainWindow, out: Path) -> list[Path]:
    saved = []

    async def save(widget: QWidget, name: str) -> None:
        await settle(app)
        path = out / name
        widget.grab().save(str(path))
        saved.append(path)

    await save(window, "main-window.png")
    bar = window.chat.scroll_area.verticalScrollBar()
    bar.setValue(0)  # the first turn: thought, tool calls, verified answer
    tree, model = window.trace_view.tree, window.trace_view.model
    first_turn = window.trace.roots[0]
    call = next(n for n in first_turn.children[0].children if n.kind == "tool_call")
    tree.expand(model.index_of(first_turn))
    tree.expand(model.index_of(call.parent))
    tree.setCurrentIndex(model.index_of(call))
    await save(window, "trace-details.png")
    window.side.setCurrentWidget(window.servers_panel)
    names = list(window.servers_panel.states)
    window.servers_panel.servers.setCurrentRow(names.index("weather"))
    await save(window, "servers-panel.png")
    window.servers_panel.servers.setCurrentRow(names.index("calculator"))
    await save(window, "servers-panel-calculator.png")
    dialog = window.open_settings()
    dialog.resize(720, 560)
    dialog.tabs.setCurrentIndex(1)
    await settle(app, 1.5)  # the GPU probe imports llama.cpp on a worker
    await save(dialog, "settings-local-model.png")
    tabs = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
    dialog.tabs.setCurrentIndex(tabs.index("Tools"))
    await save(dialog, "settings-tools.png")
    dialog.tabs.setCurrentWidget(dialog.servers)
    await save(dialog, "settings-servers.png")
    dialog.reject()
    window.side.setCurrentWidget(window.trace_view)
    bar.setValue(bar.maximum())
    go_dark(app)
    await save(window, "main-window-dark.png")
    return saved


def on_display(shoot: Callable[[QApplication, Path, Path], Awaitable[T]], out: Path) -> T:
    """Run ``shoot(app, out, servers_path)`` in a real window on X11, in fresh folders."""
    out.mkdir(parents=True, exist_ok=True)
    xvfb = start_display()
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    try:
        with tempfile.TemporaryDirectory(prefix="calculon-shots-") as folder:
            servers_path = isolate(Path(folder))
            import qasync
            from PySide6.QtWidgets import QApplication

            app = QApplication([sys.argv[0]])
            app.setQuitOnLastWindowClosed(False)
            loop = qasync.QEventLoop(app)
            asyncio.set_event_loop(loop)
            with loop:
                return loop.run_until_complete(shoot(app, out, servers_path))
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    saved = on_display(shoot, args.out)
    for path in saved:
        print(path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
