"""Screenshots of what servers offer besides tools (progress, rich results, the servers panel's
details, resources, slash prompts, logs), against server-everything from the test fixture.

    Xvfb :99 -screen 0 1600x1000x24 -nolisten tcp &
    DISPLAY=:99 .venv/bin/python scripts/surface_screenshots.py [OUT_FOLDER]

The model is scripted; the engine, the supervisor and the servers are real. Each shot is
``import -window root`` of the whole display. Config and cache go to a temporary folder.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
tmp = Path(tempfile.mkdtemp())
os.environ["CALCULON_CONFIG_DIR"] = str(tmp / "config")
os.environ["CALCULON_CACHE_DIR"] = str(tmp / "cache")
os.environ["PYTHONPATH"] = str(REPO)
from app.mcp.config import default_config  # noqa: E402  (after the folders are set)
from tests.everything import everything_entry  # noqa: E402

servers = default_config().to_json()
servers["mcpServers"] = {
    "calculator": servers["mcpServers"]["calculator"],
    "everything": everything_entry().to_json(),
}
path = tmp / "servers.json"
path.write_text(json.dumps(servers))
OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/calculon-shots")
OUT.mkdir(parents=True, exist_ok=True)


def snap(name):
    subprocess.run(["import", "-window", "root", str(OUT / f"{name}.png")], check=True)
    print("saved", name, flush=True)


async def main(app):
    from app.core.backend import ToolCallChunk
    from app.core.messages import ToolCall
    from app.engine import Engine
    from app.llm.scripted import ScriptedBackend
    from app.settings import Settings
    from app.ui.main import build_window
    from app.ui.prompt_form import SlashPrompts

    def call(n, tool, **a):
        return ToolCallChunk(ToolCall(f"c{n}", tool, a))

    steps = [
        [call(1, "trigger-long-running-operation", duration=4, steps=8)],
        [call(2, "get-structured-content", location="New York")],
        [call(3, "get-tiny-image")],
        [call(4, "get-resource-links", count=2)],
        ["The operation finished; New York is cloudy at 33 degrees."],
        ["Paris: I cannot look up the weather, but the attached document lists the server's features."],
    ]
    settings = Settings(strict=False, tool_approvals={"everything.*": "always"})
    engine = Engine(settings, servers_path=path, backend=ScriptedBackend(steps, delay=0.01))
    window = build_window(engine, settings)
    window.resize(1500, 950)
    window.show()
    await engine.start()
    window.controller.submit("Run the long operation, then show me the weather, the image and the links.")
    await asyncio.sleep(2.2)
    snap("1-progress")
    await asyncio.wait_for(window.controller.wait_idle(), 60)
    await asyncio.sleep(0.5)
    bar = window.chat.scroll_area.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    await asyncio.sleep(0.3)
    snap("2-rich-results")
    bar.setValue(bar.maximum())
    await asyncio.sleep(0.3)
    snap("3-rich-results-end")
    window.side.setCurrentIndex(1)
    panel = window.servers_panel
    panel.servers.setCurrentRow(list(panel.states).index("everything"))
    await asyncio.sleep(0.4)
    snap("4-servers-overview")
    panel.details.setCurrentIndex(1)
    await asyncio.sleep(0.3)
    snap("5-servers-tools")
    panel.details.setCurrentIndex(3)
    view = panel.details.resources
    await view.read("demo://resource/static/document/features.md")
    await asyncio.sleep(0.3)
    snap("6-resources")
    view.attach_shown()
    panel.details.setCurrentIndex(4)
    await asyncio.sleep(0.3)
    snap("7-prompts")
    window.chat.input.setPlainText("/")
    await asyncio.sleep(0.6)
    snap("8-slash-menu")
    slash = window.chat.input.findChild(SlashPrompts)
    slash.menu.close()
    listed = next(p for p in engine_prompts(panel) if p.item.name == "args-prompt")
    form = slash.open_form(listed.server, listed.item)
    form.fields["city"].setText("Paris")
    await asyncio.sleep(0.5)
    snap("9-prompt-form")
    form.accept()
    await asyncio.sleep(1.0)
    await asyncio.wait_for(window.controller.wait_idle(), 60)
    await asyncio.sleep(0.4)
    snap("10-prompt-sent")
    from PySide6.QtWidgets import QPushButton

    buttons = [
        b for b in window.chat.findChildren(QPushButton) if b.text().startswith("Read Text Resource 2")
    ]
    buttons[0].click()
    await asyncio.sleep(1.0)
    snap("11-link-read")
    await engine.supervisor.call_tool("toggle-simulated-logging", {})
    await asyncio.sleep(6)
    panel.details.setCurrentIndex(2)
    await asyncio.sleep(0.3)
    snap("12-logs")
    window.close()
    await engine.aclose()


def engine_prompts(panel):
    return panel.details.surface.prompts()


import qasync  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

app = QApplication([])
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
with loop:
    loop.run_until_complete(main(app))
