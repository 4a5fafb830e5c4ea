"""``calculon tools --json`` and ``servers --json`` carry the icons servers give, as metadata only."""

from __future__ import annotations

import json

import pytest

from app import cli
from tests.mcp.helpers import script_entry
from tests.mcp.servers import icons as served


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    path = tmp_path_factory.mktemp("icons") / "servers.json"
    entry = script_entry("icons", "icons.py")
    path.write_text(json.dumps({"mcpServers": {entry.name: entry.to_json()}}))
    return path


def run_json(capsys, config, *args: str) -> object:
    assert cli.run(["--config", str(config), *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_tools_json_lists_each_tools_icons_with_data_uris_cut_short(capsys, config):
    tools = {t["name"]: t for t in run_json(capsys, config, "tools")}  # type: ignore[union-attr]
    assert tools["plain"]["icons"] == []
    cut_off, green = tools["painted"]["icons"]
    assert not cut_off["drawable"] and "damaged" in cut_off["not_drawn"]
    assert green["mime_type"] == "image/png" and green["sizes"] == ["16x16"] and green["drawable"]
    assert green["src"].startswith("data:image/png;base64,") and len(green["src"]) < 80
    heavy, svg, remote = tools["unpainted"]["icons"][1:]
    assert heavy["not_drawn"].endswith("over the 65,536-byte cap") and len(heavy["src"]) < 80
    assert svg["not_drawn"] == "an SVG icon, not rendered"
    assert remote == {
        "src": served.REMOTE.src,
        "mime_type": "image/png",
        "sizes": [],
        "theme": "",
        "drawable": False,
        "not_drawn": "an https icon, not fetched",
    }


def test_servers_json_carries_the_servers_own_icons(capsys, config):
    (server,) = run_json(capsys, config, "servers")  # type: ignore[misc]
    assert [(i["mime_type"], i["drawable"]) for i in server["icons"]] == [
        ("", False),
        ("image/png", True),
        ("image/png", False),
    ]
