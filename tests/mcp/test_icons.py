"""Which icons may be drawn (app.mcp.icons), and icons from a real server reaching the catalog,
the tool index and the servers' status."""

from __future__ import annotations

import base64

import mcp_types
import pytest

from app.mcp import icons, surface
from tests.mcp.helpers import script_entry
from tests.mcp.servers import icons as served

pytestmark = pytest.mark.anyio


def data_icon(mime: str, raw: bytes, **fields: object) -> mcp_types.Icon:
    return mcp_types.Icon(src=f"data:{mime};base64,{base64.b64encode(raw).decode()}", **fields)  # type: ignore[arg-type]


def test_a_raster_data_uri_is_decoded_to_its_bytes():
    raw = served.png(16, 16, (1, 2, 3))
    assert icons.decode(data_icon("image/png", raw)) == icons.IconImage("image/png", raw)
    gif = b"GIF89a" + bytes(20)
    assert icons.decode(data_icon("image/gif", gif)) == icons.IconImage("image/gif", gif)


def test_svg_and_http_icons_are_never_drawn_and_say_why():
    assert icons.decode(served.SVG) == "an SVG icon, not rendered"
    assert icons.decode(served.REMOTE) == "an https icon, not fetched"
    assert icons.decode(mcp_types.Icon(src="file:///etc/passwd")) == "a file icon address, not followed"
    assert "not drawn" in icons.decode(data_icon("text/html", b"<b>hi</b>"))  # type: ignore[operator]


def test_an_icon_over_the_byte_cap_is_refused_before_it_is_decoded():
    assert icons.decode(served.HEAVY) == "an image/png icon of about 100,008 bytes, over the 65,536-byte cap"


def test_bytes_that_are_not_what_the_type_says_or_not_base64_are_not_drawn():
    damaged = "an image/png icon whose bytes are damaged or of another type, not drawn"
    assert icons.decode(data_icon("image/png", b"GIF89a" + bytes(20))) == damaged
    assert icons.decode(served.BROKEN) == damaged  # cut off inside its first chunk
    raw = bytearray(served.png(2, 2, (0, 0, 0)))
    raw[-1] ^= 1  # IEND's checksum
    assert icons.decode(data_icon("image/png", bytes(raw))) == damaged
    assert isinstance(icons.decode(served.DAMAGED), icons.IconImage)  # whole: only decoding tells
    broken = mcp_types.Icon(src="data:image/png;base64,not base64!")
    assert icons.decode(broken) == "an image/png icon that is not valid base64, not drawn"
    plain = mcp_types.Icon(src="data:image/png,%89PNG")
    assert icons.decode(plain) == "an image/png icon that is not base64 data, not drawn"


def test_markup_where_a_scheme_or_type_belongs_never_reaches_the_words():
    assert (
        icons.decode(mcp_types.Icon(src="<b>x</b>:y"))
        == "a relative or unreadable icon address, not followed"
    )
    odd = mcp_types.Icon(src="data:<img src=x>;base64,AAAA")
    assert icons.decode(odd) == "an icon of type unknown, not drawn"


def test_a_generic_data_type_gives_way_to_the_icons_own_mime_type():
    raw = served.png(2, 2, (0, 0, 0))
    generic = data_icon("application/octet-stream", raw, mime_type="image/png")
    assert icons.decode(generic) == icons.IconImage("image/png", raw)
    declared = data_icon("image/svg+xml", b"<svg/>", mime_type="image/png")  # the URI's own type wins
    assert icons.decode(declared) == "an SVG icon, not rendered"


def test_a_description_cuts_a_data_uri_short_and_keeps_an_address_whole():
    described = icons.describe(served.ORANGE)
    assert described["src"].startswith("data:image/png;base64,") and described["src"].endswith(" characters)")
    assert len(described["src"]) < 80 and described["drawable"] and "not_drawn" not in described
    assert described["sizes"] == ["16x16"] and described["mime_type"] == "image/png"
    remote = icons.describe(served.REMOTE)
    assert remote["src"] == "https://icons.example.com/tracker.png" and not remote["drawable"]
    assert remote["not_drawn"] == "an https icon, not fetched"


async def test_a_servers_icons_reach_its_catalog_status_and_tools(supervise):
    supervisor, _ = supervise(script_entry("icons", "icons.py"))
    await supervisor.start()
    await surface.listed(supervisor)
    catalog = supervisor.connections["icons"].catalog
    assert [icon.src for icon in catalog.icons] == [served.SVG.src, served.ORANGE.src, served.REMOTE.src]
    (status,) = supervisor.states()
    assert [i["drawable"] for i in status.icons] == [False, True, False]
    painted = supervisor.resolve("painted")
    assert painted is not None and [i["drawable"] for i in painted.icons] == [False, True]
    unpainted = supervisor.resolve("unpainted")
    assert unpainted is not None and [i.get("not_drawn", "") for i in unpainted.icons] == [
        "",  # a PNG within the byte cap: only the window, reading its header, finds it 4000 px wide
        "an image/png icon of about 100,008 bytes, over the 65,536-byte cap",
        "an SVG icon, not rendered",
        "an https icon, not fetched",
    ]
    assert [r.icons for r in catalog.resources] == [[served.GREEN]]
    assert [p.icons for p in catalog.prompts] == [[served.ORANGE]]
