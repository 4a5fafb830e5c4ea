"""An MCP App really rendered by Qt WebEngine in the real window, under Xvfb, sandbox on.

Chromium's sandbox refuses root and Calculon never turns it off, so as root the window runs as
``nobody`` (scripts/app_screenshot.py does that through scripts/unprivileged.py); skipped, with
the reason, where there is no such user, no user namespaces, no xvfb-run or not the X libraries
Qt's xcb plugin loads (named, with the apt-get line). The page connects,
gets the call's input and result, calls a tool through the host (asked for approval in the chat
like the model's calls), reaches the origin it declared and nothing else (not by fetch, image,
beacon, popup or navigation), reads no file, and reports its size, which the view follows; a
third app goes fullscreen and back, sets the model's context, and answers the teardown when the
window closes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.ui import system_libs
from scripts import unprivileged

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def why_skip() -> str | None:
    if importlib.util.find_spec("PySide6.QtWebEngineWidgets") is None:
        return "PySide6-Addons (Qt WebEngine) is not installed"
    if shutil.which("xvfb-run") is None:
        return "xvfb-run is not installed"
    problem = system_libs.x11_window_problem()
    if problem is not None:  # Xvfb alone is not enough: Qt's xcb plugin aborts without these
        return problem
    return unprivileged.why_not() if os.geteuid() == 0 else None


def test_an_mcp_app_renders_talks_to_the_host_and_reaches_only_what_it_declared(tmp_path):
    reason = why_skip()
    if reason is not None:
        pytest.skip(reason)
    check = tmp_path / "check.json"
    command = [
        sys.executable,
        str(REPO / "scripts" / "app_screenshot.py"),
        "--out",
        str(tmp_path),
        "--check",
        str(check),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=400)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(check.read_text())
    assert seen["status_after_load"] == "connected to calculon"  # ui/initialize answered
    assert seen["input_shown"] == '{"a":12,"b":30}' and seen["sum_shown"] == "42"  # tool-input, tool-result
    assert seen["approval_asked"] and seen["status_after_add"] == "add answered 43"  # tools/call, approved
    assert (
        seen["policy"].startswith("default-src 'none'") and "connect-src http://127.0.0.1:" in seen["policy"]
    )
    assert seen["fetches"]["declared"] == "got reached" and len(seen["declared_hits"]) == 1
    assert seen["fetches"]["undeclared"].startswith("failed") and seen["undeclared_hits"] == []
    assert seen["fetches"]["file"].startswith("failed")
    sandbox = seen["sandbox"]  # the page's frame can reach neither the bridge, storage, nor its parent
    assert sandbox["bridge_object"] == "undefined" and sandbox["host_page_bridge_object"] == "undefined"
    assert sandbox["storage"] == sandbox["cookie"] == sandbox["parent_dom"] == "refused: SecurityError"
    assert sandbox["clipboard"] == "undefined"
    escapes = seen["escapes"]  # an image, a beacon, a popup, the top page, the frame itself: none got out
    assert escapes["popup"] == "null" and escapes["top"] == "refused: SecurityError"
    assert not escapes["frame_now"].startswith("http")  # the frame's navigation stopped at its error page
    assert seen["teardown"] == {"answered": True, "views_gone": True}  # ui/resource-teardown answered
    assert 48 <= seen["height"] < 160  # size-changed honoured: shorter than the starting height
    third = seen["display_context_close"]  # a third app: fullscreen, context for the model, window closed
    assert third["fullscreen"] == {"mode": "fullscreen"} and third["page_told"] == "fullscreen"
    assert third["fullscreen_height"] > max(third["inline_height"], 300)
    assert third["context"] == {} and third["context_sent"] == ["app_context"]
    assert third["inline"] == {"mode": "inline"} and third["inline_height_after"] == third["inline_height"]
    assert third["close_answered"] and third["close_views_gone"]  # ui/resource-teardown on window close
    assert (tmp_path / "mcp-app.png").stat().st_size > 10_000
