"""Icons a server gives for itself (``serverInfo``), its tools, resources and prompts.

Only ``data:`` URIs of raster types (PNG, JPEG, GIF, WebP) are ever decoded, and only up to
:data:`MAX_ICON_BYTES`, with bytes that start as their type says; the window also refuses one
larger than :data:`MAX_ICON_SIDE` pixels before decoding its pixels, and draws it from bytes,
never through HTML. The rest is not drawn, only shown as present:

- an SVG is never rendered: it can carry script and external references, and an SVG renderer
  is a large attack surface for a decoration;
- an ``http(s)`` icon is never fetched: the request would tell its host when and from where
  Calculon runs (an icon address can be unique to a user), for nothing but a picture.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import re
import struct
import zlib
from collections.abc import Iterable
from typing import Any

import mcp_types

MAX_ICON_BYTES = 64 * 1024  # a decoded icon larger than this is not drawn
MAX_ICON_SIDE = 512  # pixels, either side, read from the image's header before it is decoded
RASTER_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
SRC_KEPT = 48  # characters of a data: URI kept when an icon is described
_GENERIC = ("", "application/octet-stream")
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]{0,31}")
_MIME = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]{0,63}/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}")
_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
}


@dataclasses.dataclass(frozen=True)
class IconImage:
    """The bytes of an icon that may be drawn."""

    mime_type: str
    data: bytes


def decode(icon: mcp_types.Icon) -> IconImage | str:
    """The icon's bytes when it may be drawn, else why it is not (for a tooltip)."""
    scheme = _token(icon.src.partition(":")[0].lower(), _SCHEME)
    if scheme in ("http", "https"):
        return f"an {scheme} icon, not fetched"
    if scheme != "data":
        return f"a {scheme or 'relative or unreadable'} icon address, not followed"
    header, comma, payload = icon.src[len("data:") :].partition(",")
    kind, *params = header.split(";")
    mime = mime_type(kind, icon.mime_type)
    refusal = _refusal(mime, comma == "," and "base64" in params, len(payload))
    if refusal:
        return refusal
    try:
        raw = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        return f"an {mime} icon that is not valid base64, not drawn"
    if not _looks_like(mime, raw):
        return f"an {mime} icon whose bytes are damaged or of another type, not drawn"
    return IconImage(mime, raw)


def mime_type(declared: str, override: str | None) -> str:
    """The data URI's own type, unless it is missing or generic and the icon names another."""
    declared = declared.strip().lower()
    return _token((override or declared).lower() if declared in _GENERIC else declared, _MIME)


def _token(text: str, shape: re.Pattern[str]) -> str:
    """``text`` if it has the shape of a URI scheme or MIME type, else empty: what a server wrote
    there ends up in a tooltip, where Qt would take markup for rich text."""
    return text if shape.fullmatch(text) else ""


def _refusal(mime: str, base64_payload: bool, length: int) -> str:
    if "svg" in mime:
        return "an SVG icon, not rendered"
    if mime not in RASTER_TYPES:
        return f"an icon of type {mime or 'unknown'}, not drawn"
    if not base64_payload:
        return f"an {mime} icon that is not base64 data, not drawn"
    if length * 3 // 4 > MAX_ICON_BYTES:  # judged before decoding: a huge string is never decoded
        return f"an {mime} icon of about {length * 3 // 4:,} bytes, over the {MAX_ICON_BYTES:,}-byte cap"
    return ""


def _looks_like(mime: str, raw: bytes) -> bool:
    if mime == "image/webp":
        return raw[:4] == b"RIFF" and raw[8:12] == b"WEBP"
    return raw.startswith(_MAGIC[mime]) and (mime != "image/png" or _whole_png(raw))


def _whole_png(raw: bytes) -> bool:
    """Every chunk complete, its checksum right, up to IEND: a cut-off or damaged PNG is refused
    here rather than handed to the decoder (libpng complains of it on stderr)."""
    at = 8
    while at + 12 <= len(raw):
        (length,) = struct.unpack(">I", raw[at : at + 4])
        kind, body = raw[at + 4 : at + 8], raw[at + 8 : at + 8 + length]
        if len(body) < length or raw[at + 8 + length : at + 12 + length] != struct.pack(
            ">I", zlib.crc32(kind + body)
        ):
            return False
        if kind == b"IEND":
            return True
        at += 12 + length
    return False


def describe(icon: mcp_types.Icon) -> dict[str, Any]:
    """The icon's metadata as plain JSON, a ``data:`` URI cut short, and whether it may be drawn."""
    decoded = decode(icon)
    src = icon.src
    if src[:5].lower() == "data:" and len(src) > SRC_KEPT:
        src = f"{src[:SRC_KEPT]}… ({len(src):,} characters)"
    body: dict[str, Any] = {"src": src, "mime_type": icon.mime_type or "", "sizes": list(icon.sizes or ())}
    body["theme"] = icon.theme or ""
    # Drawable: a raster data: URI under the cap; the window still gives up on one it cannot decode.
    body["drawable"] = isinstance(decoded, IconImage)
    if isinstance(decoded, str):
        body["not_drawn"] = decoded
    return body


def described(icons: Iterable[mcp_types.Icon] | None) -> tuple[dict[str, Any], ...]:
    return tuple(describe(icon) for icon in icons or ())


def drawable(icons: Iterable[mcp_types.Icon] | None) -> list[IconImage]:
    """The icons that may be drawn, in the server's order."""
    return [image for icon in icons or () if isinstance(image := decode(icon), IconImage)]
