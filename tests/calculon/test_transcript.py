"""The transcription: arithmetic the user wrote out, read strictly and worked out apart from
the model. Checked against a labelled set of 454 phrasings (tests/data/transcriptions.jsonl),
written apart from the rules: written-out arithmetic with its value, and messages that are not
transcriptions (word problems with distracting numbers, chit-chat, dates), labelled "none"."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from app.calculon.transcript import transcribe

LABELLED = [
    json.loads(line)
    for line in (Path(__file__).parents[1] / "data" / "transcriptions.jsonl").read_text("utf-8").splitlines()
    if line.strip()
]


def test_the_labelled_set_is_large_and_mixed():
    labels = [row["label"] for row in LABELLED]
    assert len(LABELLED) >= 300
    assert labels.count("none") >= 150 and labels.count("undefined") >= 10


def test_no_message_labelled_as_a_story_is_ever_transcribed():
    # A false transcription is the one way a wrong formula could be called established.
    wrongly = [(row["text"], transcribe(row["text"])) for row in LABELLED if row["label"] == "none"]
    assert [(text, t.shown) for text, t in wrongly if t is not None] == []


def test_every_transcription_has_the_labelled_value():
    found = [(row, transcribe(row["text"])) for row in LABELLED if row["label"] != "none"]
    wrong = [
        (row["text"], t.shown, t.value, row["label"])
        for row, t in found
        if t is not None and t.value != (None if row["label"] == "undefined" else Fraction(row["label"]))
    ]
    assert wrong == []


def test_most_written_out_arithmetic_is_recognised():
    written = [row for row in LABELLED if row["label"] != "none"]
    missed = [row["text"] for row in written if transcribe(row["text"]) is None]
    assert len(missed) <= len(written) // 10, missed


@pytest.mark.parametrize(
    ("text", "value", "shown"),
    [
        ("What is 12 times 7?", 84, "12 × 7"),
        ("(5 + 3) * 12", 96, "(5 + 3) × 12"),
        ("What is 17 squared?", 289, "17 ^ 2"),
        ("15% of 240", 36, "15% × 240"),
        ("Subtract 86 from 650.", 564, "650 − 86"),
        ("What is 40 less than 110?", 70, "110 − 40"),
        ("What is the average of 43, 18 and 10?", Fraction(71, 3), "(43 + 18 + 10) ÷ 3"),
        ("How many km is 144 miles?", Fraction("231.745536"), "144 miles in km"),
        ("What is 7!", 5040, "7!"),
        ("2 ** 20", 2**20, "2 ^ 20"),
    ],
)
def test_written_out_arithmetic_is_worked_out_here(text, value, shown):
    found = transcribe(text)
    assert found is not None and found.value == value and found.shown == shown


def test_that_stands_for_the_previous_result_only_when_it_is_known():
    assert transcribe("Now add 16 to that.") is None
    found = transcribe("Now add 16 to that.", Fraction(84))
    assert found is not None and found.value == 100 and found.uses_earlier


def test_arithmetic_with_no_value_is_recognised_as_such():
    found = transcribe("What is 134 divided by 0?")
    assert found is not None and found.value is None and found.shown == "134 ÷ 0"


def test_a_power_too_big_to_work_out_is_not_worked_out():
    assert transcribe("What is 99999 to the power of 99999?") is None


def test_a_longer_opening_is_read_whole():
    # Seen on the held-out set: "what do" was taken as the opening, leaving "you get if you ...".
    found = transcribe("What do you get if you multiply 201 by 21?")
    assert found is not None and found.value == 4221


def test_a_sale_price_is_the_price_less_its_share_off_and_nothing_else_about_the_sale_is():
    sale = transcribe("A $40 coat is 50% off. What is the sale price?")
    assert sale is not None and (sale.value, sale.shown) == (Fraction(20), "40 − 50% × 40")
    new = transcribe("My $80 shoes are 25 percent off. What is the new price?")
    assert new is not None and new.value == Fraction(60)
    assert transcribe("A $40 coat is 50% off. How much do I save?") is None
    assert transcribe("A $40 coat is 50% off and I have 3 coupons. What is the sale price?") is None


@pytest.mark.parametrize(
    ("text", "value", "shown"),
    [
        ("Multiply 25 by 4, then add 10.", 110, "25 × 4 + 10"),  # the issue's own miss: 14 before
        ("Add 5 to 7 and then double it.", 24, "(7 + 5) × 2"),
        ("What is 12 times 7, then divide by 4?", 21, "12 × 7 ÷ 4"),
        ("Multiply 25 by 4, then add 10, then halve it.", 55, "(25 × 4 + 10) ÷ 2"),
    ],
)
def test_steps_joined_by_then_are_one_formula_each_working_on_the_last(text, value, shown):
    found = transcribe(text)
    assert found is not None and (found.value, found.shown) == (Fraction(value), shown)


def test_a_chain_after_an_earlier_result_keeps_working_on_it():
    found = transcribe("Now add 16 to that, then double it.", Fraction(84))
    assert found is not None and found.value == Fraction(200) and found.uses_earlier
    assert transcribe("Now add 16 to that, then double it.") is None  # "that" unknown: not guessed


def test_a_chain_with_a_step_of_story_is_no_transcription():
    assert transcribe("I had 85 shells, then we lost 17. How many are left?") is None
    assert transcribe("Take 100, subtract 30, then halve it.") is None  # "take 100" names no operation


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("What percent of 80 is 20?", 25),
        ("20 is what percent of 80?", 25),
        ("What is a 15% tip on 80 dollars?", 12),
        ("How much is 8% tax on $250?", 20),
    ],
)
def test_everyday_shares_with_one_meaning_are_transcribed(text, value):
    found = transcribe(text)
    assert found is not None and found.value == Fraction(value)


def test_a_share_of_a_story_number_among_others_is_left_to_the_story():
    assert transcribe("A meal for 2 costs 84 dollars. What is a 15% tip on that?") is None
    assert transcribe("What is a 15% tip on 80 dollars for 3 people?") is None
