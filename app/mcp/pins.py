"""Tool pins: what a server's tool said the first time it was seen, kept, to compare with later.

A pin is the SHA-256 of the canonical JSON of what the model reads of a tool (title,
description, input and output schemas, annotations), kept with that JSON so a later
difference can be shown as a diff. :mod:`app.mcp.pinning` decides what a difference means.

The pins live in ``pins.json`` in the data folder rather than in ``history.db``: the history
database is set aside and started afresh when it cannot be opened, and history settings delete
old conversations, and either would forget pins, so every tool would be "seen for the first
time" again: a silent re-pin, the one thing the pins exist to prevent. A small file written
whole (temporary file and rename) that is never replaced unless the user accepts anew is easier
to keep to that rule; the window and the CLI may both write it, so each write merges what is
on disk first.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import importlib.metadata
import json
import logging
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import mcp_types

from app import paths
from app.jsonfile import JsonProblem, read_json

logger = logging.getLogger(__name__)

FILE_NAME = "pins.json"
MAX_BYTES = 32 * 1024 * 1024  # thousands of tools with large schemas; a bigger file is not ours
FIELDS = ("title", "description", "input_schema", "output_schema", "annotations")


def app_version() -> str:
    """The installed Calculon's version ("" where the metadata is missing, as in some frozen builds)."""
    try:
        return importlib.metadata.version("calculon")
    except importlib.metadata.PackageNotFoundError:
        return ""


def default_path() -> Path:
    return paths.data_dir() / FILE_NAME


def pinned_fields(tool: mcp_types.Tool) -> dict[str, Any]:
    """What the model is given of ``tool``: the title too, which stands in for a missing description."""
    annotations = tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else None
    return {
        "title": tool.title,
        "description": tool.description,
        "input_schema": tool.input_schema,
        "output_schema": tool.output_schema,
        "annotations": annotations,
    }


def canonical(fields: Mapping[str, Any]) -> str:
    # ASCII escapes: a lone surrogate in a description still hashes, and the bytes never vary
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


@dataclasses.dataclass(frozen=True)
class Pin:
    sha256: str
    canonical: str  # the pinned fields as canonical JSON
    version: str = ""  # the Calculon version that pinned it

    @classmethod
    def of(cls, tool: mcp_types.Tool, version: str = "") -> Pin:
        text = canonical(pinned_fields(tool))
        return cls(hashlib.sha256(text.encode("ascii")).hexdigest(), text, version)

    def to_json(self) -> dict[str, Any]:
        return {"sha256": self.sha256, "canonical": self.canonical, "version": self.version}

    def lines(self) -> list[str]:
        """The fields as readable text, one field after another, for a diff."""
        fields = json.loads(self.canonical)
        lines: list[str] = []
        for name in FIELDS:
            value = fields.get(name)
            if value is not None:
                text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
                lines += [f"{name}:", *(f"  {line}" for line in text.splitlines() or [""])]
        return lines


@dataclasses.dataclass(frozen=True)
class ChangedTool:
    """A tool that differs from its pin; ``old`` is None when the pins could not be read."""

    server: str
    tool: str
    old: Pin | None
    new: Pin

    def diff(self) -> list[str]:
        old = self.old.lines() if self.old is not None else []
        before = "pinned" if self.old is not None else "pinned (unreadable)"
        return list(difflib.unified_diff(old, self.new.lines(), before, "now", lineterm=""))

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "pinned_sha256": self.old.sha256 if self.old is not None else None,
            "sha256": self.new.sha256,
            "diff": self.diff(),
        }


class PinStore:
    """The pins file. ``problem`` is a sentence for the user when it cannot be read or written;
    an unreadable file is left as it is until the user accepts tools anew (then it is set aside)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else default_path()
        self.problem = ""
        self.readable = True
        self._pins: dict[str, dict[str, Pin]] = {}
        self._stamp: tuple[int, int] | None = None  # (mtime, size) of the file as last read
        self.refresh()

    def get(self, server: str, tool: str) -> Pin | None:
        return self._pins.get(server, {}).get(tool)

    def refresh(self) -> None:
        """Read the file again if another process (the CLI beside the window) wrote it since."""
        try:
            stamp = _stamp(self.path)
            if stamp == self._stamp:
                return
            self._pins = _parse(read_json(self.path, MAX_BYTES)) if stamp is not None else {}
            self.readable, self.problem = True, ""
        except (OSError, JsonProblem, ValueError, TypeError, KeyError, AttributeError) as exc:
            self._unreadable(exc)
            return  # read again next time: the user may mend it
        self._stamp = stamp

    def _unreadable(self, exc: BaseException) -> None:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        self.readable, self._pins = False, {}
        self.problem = (
            f"the tool pins in {self.path} cannot be read ({why}); tools of third-party servers are"
            " held back until you accept them again, and the file is kept as it is until then"
        )
        logger.info("%s", self.problem)  # the CLI and the window say it; a log line would repeat it

    def put(self, server: str, pins: Mapping[str, Pin]) -> None:
        """Keep ``pins`` for ``server`` now, beside whatever another process wrote meanwhile."""
        self.refresh()
        if not self.readable:
            self._set_aside()
        self._pins.setdefault(server, {}).update(pins)
        body = {s: {t: p.to_json() for t, p in tools.items()} for s, tools in self._pins.items()}
        try:
            paths.atomic_write_json(self.path, {"version": 1, "servers": body})
            self._stamp = _stamp(self.path)
        except OSError as exc:
            self.problem = f"the tool pins cannot be saved in {self.path} ({exc.strerror}); they hold for now"
            logger.info("%s", self.problem)  # the CLI and the window say it; a log line would repeat it

    def _set_aside(self) -> None:
        aside = self.path.with_name(f"{self.path.name}.{time.strftime('%Y%m%d-%H%M%S')}.unused")
        try:
            os.replace(self.path, aside)
            logger.warning("the unreadable tool pins were kept as %s; new pins start now", aside)
        except FileNotFoundError:
            pass
        except OSError as exc:  # the write that follows fails too, and says so
            logger.info("the unreadable tool pins could not be set aside: %s", exc)
        self.readable, self.problem, self._pins = True, "", {}


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except (FileNotFoundError, NotADirectoryError):  # no file, or no folder for one: nothing pinned there
        return None
    return status.st_mtime_ns, status.st_size


def _parse(body: Any) -> dict[str, dict[str, Pin]]:
    """The pins in a file's JSON; a shape that is not ours raises (ValueError, TypeError, KeyError...)."""
    if not isinstance(body, dict) or body.get("version") != 1 or not isinstance(body.get("servers"), dict):
        raise ValueError("it is not a pins file of this Calculon")
    return {
        str(server): {str(tool): _pin(raw) for tool, raw in tools.items()}
        for server, tools in body["servers"].items()
    }


def _pin(raw: Mapping[str, Any]) -> Pin:
    pin = Pin(str(raw["sha256"]), str(raw["canonical"]), str(raw.get("version", "")))
    if hashlib.sha256(pin.canonical.encode("ascii")).hexdigest() != pin.sha256:
        raise ValueError("a pin does not match its own fingerprint")
    if not isinstance(json.loads(pin.canonical), dict):
        raise ValueError("a pin holds no tool")
    return pin
