"""An MCP App rendered in the real window: the docs' screenshot, and the check the tests run.

    .venv/bin/python scripts/app_screenshot.py [--out docs/images] [--check RESULT.json]

The window as the app builds it, with one server, tests/mcp/servers/app_ui.py. The model is the
scripted backend (a stand-in: the point here is the app, not the model), which calls
``show_sum(12, 30)``; the app renders in the chat, sandboxed. Then the app's "Add one" button is
pressed: its ``tools/call`` of ``add`` asks for approval in the chat like a model's call, and is
allowed there. ``--check`` also has the page fetch an origin it declared and one it did not (two
local HTTP servers count what reaches them) and read a file, and writes what it saw as JSON.

Qt WebEngine's sandbox refuses root, and Calculon never turns it off: as root this script runs
itself as ``nobody`` (scripts/unprivileged.py) under xvfb-run, then copies the results back.
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import inspect
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

SERVER = REPO_ROOT / "tests" / "mcp" / "servers" / "app_ui.py"
SHOT = "mcp-app.png"
# What the app's own frame may touch: each should say it cannot.
SANDBOX_PROBES = {
    "bridge_object": "typeof qt",  # the QWebChannel lives in an isolated world of the host page only
    "storage": "try { localStorage.setItem('k', '1'); 'stored' } catch (e) { 'refused: ' + e.name }",
    "cookie": "try { document.cookie = 'k=1'; 'set: ' + document.cookie } catch (e) { 'refused: ' + e.name }",
    "parent_dom": "try { String(parent.document.title) } catch (e) { 'refused: ' + e.name }",
    "clipboard": "String(navigator.clipboard && typeof navigator.clipboard.writeText)",
}
XVFB = ["xvfb-run", "-a", "-s", "-screen 0 1280x860x24"]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "images")
    parser.add_argument("--check", type=Path, help="write what the page did here, as JSON")
    parser.add_argument(
        "--here", action="store_true", help=argparse.SUPPRESS
    )  # already unprivileged, on a display
    args = parser.parse_args()
    if args.here:
        return render(args.out, args.check)
    return delegate(args.out, args.check)


# --- the outer run: find an unprivileged user and a display, then copy the results back ---


def delegate(out: Path, check: Path | None) -> int:
    from scripts import unprivileged

    if shutil.which("xvfb-run") is None:
        print("xvfb-run is needed (apt-get install -y xvfb xauth)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="calculon-app-") as name:
        folder = Path(name)
        inner = ["--here", "--out", str(folder / "out")] + (
            ["--check", str(folder / "check.json")] if check else []
        )
        if os.geteuid() == 0:
            problem = unprivileged.why_not()
            if problem is not None:
                print(f"cannot run Qt WebEngine unprivileged: {problem}", file=sys.stderr)
                return 2
            python = unprivileged.copy_python(folder)
            done = unprivileged.run(
                [*XVFB, str(python), str(Path(__file__).resolve()), *inner], folder, {}, 300
            )
        else:
            command = [*XVFB, sys.executable, str(Path(__file__).resolve()), *inner]
            done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
        print(done.stdout[-4000:], end="")
        print(done.stderr[-4000:], end="", file=sys.stderr)
        if done.returncode != 0:
            return done.returncode
        if check is not None:
            check.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / "check.json", check)
        out.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / "out" / SHOT, out / SHOT)
        print(out / SHOT)
    return 0


# --- the inner run: the window itself ---


class Counting(http.server.BaseHTTPRequestHandler):
    hits: list[str]

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(b"reached")

    def log_message(self, *_args: Any) -> None:
        pass


def counting_server() -> tuple[http.server.ThreadingHTTPServer, list[str]]:
    hits: list[str] = []
    handler = type("Handler", (Counting,), {"hits": hits})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, hits


def render(out: Path, check: Path | None) -> int:
    import qasync
    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtWidgets import QApplication

    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    home = Path(os.environ.get("HOME", tempfile.gettempdir()))
    os.environ["CALCULON_CONFIG_DIR"] = str(home / "config")
    os.environ["CALCULON_CACHE_DIR"] = str(home / "cache")
    declared, declared_hits = counting_server()
    undeclared, undeclared_hits = counting_server()
    env = {"APP_CONNECT": f"http://127.0.0.1:{declared.server_port}"}  # the page's declared origin
    for name in ("PYTHONPATH", "LD_LIBRARY_PATH"):  # the copied interpreter's, when run unprivileged
        if name in os.environ:
            env[name] = os.environ[name]
    entry = {"command": sys.executable, "args": [str(SERVER)], "env": env}
    servers = home / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"apps": entry}}))
    os.environ["QT_QPA_PLATFORM"] = "xcb"  # xvfb-run's display, even under make test's offscreen
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    app = QApplication([sys.argv[0]])
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    ports = (declared.server_port, undeclared.server_port)
    with loop:
        seen = loop.run_until_complete(shoot(out, servers, ports))
    seen["declared_hits"], seen["undeclared_hits"] = declared_hits, undeclared_hits
    print(json.dumps(seen, indent=2))
    if check is not None:
        check.write_text(json.dumps(seen, indent=2))
    return 0


async def until(what: str, probe: Callable[[], Any], timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        await asyncio.sleep(0.1)
    raise TimeoutError(f"timed out waiting for {what}")


async def settled_height(view: Any) -> int:
    """The view's height once the page's size-changed messages have been applied: the same on
    three readings in a row. Read at once, under the full suite's load, the inline height was
    taken before the page had sized itself, and differed from the same height read later."""
    readings: list[int] = []

    def steady() -> bool:
        readings.append(view.height())
        return len(readings) >= 3 and len(set(readings[-3:])) == 1

    await until("the view's height to settle", steady, timeout=10)
    return readings[-1]


def frame_js(view: Any, script: str) -> asyncio.Future[Any]:
    """``script``'s value in the app's own frame (the sandboxed iframe), which the page cannot hide."""
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    frames = view.page().mainFrame().children()
    if not frames:
        future.set_result(None)
        return future
    frames[0].runJavaScript(script, 0, lambda value: future.done() or future.set_result(value))
    return future


def main_world_js(view: Any, script: str) -> asyncio.Future[Any]:
    """``script``'s value in the host page's own main world (where no script of ours runs)."""
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    view.page().runJavaScript(script, 0, lambda value: future.done() or future.set_result(value))
    return future


async def shoot(out: Path, servers: Path, ports: tuple[int, int]) -> dict[str, Any]:
    from app.core.backend import ToolCallChunk
    from app.core.messages import ToolCall
    from app.engine import Engine
    from app.llm.scripted import ScriptedBackend
    from app.settings import Settings
    from app.ui.app_web import AppWebView
    from app.ui.main import build_window

    settings = Settings(strict=False, tool_approvals={"apps.show_sum": "always"})
    steps: list[list[Any]] = [
        [ToolCallChunk(ToolCall("c1", "show_sum", {"a": 12, "b": 30}))],
        ["12 + 30 = **42**; the app below shows it, and its button adds one through Calculon."],
        [ToolCallChunk(ToolCall("c2", "show_sum", {"a": 1, "b": 2}))],  # for the teardown check
        ["1 + 2 = **3**."],
        [ToolCallChunk(ToolCall("c3", "show_sum", {"a": 4, "b": 5}))],  # display mode, context, close
        ["4 + 5 = **9**."],
        ["The page says you looked at it in full."],
    ]
    backend = ScriptedBackend(steps)
    engine = Engine(settings, servers_path=servers, backend=backend)
    window = build_window(engine, settings)
    window.set_model_label("scripted model (a stand-in for the screenshot)")
    window.resize(1280, 860)
    window.show()
    seen: dict[str, Any] = {}
    try:
        await engine.start()
        window.controller.submit("Show me 12 + 30 in the sum app")
        await asyncio.wait_for(window.controller.wait_idle(), 60)
        view = await until("the app's view", lambda: window.findChild(AppWebView))

        async def text_of(element: str) -> Any:
            return await frame_js(view, f"(document.getElementById('{element}') || {{}}).textContent")

        async def status() -> Any:
            return await text_of("status")

        connected = lambda: _when(status, lambda s: s and s != "connecting")  # noqa: E731
        seen["status_after_load"] = await until("the app to connect", connected)
        # "?" until tool-result arrives: pressing "Add one" before that would send a: null
        seen["sum_shown"] = await until(
            "the sum", lambda: _when(lambda: text_of("sum"), lambda t: t and t != "?")
        )
        seen["input_shown"] = await text_of("input")
        seen["policy"] = await frame_js(view, "document.querySelector('meta[http-equiv]').content")
        seen["sandbox"] = {name: await frame_js(view, probe) for name, probe in SANDBOX_PROBES.items()}
        seen["sandbox"]["host_page_bridge_object"] = await main_world_js(view, "typeof qt")
        await frame_js(view, "document.getElementById('more').click()")
        allow = await until("the approval card", lambda: _button(window, "Allow once"))
        seen["approval_asked"] = True
        await asyncio.sleep(0.5)  # the card on screen for the screenshot
        allow.click()
        seen["status_after_add"] = await until(
            "add's answer", lambda: _when(status, lambda s: s and s.startswith("add answered"))
        )
        seen["height"] = view.height()
        await asyncio.sleep(1.0)
        out.mkdir(parents=True, exist_ok=True)
        window.grab().save(str(out / SHOT))  # before the tries below: the last one breaks the frame
        seen["fetches"] = await fetches(view, ports)
        seen["escapes"] = await escapes(view, ports[1])
        seen["blocked"] = list(view.requests.blocked)
        seen["teardown"] = await teardown(window, view)
        seen["display_context_close"] = await display_context_and_close(window, backend)
    finally:
        window.close()
        await engine.aclose()
    return seen


async def _when(probe: Callable[[], Any], test: Callable[[Any], bool]) -> Any:
    value = await probe()
    return value if test(value) else None


def _button(window: Any, label: str) -> Any:
    from PySide6.QtWidgets import QPushButton

    return next((b for b in window.findChildren(QPushButton) if b.text() == label and b.isEnabled()), None)


async def fetches(view: Any, ports: tuple[int, int]) -> dict[str, str]:
    """What the page's own fetches came to: its declared origin, another, and a file."""
    results: dict[str, str] = {}
    targets = {
        "declared": f"http://127.0.0.1:{ports[0]}/declared",
        "undeclared": f"http://127.0.0.1:{ports[1]}/undeclared",
        "file": "file:///etc/hostname",
    }
    for name, url in targets.items():
        start = (
            f"window.__f = 'pending'; fetch('{url}').then(r => r.text())"
            ".then(t => window.__f = 'got ' + t, e => window.__f = 'failed ' + e);"
        )
        await frame_js(view, start)
        results[name] = await until(
            f"the fetch of {url}",
            lambda: _when(lambda: frame_js(view, "window.__f"), lambda s: s != "pending"),
        )
    return results


async def teardown(window: Any, first: Any) -> dict[str, Any]:
    """A second app, then the chat's apps told they are going (as when another conversation is
    shown): the live page answers ui/resource-teardown, and both views go."""
    import shiboken6

    from app.ui.app_web import AppWebView

    window.controller.submit("And 1 + 2?")
    await asyncio.wait_for(window.controller.wait_idle(), 60)
    second = await until(
        "a second app", lambda: next((v for v in window.findChildren(AppWebView) if v is not first), None)
    )
    await until(
        "the second app to connect",
        lambda: _when(
            lambda: frame_js(second, "document.getElementById('status').textContent"),
            lambda s: s and s.startswith("connected"),
        ),
    )
    bridge = second.bridge
    window.feed.close_apps("the check clears the chat")
    answered = await until("the page's answer", lambda: bridge.torn_down, timeout=5)
    gone = await until(
        "both views to go", lambda: not (shiboken6.isValid(first) or shiboken6.isValid(second)), timeout=5
    )
    return {"answered": answered, "views_gone": gone}


async def page_request(view: Any, method: str, params: dict[str, Any]) -> Any:
    """The page's own ``request(method, params)`` (its script's), and what it resolved to."""
    start = (
        f"window.__r = null; request({json.dumps(method)}, {json.dumps(params)})"
        ".then(r => window.__r = JSON.stringify(r), e => window.__r = 'error: ' + e.message); 1"
    )
    await frame_js(view, start)
    answer = await until(f"the answer to {method}", lambda: frame_js(view, "window.__r"))
    return answer if answer.startswith("error: ") else json.loads(answer)


async def display_context_and_close(window: Any, backend: Any) -> dict[str, Any]:
    """A third app asks for fullscreen (the view fills the chat's height and the page is told),
    sets the model's context (the next question carries it) and goes back inline; then the window
    closes: the page answers ui/resource-teardown and the view goes before the servers stop."""
    import shiboken6

    from app.ui import app_teardown
    from app.ui.app_web import AppWebView

    window.controller.submit("And 4 + 5?")
    await asyncio.wait_for(window.controller.wait_idle(), 60)
    view = await until("a third app", lambda: window.findChild(AppWebView))
    status = "document.getElementById('status').textContent"
    await until(
        "the third app to connect",
        lambda: _when(lambda: frame_js(view, status), lambda s: s and s.startswith("connected")),
    )
    seen: dict[str, Any] = {"inline_height": await settled_height(view)}
    seen["fullscreen"] = await page_request(view, "ui/request-display-mode", {"mode": "fullscreen"})
    seen["page_told"] = await until("the page told", lambda: frame_js(view, "document.body.dataset.mode"))
    seen["fullscreen_height"] = view.height()
    said = "The user looked at 4 + 5 in full."
    context = {"content": [{"type": "text", "text": said}]}
    seen["context"] = await page_request(view, "ui/update-model-context", context)
    window.controller.submit("What did the page say?")
    await asyncio.wait_for(window.controller.wait_idle(), 60)
    history = backend.requests[-1].messages
    seen["context_sent"] = [m.tool_name for m in history if m.role == "tool" and said in m.text]
    seen["inline"] = await page_request(view, "ui/request-display-mode", {"mode": "inline"})
    seen["inline_height_after"] = await settled_height(view)
    bridge = view.bridge
    window.close()
    seen["close_answered"] = await until("the page's answer", lambda: bridge.torn_down, timeout=5)
    seen["close_views_gone"] = await app_teardown.wait_closed() and not shiboken6.isValid(view)
    return seen


async def escapes(view: Any, port: int) -> dict[str, Any]:
    """Other ways out to the undeclared origin: an image, a beacon, a popup, a navigation of the
    app's frame and of the whole page. The counting server says whether any got there."""
    url = f"http://127.0.0.1:{port}"
    attempts = {
        "image": f"new Image().src = '{url}/image'; 'tried'",
        "beacon": f"String(navigator.sendBeacon('{url}/beacon', 'x'))",
        "popup": f"String(window.open('{url}/popup'))",
        "top": f"try {{ top.location = '{url}/top'; 'tried' }} catch (e) {{ 'refused: ' + e.name }}",
        "frame": f"location.href = '{url}/frame'; 'tried'",
    }
    results = {name: await frame_js(view, script) for name, script in attempts.items()}
    await asyncio.sleep(1.5)  # time for any request that did leave to arrive
    # The frame's own navigation is stopped by the page's frame-src: it shows an error page instead.
    results["frame_now"] = await frame_js(view, "String(location.href)")
    return results


if __name__ == "__main__":
    raise SystemExit(main())
