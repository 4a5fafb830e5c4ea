"""BM25's words: "times" is not "time", bare numbers are no terms, "%" reads as percent."""

from __future__ import annotations

from app.mcp.retrieval.text import words


def test_times_is_not_stemmed_to_time():
    assert words("What is 12 times 7?") == ["times"]
    assert words("What time is it?") == ["time"]


def test_numbers_are_not_terms_and_a_percent_sign_is_the_word_percent():
    assert words("What is 15% of 240?") == ["percent"]
    assert words("0 °C = 273.15 K") == ["c", "k"]
