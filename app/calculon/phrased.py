"""Everyday phrasings whose operation the story's own words name, where the ranker's corpora say
little: the average of a list, an amount a period over a longer one, a percentage put on or taken
off an amount, and whole groups made of a total.

"A pizza costs $12 and I tip 15%. How much do I pay in total?" was ranked 12 − 15% (MAWPS holds
few percentages, and more of them are discounts); "How many full bags of 3 apples can I make
from 29 apples?" 3 × 29. Each rule here holds only where the words leave one reading, and then
narrows the candidates to it, best first in the ranker's own order. What it narrows to is still
a reading, shown as computed with its numbers labelled, never verified.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from app.calculon.candidates import MORE_STEPS, MULTIPLIERS, Candidate, Quantity, clause, written
from app.calculon.changes import changed_in_turn, some_changed, undone_in_turn
from app.calculon.compared import age_then, compared, compared_age_then, compared_together, times_as_many
from app.calculon.counted import gap_between, left_to_do, rate_times_count, rest_of_whole, shared_equally
from app.calculon.each import bought_in_all, each_then_change, priced_count
from app.calculon.evaluate import Node
from app.calculon.implied import listed_runs
from app.calculon.kinds import counted_as_a_kind, one_list_of_sorts
from app.calculon.periods import over_a_period, over_periods, per_one
from app.calculon.proportion import scaled_rate
from app.calculon.shares import fraction_of, share_taken

# "My rent is 30% of my pay. How much is left?": a share of it gone
_OF_LEFT = re.compile(r"%\s+of\b.*\b(?:left|remain\w*)\b")
_ON = re.compile(
    r"\b(?:tip|tips|tipped|tax|taxes|markup|raise|raised|increase|increased|increases|grew|grow|grows"
    r"|rise|rose|risen|interest|surcharge|added|higher)\b"
)
_OFF = re.compile(
    r"\b(?:off|discount|discounted|sale|reduced|reduce|reduction|decrease|decreased|decreases|fell|fall"
    r"|falls|drop|dropped|lower|cheaper|lost|lose|less|spent|spend|spends|away|gave|sold|used|ate)\b"
)
# what a question asks when it wants the amount after the change, not the change itself
_AFTER = re.compile(
    r"\b(?:in total|total|in all|altogether|now|new|final|after|left|remain\w*|end up|all together)\b"
)
# what a question asks when it wants the change itself: "what is a 15% tip on 80", "how much do I save"
_PART = re.compile(
    r"\b(?:tip|tax|taxes|discount|interest|commission|markup|surcharge|raise|fee|save|saved|saves|savings)\b"
)
# "the cost before tax", "the original price", "the rate", "over 2 years": not the share alone
_BACKWARDS = re.compile(
    r"\b(?:before|original|originally|without|excluding|msrp|list price|marked price|rate|years?|months?)\b"
)
# "how many boxes can she fill": whole groups, as "how many full boxes" asks (app.calculon.worked too)
FILLS = r"\bhow many \w+ (?:can|could) \w+ (?:make|fill|pack)\b"
# "how many packs do I need": whole groups and one more for what is left over (app.calculon.worked too)
NEEDS = (
    r"\bhow many \w+ (?:(?:do|does|did|will|would|should) \w+ need\b|(?:are|is|will be|would be) needed\b)"
)
_WHOLE = re.compile(rf"\bhow many (?:full|whole|complete)\b|{FILLS}")
_NEEDS = re.compile(NEEDS)
# a story that says how many one group holds: "a pack has 6", "each van seats 8"; "Sam has 5 apples and
# wants 12: how many does he need" is a difference, not groups
_HOLDER = re.compile(
    r"\b(?:holds?|fits?|seats?|carr(?:y|ies)|each|every|per)\b"
    r"|\ba (?:pack|box|bag|crate|case|carton|tray) (?:has|of)\b"
)
_HOW_MANY = re.compile(r"\bhow many\b")
_COMPARES = re.compile(r"\b(?:more|less|fewer|than)\b")
_COUNTED = re.compile(r"\bhow many (\w+)")
_TOGETHER = re.compile(r"\b(?:in all|total|altogether|together|they|both)\b")
_DOZENS = re.compile(r"(?!an?\b)\S.*[ \t-]dozen", re.IGNORECASE)  # "5 dozen", "five dozen", not "a dozen"
# "What was his average score?"; not "what must she score next to keep an average of 85"
_ASKS_AVERAGE = re.compile(r"\b(?:what|find|calculate|compute)\b[^?]*\b(?:average|mean)\b")
_AVERAGE_GIVEN = re.compile(r"\b(?:need|needs|must|should|least|most|higher|lower|more|less|next|last)\b")
_CLAUSE_ENDS = (".", "?", "!", ",", ";")


def phrased_candidates(
    text: str, question: str, found: Sequence[Quantity], pool: Sequence[Candidate]
) -> list[Candidate]:
    """The candidates the story's phrasing leaves, in ``pool``'s order; [] where no rule holds."""
    made = (
        averaged(text, question, found)
        or over_a_period(text, question, found)
        or over_periods(text, question, found)
        or per_one(text, question, found)
        or changed_in_turn(text, question, found)
        or undone_in_turn(text, question, found)
        or compared(text, question, found)
        or compared_together(text, question, found)
        or times_as_many(text, question, found)
        or some_changed(text, question, found)
        or age_then(text, question, found)
        or compared_age_then(text, question, found)
        or shared_equally(text, question, found)
        or gap_between(text, question, found)
        or rate_times_count(text, question, found)
        or rest_of_whole(text, question, found)
        or each_then_change(text, question, found)
        or bought_in_all(text, question, found)
        or priced_count(text, question, found)
        or left_to_do(text, question, found)
        or counted_as_a_kind(text, question, found)
        or one_list_of_sorts(text, question, found)
        or share_taken(text, question, found)
        or fraction_of(text, question, found)
        or in_dozens(text, found)
        or scaled_rate(text, found)
    )
    if made is not None:
        return [made]
    return changed(text, question, found, pool) or grouped(text, question, found, pool)


def in_dozens(text: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "How many eggs are in 5 dozen?": the one number is a count of dozens, so 5 × 12 (else the
    model is left alone with 60 and no formula to call)."""
    if len(found) != 1 or not _DOZENS.fullmatch(text[found[0].start : found[0].end]):
        return None
    # "4 friends each have 9 dozen", "1 dozen quarters: how much money", "2 dozen a day for a week"
    if MORE_STEPS.search(text) or not _HOW_MANY.search(text.lower()) or _TOGETHER.search(text.lower()):
        return None
    count = found[0].value / 12
    node = Node(
        "*", (Node("num", value=count, text=written(count)), Node("num", value=Fraction(12), text="12"))
    )
    return Candidate(node, found[0].value, (0,), ((0, "mul"),), ("*",))


def averaged(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "Tom scored 12, 15 and 18 points in three games. What was his average score?": the sum of
    the one list of numbers the story gives, divided by how many it holds (a formula of four
    numbers, out of the candidates' reach: they read (15 + 18) ÷ 3)."""
    if not _ASKS_AVERAGE.search(question.lower()) or _AVERAGE_GIVEN.search(question.lower()):
        return None
    if MORE_STEPS.search(text) or _COMPARES.search(text.lower()):  # "$12 each", "6 pounds less than"
        return None
    lists = [run for run in listed_runs(text, found) if len(run) >= 3]
    if len(lists) != 1:
        return None
    listed = lists[0]
    count = len(listed)
    # the count, where the story writes it ("in three games"), is its own number; else a constant
    said = [i for i in range(len(found)) if i not in listed and found[i].value == count]
    total = found[listed[0]].node
    for i in listed[1:]:
        total = Node("+", (total, found[i].node))
    divisor = Node("num", value=Fraction(count), text=str(count))
    used = (*listed, *said[:1])
    roles = tuple((i, "add") for i in listed) + tuple((i, "div_r") for i in said[:1])
    value = sum((found[i].value for i in listed), Fraction(0)) / count
    return Candidate(Node("/", (total, divisor)), value, used, roles, ("/", *["+"] * (count - 1)))


def changed(
    text: str, question: str, found: Sequence[Quantity], pool: Sequence[Candidate]
) -> list[Candidate]:
    """One percentage, a word beside it (or in the question) that says on or off, and a question
    that asks the amount after: that change of one other amount. A question that names the change
    instead ("what is a 15% tip on 80") asks the share of it alone: 80 × 15%."""
    shares = [i for i, q in enumerate(found) if q.text.endswith("/100)")]
    if len(shares) != 1:
        return []
    share = shares[0]
    # one amount and one percentage: with more numbers, the change is one step of several (GSM8K's train
    # split: 123 stories read so, 10 right); "the cost before tax", "the msrp": asked backwards
    if len(found) != 2 or _BACKWARDS.search(question.lower()):
        return []
    if not _AFTER.search(question.lower()):
        if not _PART.search(question.lower()):
            return []
        return [c for c in pool if len(c.used) == 2 and (share, "pct_of") in c.roles]
    said = f"{clause(text, found[share], _CLAUSE_ENDS)} {question}".lower()
    on, off = bool(_ON.search(said)), bool(_OFF.search(said) or _OF_LEFT.search(said))
    if on == off:
        return []  # neither, or both: the words leave more than one reading
    role = "pct_on" if on else "pct_off"
    return [c for c in pool if len(c.used) == 2 and (share, role) in c.roles]


def grouped(
    text: str, question: str, found: Sequence[Quantity], pool: Sequence[Candidate]
) -> list[Candidate]:
    """ "How many full bags ...", "how many boxes can she fill", "a pack has 6: how many packs do I
    need for 45": the larger of two whole numbers divided by the smaller (what is left over, and the
    one more group it needs, are the answer's to say: app.calculon.worked)."""
    asked = question.lower()
    start = len(text) - len(question)
    # "how many vans do we need for 30 people": the number to group is the question's own
    need = _NEEDS.search(asked)
    needs = (
        need is not None
        and _HOLDER.search(text.lower()) is not None
        and not MULTIPLIERS.search(text)
        and any(q.start >= start + need.end() for q in found)
    )
    if len(found) != 2 or not (_WHOLE.search(asked) or needs):
        return []
    if any(q.value.denominator != 1 or q.value <= 0 for q in found):
        return []
    total = max(range(2), key=lambda i: found[i].value)
    return [c for c in pool if c.ops == ("/",) and c.used == (total, 1 - total)]
