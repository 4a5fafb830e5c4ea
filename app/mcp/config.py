"""The MCP servers file: Claude Desktop's ``mcpServers`` format, plus ``disabled``.

    {"mcpServers": {
        "calculator": {"command": "calculon", "args": ["serve", "calculator"]},
        "files": {"command": "npx", "args": ["-y", "some-server"], "env": {"ROOT": "/tmp"}},
        "remote": {"url": "https://example.com/mcp", "disabled": true},
        "hosted": {"url": "https://example.com/mcp",
                   "headers": {"Authorization": "Bearer ${API_TOKEN}"}},
        "older": {"url": "https://example.com/sse", "type": "sse"}}}

Each entry has either ``command`` (a local process spoken to over stdio, with
optional ``args`` and ``env``) or ``url`` (a Streamable HTTP server, or with
``"type": "sse"`` the legacy HTTP+SSE transport). A remote entry's ``headers``
go with every request; ``${NAME}`` in them is filled in from the environment
variable ``NAME`` or the keyring entry ``NAME`` when the server connects
(:mod:`app.mcp.remote`), so the file never holds the secret. An entry
with ``"disabled": true`` stays in the file but is not started. The command
``calculon`` means Calculon itself, resolved when the server starts, so the
bundled servers are ordinary entries and the file stays portable. Keys this
module does not know are kept as they are when the file is saved.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from app import paths
from app.jsonfile import JsonProblem, read_json

REMOTE_TYPES = ("http", "streamable-http", "sse")
SELF_COMMAND = "calculon"  # stands for the running Calculon executable
DEFAULT_BUNDLED = ("calculator", "converter", "clock")
MAX_FILE_BYTES = 1024 * 1024  # a thousand servers fit in a tenth of this
# MCP's rule for tool names, less the dot: a dot separates the server from the tool in
# "server.tool", so a server named "a.b" could pass for server "a" offering tool "b.x".
SERVER_NAME = re.compile(r"[A-Za-z0-9_-]{1,128}")
TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")  # MCP's rule for tool names, dot included


def shown(name: object) -> str:
    """A name as an error message may quote it: escaped (repr) and clipped."""
    text = repr(name)
    return text if len(text) <= 60 else text[:57] + "..."


class ConfigError(ValueError):
    """A servers file that cannot be used; the message names the file, server and problem."""

    def __init__(
        self, path: Path | None, problem: str, server: str = "", *, whole_file: bool = False
    ) -> None:
        where = str(path) if path else "servers config"
        shown = repr(server) if len(server) <= 60 else repr(server[:57]) + "..."  # repr: escapes controls
        subject = f"{where}: server {shown}: " if server else f"{where} " if whole_file else f"{where}: "
        super().__init__(subject + problem)
        self.path, self.server, self.problem = path, server, problem


@dataclasses.dataclass(frozen=True)
class ServerEntry:
    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = dataclasses.field(default_factory=dict)
    url: str = ""
    disabled: bool = False
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # unknown keys, kept verbatim
    headers: Mapping[str, str] = dataclasses.field(default_factory=dict)  # as written: ${NAME} unfilled
    type: str = ""  # "sse" for the legacy transport; "", "http" or "streamable-http" otherwise

    @property
    def sse(self) -> bool:
        return self.type == "sse"

    @property
    def remote(self) -> bool:
        return bool(self.url)

    @property
    def bundled(self) -> str:
        """The bundled server this entry runs (``calculon serve NAME``), or "" for any other."""
        if self.command == SELF_COMMAND and len(self.args) == 2 and self.args[0] == "serve":
            return self.args[1]
        return ""

    def launch_command(self) -> list[str]:
        """The argv to start this server, with ``calculon`` resolved to the running app."""
        if self.command != SELF_COMMAND:
            return [self.command, *self.args]
        if getattr(sys, "frozen", False):
            return [sys.executable, *self.args]
        return [sys.executable, "-m", "app", *self.args]

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = dict(self.extra)
        if self.url:
            body["url"] = self.url
            body.update(_non_empty(headers=dict(self.headers)))
        else:
            body["command"] = self.command
            body["args"] = list(self.args)
        body.update(_non_empty(type=self.type))
        if self.env:
            body["env"] = dict(self.env)
        if self.disabled:
            body["disabled"] = True
        return body


@dataclasses.dataclass(frozen=True)
class ServersConfig:
    """The configured servers in file order; ``path`` is where they are saved."""

    path: Path
    servers: Mapping[str, ServerEntry]

    def enabled(self) -> list[ServerEntry]:
        return [entry for entry in self.servers.values() if not entry.disabled]

    def running_bundled(self, name: str) -> list[str]:
        """The entries (by name) that run the bundled server ``name``, whatever they are called."""
        return [entry.name for entry in self.enabled() if entry.bundled == name]

    def to_json(self) -> dict[str, Any]:
        return {"mcpServers": {name: entry.to_json() for name, entry in self.servers.items()}}


def default_path() -> Path:
    return paths.config_dir() / "servers.json"


def bundled_names() -> tuple[str, ...]:
    from app import servers  # light: the server modules themselves load only in the child

    bundled = getattr(servers, "BUNDLED", None)
    return tuple(bundled) if bundled else DEFAULT_BUNDLED


def bundled_entry(name: str) -> ServerEntry:
    return ServerEntry(name=name, command=SELF_COMMAND, args=("serve", name))


def default_config(path: Path | None = None) -> ServersConfig:
    entries = {name: bundled_entry(name) for name in bundled_names()}
    return ServersConfig(path or default_path(), entries)


def load_config(path: Path | None = None) -> ServersConfig:
    """The servers file at ``path`` (default location if None); the bundled set if it does not exist."""
    path = path or default_path()
    try:
        data = read_servers_file(path)
    except FileNotFoundError:
        return default_config(path)
    return ServersConfig(path, parse_servers(data, path))


def save_config(config: ServersConfig) -> Path:
    paths.atomic_write_json(config.path, config.to_json())
    return config.path


def read_servers_file(path: Path) -> Any:
    """The parsed JSON of a servers file; ``FileNotFoundError`` passes through."""
    try:
        return read_json(path, MAX_FILE_BYTES)
    except JsonProblem as exc:
        raise ConfigError(path, str(exc), whole_file=True) from None


def parse_servers(data: Any, path: Path | None = None) -> dict[str, ServerEntry]:
    """Entries from a parsed ``{"mcpServers": {...}}`` document, validated."""
    if not isinstance(data, dict):
        raise ConfigError(path, "the file must hold a JSON object")
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError(path, '"mcpServers" must be an object mapping names to servers')
    return {name: parse_entry(name, body, path) for name, body in servers.items()}


def parse_entry(name: str, body: Any, path: Path | None = None) -> ServerEntry:
    def fail(problem: str) -> ConfigError:
        return ConfigError(path, problem, server=name)

    if not name.strip():
        raise ConfigError(path, "a server has an empty name")
    if not SERVER_NAME.fullmatch(name):
        raise fail("the name may hold only letters, digits, '_' and '-', at most 128 of them")
    if not isinstance(body, dict):
        raise fail("must be an object with a command or a url")
    if "command" in body and "url" in body:
        raise fail('has both "command" and "url"; give one')
    if "command" not in body and "url" not in body:
        raise fail('needs a "command" (local server) or a "url" (remote server)')
    if "command" in body and ("headers" in body or body.get("type") in REMOTE_TYPES):
        raise fail('"headers" and "type" are for a remote server (one with a "url")')
    for key, (valid, expected) in _FIELDS.items():
        if key in body and not valid(body[key]):
            raise fail(f'"{key}" must be {expected}')
    extra = {k: v for k, v in body.items() if k not in _FIELDS}
    return ServerEntry(
        name,
        command=body.get("command", ""),
        args=tuple(body.get("args", ())),
        env=dict(body.get("env", {})),
        url=body.get("url", ""),
        disabled=body.get("disabled", False),
        extra=extra,
        headers=dict(body.get("headers", {})),
        type=body.get("type", ""),
    )


def _non_empty(**values: Any) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value}


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "command": (lambda v: isinstance(v, str) and bool(v.strip()), "a non-empty string"),
    "args": (_strings, "a list of strings"),
    "env": (lambda v: isinstance(v, dict) and _strings(list(v.values())), "an object of string values"),
    "url": (lambda v: isinstance(v, str) and v.startswith(("http://", "https://")), "an http(s):// address"),
    "disabled": (lambda v: isinstance(v, bool), "true or false"),
    "headers": (lambda v: isinstance(v, dict) and _strings(list(v.values())), "an object of string values"),
    "type": (lambda v: v in (*REMOTE_TYPES, "stdio"), '"http", "streamable-http", "sse" or "stdio"'),
}


# --- editing: each returns a new config; call save_config to keep it ---------


def add_server(config: ServersConfig, entry: ServerEntry) -> ServersConfig:
    """Add or replace ``entry`` (validated as if read from the file)."""
    parse_entry(entry.name, entry.to_json(), config.path)
    return dataclasses.replace(config, servers={**config.servers, entry.name: entry})


def remove_server(config: ServersConfig, name: str) -> ServersConfig:
    _require(config, name)
    return dataclasses.replace(config, servers={k: v for k, v in config.servers.items() if k != name})


def set_enabled(config: ServersConfig, name: str, enabled: bool) -> ServersConfig:
    entry = dataclasses.replace(_require(config, name), disabled=not enabled)
    return dataclasses.replace(config, servers={**config.servers, name: entry})


def import_claude_desktop(config: ServersConfig, source: Path) -> tuple[ServersConfig, list[str]]:
    """Merge the ``mcpServers`` of a Claude Desktop config; same-named entries are replaced.

    Returns the new config and the names imported, in the source's order."""
    try:
        data = read_servers_file(source)
    except FileNotFoundError:
        raise ConfigError(source, "does not exist", whole_file=True) from None
    imported = parse_servers(data, source)
    return _merged(config, imported.values()), list(imported)


def _merged(config: ServersConfig, entries: Iterable[ServerEntry]) -> ServersConfig:
    servers = dict(config.servers)
    servers.update((entry.name, entry) for entry in entries)
    return dataclasses.replace(config, servers=servers)


def _require(config: ServersConfig, name: str) -> ServerEntry:
    try:
        return config.servers[name]
    except KeyError:
        raise ConfigError(config.path, "no such server", server=name) from None
