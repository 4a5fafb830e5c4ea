"""A real task in the real window: the filesystem reference server, a real model, every call traced.

    .venv/bin/python scripts/task_screenshot.py [--out docs/screenshots] [--model FILE.gguf]

Nothing scripted: the built-in Qwen2.5-Coder-1.5B-Instruct (its file already joined in the cache,
``--model`` names another copy) through llama.cpp in its own process, Calculon mode on, the bundled
servers and ``@modelcontextprotocol/server-filesystem`` (npx, pinned as in
``bench/_real_tasks_servers.py``) over a fresh folder holding ``prices.csv``. It asks for the sum of
the prices (the real-task bench's ``sum-prices``), presses "Allow once" on each approval card (the
server is not trusted), waits for the answer and saves ``task-filesystem.png`` with the trace of each
call. Needs what ``scripts/screenshots.py`` needs (Xvfb or a display) and Node's npx.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from scripts.screenshots import answers_shot, on_display, real_window  # noqa: E402

DEFAULT_MODEL = Path.home() / ".cache" / "calculon" / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
TIMEOUT_S = 240
PRICES = "item,price\npencil,0.99\nnotebook,2.40\nstapler,4.75\nlamp,6.35\neraser,1.25\n"  # 15.74 in all


async def shoot(app: QApplication, out: Path, servers_path: Path, model: Path) -> Path:
    from app.settings import Settings
    from bench._real_tasks_servers import NPM, NPM_VERSION

    workspace = servers_path.parent / "project"
    workspace.mkdir()
    (workspace / "prices.csv").write_text(PRICES, encoding="utf-8")
    servers = json.loads(servers_path.read_text(encoding="utf-8"))
    servers["mcpServers"].pop("weather", None)  # the broken server scripts/screenshots.py shows
    package = f"{NPM['filesystem']}@{NPM_VERSION}"
    servers["mcpServers"]["filesystem"] = {"command": "npx", "args": ["-y", package, str(workspace)]}
    servers_path.write_text(json.dumps(servers), encoding="utf-8")

    # the built-in entry, as a user picks it in Settings (and as bench/real_tasks runs it): the
    # file already joined in the user's cache is linked into this run's fresh cache folder
    from app import paths

    folder = paths.cache_dir() / "models"
    folder.mkdir(parents=True, exist_ok=True)
    for part in (model, model.with_name(model.name + ".verified")):
        (folder / part.name).symlink_to(part)
    settings = Settings(strict=True, backend="local", builtin_model="qwen2.5-coder-1.5b-instruct")
    async with real_window(settings, servers_path, {"calculator": "ready", "filesystem": "ready"}) as window:
        # the bench's sum-prices words: asked only "Add up the prices in ...", the model summed, then
        # described the steps (docs/benchmarks.md, Real tasks, In the window)
        window.controller.submit(f"Add up the prices in {workspace}/prices.csv. What is the total?")
        approving = asyncio.ensure_future(_approve(window))
        try:
            await asyncio.wait_for(window.controller.wait_idle(), TIMEOUT_S)
        except TimeoutError:  # the shot still shows where it stands
            print(f"the turn had not ended after {TIMEOUT_S} s")
        finally:
            approving.cancel()
        return await answers_shot(app, window, out / "task-filesystem.png")


async def _approve(window: object) -> None:
    """Press "Allow once" on each approval card as it appears, as a person reading it would:
    the filesystem server is not trusted, so each of its calls asks first."""
    from PySide6.QtWidgets import QPushButton

    pressed: set[int] = set()
    while True:
        for button in window.findChildren(QPushButton):  # type: ignore[attr-defined]
            ready = button.text() == "Allow once" and button.isVisible() and button.isEnabled()
            if ready and id(button) not in pressed:
                pressed.add(id(button))
                print(f"approved a call ({len(pressed)})")
                await asyncio.sleep(1.5)  # the card stays readable in a shot taken meanwhile
                button.click()
        await asyncio.sleep(0.2)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "screenshots")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    args = parser.parse_args()
    if not args.model.is_file():
        parser.error(f"no model at {args.model}: run the real-task bench once, or give --model")
    print(on_display(lambda app, out, servers: shoot(app, out, servers, args.model), args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
