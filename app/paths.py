"""Where Calculon keeps its files: config, cache and logs, overridable by environment."""

from __future__ import annotations

import os
import sys
from pathlib import Path

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
    frozen_root = getattr(sys, "_MEIPASS", None)
    return Path(frozen_root) / "models" if frozen_root else None
