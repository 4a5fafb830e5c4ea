"""UI-free helpers for editing server entries as text fields.

The dialog shows arguments as one shell-quoted line, the environment as ``KEY=VALUE``
lines and the roots (folders the server is told about) one per line; these functions
convert both ways and validate through :mod:`app.mcp.config`, so the window and the
file agree on what is valid.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.mcp.config import ConfigError, ServerEntry, parse_entry


@dataclasses.dataclass
class EntryFields:
    """A server entry as the edit dialog shows it."""

    name: str = ""
    command: str = ""
    args: str = ""
    env: str = ""
    url: str = ""
    enabled: bool = True
    roots: str = ""

    @classmethod
    def from_entry(cls, entry: ServerEntry) -> EntryFields:
        env = "\n".join(f"{key}={value}" for key, value in entry.env.items())
        listed = entry.extra.get("roots", [])
        roots = "\n".join(f for f in listed if isinstance(f, str)) if isinstance(listed, list) else ""
        args = shlex.join(entry.args)
        return cls(entry.name, entry.command, args, env, entry.url, not entry.disabled, roots)

    def to_entry(self, extra: Mapping[str, Any] | None = None) -> ServerEntry:
        """The validated entry; raises ConfigError with a message for the user."""
        name = self.name.strip()
        try:
            args = shlex.split(self.args)
        except ValueError as exc:
            raise ConfigError(None, f"arguments: {exc}", server=name) from exc
        body: dict[str, Any] = dict(extra or {})
        body.pop("roots", None)
        if roots := [line.strip() for line in self.roots.splitlines() if line.strip()]:
            body["roots"] = roots  # kept by app.mcp.config as an extra key; read by app.permissions
        if self.url.strip():
            body["url"] = self.url.strip()
        else:
            body.update(command=self.command.strip(), args=args)
        if env := parse_env(self.env, name):
            body["env"] = env
        body["disabled"] = not self.enabled
        return parse_entry(name, body)


def parse_env(text: str, server: str = "") -> dict[str, str]:
    env: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise ConfigError(None, f"environment line {number} should be KEY=VALUE", server=server)
        env[key.strip()] = value
    return env


def command_summary(entry: ServerEntry) -> str:
    return entry.url if entry.url else shlex.join([entry.command, *entry.args])


def claude_desktop_config_path() -> Path:
    """Where Claude Desktop keeps its config on this platform (it may not exist)."""
    if sys.platform == "win32":
        root = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        root = Path.home() / "Library" / "Application Support"
    else:
        root = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return root / "Claude" / "claude_desktop_config.json"
