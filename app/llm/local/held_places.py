"""Place arguments held by the grammar to the places the conversation gave.

On the real-task bench a small model mis-copied the places it was given: the built-in wrote
"git_repository_path" as a ``repo_path`` and the 1.5B, in Calculon mode, ``task1`` as ``task/rt``.
The app refuses such a call once it is written (app/core/ungrounded.py); held here, it cannot be
written at all. Where the user's words or a tool's result name absolute paths, a place argument
(a path, folder or repository) is one of them, or a given file's folder, or anything below one:
a new file in a given folder is still a name the model chooses. An address argument starts with
a given address's scheme and host. Where nothing of a kind was given, that kind stays free, and
so does every other string (file lists, contents, names, queries).
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.core.messages import ToolSpec
from app.core.named import origin, places

# the argument names that hold one local place, and those that hold one address; plural ones
# ("paths", git_add's "files", relative to the repository) are left free
_LOCAL_KEY = re.compile(r"(?:^|_)(?:path|dir|directory|folder|repo|repository|location)$", re.IGNORECASE)
_ADDRESS_KEY = re.compile(r"(?:^|_)(?:url|uri)$", re.IGNORECASE)
_FILE_NAME = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")
_PLAIN = re.compile(r"[A-Za-z0-9/_~-]")
# characters a place may hold and still be written as a pattern the JSON-schema converter takes
_WRITABLE = re.compile(r"^[\x20-\x7e]+$")
_UNWRITABLE = set('"\\[]^')
MAX_PLACES = 24  # of each kind, the latest first: a bound on the grammar's size
_BELOW = '(/[^"\\\\]*)?'  # anything below a given place, as long as it stays one JSON string


def held_to_places(tools: Sequence[ToolSpec], texts: Iterable[str]) -> tuple[ToolSpec, ...]:
    """``tools`` with each single-place string argument held to the places ``texts`` give."""
    local, addresses = given_places(texts)
    if not local and not addresses:
        return tuple(tools)
    return tuple(_held(tool, local, addresses) for tool in tools)


def given_places(texts: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The absolute folders and files, and the addresses' origins, named in ``texts``."""
    local: dict[str, None] = {}
    addresses: dict[str, None] = {}
    for text in reversed(list(texts)):
        for place in places(text):
            if not _WRITABLE.match(place) or _UNWRITABLE & set(place):
                continue
            if "://" in place:
                if address := origin(place):
                    addresses.setdefault(address)
            elif place.startswith(("/", "~/")):
                place = place.rstrip("/") or "/"
                local.setdefault(place)
                if _FILE_NAME.search(posixpath.basename(place)):
                    local.setdefault(posixpath.dirname(place) or "/")
    return tuple(local)[:MAX_PLACES], tuple(addresses)[:MAX_PLACES]


def _held(tool: ToolSpec, local: Sequence[str], addresses: Sequence[str]) -> ToolSpec:
    schema = tool.input_schema
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return tool
    held = {name: _held_field(name, field, local, addresses) for name, field in properties.items()}
    if all(held[name] is properties[name] for name in properties):
        return tool
    return dataclasses.replace(tool, input_schema={**schema, "properties": held})


def _held_field(name: str, field: Any, local: Sequence[str], addresses: Sequence[str]) -> Any:
    if not isinstance(field, Mapping) or field.get("type") != "string":
        return field
    if {"pattern", "enum", "const", "format"} & field.keys() and field.get("format") != "uri":
        return field
    given = local if _LOCAL_KEY.search(name) else addresses if _ADDRESS_KEY.search(name) else ()
    if not given:
        return field
    pattern = "^(" + "|".join(_literal(place) for place in given) + ")" + _BELOW + "$"
    return {key: value for key, value in field.items() if key != "format"} | {"pattern": pattern}


def _literal(place: str) -> str:
    """``place`` as a regular expression that matches only itself (each special character in a
    class of its own: the converter takes no backslash escapes of them)."""
    return "".join(ch if _PLAIN.match(ch) else f"[{ch}]" for ch in place)
