"""A time-zone argument takes only the zones of the cities the question names: a small model
wrote Europe/London for "15:00 Berlin time". A question naming no such city leaves it free."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from app.core import events as ev
from app.core.messages import ToolSpec
from app.core.session import ChatSession
from app.core.zones import asks_of_time, choices, gives_clock_time, named_zones, takes_clock_time, with_zones
from app.llm.local.schema_grammar import tool_rules
from app.llm.local.syntaxes import HERMES
from app.llm.scripted import ScriptedBackend
from app.mcp.config import bundled_entry
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import started

CONVERT = ToolSpec(
    "convert_time",
    "Convert a time between zones",
    {
        "type": "object",
        "properties": {
            "source_timezone": {"type": "string"},
            "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
            "target_timezone": {"type": "string", "description": "IANA name"},
        },
        "required": ["source_timezone", "time", "target_timezone"],
    },
)


def test_the_cities_a_question_names_give_their_zones_in_the_order_named() -> None:
    asked = "A call is at 15:00 Berlin time today. What time is that in Los Angeles?"
    assert named_zones(asked) == ["Europe/Berlin", "America/Los_Angeles"]
    assert named_zones("How many hours ahead of London is tokyo right now?") == [
        "Europe/London",
        "Asia/Tokyo",
    ]
    assert choices("What time is it in New York?")[:2] == ["America/New_York", "UTC"]


def test_no_city_named_leaves_the_argument_free() -> None:
    for asked in ("What time is it in California?", "Read /srv/berlin/notes.txt", "Is it Christmas yet?"):
        assert choices(asked) == [], asked
        assert with_zones(CONVERT, choices(asked)) is CONVERT


def test_only_free_string_zone_arguments_are_held_and_the_grammar_takes_only_those() -> None:
    zones = choices("15:00 Berlin time in Los Angeles")
    held = with_zones(CONVERT, zones).input_schema["properties"]
    assert held["source_timezone"]["enum"] == held["target_timezone"]["enum"] == zones
    assert held["target_timezone"]["description"] == "IANA name"
    assert "enum" not in held["time"]
    fixed = ToolSpec(
        "t", "", {"type": "object", "properties": {"timezone": {"type": "string", "enum": ["UTC"]}}}
    )
    assert with_zones(fixed, zones) is fixed
    rules = "\n".join(tool_rules([with_zones(CONVERT, zones)], lambda _: True, HERMES).lines)
    assert '"\\"Europe/Berlin\\""' in rules and "Europe/London" not in rules


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def clock() -> AsyncIterator[Supervisor]:
    async with started(bundled_entry("clock")) as tools:
        yield tools


@pytest.mark.anyio
async def test_a_turn_offers_the_clock_with_the_named_zones_and_says_so(clock) -> None:
    backend = ScriptedBackend([["It is 15:00 in Berlin."]])
    chat = ChatSession(backend, clock)
    with anyio.fail_after(30):
        outcome = await chat.run_turn("What time is it in Berlin?")
    (request,) = backend.requests
    (get_time,) = [t for t in request.tools if t.name == "get_time"]
    zone_args = [p for name, p in get_time.input_schema["properties"].items() if "zone" in name]
    assert zone_args and all(p["enum"][0] == "Europe/Berlin" for p in zone_args)
    notices = [e.message for e in outcome.events if isinstance(e, ev.Notice)]
    assert any("only name the zones of your question: Europe/Berlin, UTC" in n for n in notices)


@pytest.mark.anyio
async def test_a_story_that_asks_nothing_of_time_is_offered_no_clock_and_the_chat_says_nothing_of_it(
    clock,
) -> None:
    backend = ScriptedBackend([["There are 10 goldfish left."]])
    chat = ChatSession(backend, clock)
    with anyio.fail_after(30):
        outcome = await chat.run_turn("Paige had 15 goldfish and 5 were eaten. How many are left?")
    (request,) = backend.requests
    assert not [t.name for t in request.tools if t.name == "get_time"]
    assert not [e for e in outcome.events if isinstance(e, ev.Notice) and "get_time" in e.message]


@pytest.mark.parametrize(
    ("asked", "of_time"),
    [
        ("According to the pricing page, what would the Team plan cost per month for 6 users?", False),
        ("How many visitors came per day on average?", False),
        ("What time is it in Tokyo?", True),
        ("How many hours is Tokyo ahead of London?", True),
        ("The meeting is at 15:00. What is that for a colleague in Lima?", True),
        ("What's the date tomorrow?", True),
    ],
)
def test_a_question_asks_of_time_only_where_a_clock_could_answer_it(asked: str, of_time: bool) -> None:
    assert asks_of_time(asked) is of_time


def test_a_tool_taking_a_time_zone_is_ruled_out_where_the_question_asks_nothing_of_time() -> None:
    from app.core.offer import ruled_out
    from app.core.tools import ToolInfo

    convert = ToolInfo("time", "convert_time", "convert_time", CONVERT.description, CONVERT.input_schema)
    fetch = ToolInfo("fetch", "fetch", "fetch", "Fetch a URL", {"type": "object", "properties": {"url": {}}})
    priced = ruled_out("According to the pricing page, what would the Team plan cost for 6 users?")
    assert priced(convert) and not priced(fetch)
    assert not ruled_out("What time is it in Lima when it is 15:00 in Berlin?")(convert)


NOW = ToolSpec(
    "get_current_time",
    "Get the current time in a zone",
    {"type": "object", "properties": {"timezone": {"type": "string"}}, "required": ["timezone"]},
)


@pytest.mark.parametrize(
    ("asked", "gives"),
    [
        ("If it's 9:30 in New York, what time is that in London?", True),
        ("The call is at 3 pm in Berlin; what is that in Lima?", True),
        ("Is noon in Paris still morning in Chicago?", True),
        ("What hour is it in Tokyo right now?", False),
        ("I bought 3 apples at 2 dollars each.", False),
    ],
)
def test_a_time_of_day_is_given_only_where_the_words_hold_a_clock_reading(asked: str, gives: bool) -> None:
    assert gives_clock_time(asked) is gives


def test_only_a_required_time_of_day_argument_needs_one_from_the_request() -> None:
    assert takes_clock_time(CONVERT.input_schema)
    assert not takes_clock_time(NOW.input_schema)  # a zone, not a time of day
    optional = {"type": "object", "properties": {"time": {"type": "string", "format": "time"}}}
    assert not takes_clock_time(optional)  # the tool can go without it
    event = {"type": "string", "format": "date-time", "description": "When it starts (ISO 8601)"}
    calendar = {"type": "object", "properties": {"start_time": event}, "required": ["start_time"]}
    assert not takes_clock_time(calendar)  # "remind me tomorrow" gives a day: no time of day is needed
    alarm = {"type": "object", "properties": {"alarm_time": {"type": "string", "format": "time"}}}
    assert takes_clock_time({**alarm, "required": ["alarm_time"]})


def test_a_tool_needing_a_time_of_day_comes_first_where_the_request_gives_one() -> None:
    from app.core.offer import ranked_offer
    from app.core.tools import ToolInfo

    convert, now = (ToolInfo("time", s.name, s.name, s.description, s.input_schema) for s in (CONVERT, NOW))

    class Ranked:  # a selector's answer as retrieval gave it
        def __init__(self, *order: ToolInfo) -> None:
            self.order = order

        def select(self, context: str, tools: list[ToolInfo]) -> list[tuple[ToolInfo, float]]:
            return [(tool, 1.0 - i / 10) for i, tool in enumerate(self.order)]

    def offered(asked: str, selector: Ranked) -> list[str]:
        chosen, _ = ranked_offer(selector, [now, convert], asked, lambda tool: True)  # type: ignore[arg-type]
        return [t.name for t, _ in chosen]

    given = "If it's 9:30 in New York, what time is that in London?"
    assert offered(given, Ranked(now, convert)) == ["convert_time", "get_current_time"]
    # none given: retrieval's order stands ("how many hours ahead" is worked out by converting any time)
    assert offered("What hour is it in Tokyo right now?", Ranked(convert, now)) == [
        "convert_time",
        "get_current_time",
    ]
