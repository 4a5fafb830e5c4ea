"""What a real Python server offers beyond plain tool results, through the supervisor: structured
content checked, images, resources and links in results; resources, templates and prompts."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.mcp import surface
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import script_entry, started

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def two() -> AsyncIterator[Supervisor]:
    """The rich server beside one with neither resources nor prompts."""
    async with started(script_entry("rich", "rich.py"), script_entry("basic", "basic.py")) as supervisor:
        await surface.listed(supervisor)
        yield supervisor


async def test_a_server_introduces_itself_and_its_resources_templates_and_prompts(two):
    catalog = two.connections["rich"].catalog
    assert catalog.protocol_version and catalog.server_name == "rich"
    assert catalog.offers("resources") and catalog.offers("prompts")
    assert [r.uri for r in catalog.resources] == ["note://readme"]
    assert [t.uri_template for t in catalog.templates] == ["note://{number}"]
    assert [p.name for p in catalog.prompts] == ["greet"]
    assert two.connections["basic"].catalog.resources == ()


async def test_a_resource_is_read_from_the_server_that_lists_it_or_whose_template_fits(two):
    listed = await surface.read_resource(two, "note://readme")
    assert listed.server == "rich" and listed.item.contents[0].text == "read me first"
    templated = await surface.read_resource(two, "note://7")
    assert templated.item.contents[0].text == "note number 7"


async def test_a_prompt_is_found_by_name_and_filled_in(two):
    listed = await surface.get_prompt(two, "greet", {"name": "Ada"})
    assert listed.server == "rich" and listed.item.messages[0].content.text == "Please greet Ada warmly."
    assert (
        (await surface.get_prompt(two, "rich.greet", {"name": "Bo"}))
        .item.messages[0]
        .content.text.count("Bo")
    )


async def test_what_no_server_offers_is_an_error_saying_so(two):
    with pytest.raises(surface.SurfaceError, match="no running server has a prompt named shout"):
        await surface.get_prompt(two, "shout", {})
    with pytest.raises(surface.SurfaceError, match="could not read"):
        await surface.read_resource(two, "note://readme", server="basic")


async def test_structured_content_that_matches_the_output_schema_is_kept(two):
    result = await two.call_tool("weather", {"city": "Oslo"})
    assert not result.is_error and result.structured == {"temperature": 21.5, "conditions": "sunny in Oslo"}


async def test_structured_content_that_breaks_the_output_schema_is_an_error_naming_the_field(two):
    result = await two.call_tool("broken_weather", {"city": "Oslo"})
    assert (
        result.is_error and "output schema" in result.text and "'warm' is not of type 'number'" in result.text
    )
    assert "closed" not in result.text
    assert not (await two.call_tool("weather", {"city": "Oslo"})).is_error  # the server serves on


async def test_an_image_an_embedded_resource_and_a_link_reach_the_window_and_private_text_not_the_model(two):
    result = await two.call_tool("picture", {})
    assert "for everyone" in result.text and "for your eyes only" not in result.text
    kinds = [(p["type"], p.get("uri")) for p in result.parts]
    assert kinds == [
        ("text", None),
        ("image", None),
        ("resource", "note://1"),
        ("resource_link", "note://readme"),
    ]
    assert result.parts[0] == {"type": "text", "text": "for your eyes only", "audience": "user"}
    assert result.parts[1]["bytes"] == 71 and result.parts[2]["text"] == "embedded note"
