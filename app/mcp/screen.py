"""Which of a server's tools can be offered: names, shapes and schemas checked one tool at a time.

A server is untrusted. One tool with a null ``inputSchema`` would make the SDK reject the
whole ``tools/list`` page, and so the whole server; a name holding escapes or a dot-free
copy of another server's tool would spoof it. Each bad tool is skipped here with a reason
naming it, and the rest of its server works.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import mcp_types
import pydantic
from jsonschema import SchemaError
from jsonschema.validators import validator_for
from mcp_types import methods

from app.mcp.config import TOOL_NAME, shown


# The MCP rule for tool names (SEP-986).
def screen_raw(result: dict[str, Any], versions: Iterable[str]) -> list[str]:
    """Leave in a raw ``tools/list`` result only the tools valid in each protocol version of
    ``versions`` (the SDK checks the whole page, and one bad tool would fail it); say why not the others."""
    tools = result.get("tools")
    if not isinstance(tools, list):
        return [f"the tool list is a {type(tools).__name__}, not a list"]
    kept, skipped = [], []
    for raw in tools:
        problem = _raw_problem({**result, "tools": [raw]}, versions)
        if problem:
            name = raw.get("name", "?") if isinstance(raw, dict) else "?"
            skipped.append(f"tool {shown(name)} skipped: {problem}")
        else:
            kept.append(raw)
    result["tools"] = kept
    return skipped


def _raw_problem(page: dict[str, Any], versions: Iterable[str]) -> str:
    for version in versions:
        try:
            methods.validate_server_result("tools/list", version, page)
        except pydantic.ValidationError as exc:  # a ValueError too: first
            return _first_error(exc)
        except (KeyError, ValueError):  # a version the SDK has no surface for: it checks nothing
            continue
    return ""


def _first_error(exc: pydantic.ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"][2:]) or "the entry"  # past ("tools", 0)
    return f"{where}: {error['msg'][:1].lower()}{error['msg'][1:]}"


def screen(tools: Iterable[mcp_types.Tool]) -> tuple[list[mcp_types.Tool], list[str]]:
    """The tools that may be offered (valid name, first of its name, usable schema), and why not others."""
    kept: list[mcp_types.Tool] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for tool in tools:
        problem = _problem(tool, seen)
        if problem:
            skipped.append(f"tool {shown(tool.name)} skipped: {problem}")
            continue
        seen.add(tool.name)
        kept.append(tool)
    return kept, skipped


def _problem(tool: mcp_types.Tool, seen: set[str]) -> str:
    if not TOOL_NAME.fullmatch(tool.name):
        return "a tool name may hold only letters, digits, '_', '-' and '.', at most 128 of them"
    if tool.name in seen:
        return "the server lists a tool of this name twice; the first is kept"
    return _schema_problem(tool.input_schema)


def _schema_problem(schema: dict[str, Any]) -> str:
    if schema.get("type") != "object":
        return 'its inputSchema must have "type": "object"'
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        return f"its inputSchema is not a valid JSON Schema: {exc.message[:200]}"
    return ""
