"""A conversion asked in so many words, transcribed for the converter (app.calculon.conversion)."""

from __future__ import annotations

import pytest

from app.calculon.conversion import conversion_hint


@pytest.mark.parametrize(
    ("asked", "arguments", "shown"),
    [
        ("Convert 98.6 degrees Fahrenheit to Celsius", ("98.6 °F", "°C"), "98.6 degrees Fahrenheit"),
        ("What is 5 miles in km?", ("5 mi", "km"), "5 miles"),
        ("How many km is 26.2 miles?", ("26.2 mi", "km"), "26.2 miles"),
        ("How many cups are in a gallon?", ("1 gal", "cup"), "a gallon"),
        ("How many fluid ounces are in 2 cups?", ("2 cup", "fl_oz"), "2 cups"),
        ("What is -40 degrees C in F?", ("-40 °C", "°F"), "-40 degrees c"),
    ],
)
def test_one_amount_and_two_units_of_a_kind_are_the_converters_arguments(asked, arguments, shown):
    hint = conversion_hint(asked)
    assert hint is not None and hint.source == "transcription"
    assert hint.call == (("convert",), (("quantity", arguments[0]), ("to_unit", arguments[1])))
    assert hint.shown == shown


@pytest.mark.parametrize(
    "asked",
    [
        "I drove 5 miles in 2 hours",  # a story, not a conversion
        "What is 3 feet in apples?",  # no unit the converter knows
        "What is 5 km in kg?",  # units of two kinds: the converter's refusal says why
        "Convert 5 miles and 3 feet to km",  # more than one amount
        "What is 12 times 7?",
    ],
)
def test_anything_else_is_left_to_the_model(asked):
    assert conversion_hint(asked) is None
