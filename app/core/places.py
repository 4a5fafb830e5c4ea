"""The place a request names (a file, a folder, a page) and the tools that take one.

A turn whose question names a place opens with a call of a server whose tools take one
(app.core.offer); a step asked to use a named place no call has used has its tools' place
arguments held to it (``with_place``), so a small model cannot mis-copy the path.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from app.core.messages import ToolSpec
from app.core.tools import ToolInfo

# A tool argument that takes a place: a path, a URL, a file, a folder, a repository.
_PLACE_ARGUMENT = re.compile(r"path|url|uri|file|dir|folder|repo", re.IGNORECASE)


def place_servers(offered: Sequence[tuple[ToolInfo, float]]) -> set[str]:
    """The servers of which some offered tool takes a place. A turn that must open with a call
    offers only their tools: asked "How many lines in server.log are ERROR lines?", made to call
    with the calculator on offer, Qwen2.5-Coder-1.5B called evaluate("0") before reading the log."""
    return {tool.server for tool, _ in offered if takes_place(ToolSpec(tool.name, "", tool.input_schema))}


def takes_place(spec: ToolSpec) -> bool:
    """Whether a string (or list) argument of ``spec`` names a path, URL, file, folder or repository."""
    properties = spec.input_schema.get("properties") if isinstance(spec.input_schema, dict) else None
    if not isinstance(properties, dict):
        return False
    for name, schema in properties.items():
        kind = schema.get("type", "string") if isinstance(schema, dict) else "string"
        kinds = kind if isinstance(kind, list) else [kind]
        if _PLACE_ARGUMENT.search(str(name)) and ("string" in kinds or "array" in kinds):
            return True
    return False


_HELD = re.compile(r"path|url|uri|file", re.IGNORECASE)  # a folder or repository may hold the place
_ABSOLUTE = re.compile(r"^(?:/|~/|[A-Za-z]:[\\/])|://")


def with_place(spec: ToolSpec, place: str) -> ToolSpec:
    """``spec`` with its path, URL or file arguments held to ``place`` (one string, or a list of
    it); unchanged where it has none, or the place is relative: "notes.txt in the repository at
    /w" is a file name to git_add and no path a filesystem server could resolve."""
    if not _ABSOLUTE.search(place):
        return spec
    properties = spec.input_schema.get("properties") if isinstance(spec.input_schema, dict) else None
    if not isinstance(properties, dict):
        return spec
    held = {name: _held(name, value, place) for name, value in properties.items()}
    if held == properties:
        return spec
    return dataclasses.replace(spec, input_schema={**spec.input_schema, "properties": held})


def _held(name: str, value: object, place: str) -> object:
    if not (_HELD.search(name) and isinstance(value, dict)) or "enum" in value or "const" in value:
        return value
    kind = value.get("type", "string")
    if kind == "string":
        return {**value, "enum": [place]}
    items = value.get("items")
    if kind == "array" and isinstance(items, dict) and items.get("type", "string") == "string":
        return {**value, "items": {**items, "enum": [place]}}
    return value
