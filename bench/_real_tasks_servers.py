"""The official reference MCP servers, pinned, configured as a user would in ``mcpServers``.

The npm ones run through ``npx -y PACKAGE@VERSION``, as their READMEs say. The PyPI ones pin
an older ``mcp`` than the app's, so each lives in a venv of its own under
``~/.cache/calculon-bench/servers/NAME/``, made on first use, and starts from there (where a
user would write ``uvx mcp-server-git``). ``mcp-server-fetch`` reads a tiny web server on
127.0.0.1 that the bench starts over the workspace's ``site/`` folder.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

NPM = {
    "filesystem": "@modelcontextprotocol/server-filesystem",
    "memory": "@modelcontextprotocol/server-memory",
}
NPM_VERSION = "2026.8.31"
PYPI = {
    "git": ("mcp-server-git", "2026.10.19", ()),
    "time": ("mcp-server-time", "2026.10.19", ()),
    # its last release (April 2025) asks for any mcp, and fails on 2.x: pip would pick 2.x
    "sqlite": ("mcp-server-sqlite", "2025.4.25", ("mcp<2",)),
    "fetch": ("mcp-server-fetch", "2026.10.24", ()),
}
CACHE = Path(os.environ.get("CALCULON_BENCH_CACHE", Path.home() / ".cache" / "calculon-bench")) / "servers"
BUNDLED = ("calculator", "converter", "clock")  # what the app's own default servers file holds


class ServerMissing(RuntimeError):
    """A server that could not be installed or fetched; the message says which and why."""


def venv_command(name: str) -> Path:
    """The PyPI server's console script in its own venv, installed there first if need be."""
    package, version, pins = PYPI[name]
    folder = CACHE / name
    script, marker = folder / "bin" / package, folder / "installed.txt"
    wanted = " ".join([f"{package}=={version}", *pins])
    if script.exists() and marker.exists() and marker.read_text() == wanted:
        return script
    print(f"installing {wanted} into {folder} (once)", flush=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, capture_output=True)
        pip = [str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", *wanted.split()]
        subprocess.run(pip, check=True, capture_output=True, timeout=900)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        raise ServerMissing(f"could not install {wanted}: {_tail(exc)}") from exc
    marker.write_text(wanted)
    return script


def npm_ready(name: str) -> None:
    """Fetch the npm package into npx's cache now, so the first task does not time its download."""
    spec = f"{NPM[name]}@{NPM_VERSION}"
    try:
        subprocess.run(["npm", "cache", "add", spec], check=True, capture_output=True, timeout=600)
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        raise ServerMissing(f"could not fetch {spec} from npm: {_tail(exc)}") from exc


def installed(bench: str) -> bool:
    """Every server installed, or why not said on stderr under the bench's name."""
    try:
        install_all()
    except ServerMissing as exc:
        print(f"{bench}: {exc}", file=sys.stderr)
        return False
    return True


def install_all() -> None:
    for name in NPM:
        npm_ready(name)
    for name in PYPI:
        venv_command(name)


def _tail(exc: Exception) -> str:
    stderr = getattr(exc, "stderr", b"") or b""
    text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else str(stderr)
    return (text.strip().splitlines() or [str(exc)])[-1]


def mcp_servers(workspace: Path, site_url: str) -> dict[str, Any]:
    """The servers file for one task's workspace, in Claude Desktop's ``mcpServers`` format."""
    servers: dict[str, Any] = {name: {"command": "calculon", "args": ["serve", name]} for name in BUNDLED}
    servers.update(
        filesystem={"command": "npx", "args": ["-y", f"{NPM['filesystem']}@{NPM_VERSION}", str(workspace)]},
        memory={
            "command": "npx",
            "args": ["-y", f"{NPM['memory']}@{NPM_VERSION}"],
            "env": {"MEMORY_FILE_PATH": str(workspace.parent / "memory.jsonl")},
        },
        git={"command": str(venv_command("git")), "args": ["--repository", str(workspace)]},
        time={"command": str(venv_command("time")), "args": ["--local-timezone", "Europe/London"]},
        sqlite={"command": str(venv_command("sqlite")), "args": ["--db-path", str(workspace / "shop.db")]},
        fetch={"command": str(venv_command("fetch")), "args": ["--ignore-robots-txt", "--allow-private-ips"]},
    )
    return {"mcpServers": servers}


def reference_only(config: dict[str, Any]) -> dict[str, Any]:
    """The same file less Calculon's own bundled servers: what the raw peer connects to."""
    return {name: entry for name, entry in config["mcpServers"].items() if name not in BUNDLED}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def web_site(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 for the fetch server; yields the base URL."""
    folder.mkdir(parents=True, exist_ok=True)
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
