"""The official reference server, ``@modelcontextprotocol/server-everything``, from npm.

Installed once per machine into a cache folder outside the tests' temporary ones (a pinned
version, so every run talks to the same server); a test that needs it is skipped, saying
why, only where npm is missing or cannot reach the registry.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from app.mcp.config import ServerEntry

PACKAGE = "@modelcontextprotocol/server-everything"
VERSION = "2026.8.31"


def _cache() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "calculon-tests" / f"server-everything-{VERSION}"


@functools.cache
def _installed() -> Path | str:
    """The server's entry script, or why it could not be installed."""
    folder = _cache()
    script = folder / "node_modules" / PACKAGE / "dist" / "index.js"
    if script.is_file():
        return script
    if shutil.which("npm") is None or shutil.which("node") is None:
        return "node and npm are not installed"
    folder.mkdir(parents=True, exist_ok=True)
    command = ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(folder), f"{PACKAGE}@{VERSION}"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    except subprocess.TimeoutExpired:
        return "npm install did not finish within 300 s"
    if done.returncode != 0 or not script.is_file():
        return f"npm cannot install {PACKAGE}: {done.stderr.strip()[-300:]}"
    return script


def everything_entry(name: str = "everything", **fields: object) -> ServerEntry:
    """A config entry for the reference server over stdio; skips the test where it cannot be had."""
    script = _installed()
    if isinstance(script, str):
        pytest.skip(f"server-everything unavailable: {script}")
    node = shutil.which("node") or "node"
    return ServerEntry(name, command=node, args=(str(script), "stdio"), **fields)  # type: ignore[arg-type]
