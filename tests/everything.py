"""The official reference server, ``@modelcontextprotocol/server-everything``, from npm.

Installed once per machine into a cache folder outside the tests' temporary ones (a pinned
version, so every run talks to the same server); a test that needs it is skipped, saying
why, only where npm is missing or cannot reach the registry.

Over stdio it is a child of the supervisor like any local server; in its streamable HTTP mode
(:func:`everything_over_http`) it is a process of the test's own, reached as a remote server.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.mcp.config import ServerEntry
from tests.machine_cache import machine_cache, machine_cache_lock

PACKAGE = "@modelcontextprotocol/server-everything"
LOOPBACK = Path(__file__).with_name("loopback.cjs")
VERSION = "2026.8.31"


def _cache() -> Path:
    return machine_cache(f"server-everything-{VERSION}")


@functools.cache
def _installed() -> Path | str:
    """The server's entry script, or why it could not be installed."""
    with machine_cache_lock(_cache().name):
        return _install()


def _install() -> Path | str:
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


def _script() -> Path:
    script = _installed()
    if isinstance(script, str):
        pytest.skip(f"server-everything unavailable: {script}")
    return script


def everything_entry(name: str = "everything", **fields: object) -> ServerEntry:
    """A config entry for the reference server over stdio; skips the test where it cannot be had."""
    node = shutil.which("node") or "node"
    return ServerEntry(name, command=node, args=(str(_script()), "stdio"), **fields)  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def everything_over_http(name: str = "everything", timeout: float = 30) -> AsyncIterator[ServerEntry]:
    """The reference server in its streamable HTTP mode, on a port the system picks, and a remote
    entry for it, configured as a user would (a ``url``). Its HTTP mode has no host option and
    would listen on every interface: tests/loopback.cjs binds it to 127.0.0.1 alone."""
    node = shutil.which("node") or "node"
    command = [node, "--require", str(LOOPBACK), str(_script()), "streamableHttp"]
    env = {**os.environ, "PORT": "0"}
    # Its stdout has a line per HTTP request, which nobody reads; its stderr names the port.
    child = await asyncio.create_subprocess_exec(
        *command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        port = await asyncio.wait_for(_port(child), timeout)
        yield ServerEntry(name, url=f"http://127.0.0.1:{port}/mcp")
    finally:
        await _end(child)


async def _port(child: asyncio.subprocess.Process) -> int:
    assert child.stderr is not None
    while line := await child.stderr.readline():
        if found := re.search(rb"listening on 127\.0\.0\.1:(\d+)", line):
            return int(found.group(1))
    raise RuntimeError(f"server-everything exited ({await child.wait()}) before it listened")


async def _end(child: asyncio.subprocess.Process) -> None:
    if child.returncode is None:
        child.terminate()  # it handles only SIGINT, and that by closing its sessions first
    try:
        await asyncio.wait_for(child.wait(), 10)
    except TimeoutError:
        child.kill()
        await child.wait()
