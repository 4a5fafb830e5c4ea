"""Settings → Local model with the model library, mid-download, for the README.

    .venv/bin/python scripts/library_screenshot.py [--out docs/screenshots]

The download comes from the stand-in Hub the tests use (tests/hub_standin.py, on 127.0.0.1,
named by HF_ENDPOINT): the bytes are a placeholder under the real curated entry's name, so
the progress bar, speed and time left are real and nothing is fetched from the internet.
Saves ``settings-model-library.png``. Needs what ``scripts/screenshots.py`` needs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from scripts.screenshots import on_display, settle  # noqa: E402

SIZE = 48 * 1024 * 1024  # about 20 s at the stand-in's pace: time to catch it halfway


async def shoot(app: QApplication, out: Path, servers_path: Path) -> Path:
    from app.llm.library.curated import CURATED
    from app.mcp.config import load_config
    from app.settings import Settings
    from app.ui.settings_dialog import SettingsDialog
    from tests.hub_standin import HostedFile, gguf_bytes, running_hub

    os.environ["CALCULON_DATA_DIR"] = str(servers_path.parent / "data")
    model = CURATED[1]
    with running_hub() as hub:
        os.environ["HF_ENDPOINT"] = hub.url
        hub.host(model.repo_id, model.file_name, HostedFile(gguf_bytes(SIZE), pause_s=0.025))
        dialog = SettingsDialog(Settings(), load_config(servers_path))
        dialog.resize(980, 860)
        dialog.tabs.setCurrentIndex(1)
        dialog.show()
        panel = dialog.library
        while panel.model.rowCount() == 0:  # the list is read on a worker
            await asyncio.sleep(0.1)
        panel.select(model.id)
        panel.download_selected()
        while panel.progress.value() < 400:
            await asyncio.sleep(0.1)
        await settle(app, 0.3)
        path = out / "settings-model-library.png"
        dialog.grab().save(str(path))
        panel.cancel_download()
        while panel.cancel_button.isVisible():
            await asyncio.sleep(0.1)
        dialog.reject()
        await settle(app, 0.3)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "screenshots")
    print(on_display(shoot, parser.parse_args().out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
