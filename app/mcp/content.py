"""MCP content blocks as plain parts the window can show, and the filter of what the model reads.

A part is a small JSON-able dict (it travels inside events): ``text`` (only text meant for
the user alone: the rest is in the result's text), ``image`` (base64 data,
decoded once here to check it and capped in size), ``audio``, ``resource`` (an embedded
resource: its text, or its size when binary), ``resource_link`` (a URI the window can
read), or ``note`` (why something is not shown). Never HTML: the window draws images
from bytes and text as plain text.

Content annotated for the user alone (``audience: ["user"]``) is shown, never sent to the model.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from typing import Any

import mcp_types

MAX_IMAGE_BYTES = 4 * 1024 * 1024  # a decoded image larger than this is described, not shown
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp")

Part = dict[str, Any]


def for_model(block: Any) -> bool:
    """False for a block its server meant for the user only."""
    annotations = getattr(block, "annotations", None)
    audience = getattr(annotations, "audience", None)
    return not audience or "assistant" in audience


def parts(blocks: Iterable[Any]) -> tuple[Part, ...]:
    """What the window shows beside the result's text: every non-text block, and the text
    blocks the model does not get (the model's text holds the others)."""
    shown = []
    for block in blocks:
        part = _part(block)
        if part is not None and not for_model(block):
            shown.append({**part, "audience": "user"})
        elif part is not None and part["type"] != "text":
            shown.append(part)
    return tuple(shown)


def _part(block: Any) -> Part | None:
    if isinstance(block, mcp_types.TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, mcp_types.ImageContent):
        return image_part(block.data, block.mime_type)
    if isinstance(block, mcp_types.AudioContent):
        return {"type": "audio", "mime_type": block.mime_type, "bytes": _decoded_size(block.data)}
    if isinstance(block, mcp_types.EmbeddedResource):
        return resource_part(block.resource)
    if isinstance(block, mcp_types.ResourceLink):
        link = {"type": "resource_link", "uri": block.uri, "name": block.name}
        return {**link, "description": block.description or "", "mime_type": block.mime_type or ""}
    return None


def image_part(data: str, mime_type: str) -> Part:
    """An image the window may draw, or a note saying why it will not."""
    if mime_type not in IMAGE_TYPES:
        return note(f"an image of type {mime_type} is not shown")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return note(f"an {mime_type} image that is not valid base64 is not shown")
    if len(raw) > MAX_IMAGE_BYTES:
        return note(f"an {mime_type} image of {len(raw):,} bytes is over the {MAX_IMAGE_BYTES:,}-byte cap")
    return {"type": "image", "mime_type": mime_type, "data": data, "bytes": len(raw)}


def resource_part(resource: mcp_types.TextResourceContents | mcp_types.BlobResourceContents) -> Part:
    """Embedded or read resource contents by type: text as text, images as images, other blobs by size."""
    mime = resource.mime_type or ""
    if isinstance(resource, mcp_types.TextResourceContents):
        return {"type": "resource", "uri": resource.uri, "mime_type": mime, "text": resource.text}
    if mime in IMAGE_TYPES:
        return {**image_part(resource.blob, mime), "uri": resource.uri}
    return {"type": "resource", "uri": resource.uri, "mime_type": mime, "bytes": _decoded_size(resource.blob)}


def note(text: str) -> Part:
    return {"type": "note", "text": text}


def _decoded_size(data: str) -> int:
    return len(data) * 3 // 4 - data[-2:].count("=")
