"""The tests' cache folder for what is fetched from a package registry once per machine (npm
packages, a GGUF, chat templates): outside the tests' temporary folders, so a run reuses it."""

from __future__ import annotations

import os
from pathlib import Path


def machine_cache(name: str) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "calculon-tests" / name
