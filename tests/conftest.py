"""Every test gets fresh, empty config and cache folders of its own."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("CALCULON_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("CALCULON_CACHE_DIR", str(tmp_path / "cache"))
    # The app's own secrets must never leak into a test or a child server.
    for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    return tmp_path
