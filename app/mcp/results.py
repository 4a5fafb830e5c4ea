"""MCP results and tools in the shapes the engine speaks (:mod:`app.core.tools`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types
import pydantic

from app.core.tools import ToolInfo, ToolResult
from app.mcp import content
from app.mcp.icons import described

MAX_TEXT = 1_000_000  # characters of a result the model and the trace get; the rest is cut, visibly


def full_text(result: mcp_types.CallToolResult) -> str:
    """Every content block meant for the model in order, non-text ones described; uncut."""
    texts = [_block_text(block) for block in result.content if content.for_model(block)]
    text = "\n".join(t for t in texts if t)
    if not text and result.structured_content is not None:
        text = json.dumps(result.structured_content, ensure_ascii=False)
    return text


def tool_result(
    result: mcp_types.CallToolResult,
    max_text: int = MAX_TEXT,
    *,
    text: str | None = None,
    kept: Path | None = None,
) -> ToolResult:
    """The text a model reads (:func:`full_text`, or ``text`` when already made), cut at ``max_text``
    with a note naming ``kept``, the file holding all of it; the window also gets the non-text blocks
    as parts (:mod:`app.mcp.content`)."""
    text = full_text(result) if text is None else text
    cut = truncated(text, max_text, kept)
    parts = content.parts(result.content)
    structured = result.structured_content
    return ToolResult(cut, bool(result.is_error), structured, parts, str(kept) if kept else "")


def truncated(text: str, limit: int, kept: Path | None = None) -> str:
    if len(text) <= limit:
        return text
    where = f"; the whole result is kept in {kept}" if kept is not None else ""
    return text[:limit] + f"\n[result truncated: {len(text):,} characters, the first {limit:,} shown{where}]"


def _block_text(block: Any) -> str:
    if isinstance(block, mcp_types.TextContent):
        return block.text
    if isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
        return f"[{block.type} {block.mime_type}, {len(block.data)} base64 characters]"
    if isinstance(block, mcp_types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, mcp_types.TextResourceContents):
            return resource.text
        return f"[resource {resource.uri} ({resource.mime_type or 'binary'})]"
    if isinstance(block, mcp_types.ResourceLink):
        return f"[resource link {block.uri}]"
    return f"[{getattr(block, 'type', 'unknown')} content]"


def tool_info(server: str, tool: mcp_types.Tool, name: str) -> ToolInfo:
    return ToolInfo(
        server=server,
        tool=tool.name,
        name=name,
        description=tool.description or tool.title or "",
        input_schema=dict(tool.input_schema),
        annotations=_annotations(tool.annotations),
        icons=described(tool.icons),
    )


def _annotations(annotations: mcp_types.ToolAnnotations | None) -> dict[str, Any]:
    if annotations is None:
        return {}
    return annotations.model_dump(by_alias=True, exclude_none=True, exclude={"title"})


def untagged_complete(exc: pydantic.ValidationError) -> mcp_types.CallToolResult | None:
    """The tool result the SDK refused only for lacking ``resultType``, read as complete.

    2026-07-28 says a result without ``resultType`` is a complete one, yet the SDK's check
    against the negotiated version requires the field. Each of its errors carries the reply it
    read, so the reply is taken from there. None when anything else is wrong with it too.
    """
    errors = exc.errors()
    if not errors or any(e["type"] != "missing" or e["loc"][-1:] != ("resultType",) for e in errors):
        return None
    reply = errors[0].get("input")
    if not isinstance(reply, dict) or "resultType" in reply:
        return None
    try:
        return mcp_types.CallToolResult.model_validate({**reply, "resultType": "complete"}, by_name=False)
    except pydantic.ValidationError:
        return None
