"""A clock lookup asked in so many words, transcribed for the clock (app.calculon.lookup)."""

from __future__ import annotations

import pytest

from app.calculon.lookup import lookup_hint


@pytest.mark.parametrize(
    ("asked", "zone", "place"),
    [
        ("What time is it in Tokyo?", "Asia/Tokyo", "Tokyo"),
        ("what is the time in New York right now?", "America/New_York", "New York"),
        ("Current time in London", "Europe/London", "London"),
    ],
)
def test_the_time_in_one_named_city_is_the_clocks_call(asked, zone, place):
    hint = lookup_hint(asked)
    assert (
        hint is not None
        and hint.call == (("get_time", "get_current_time"), (("timezone", zone),))
        and hint.shown == place
    )


@pytest.mark.parametrize(
    "asked",
    [
        "What time is it in Tokyo when it is 9:00 in Paris?",  # asks more than a lookup
        "What time is it?",  # no city: the model asks or uses UTC
        "What is the time in my kitchen?",  # no city of the tz database
    ],
)
def test_anything_else_is_left_to_the_model(asked):
    assert lookup_hint(asked) is None
