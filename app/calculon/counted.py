"""Two story shapes read from what the question counts: a total shared equally, and the gap
between two amounts of the thing asked about.

"273 apples are shared equally among 6 children. How many apples does each child get?" was ranked
273 × 6, and "Jake has 12 marbles, 7 toy cars and 4 books. Anna has 30 marbles. How many more
marbles does Anna have than Jake?" 12 + 30 − 7: the ranker was fitted on stories that use every
number they give and rarely share. Each rule reads only where the words leave one reading (the
sharers named after "among", exactly two amounts of the counted thing) and abstains otherwise;
what it reads is still shown as computed, never verified.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.calculon.candidates import MORE_STEPS, MULTIPLIERS, Candidate, Quantity
from app.calculon.evaluate import Node

_SHARES = re.compile(r"\b(?:shar|divid|split|distribut|equal|even)\w*\b")
_AMONG = re.compile(
    r"\b(?:among|amongst|between)\s+(?:the\s+|his\s+|her\s+|their\s+|its\s+|all\s+)?(?:\d+\s+)?([a-z]+)"
)
_COUNTS = re.compile(r"\bhow (?:many|much)(?: more| fewer| less)? ([a-z]+)")
_GAP = re.compile(r"\bhow (?:many|much) (?:more|fewer|less) ([a-z]+)")
_NOT_THE_GAP = re.compile(
    r"\b(?:need|needs|times|each|every|per|left|in all|total|altogether|together)\b"
    r"|\b(?:in |)an? (?:hour|minute|day|week|month|year)\b"
)
_WORD = re.compile(r"\s*\$?\s*([A-Za-z]+)")
_GOAL = re.compile(r"\b(?:need|needs|needed|want|wants|goal|target)\b")
# "than butter cookies": the gap is between two things, not two holders of one
_ANOTHER_THING = re.compile(
    r"\bthan\s+(?:the\s+)?(?!in\b|at\b|on\b|he\b|she\b|they\b|his\b|her\b|last\b)[a-z]+"
)
_RATE = re.compile(r"\s*[A-Za-z]+\s+(?:a|an|per|each|every|to the|for every|for each)\b", re.IGNORECASE)
_FUNCTION = frozenset(
    re.findall(r"\w+", "a an the and or but while in on at of for to from by with more less fewer times each")
    + re.findall(r"\w+", "every per than is are was were")
)
# "15 pages a day", "8 pens in each box", "$3 per pound": an amount for each one of a thing
_PER_ONE = re.compile(
    r"\s*[A-Za-z]+(?:\s+[A-Za-z]+)?\s+"
    r"(?:a|an|per|each|every|in each|in every|on each|on every|for each|for every)\s+([A-Za-z]+)\b"
)
# "Each row had 16", "a bus can carry 48": the thing one amount is for, before it
PER_ONE_BEFORE = re.compile(
    r"\b(?:a|an|one|each|every)\s+([a-z]+)\s+(?:can |could |will )?(?:has|had|have|holds?|held|contains?"
    r"|contained|costs?|is|was|gets|got|carry|carries|carried|seats?|weighs)\s+(?:\$\s*)?$"
)
# a question for a share, a gap or what is left is no whole made of equal parts
_NOT_A_WHOLE = re.compile(r"\b(?:each|every|per|more|fewer|less|than|left|remain\w*|need|needs|average)\b")
_ANOTHER_STEP = re.compile(
    r"\b(?:lose|loses|lost|gave|give|spent|sold|ate|broke|returned|back|another|more|then)\b"
)
# "14 are boys", "12 of them were red": a part said by what it is
_PART_IS = re.compile(r"\s+(?:of\s+them\s+|of\s+these\s+|of\s+those\s+)?(?:are|were|is|was)\s+([A-Za-z]+)\b")
# "how many balls are blue", "how many are girls", "how many girls are there"
_OTHER_KIND = re.compile(
    r"\bhow many (?:of (?:them|these|the [a-z]+) |[a-z]+ )?(?:are|were) (?!there\b)([a-z]+)"
    r"|\bhow many ([a-z]+)"
)
_NOT_THE_REST = re.compile(r"\b(?:more|fewer|less|than|each|every|per|total|altogether|in all|times)\b")
# a question for what is still to do: "left to read", "more does he need to collect", "to go"
_TO_DO = re.compile(
    r"\bleft to\b|\bstill (?:need|needs|has|have|had) to\b|\bmore\b.*\b(?:need|needs|have|has) to\b"
    r"|\bremain\w* to\b|\bto go\b"
)
# the sentence of the whole says it is one: "the book has 100 pages", "his goal is 500 cans"
_WHOLE_SAID = re.compile(
    r"\b(?:has|have|had|contains|goal|total|target|needs?|wants?|plans?|long|in all|altogether|must)\b"
)
# words after a number that leave its thing unsaid ("259 during the second week", "31 today")
_NO_UNIT = frozenset(
    re.findall(r"\w+", "during on in at the this last yesterday today tomorrow and more on before after by")
)
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
# "how many more does he have": the word after "more" is no thing counted
_NO_THING = frozenset(re.findall(r"\w+", "do does did is are was were will would can could has have had"))


def shared_equally(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """A total shared (divided, split) equally among a number of sharers, asked what each gets:
    the total ÷ the sharers. The sharers are named after "among" or "between" in a sentence that
    says it shares ("among 6 children", or "among the students" with "7 students" said before);
    the total is the one number that counts what the question does (or, with no thing named in
    the question, the one other number)."""
    asked, lowered = question.lower(), text.lower()
    if len(found) < 2 or MULTIPLIERS.search(text):  # "twice as many" scales
        return None
    if any(q.text.endswith("/100)") or q.value <= 0 for q in found):
        return None
    units = [unit_after(text, q) for q in found]
    if any(not u or u in _FUNCTION for u in units):  # "gave 3 to his mom": a change before the sharing
        return None
    among = [m for m in _AMONG.finditer(lowered) if _SHARES.search(_sentence_of(lowered, m.start()))]
    if len(among) != 1:
        return None
    named = singular(among[0][1])
    divisors = [i for i, q in enumerate(found) if among[0].start() < q.start < among[0].end()]
    divisors = divisors or [i for i, unit in enumerate(units) if unit == named]
    sharer = named if not divisors else units[divisors[0]]
    # the question asks for each of the sharers: "how many apples does each child get"
    if len(divisors) != 1 or not re.search(rf"\b(?:each|every)\s+{re.escape(sharer[:4])}", asked):
        return None
    divisor = divisors[0]
    counted = counted_noun(asked)
    others = [i for i, unit in enumerate(units) if i != divisor and (unit == counted or not counted)]
    if len(others) != 1 or _is_rate(text, found[others[0]]):  # "5 flowers each" is no total
        return None
    total = others[0]
    node = Node("/", (found[total].node, found[divisor].node))
    value = found[total].value / found[divisor].value
    roles = ((total, "div_l"), (divisor, "div_r"))
    return Candidate(node, value, tuple(sorted((total, divisor))), roles, ("/",))


def gap_between(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "How many more marbles does Anna have than Jake?": where exactly two numbers of the story
    count the thing asked about (and nothing asks to scale or need), the larger less the smaller."""
    asked = question.lower()
    gap = _GAP.search(asked)
    if gap is None or gap[1] in _NO_THING or _NOT_THE_GAP.search(asked) or MORE_STEPS.search(text.lower()):
        return None
    start = len(text) - len(question)
    if any(q.start >= start or q.text.endswith("/100)") or q.value <= 0 for q in found):
        return None
    if _GOAL.search(text.lower()) or _ANOTHER_THING.search(question):  # "need 100 cans"; "than cookies"
        return None
    counted = singular(gap[1])
    units = [unit_after(text, q) for q in found]
    two = [i for i, unit in enumerate(units) if unit == counted]
    # every other number counts a thing of its own ("7 toy cars"), none is a rate ("20 miles a gallon")
    if (
        len(two) != 2
        or any(not u or u in _FUNCTION for u in units)
        or any(_is_rate(text, found[i]) for i in two)
    ):
        return None
    big, small = sorted(two, key=lambda i: found[i].value, reverse=True)
    if found[big].value == found[small].value:
        return None
    node = Node("-", (found[big].node, found[small].node))
    roles = ((big, "sub_l"), (small, "sub_r"))
    return Candidate(node, found[big].value - found[small].value, tuple(sorted(two)), roles, ("-",))


def words_after(text: str, quantity: Quantity) -> set[str]:
    """The two words after a number, singular: "5 math problems" says math and problem."""
    return {singular(w.lower()) for w in re.findall(r"[A-Za-z]+", text[quantity.end :])[:2]}


def _one_of_named(text: str, unit: str) -> bool:
    """ "A bird eats 7 berries a day. Samuel has 5 birds": the story says what one of them does, so
    their count multiplies too."""
    return re.search(rf"\b(?:a|an|one|each|every|per)\s+{re.escape(unit)}\b", text, re.IGNORECASE) is not None


def _is_rate(text: str, quantity: Quantity) -> bool:
    return _RATE.match(text, quantity.end) is not None


def rate_times_count(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "Sam reads 15 pages a day. How many pages does he read in 4 days?": an amount for each one
    of a thing ("15 pages a day", "8 pens in each box"), and a count of that thing ("4 days"): the
    amount times the count, where exactly one such pair is said and the question asks for a whole."""
    asked = question.lower()
    if _NOT_A_WHOLE.search(asked) or MULTIPLIERS.search(text) or not 2 <= len(found) <= 4:
        return None
    if any(q.text.endswith("/100)") or q.value <= 0 for q in found):
        return None
    if _ANOTHER_STEP.search(text.lower()):  # "but lose one of the pages": a change after the whole
        return None
    units = [unit_after(text, q) for q in found]
    pairs = []
    for i, q in enumerate(found):
        per = _PER_ONE.match(text, q.end)
        before = PER_ONE_BEFORE.search(text.lower(), 0, q.start)
        if per is not None and units[i] not in _FUNCTION:  # "0.25 of a mile" is no rate
            one = singular(per[1].lower())
        elif before is not None:  # "A bus can carry 48 people. How many can 5 buses carry?"
            one = singular(before[1])
        else:
            continue
        pairs += [
            (i, j) for j, unit in enumerate(units) if j != i and unit == one and not _is_rate(text, found[j])
        ]
    if len(pairs) != 1:
        return None
    rate, count = pairs[0]
    counted = counted_noun(asked)
    if counted and counted != units[rate]:  # "how many pages": what the rate counts
        return None
    # "6 boxes with 8 pens in each box and 3 empty bags. How many pens?": any other number counts a
    # thing of its own, named, neither the pens nor the boxes, and the question names what it counts
    others = [i for i in range(len(found)) if i not in (rate, count)]
    if others and not counted:
        return None
    taken = (units[rate], units[count], *words_after(text, found[rate]))  # "5 math problems ... 16 problems"
    for i in others:
        if not units[i] or units[i] in _FUNCTION or units[i] in taken:
            return None
        if _is_rate(text, found[i]) or _one_of_named(text, units[i]):
            return None
    node = Node("*", (found[rate].node, found[count].node))
    roles = ((rate, "mul"), (count, "mul"))
    return Candidate(
        node, found[rate].value * found[count].value, tuple(sorted((rate, count))), roles, ("*",)
    )


def rest_of_whole(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "In a class of 30 children, 14 are boys. How many girls are there?": a whole, a part of it
    said by what it is ("14 are boys"), and a question about another kind: the whole less the part."""
    asked = question.lower()
    if len(found) != 2 or _NOT_THE_REST.search(asked) or MULTIPLIERS.search(text):
        return None
    if any(q.text.endswith("/100)") or q.value <= 0 or q.start >= len(text) - len(question) for q in found):
        return None
    whole, part = found
    kind = _PART_IS.match(text, part.end)
    noun = unit_after(text, whole)
    other = _OTHER_KIND.search(asked)
    if kind is None or not noun or noun in _FUNCTION or other is None or whole.value <= part.value:
        return None
    if part.value < 1:  # "one-third of them are girls": a share of the whole, not a count
        return None
    said, asked_kind = singular(kind[1].lower()), singular(other[1] or other[2])
    if asked_kind in (said, noun) or asked_kind in _NO_THING:
        return None
    node = Node("-", (whole.node, part.node))
    return Candidate(node, whole.value - part.value, (0, 1), ((0, "sub_l"), (1, "sub_r")), ("-",))


def left_to_do(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "Sophie read 23 pages yesterday and 31 today. The book has 100 pages. How many pages does
    she have left to read?": every number counts the thing asked about, the question asks what is
    still to do, and the largest is the whole: the whole less every part done."""
    asked = question.lower()
    if not 3 <= len(found) <= 5 or not _TO_DO.search(asked) or MORE_STEPS.search(text):
        return None
    if any(q.text.endswith("/100)") or q.value < 1 for q in found):
        return None
    counted = counted_noun(asked)
    units = [unit_after(text, q) for q in found]
    if not counted or any(u != counted and u not in _NO_UNIT for u in units) or counted not in units:
        return None
    whole = max(range(len(found)), key=lambda i: found[i].value)
    parts = [i for i in range(len(found)) if i != whole]
    if not _WHOLE_SAID.search(_sentence_of(text.lower(), found[whole].start)):
        return None
    value = found[whole].value - sum(found[i].value for i in parts)
    if value <= 0:
        return None
    node = found[whole].node
    for i in parts:
        node = Node("-", (node, found[i].node))
    roles = ((whole, "sub_l"), *((i, "sub_r") for i in parts))
    return Candidate(node, value, tuple(range(len(found))), roles, ("-",) * len(parts))


def unit_after(text: str, quantity: Quantity) -> str:
    """The word after a number, singular: "12 marbles" and "1 marble" count one thing."""
    match = _WORD.match(text, quantity.end)
    return singular(match[1].lower()) if match else ""


def counted_noun(asked: str) -> str:
    """What "how many ..." counts, singular: "cake" in "how many cakes are left"; "" where nothing."""
    match = _COUNTS.search(asked)
    return singular(match[1]) if match and match[1] not in _NO_THING else ""


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")) or word in ("buses", "gases"):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith(("ss", "us")) else word  # "a bus"


def _sentence_of(lowered: str, at: int) -> str:
    ends = [m.end() for m in _SENTENCE_END.finditer(lowered, 0, at)]
    after = _SENTENCE_END.search(lowered, at)
    return lowered[(ends[-1] if ends else 0) : (after.start() if after else len(lowered))]
