"""Icons in the Servers tab, drawn from bytes: the server's row and overview, its tools (in the
panel's list and the details' tree), resources and prompts. A damaged or oversized icon is not
drawn (and Qt says nothing: any Qt warning fails a UI test); icons given but none drawn (SVG,
https, over a cap) show as a dashed outline, and every icon is named in the row's tooltip."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSize

from app.mcp import surface
from app.mcp.icons import IconImage, decode
from app.mcp.supervisor import Supervisor
from app.ui.icons import pixmap
from app.ui.main_window import MainWindow
from tests.mcp.helpers import script_entry
from tests.mcp.servers import icons as served
from tests.ui.conftest import surface_window


def image(icon) -> IconImage:
    decoded = decode(icon)
    assert isinstance(decoded, IconImage), decoded
    return decoded


def test_an_icon_is_drawn_at_sixteen_pixels_from_its_bytes():
    drawn = pixmap(image(served.ORANGE))
    assert drawn is not None and drawn.size() == QSize(16, 16)
    assert drawn.toImage().pixelColor(8, 8).name() == "#ff8c00"


def test_an_icon_whose_pixels_cannot_be_decoded_or_too_large_in_pixels_is_not_drawn():
    assert pixmap(image(served.DAMAGED)) is None
    assert pixmap(image(served.HUGE)) is None  # refused from its header: 4000 px wide


@pytest.fixture
def window(qtbot, arun):
    supervisor = Supervisor([script_entry("icons", "icons.py"), script_entry("basic", "basic.py")])
    arun(supervisor.start(), timeout=60)
    arun(surface.listed(supervisor), timeout=30)
    yield surface_window(qtbot, supervisor, [])
    arun(supervisor.aclose(), timeout=30)


def is_not_drawn_mark(icon) -> bool:
    image = icon.pixmap(16).toImage()
    return image.pixelColor(1, 1).name() == "#808080" and image.pixelColor(8, 8).alpha() == 0


def select(window: MainWindow, server: str) -> None:
    panel = window.servers_panel
    panel.servers.setCurrentRow(list(panel.states).index(server))


def test_the_servers_row_and_overview_show_its_icon_and_name_those_not_drawn(window):
    panel = window.servers_panel
    row = panel.servers.item(list(panel.states).index("icons"))
    assert not row.icon().isNull()
    assert row.toolTip() == (
        "Icons: an SVG icon, not rendered; an image/png icon, drawn; an https icon, not fetched"
    )
    assert panel.servers.item(list(panel.states).index("basic")).icon().isNull()
    select(window, "icons")
    assert not panel.details.tabIcon(0).isNull()
    assert (
        "Icons: an SVG icon, not rendered; an image/png icon, drawn" in panel.details.overview.toPlainText()
    )


def test_each_tool_shows_its_first_drawable_icon_and_names_the_rest(window):
    panel = window.servers_panel
    select(window, "icons")
    listed = {panel.tools.item(i).text(): panel.tools.item(i) for i in range(panel.tools.count())}
    assert not listed["painted"].icon().isNull() and listed["plain"].icon().isNull()
    assert is_not_drawn_mark(listed["unpainted"].icon())  # icons given, none drawn: their presence shows
    assert not is_not_drawn_mark(listed["painted"].icon())
    assert listed["painted"].toolTip() == (
        "Icons: an image/png icon whose bytes are damaged or of another type, not drawn; "
        "an image/png icon, drawn"
    )
    assert listed["plain"].toolTip() == ""
    tree = panel.details.tools
    rows = {tree.topLevelItem(i).text(0): tree.topLevelItem(i) for i in range(tree.topLevelItemCount())}
    assert rows["painted"].icon(0).pixmap(16).toImage().pixelColor(8, 8).name() == "#00a03c"
    assert is_not_drawn_mark(rows["unpainted"].icon(0))
    assert rows["unpainted"].toolTip(0) == (
        "Icons: an image/png icon that cannot be drawn (broken, or over 512 px); "
        "an image/png icon of about 100,008 bytes, over the 65,536-byte cap; "
        "an SVG icon, not rendered; an https icon, not fetched"
    )


def test_resources_and_prompts_show_their_icons(window):
    details = window.servers_panel.details
    select(window, "icons")
    assert not details.resources.tree.topLevelItem(0).icon(0).isNull()
    assert not details.prompts.topLevelItem(0).icon(0).isNull()
