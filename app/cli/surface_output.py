"""How ``calculon resources|read|prompts|prompt|complete`` show what they found: JSON-able
dicts first (``--json`` prints them), then the same as text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mcp_types

from app.mcp.content import image_part, resource_part
from app.mcp.supervisor import Supervisor
from app.mcp.surface import Listed, SurfaceError


def resources_dict(resources: Sequence[Listed], templates: Sequence[Listed]) -> dict[str, Any]:
    return {
        "resources": [_described(r, uri=r.item.uri) for r in resources],
        "templates": [_described(t, uri_template=t.item.uri_template) for t in templates],
    }


def _described(listed: Listed, **where: str) -> dict[str, Any]:
    item = listed.item
    return {
        "server": listed.server,
        **where,
        "name": item.name,
        "title": item.title or "",
        "description": item.description or "",
        "mime_type": item.mime_type or "",
    }


def prompt_dict(listed: Listed) -> dict[str, Any]:
    prompt: mcp_types.Prompt = listed.item
    arguments = [
        {"name": a.name, "description": a.description or "", "required": bool(a.required)}
        for a in prompt.arguments or ()
    ]
    return {
        "server": listed.server,
        "name": prompt.name,
        "title": prompt.title or "",
        "description": prompt.description or "",
        "arguments": arguments,
    }


def read_dict(listed: Listed) -> dict[str, Any]:
    result: mcp_types.ReadResourceResult = listed.item
    return {"server": listed.server, "contents": [resource_part(c) for c in result.contents]}


def messages_dict(listed: Listed) -> dict[str, Any]:
    result: mcp_types.GetPromptResult = listed.item
    messages = [{"role": m.role, "content": _content(m.content)} for m in result.messages]
    return {"server": listed.server, "description": result.description or "", "messages": messages}


def _content(block: Any) -> dict[str, Any]:
    if isinstance(block, mcp_types.TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, mcp_types.ImageContent):
        return image_part(block.data, block.mime_type)
    if isinstance(block, mcp_types.EmbeddedResource):
        return resource_part(block.resource)
    return {"type": getattr(block, "type", "unknown")}


def server_of(supervisor: Supervisor, ref: str) -> str:
    """The one running server with prompt or template ``ref``."""
    from app.mcp import surface

    listed = surface.templates(supervisor) if "{" in ref else surface.prompts(supervisor)
    field = "uri_template" if "{" in ref else "name"
    having = sorted({x.server for x in listed if getattr(x.item, field) == ref})
    if len(having) != 1:
        raise SurfaceError(f"{len(having) or 'no'} running servers have {ref}; name one with --server")
    return having[0]


def as_text(command: str, body: Any) -> str:
    if command == "resources":
        rows = [f"{r['uri']}  [{r['server']}]  {r['name']}" for r in body["resources"]]
        rows += [f"{t['uri_template']}  [{t['server']}]  {t['name']} (template)" for t in body["templates"]]
        return "\n".join(rows) or "No resources."
    if command == "prompts":
        return "\n".join(_prompt_line(p) for p in body) or "No prompts."
    if command == "read":
        return "\n".join(_part_text(p) for p in body["contents"])
    if command == "prompt":
        return "\n".join(f"{m['role']}: {_part_text(m['content'])}" for m in body["messages"])
    return "\n".join(body["values"])


def _prompt_line(prompt: dict[str, Any]) -> str:
    names = [a["name"] + ("" if a["required"] else "?") for a in prompt["arguments"]]
    return f"{prompt['name']}({', '.join(names)})  [{prompt['server']}]  {prompt['description']}"


def _part_text(part: dict[str, Any]) -> str:
    if "text" in part:
        return str(part["text"])
    return f"[{part.get('type')} {part.get('mime_type', '')}, {part.get('bytes', 0):,} bytes]"
