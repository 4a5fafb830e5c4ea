"""Tool lists remembered from a server's last run, so a one-shot command can offer them before
the server has started, and start it only when one of them is called.

A fresh ``calculon ask`` paid for every configured server's start (each Python server imports
the MCP SDK, about 0.8 s of CPU) on a two-core machine, though one question rarely calls more
than one server. What a server listed last time is kept in the cache folder, keyed by what
could change it: the entry as written, the program it runs (its file's modification time),
and for a bundled server Calculon's own server code. A list older than a week, or kept under
another key, is not used. A remembered tool is never trusted at call time: the server starts,
lists its tools afresh, and the pins (:mod:`app.mcp.pinning`) decide as for any listing.

Nothing here imports the SDK at module level: the command line reads this file before it
starts the servers it needs, while the SDK has not loaded yet.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app import paths
from app.jsonfile import JsonProblem, read_json
from app.mcp.config import ServerEntry, ServersConfig

if TYPE_CHECKING:
    import mcp_types

logger = logging.getLogger(__name__)

FOLDER_NAME = "known-tools"  # one file per fingerprint: a run reads only its servers' lists
LEGACY_FILE = "known-tools.json"  # every list in one file, read whole on every start (grew to 4 MB)
MAX_AGE_S = 7 * 24 * 3600
MAX_BYTES = 4 * 1024 * 1024  # one server's list
_SERVERS = Path(__file__).resolve().parent.parent / "servers"  # the bundled servers' code


def default_folder() -> Path:
    return paths.cache_dir() / FOLDER_NAME


def fingerprint(entry: ServerEntry) -> str:
    """What the entry's tool list depends on, hashed; differs whenever the server may differ."""
    parts: dict[str, Any] = {"entry": entry.to_json(), "argv": entry.launch_command()}
    program = shutil.which(entry.launch_command()[0]) if not entry.remote else None
    parts["program"] = _mtime(Path(program)) if program else None
    if entry.bundled:
        parts["code"] = sorted((p.name, _mtime(p)) for p in _SERVERS.glob("*.py"))
    text = json.dumps(parts, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


class KnownTools:
    """The remembered lists, one file per fingerprint in ``folder``. An unreadable or foreign file
    counts as no list."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else default_folder()
        self._records: dict[str, dict[str, Any] | None] = {}

    def file_for(self, entry: ServerEntry) -> Path:
        return self._path(fingerprint(entry))

    def _path(self, key: str) -> Path:
        return self.folder / f"{key[:40]}.json"

    def _record(self, entry: ServerEntry, key: str = "") -> dict[str, Any] | None:
        # the fingerprint stats the program and the bundled servers' code: worked out once a call
        key = key or fingerprint(entry)
        if key not in self._records:
            self._records[key] = self._read(self._path(key), key)
        record = self._records[key]
        if record is None or not _fresh(record):
            return None
        return record if isinstance(record.get("tools"), list) and record["tools"] else None

    @staticmethod
    def _read(path: Path, key: str) -> dict[str, Any] | None:
        try:
            raw = read_json(path, max_bytes=MAX_BYTES)
        except FileNotFoundError:
            return None
        except (OSError, JsonProblem) as exc:
            logger.info("remembered tool list %s unreadable, not used: %s", path.name, exc)
            return None
        return raw if isinstance(raw, dict) and raw.get("key") == key else None

    def knows(self, entry: ServerEntry) -> bool:
        """Whether a usable list is kept for ``entry`` (no SDK needed to ask)."""
        return not entry.remote and not entry.disabled and self._record(entry) is not None

    def recall(self, entry: ServerEntry) -> tuple[mcp_types.Tool, ...] | None:
        """The remembered tools, or None where there is no usable list (or it no longer parses)."""
        import mcp_types
        import pydantic

        record = self._record(entry)
        if record is None:
            return None
        try:
            return tuple(mcp_types.Tool.model_validate(tool) for tool in record["tools"])
        except pydantic.ValidationError:
            logger.info("server %s: remembered tools no longer parse, not used", entry.name)
            return None

    def remember(self, entry: ServerEntry, tools: Iterable[mcp_types.Tool]) -> None:
        """Keep the tools a server just listed; written only when they differ from what is kept.
        Kept by fingerprint, not name: two installs sharing the cache folder keep a list each."""
        listed = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
        if not listed or entry.remote:
            return
        key = fingerprint(entry)
        old = self._record(entry, key)
        if old is not None and old.get("tools") == listed and _fresh(old, MAX_AGE_S / 2):
            return
        record = {"key": key, "server": entry.name, "saved": time.time(), "tools": listed}
        self._records[key] = record
        try:
            paths.atomic_write_json(self._path(key), record)
        except OSError as exc:  # a cache: the next run starts every server, as before
            logger.info("could not keep the servers' tool lists: %s", exc)
            return
        self._forget_stale()

    def _forget_stale(self) -> None:
        """Remove lists no run could use any more (older than a week), and the one-file layout."""
        (self.folder.parent / LEGACY_FILE).unlink(missing_ok=True)
        cutoff = time.time() - MAX_AGE_S
        for path in self.folder.glob("*.json"):
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
            except OSError:
                continue


def _fresh(record: dict[str, Any], age_s: float = MAX_AGE_S) -> bool:
    saved = record.get("saved")
    return isinstance(saved, (int, float)) and 0 <= time.time() - saved <= age_s


def on_demand(entries: Iterable[ServerEntry], eager: Iterable[str], known: KnownTools) -> frozenset[str]:
    """The servers that may start on first use: local ones with a remembered list, but not those
    named in ``eager`` (Calculon mode's calculator, which nearly every turn calls)."""
    keep = set(eager)
    return frozenset(e.name for e in entries if e.name not in keep and known.knows(e))


def started_later(config: ServersConfig, strict: bool) -> frozenset[str]:
    """The servers a fresh start leaves for later: one question seldom needs more than one
    server, and each Python server takes most of a second of CPU to start."""
    eager = config.running_bundled("calculator") if strict else []
    return on_demand(config.enabled(), eager, KnownTools())
