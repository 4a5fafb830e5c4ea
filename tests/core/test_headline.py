"""A trace row's line: asides left out of a long sentence, and a cut made between words."""

from __future__ import annotations

from app.core.headline import at_word, headline


def test_a_long_notice_loses_its_asides_and_a_short_one_keeps_them() -> None:
    reading = (
        "The formula 15 − 5 is a reading of the story (79% likely among the formulas), not a transcription."
    )
    assert headline("notice", reading) == "The formula 15 − 5 is a reading of the story, not a transcription."
    assert headline("notice", "Server down (exit 2).") == "Server down (exit 2)."
    assert headline("turn", "Turn 1: " + reading) == "Turn 1: " + reading  # the user's words stay whole


def test_an_answers_formula_loses_its_numbers_words() -> None:
    label = "Answer ≈ computed · 10 = 15 (Paige raised goldfish in pond) − 5 (were eaten)"
    assert headline("answer", label) == "Answer ≈ computed · 10 = 15 − 5"


def test_a_cut_falls_between_words_and_drops_a_trailing_comma() -> None:
    def fits(line: str) -> bool:
        return len(line) <= 20

    assert at_word("The model wrote its call, then stopped", fits) == "The model wrote its…"
    assert at_word("short enough", fits) == "short enough"
    assert at_word("Supercalifragilisticexpialidocious", fits) == "Supercalifragilisti…"
    assert at_word("one, two three four five six", lambda line: len(line) <= 9) == "one, two…"
    assert at_word("one, two three", lambda line: len(line) <= 6) == "one…"
