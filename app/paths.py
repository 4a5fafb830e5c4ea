"""Where Calculon keeps its files (config, cache, history, logs; overridable by environment), and how
to save them."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

APP_NAME = "calculon"


def _base(env_var: str, xdg_var: str, fallback: str) -> Path:
    if value := os.environ.get(env_var):
        return Path(value).expanduser()
    if sys.platform == "win32":
        root = os.environ.get("APPDATA") or str(Path.home() / "AppData" / "Roaming")
        return Path(root) / APP_NAME
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP_NAME
    return Path(os.environ.get(xdg_var) or Path.home() / fallback) / APP_NAME


def config_dir() -> Path:
    """Settings and the mcpServers file; ``CALCULON_CONFIG_DIR`` overrides it."""
    return _base("CALCULON_CONFIG_DIR", "XDG_CONFIG_HOME", ".config")


def cache_dir() -> Path:
    """The assembled default model, retrieval indexes; ``CALCULON_CACHE_DIR`` overrides it."""
    return _base("CALCULON_CACHE_DIR", "XDG_CACHE_HOME", ".cache")


def data_dir() -> Path:
    """The conversation history (a SQLite file); ``CALCULON_DATA_DIR`` overrides it."""
    return _base("CALCULON_DATA_DIR", "XDG_DATA_HOME", ".local/share")


def log_dir() -> Path:
    """Per-server stderr logs live under the cache folder."""
    return cache_dir() / "logs"


def resources_dir() -> Path:
    """Bundled resources, both from source and when frozen by PyInstaller."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "app" / "resources"
    return Path(__file__).resolve().parent / "resources"


def bundled_models_dir() -> Path | None:
    """Where a frozen build keeps the embedded default model (None from source)."""
    return bundled_dir("models")


def bundled_dir(name: str) -> Path | None:
    """A folder of data a frozen build carries (the model, tool search's table); None from source."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    return Path(frozen_root) / name if frozen_root else None


def atomic_write_json(path: Path, data: Any) -> None:
    """Write ``data`` as JSON through a temporary file and a rename: a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
