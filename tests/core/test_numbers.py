"""Reading numbers out of free text: each reading rule on its own."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from app.core.numbers import find_numbers


def values(text: str) -> list[set[Fraction]]:
    return [{r.value for r in m.readings} for m in find_numbers(text)]


def texts(text: str) -> list[str]:
    return [m.text for m in find_numbers(text)]


def test_every_mention_is_the_exact_slice_of_the_text_it_was_found_in():
    cases = Path(__file__).parents[1] / "calculon" / "data" / "provenance_cases.jsonl"
    for line in cases.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        for text in (case["answer"], *case["sources"]):
            for mention in find_numbers(text):
                assert text[mention.start : mention.end] == mention.text


def test_thousands_separators_join_digits_but_a_plain_space_does_not():
    assert values("1,234,567 and 1\u202f234 and 1\u00a0234") == [{1234567}, {1234}, {1234}]
    assert texts("add 5 100 times") == ["5", "100"]
    assert texts("1,23 and 1,2345") == ["1", "23", "1", "2345"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("It is -5.", ["-5"]), ("It is −5.", ["−5"]), ("3 -5", ["3", "5"]), ("(2+3) -1", ["2", "3", "1"])],
)
def test_a_minus_is_a_sign_unless_it_follows_a_number(text, expected):
    assert texts(text) == expected


def test_a_hyphen_inside_words_and_dates_is_not_a_sign():
    assert texts("COVID-19 on 2024-05-03") == ["19", "2024", "05", "03"]


@pytest.mark.parametrize(
    "written", ["1.2e5", "1.2E+5", "1.2 × 10^5", "1.2×10⁵", "1.2 x 10^5", "1.2 \\times 10^{5}", "1.2*10**5"]
)
def test_scientific_forms_read_as_one_value(written):
    (mention,) = find_numbers(f"It is {written}.")
    assert mention.text == written
    assert [(r.value, r.step) for r in mention.readings] == [(Fraction(120000), Fraction(10000))]


def test_a_percentage_stands_for_both_its_number_and_its_ratio():
    (mention,) = find_numbers("up 12.5 percent")
    assert {r.value for r in mention.readings} == {Fraction(25, 2), Fraction(1, 8)}


def test_a_scale_suffix_claims_only_the_scaled_value_but_offers_both_as_a_source():
    (mention,) = find_numbers("12k")
    assert [r.value for r in mention.readings] == [12000]
    assert set(mention.values()) == {12000, 12}


def test_fractions_and_powers_carry_their_operands():
    fraction, power = find_numbers("1/3 and 2^10")
    assert (fraction.readings[0].value, fraction.parts) == (Fraction(1, 3), (1, 3))
    assert (power.readings[0].value, power.parts) == (1024, (2, 10))


def test_digits_inside_a_word_are_not_numbers_but_a_unit_after_digits_is_not_a_word():
    assert texts("H2O, log10, mp3") == []
    assert texts("12kg and 3x4") == ["12", "3", "4"]


def test_precision_is_the_unit_of_the_last_digit_shown():
    steps = [m.readings[0].step for m in find_numbers("3.14 1200 1.23 million 2.50")]
    assert steps == [Fraction(1, 100), 1, 10_000, Fraction(1, 100)]


def test_an_ellipsis_marks_a_decimal_as_possibly_cut_off():
    cut, plain, sentence = find_numbers("0.666… 0.666 and 5...")
    assert cut.readings[0].truncated and not plain.readings[0].truncated
    assert (sentence.text, sentence.readings[0].truncated) == ("5", False)


def test_a_huge_exponent_is_not_expanded():
    (mention,) = find_numbers("10^99999999")
    assert mention.readings == () and mention.parts == (10, 99999999)


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("twelve", 12),
        ("eighty-four", 84),
        ("one hundred and five", 105),
        ("two thousand three hundred", 2300),
        ("twenty-one thousand four hundred and six", 21406),
        ("a dozen", 12),
        ("half a dozen", 6),
        ("five dozen", 60),
        ("a million", 1_000_000),
        ("two thirds", Fraction(2, 3)),
        ("one and a half", Fraction(3, 2)),
        ("a quarter", Fraction(1, 4)),
        ("zero", 0),
    ],
)
def test_simple_number_words_are_read_as_one_value(words, value):
    (mention,) = find_numbers(f"It is {words} now.")
    assert (mention.text, mention.readings[0].value) == (words, value)


def test_a_count_of_dozens_claims_the_dozens_but_offers_its_count_as_a_source():
    assert values("5 dozen eggs and five dozen more") == [{60}, {60}]
    assert [set(m.values()) for m in find_numbers("5 dozen eggs and five dozen more")] == [{60, 5}, {60, 5}]
    assert [set(m.values()) for m in find_numbers("a dozen eggs")] == [{12}]


def test_words_that_do_not_form_one_number_are_read_separately():
    assert texts("one two three") == ["one", "two", "three"]
    assert values("twelve one") == [{12}, {1}]


def test_bare_half_and_ordinal_words_are_not_numbers():
    assert texts("half of the first second") == []


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("1st", "ordinal"),
        ("twenty-first", "ordinal"),
        ("no one", "pronoun"),
        ("listed one per line", "pronoun"),
    ],
)
def test_ordinals_and_the_pronoun_one_are_marked_exempt(text, rule):
    assert [m.exempt for m in find_numbers(text)] == [rule]


def test_one_per_day_is_still_an_amount():
    assert values("He eats one per day.") == [{1}]
