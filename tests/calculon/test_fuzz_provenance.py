"""The number extractor and the provenance check never crash, whatever text a model or a tool sends."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.calculon.provenance import CalculonVerifier, answer_mentions
from app.core.numbers import find_numbers

FUZZ = settings(max_examples=200, deadline=None, database=None)

# Text rich in what the extractor reacts to: digits, signs, separators, exponents, percent, words.
PIECES = [*"0123456789.,-+eE%/ ^×·—–−$€£()[]\n\t", "one", "twenty", "hundred", "million", "point", "half"]
PIECES += ["step ", "1. ", "\u202e", "\x1b", "\u200b", "٣", "½", "²", "1e99999", "9" * 50]
numberish = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)
texts = st.one_of(numberish, st.text(max_size=200))


@FUZZ
@given(texts)
def test_finding_numbers_in_any_text_never_raises_and_each_mention_is_where_it_says(text):
    for mention in find_numbers(text):
        assert text[mention.start : mention.end] == mention.text


@FUZZ
@given(texts, st.lists(texts, max_size=4))
def test_checking_any_answer_against_any_sources_never_raises(answer, sources):
    result = CalculonVerifier().check(answer, sources)
    assert result.verified == (not result.unbacked)
    answer_mentions(answer)


@FUZZ
@given(texts)
def test_an_answer_that_quotes_its_only_source_is_unbacked_only_where_a_number_cannot_be_read(text):
    unreadable = {m.text for m in find_numbers(text) if not m.readings and not m.parts}  # e.g. 1e99999
    assert set(CalculonVerifier().check(text, [text]).unbacked) <= unreadable
