"""A server that gives icons for itself, its tools, a resource and a prompt: PNGs drawn here
(an orange 16x16 one, a green one), and ones that must not be drawn: a cut-off PNG, one whose
header claims 4000x4000 pixels, one over the byte cap, an SVG and an https address. The tests
import the icons from here (and DAMAGED: whole, but its pixels cannot be decoded)."""

import base64
import struct
import zlib

from mcp.server.mcpserver import MCPServer
from mcp_types import Icon


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(width: int, height: int, rgb: tuple[int, int, int], pixels: bytes | None = None) -> bytes:
    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(row * height, 9) if pixels is None else pixels
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def data(mime: str, raw: bytes) -> Icon:
    return Icon(src=f"data:{mime};base64,{base64.b64encode(raw).decode()}", mime_type=mime, sizes=["16x16"])


ORANGE = data("image/png", png(16, 16, (255, 140, 0)))
GREEN = data("image/png", png(16, 16, (0, 160, 60)))
BROKEN = data("image/png", png(16, 16, (0, 0, 255))[:40])  # a PNG signature, then cut off
DAMAGED = data("image/png", png(16, 16, (0, 0, 0), pixels=b"not zlib data"))
HUGE = data("image/png", png(4000, 4000, (0, 0, 0)))  # a few KiB of zeros, 4000x4000 once decoded
HEAVY = data("image/png", b"\x89PNG\r\n\x1a\n" + bytes(100_000))
SVG = Icon(src="data:image/svg+xml;base64," + base64.b64encode(b"<svg onload='alert(1)'/>").decode())
REMOTE = Icon(src="https://icons.example.com/tracker.png", mime_type="image/png")


def serve() -> None:
    """The server itself, built only when run (the tests import the icons above)."""
    app = MCPServer("icons", icons=[SVG, ORANGE, REMOTE])

    @app.tool(icons=[BROKEN, GREEN])
    def painted() -> str:
        """A tool whose first icon is cut off; the second is drawn."""
        return "painted"

    @app.tool(icons=[HUGE, HEAVY, SVG, REMOTE])
    def unpainted() -> str:
        """A tool none of whose icons may be drawn."""
        return "unpainted"

    @app.tool()
    def plain() -> str:
        """A tool with no icon."""
        return "plain"

    @app.resource("icons://readme", mime_type="text/plain", icons=[GREEN])
    def readme() -> str:
        return "a resource with an icon"

    @app.prompt(icons=[ORANGE])
    def hello() -> str:
        """A prompt with an icon."""
        return "Say hello."

    app.run("stdio")


if __name__ == "__main__":
    serve()
