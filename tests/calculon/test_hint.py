"""The formula hint the session hands the backend: a transcription, a ranked reading, or none."""

from __future__ import annotations

from fractions import Fraction

from app.calculon.hint import formula_hint


def test_written_out_arithmetic_is_handed_over_as_a_transcription():
    hint = formula_hint("What is 12 times 7?")
    assert hint is not None
    assert (hint.expression, hint.shown, hint.source) == ("12 * 7", "12 × 7", "transcription")


def test_that_stands_for_the_earlier_result_in_the_formula():
    hint = formula_hint("Now add 16 to that.", Fraction(84))
    assert hint is not None and hint.expression == "84 + 16" and hint.source == "transcription"


def test_without_an_earlier_result_that_is_not_guessed():
    assert formula_hint("Now add 16 to that.") is None


def test_a_story_gets_the_ranked_reading_with_its_alternatives():
    hint = formula_hint("Sam had 9 marbles. He gave 4 to Ann. How many marbles does Sam have left?")
    assert hint is not None and hint.source == "ranked"
    assert hint.expression == "9 - 4"
    assert 0 < hint.probability < 1 and hint.alternatives


def test_a_conversion_or_a_clock_question_gets_no_hint():
    assert formula_hint("Convert 98.6 degrees Fahrenheit to Celsius.") is None
    assert formula_hint("What time is it in UTC+9 when it is 14:00 in London?") is None


def test_a_root_is_left_to_the_model_and_its_tools():
    assert formula_hint("What is the square root of 1444?") is None


def test_arithmetic_with_no_value_is_handed_over_for_the_calculator_to_refuse():
    # the small models answered "134 * 0 = 0" and "38 - 0 = 38" when left to write the call
    divided = formula_hint("What is 134 divided by 0?")
    assert divided is not None and (divided.expression, divided.defined) == ("134 / 0", False)
    mod = formula_hint("What is 38 mod 0?")
    assert mod is not None and (mod.expression, mod.defined) == ("38 % 0", False)
    defined = formula_hint("What is 38 mod 5?")
    assert defined is not None and (defined.expression, defined.defined) == ("38 % 5", True)
