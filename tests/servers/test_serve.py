"""``app.servers.serve``: the name-to-module table and the entry point the CLI calls."""

from __future__ import annotations

import importlib

import anyio
import pytest
from mcp import Client

from app.servers import BUNDLED, UnknownServerError, serve
from tests.servers.stdio import server_params, text_of


def test_every_bundled_name_is_an_importable_module_with_main() -> None:
    assert set(BUNDLED) == {"calculator", "converter", "clock"}
    for module_path in BUNDLED.values():
        assert callable(importlib.import_module(module_path).main)


def test_unknown_name_is_refused_with_the_known_names() -> None:
    with pytest.raises(
        UnknownServerError, match=r"no bundled server named 'abacus'.*calculator, clock, converter"
    ):
        serve("abacus")
    with pytest.raises(KeyError):
        serve("abacus")


@pytest.mark.anyio
async def test_serve_runs_the_named_server_over_stdio() -> None:
    params = server_params("-c", "from app.servers import serve; serve('converter')")
    with anyio.fail_after(30):
        async with Client(params) as client:
            result = await client.call_tool("convert", {"quantity": "1 ft", "to_unit": "in"})
    assert text_of(result) == "12 in"
