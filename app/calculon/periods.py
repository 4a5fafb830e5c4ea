"""An amount for each one of something asked from a total over a count of them: "Lucy earned 120
dollars in 8 hours. How much does she earn per hour?" is 120 ÷ 8 (the ranker read 120 × 8).

An amount a period, asked over a longer one the calendar fixes: "My phone bill is $40 a month.
How much do I pay in a year?" is 40 × 12; "Tom walks 3 miles every day. How many miles does he walk
in 2 weeks?" is 3 × 7 × 2. The 12 and the 7 are backed by the words "year" and "week"
(:mod:`app.calculon.implied`); a month in days or the hours of a working day are no fact of the
calendar, so those are left to the ranker.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from app.calculon.candidates import MORE_STEPS, Candidate, Quantity, clause
from app.calculon.counted import singular, words_after
from app.calculon.evaluate import Node

# how many of the first period the second holds, where the calendar fixes it: no month in days,
# and no hours in a day ("$15 an hour, how much in a day" means a working day)
_PERIODS = {
    ("minute", "hour"): 60,
    ("day", "week"): 7,
    ("day", "year"): 365,
    ("week", "year"): 52,
    ("month", "year"): 12,
}
_ADVERBS = {"hourly": "hour", "daily": "day", "weekly": "week", "monthly": "month", "yearly": "year"}
_RATE = re.compile(
    r"\b(?:a|an|per|each|every)\s+(minute|hour|day|week|month|year)\b|\b(hourly|daily|weekly|monthly)\b"
)
_OVER = re.compile(
    r"\b(?:in|per|a|an|each|every|for)\s+(?:one\s+|a\s+|whole\s+)?(hour|day|week|year)\b"
    r"|\b(daily|weekly|yearly|annually)\b"
)
_CLAUSE_ENDS = (".", "?", "!", ",", ";")
_COUNTED = re.compile(r"\bhow many (\w+)")
# "in 2 weeks", "for 3 years": a count of periods; not "3 years old"
_PERIOD_COUNT = re.compile(r"\s+(minute|hour|day|week|month|year)s?\b(?!\s+old)")
_HOW_MANY_MUCH = re.compile(r"\bhow (?:many|much)\b")
# "in 2 weeks", "for 3 years", "after 6 months": a span, not "2 hours of music a day"
_SPAN_BEFORE = re.compile(r"\b(?:in|for|over|after|during|within|next)\s+$")
_COMPARES = re.compile(r"\b(?:more|fewer|less|than|difference|each|per)\b")
# a share or a multiple the story says in words is a step beyond the rate and the span
_PARTS = re.compile(r"\b(?:half|third|quarter|fourth|fifth|twice|double|triple|thrice)\b")


def over_a_period(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "My phone bill is $40 a month. How much do I pay in a year?": one amount a period, asked over
    a longer one the calendar fixes, is that amount times how many of the first the second holds
    (12, the months in a year, backed by the question's "year": :mod:`app.calculon.implied`)."""
    if len(found) != 1 or MORE_STEPS.search(_RATE.sub(" ", text.lower())):  # its own rate is no step
        return None
    counted = _COUNTED.search(question.lower())  # "1.5 gallons a day: how many quarts a week" converts too
    if counted and counted[1] not in text[: len(text) - len(question)].lower():
        return None
    rate, over = _RATE.search(clause(text, found[0], _CLAUSE_ENDS).lower()), _OVER.search(question.lower())
    if rate is None or over is None:
        return None
    first = rate[1] or _ADVERBS[rate[2]]
    second = over[1] or {"annually": "year", **_ADVERBS}[over[2]]
    factor = _PERIODS.get((first, second))
    if factor is None:
        return None
    amount = found[0].node
    node = Node("*", (amount, Node("num", value=Fraction(factor), text=str(factor))))
    return Candidate(node, found[0].value * factor, (0,), ((0, "mul"),), ("*",))


def over_periods(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "Tom walks 3 miles every day. How many miles does he walk in 2 weeks?": an amount a period and
    a count of a longer period: the amount, times how many of the first the second holds, times the
    count (3 × 7 × 2; the ranker read 3 × 2)."""
    if len(found) != 2 or MORE_STEPS.search(_RATE.sub(" ", text.lower())):
        return None
    asked = question.lower()
    counted = _COUNTED.search(asked)
    if not _HOW_MANY_MUCH.search(asked) or (counted and _PERIOD_COUNT.match(f" {counted[1]}")):
        return None  # "how many days are in 3 weeks" asks a conversion
    if _COMPARES.search(asked) or _PARTS.search(text.lower()):  # "how many more", "a third of the apples"
        return None
    counts = [
        i
        for i, q in enumerate(found)
        if _PERIOD_COUNT.match(text, q.end) and _SPAN_BEFORE.search(text[max(0, q.start - 8) : q.start])
    ]
    if len(counts) != 1:
        return None
    count = counts[0]
    amount = 1 - count
    rate = _RATE.search(clause(text, found[amount], _CLAUSE_ENDS).lower())
    if rate is None or any(q.text.endswith("/100)") for q in found):
        return None
    first = rate[1] or _ADVERBS[rate[2]]
    period = _PERIOD_COUNT.match(text, found[count].end)
    factor = _PERIODS.get((first, period[1] if period else ""))
    if factor is None:
        return None
    times = Node("num", value=Fraction(factor), text=str(factor))
    node = Node("*", (Node("*", (found[amount].node, times)), found[count].node))
    value = found[amount].value * factor * found[count].value
    return Candidate(node, value, (0, 1), ((amount, "mul"), (count, "mul")), ("*", "*"))


# "how much does she earn per hour?", "how many pages does he read each day?"
_PER_ASKED = re.compile(r"\b(?:per|each|every|a|an|one)\s+([a-z]+)\s*\?\s*$")
_STEP_WORDS = re.compile(r"\b(?:more|fewer|less|than|left|remain\w*|total|together|altogether|in all)\b")


def per_one(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """A total and a count of things said after it ("120 dollars in 8 hours"), and a question
    that asks the amount for each one of those things: the total ÷ the count."""
    asked = question.lower()
    per = _PER_ASKED.search(asked)
    if per is None or len(found) != 2 or not _HOW_MANY_MUCH.search(asked) or _STEP_WORDS.search(asked):
        return None
    story = text[: len(text) - len(question)]
    if any(q.start >= len(story) or q.text.endswith("/100)") or q.value <= 0 for q in found):
        return None
    if MORE_STEPS.search(story) or _STEP_WORDS.search(story.lower()):
        return None
    unit = singular(per[1])
    counts = [i for i, q in enumerate(found) if unit in words_after(text, q)]  # "8 (long) hours"
    if len(counts) != 1 or counts[0] == 0:  # the total is said first: "earned 120 dollars in 8 hours"
        return None
    count, total = counts[0], 1 - counts[0]
    node = Node("/", (found[total].node, found[count].node))
    roles = ((total, "div_l"), (count, "div_r"))
    return Candidate(node, found[total].value / found[count].value, (0, 1), roles, ("/",))
