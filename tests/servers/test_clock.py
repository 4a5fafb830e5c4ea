"""The clock as a real child process over stdio."""

from __future__ import annotations

import datetime

import pytest
from mcp import Client

from tests.servers.stdio import call, text_of

pytestmark = pytest.mark.anyio


async def test_lists_its_two_tools(clock: Client) -> None:
    listed = {tool.name: tool for tool in (await clock.list_tools()).tools}
    assert set(listed) == {"say_hello", "get_time"}
    assert listed["get_time"].input_schema.get("required", []) == []


async def test_says_hello_by_name(clock: Client) -> None:
    assert text_of(await call(clock, "say_hello", name="  Ada   Lovelace ")) == "Hello, Ada Lovelace!"


async def test_time_defaults_to_utc_and_is_now(clock: Client) -> None:
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    result = await call(clock, "get_time")
    after = datetime.datetime.now(datetime.UTC)
    structured = result.structured_content
    assert structured is not None
    assert structured["timezone"] == "UTC"
    assert structured["utc_offset"] == "+00:00"
    assert before <= datetime.datetime.fromisoformat(structured["time"]) <= after
    assert text_of(result) == f"{structured['time']} (UTC)"


async def test_time_in_a_named_zone_carries_its_offset(clock: Client) -> None:
    result = await call(clock, "get_time", timezone="Asia/Kolkata")
    assert result.structured_content is not None
    moment = datetime.datetime.fromisoformat(result.structured_content["time"])
    assert moment.utcoffset() == datetime.timedelta(hours=5, minutes=30)
    assert result.structured_content["utc_offset"] == "+05:30"
    assert text_of(result).endswith("+05:30 (Asia/Kolkata)")


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "../../etc/passwd", "not a zone"])
async def test_unknown_time_zone_is_a_clear_tool_error(clock: Client, zone: str) -> None:
    result = await call(clock, "get_time", timezone=zone)
    assert result.is_error
    assert f"unknown time zone {zone!r}; use an IANA name such as 'UTC'" in text_of(result)
