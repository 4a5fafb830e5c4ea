"""An amount for each of a count, and one change before or after it: "A farmer planted 5 rows of
corn. Each row had 16 plants. Birds ate 12 plants. How many corn plants are left?" (5 × 16 − 12),
"Cindy has 37 envelopes. She gives 3 envelopes to each of her 5 friends. How many envelopes does
she have left?" (37 − 3 × 5).

The ranker weighs each number's neighbouring words one by one, so it read the first 16 − 12 and the
second (37 − 3) × 5: a product that is one amount of the story is no pair of neighbours. The rule
reads only where exactly one such product is said, the one other number is held or changed by its
own verb, and the question asks what is left or there now; otherwise it abstains. What it reads is
shown as computed, never verified.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.calculon.candidates import MULTIPLIERS, Candidate, Quantity
from app.calculon.changes import asks_the_end, direction, holds
from app.calculon.counted import PER_ONE_BEFORE, singular, unit_after
from app.calculon.evaluate import Node

# "8 pens in each box", "$250 a night", "16 plants per row": an amount for one of a thing
_PER_ONE = re.compile(
    r"\s*(?:[A-Za-z]+\s+){0,2}?(?:in each|in every|on each|on every|for each|for every|per|each|every|a|an)"
    r"\s+([A-Za-z]+)\b"
)
# "gives 3 envelopes to each of her 5 friends": the count straight after
_TO_EACH_OF = re.compile(r"\s+[A-Za-z]+\s+to each of\s+(?:the\s+|his\s+|her\s+|their\s+|its\s+)?$")
# "If Cindy gives 3 envelopes to each of her 5 friends, how many ...": the condition tells the story
_CONDITION = re.compile(r"\s*(?:if|when|after)\b[^?,]*,\s*(?=(?:how|what)\b)", re.IGNORECASE)
# "$9 each", "12 dollars apiece": a price for each of the count said before it
_EACH_AFTER = re.compile(r"\s*(?:[A-Za-z]+\s+)?(?:each|apiece)\s*(?:[.,;!?]|and\b|$)")
_BUYS = re.compile(r"\b(?:buys?|bought|buying|purchas\w*)\b")
_ASKS_MONEY = re.compile(r"\bhow much (?:money|cash|change)\b|\bdollars?\b|\bcents?\b|\$")
_SPENT = re.compile(
    r"\bhow much (?:money )?(?:did|does|do|will|would) [a-z]+ (?:spend|pay)\b(?!.*\b(?:more|less|each|per)\b)"
    r"|\btotal cost\b|\bcost (?:in all|altogether|in total)\b"
)
# "how much do 4 pens cost", "how much would 6 tickets cost"
_HOW_MUCH_DO = re.compile(r"\bhow much (?:do|does|would|will|did)\s+\S+\s+(?:[a-z]+\s+)?([a-z]+)\s+cost\b")
# "a pen costs", "one ticket is", "pens cost", "the hat sells for": what a price is said of, before it
_PRICE_OF = re.compile(
    r"\b(?:an?\s+|one\s+|each\s+|the\s+)?([a-z]+)\s+(?:costs?|is|are|sells? for|sold for|was)\s+(?:\$\s*)?$"
)
_MONEY = {"dollar", "cent", "euro"}  # not "pound": a weight as often
_WORD_UNIT = {"a", "an", "the", "of", "and", "to", "in", "on", "for", "with", "each", "every", "per"}


def each_then_change(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """The count times the amount for each, with the third number held before it (what the change
    is taken from or added to) or changing it after, by its own verb."""
    condition = _CONDITION.match(question)  # its numbers are the story's
    question = question[condition.end() :] if condition else question
    asked = question.lower()
    if len(found) != 3 or not asks_the_end(asked):
        return None
    if MULTIPLIERS.search(text) or any(q.text.endswith("/100)") or q.value < 1 for q in found):
        return None
    if any(q.start >= len(text) - len(question) for q in found):
        return None
    parts = _one_product(text, found)
    if parts is None:
        return None
    rate, count, other = parts
    product = Node("*", (found[count].node, found[rate].node))
    amount = found[count].value * found[rate].value
    # the third number counts what the product does ("12 plants" with "16 plants" each), or both are money
    same = unit_after(text, found[other]) == unit_after(text, found[rate])
    if not same and not (_is_money(text, found[other]) and _is_money(text, found[rate])):
        return None  # "10 books of 100 pages each; 2 books are lost": the change counts books
    first_is_other = found[other].start < min(found[rate].start, found[count].start)
    if first_is_other:  # "Cindy has 37 envelopes ... gives 3 to each of 5": the product is the change
        sign = direction(text, found[rate]) or direction(text, found[count])
        if not sign and _buys_with_money(text, asked, found[other], found[rate]):
            sign = "-"  # "Sara has $40. She buys 3 books at $9 each": buying takes the money
        if not holds(text, found[other]) or not sign:
            return None
        node = Node(sign, (found[other].node, product))
        value = found[other].value - amount if sign == "-" else found[other].value + amount
        roles = ((other, "sub_l" if sign == "-" else "add"), (count, "mul"), (rate, "mul"))
        ops = (sign, "*")
    else:  # "5 rows, each with 16 plants ... birds ate 12": the third number is the change
        sign = direction(text, found[other])
        if not sign:
            return None
        node = Node(sign, (product, found[other].node))
        value = amount - found[other].value if sign == "-" else amount + found[other].value
        roles = ((count, "mul"), (rate, "mul"), (other, "sub_r" if sign == "-" else "add"))
        ops = (sign, "*")
    if value <= 0:
        return None
    return Candidate(node, value, tuple(sorted((rate, count, other))), roles, ops)


def bought_in_all(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "Mike bought 3 shirts for $12 each and a hat for $8. How much did he spend?": the count times
    the price for each, and one other price paid, asked what was spent: the sum."""
    asked = question.lower()
    if len(found) != 3 or not _SPENT.search(asked) or MULTIPLIERS.search(text):
        return None
    if any(q.text.endswith("/100)") or q.value <= 0 or q.start >= len(text) - len(question) for q in found):
        return None
    parts = _one_product(text, found)
    if parts is None:
        return None
    rate, count, other = parts
    if not (_is_money(text, found[rate]) and _is_money(text, found[other])):
        return None
    if _PER_ONE.match(text, found[other].end):  # "$5.50 per pound": another price for each
        return None
    if not _BUYS.search(text.lower()) or any(direction(text, q) for q in found):  # "got $5 back" changes it
        return None
    node = Node("+", (Node("*", (found[count].node, found[rate].node)), found[other].node))
    value = found[count].value * found[rate].value + found[other].value
    roles = ((count, "mul"), (rate, "mul"), (other, "add"))
    return Candidate(node, value, tuple(sorted((rate, count, other))), roles, ("+", "*"))


def priced_count(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "A pen costs 3 dollars and a notebook costs 5 dollars. How much do 4 pens cost?": the price
    said of one of the thing the question counts, times the question's count (3 × 4; the ranker read
    (3 + 5) × 4). Other prices in the story are of other things and stay out."""
    asked = _HOW_MUCH_DO.search(question.lower())
    if asked is None or MULTIPLIERS.search(text):
        return None
    start = len(text) - len(question)
    counts = [i for i, q in enumerate(found) if q.start >= start]
    if len(counts) != 1 or found[counts[0]].value < 1:
        return None
    count = counts[0]
    item = singular(unit_after(text, found[count]))
    if not item or item != singular(asked[1]):
        return None
    prices = [i for i, q in enumerate(found) if i != count and _price_of(text, q) == item]
    if len(prices) != 1 or any(
        i not in (count, *prices) and not _price_of(text, q) for i, q in enumerate(found)
    ):
        return None  # a number that is no price of anything: another step
    price = prices[0]
    node = Node("*", (found[price].node, found[count].node))
    value = found[price].value * found[count].value
    return Candidate(node, value, tuple(sorted((price, count))), ((price, "mul"), (count, "mul")), ("*",))


def _price_of(text: str, quantity: Quantity) -> str:
    """The thing a price is said of, singular: "a pen costs 3 dollars" says pen; "" where none."""
    sentence_start = max(text.rfind(mark, 0, quantity.start) for mark in ".!?,;") + 1
    said = _PRICE_OF.search(text[sentence_start : quantity.start].lower())
    if said is None or not (_is_money(text, quantity) or _EACH_AFTER.match(text, quantity.end)):
        return ""
    return singular(said[1])


def _one_product(text: str, found: Sequence[Quantity]) -> tuple[int, int, int] | None:
    """(amount for each, count, the other number) of a three-number story saying one such pair."""
    pairs = _each_pairs(text, found)
    if len(pairs) != 1:
        return None
    rate, count = pairs[0]
    (other,) = {0, 1, 2} - {rate, count}
    return rate, count, other


def _each_pairs(text: str, found: Sequence[Quantity]) -> list[tuple[int, int]]:
    """(amount for each, count) pairs the words say outright, each pair once."""
    lowered = text.lower()
    units = [unit_after(text, q) for q in found]
    pairs: set[tuple[int, int]] = set()
    for i, q in enumerate(found):
        ones: list[str] = []
        per = _PER_ONE.match(text, q.end)
        if per is not None and units[i] not in _WORD_UNIT:
            ones.append(singular(per[1].lower()))
        has = PER_ONE_BEFORE.search(lowered, 0, q.start)
        if has is not None:
            ones.append(singular(has[1]))
        pairs |= {(i, j) for j, unit in enumerate(units) if j != i and unit in ones}
        # "3 books that cost $9 each": the count said just before, of a thing
        after_count = i > 0 and _same_sentence(text, found[i - 1], q)
        if after_count and _EACH_AFTER.match(text, q.end) and units[i - 1] not in _WORD_UNIT | _MONEY:
            pairs.add((i, i - 1))
        to_each = _TO_EACH_OF.search(text, q.end, found[i + 1].start) if i + 1 < len(found) else None
        if to_each is not None and to_each.start() == q.end:
            pairs.add((i, i + 1))
    return sorted(pairs)


def _same_sentence(text: str, first: Quantity, second: Quantity) -> bool:
    return re.search(r"[.!?]\s", text[first.end : second.start]) is None


def _is_money(text: str, quantity: Quantity) -> bool:
    return text[: quantity.start].rstrip().endswith("$") or unit_after(text, quantity) in _MONEY


def _buys_with_money(text: str, asked: str, held: Quantity, price: Quantity) -> bool:
    """The held amount and the price are money, the price's sentence buys, and the question asks
    money: the purchase takes it away."""
    sentence_start = max(text.rfind(mark, 0, price.start) for mark in ".!?") + 1
    buys = _BUYS.search(text[sentence_start : price.start].lower()) is not None
    return buys and _is_money(text, held) and _is_money(text, price) and bool(_ASKS_MONEY.search(asked))
