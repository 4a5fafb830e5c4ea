"""A server that cannot start, named under the answer it could have served, in the real window.

    .venv/bin/python scripts/server_down_screenshot.py [--out docs/screenshots]

The built-in model and the bundled servers, plus two that cannot start: the filesystem server
under a package name npx cannot fetch (npm's 404) and the screenshots' own server that wants a
token. Asked to list a folder, the model has no tool for it; the answer ends with the line the
app writes, naming each server that is down and its error. Saves ``server-down.png``. Needs what
``scripts/screenshots.py`` needs (Xvfb or a display).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from scripts.screenshots import answers_shot, on_display, real_window  # noqa: E402

MISSING = "@modelcontextprotocol/server-filesystem-that-does-not-exist@0.0.1"


async def shoot(app: QApplication, out: Path, servers_path: Path) -> Path:
    from app.settings import Settings

    folder = Path(tempfile.mkdtemp(prefix="calculon-shots-files-"))
    config = json.loads(servers_path.read_text(encoding="utf-8"))
    config["mcpServers"]["filesystem"] = {"command": "npx", "args": ["-y", MISSING, str(folder)]}
    servers_path.write_text(json.dumps(config), encoding="utf-8")
    # asked once the filesystem server has given up
    up = {"calculator": "ready", "filesystem": "failed"}
    async with real_window(Settings(strict=True, backend="local"), servers_path, up) as window:
        window.controller.submit(f"List the files in {folder}.")
        await asyncio.wait_for(window.controller.wait_idle(), 180)
        return await answers_shot(app, window, out / "server-down.png")


def main() -> int:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "screenshots")
    print(on_display(shoot, parser.parse_args().out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
