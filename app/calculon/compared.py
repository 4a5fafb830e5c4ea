"""One person's amount said against another's, and an age in so many years: "Tom is 3 years older
than Sue. Sue is 9. How old is Tom?", "Jack is 14 years old. In 6 years, how old will he be?".

Each rule reads only where the comparative names two people (or "he", "her sister") and the
question asks about one of them, or where a span of years is said outright; otherwise it abstains.
What it reads is shown as computed, never verified.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from app.calculon.candidates import MORE_STEPS, Candidate, Quantity
from app.calculon.evaluate import Node

_KIN_WORDS = (
    "sister|brother|mother|father|mom|dad|friend|cousin|aunt|uncle|son|daughter|grandma|grandpa"
    "|grandmother|grandfather|teacher|neighbou?r|wife|husband"
)
_UP = {"more", "older", "taller", "longer", "heavier", "bigger", "greater", "higher", "later"}
_DOWN = {"fewer", "less", "younger", "shorter", "lighter", "smaller", "cheaper", "lower", "earlier"}
# "than Sue", "than on Monday": the one compared with, a person or a day
_COMPARED = re.compile(
    rf"\b({'|'.join(sorted(_UP | _DOWN))})\b(?:\s+\w+){{0,3}}?\s+than\s+"
    rf"(?:on\s+|in\s+|(?:his|her|their|my)\s+(?=(?:{_KIN_WORDS})\b))?([A-Z][a-z]+|{_KIN_WORDS})\b"
)
# "14 years old": an age; "in 6 years", "6 years ago", "6 years from now": a span of years
_AGE = re.compile(r"\s+years?\s+old\b|\s*(?:[.,?!]|$)")
_SPAN = re.compile(r"\s+(years?)(?!\s+old)\b")
_LATER = re.compile(r"\bin \d+ years?\b|\byears? from now\b|\byears? later\b")
_EARLIER = re.compile(r"\s+years?\s+(?:ago|earlier|before)\b")
_KIN = re.compile(rf"\s*(?:his|her|their|my)\s+({_KIN_WORDS})\b", re.IGNORECASE)
_PRONOUN = re.compile(r"\s*(?:he|she)\b", re.IGNORECASE)
_ASKS_THE_GAP = re.compile(
    r"\b(?:more|fewer|less|than|difference|together|total|altogether|both|in all|combined)\b"
)
# a question about both amounts added, not about the difference between them
_TOGETHER = re.compile(r"\b(?:together|altogether|in all|in total|total|combined|both)\b")
# "twice as many books as Joe", "3 times as old as her brother"
_TIMES_AS = re.compile(
    rf"\b(?:(twice|double|triple|half)|\S+\s+times)\s+as\s+(?:many|much|old|long|tall|heavy|big|far|fast)\b"
    rf"(?:\s+\w+){{0,3}}?\s+as\s+(?:(?:his|her|their|my)\s+(?=(?:{_KIN_WORDS})\b))?([A-Z][a-z]+|{_KIN_WORDS})\b"
)
_FACTOR_WORDS = {"twice": Fraction(2), "double": Fraction(2), "triple": Fraction(3), "half": Fraction(1, 2)}
# a further step beside the multiple: "twice as many plus 2", "3 more than"
_ANOTHER_STEP = re.compile(
    r"\b(?:more|fewer|less|than|plus|minus|times|twice|half|each|every|per|thirds?|quarters?|fourths?|fifths?)\b"
)
_ASKING = re.compile(r"\b(?:how|what)\b")
_ASKS_A_GAP = re.compile(r"\b(?:more|fewer|less|than|difference|each)\b")
NAME = re.compile(r"\b[A-Z][a-z]+\b")
# capitalised words that open a sentence or stand for a person without naming one
NOT_NAMES = frozenset(
    re.findall(r"\w+", "How What Who Which When If The A An There She He They It We I His Her Their")
    + re.findall(r"\w+", "Then After At In On Each Every")
)
SENTENCE = re.compile(r"[.!?]")


def compared(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "Tom is 3 years older than Sue. Sue is 9. How old is Tom?": a difference said between two
    named people, the other's amount said by name, and a question about one of them (not about the
    difference): that amount plus or minus the difference, as the comparative says."""
    if _ASKS_THE_GAP.search(question.lower()):
        return None
    said = _comparison(text, found)
    if said is None:
        return None
    known, gap, up, subject, other, holder = said
    target = _one_of(question, subject, other)
    if target is None or holder == target:
        return None
    plus = up if target == subject else not up
    return _step(found, known, gap, plus)


def compared_together(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "Paul has 14 books. He has 6 more books than Jane. How many do they have together?": the
    amount said by name, and the other's found through the comparison, added: 14 + (14 − 6)."""
    # "If their dresses combined are 48, how many does Ana have?" gives the sum and asks for one
    asked = _asking(question).lower()
    if not _TOGETHER.search(asked) or _ASKS_A_GAP.search(asked):
        return None
    said = _comparison(text, found)
    if said is None:
        return None
    known, gap, up, subject, _, holder = said
    other = _step(found, known, gap, up if holder != subject else not up)
    if other is None:
        return None
    node = Node("+", (found[known].node, other.node))
    roles = ((known, "add"), *((i, role) for i, role in other.roles if i != known))
    return Candidate(
        node, found[known].value + other.value, tuple(sorted((known, gap))), roles, ("+", *other.ops)
    )


def times_as_many(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "Kate has twice as many books as Joe. Joe has 15 books. How many books does Kate have?": one
    amount a multiple of another's, the other's said by name: that amount times the multiple (asked
    about the one compared), divided by it (asked about the other), or both added (asked together)."""
    matches = list(_TIMES_AS.finditer(text))
    if len(matches) != 1 or _ANOTHER_STEP.search(_TIMES_AS.sub(" ", text).lower()):
        return None
    match = matches[0]
    said = [i for i, q in enumerate(found) if match.start() <= q.start < match.end()]
    factor_word = _FACTOR_WORDS.get((match[1] or "").lower())
    if len(said) > 1 or (not said and factor_word is None) or len(found) != len(said) + 1:
        return None
    known = next(i for i in range(len(found)) if i not in said)
    if found[known].start >= len(text) - len(question) or (said and found[said[0]].value <= 1):
        return None
    factor = found[said[0]].node if said else Node("num", value=factor_word, text=str(factor_word))
    value = found[said[0]].value if said else Fraction(factor_word or 0)
    sentence_start = _sentence_start(text, match.start())
    other = match[2]
    subject = _subject(text, sentence_start, text[sentence_start : match.start()], other)
    holder = _one_of(_sentence(text, found[known]), subject, other) if subject and subject != other else None
    if holder is None:
        return None
    asking = _asking(question)
    asked = asking.lower()
    counted = re.search(r"\bhow (?:many|much) ([a-z]+)", asked)
    if _ASKS_A_GAP.search(asked) or (counted and counted[1] not in text[: len(text) - len(question)].lower()):
        return None  # "how many hours" after minutes converts too
    times = holder == other  # the compared one's amount is the known times the multiple
    if times:
        step, step_value, op = Node("*", (found[known].node, factor)), found[known].value * value, "*"
    else:
        step, step_value, op = Node("/", (found[known].node, factor)), found[known].value / value, "/"
    roles = ((known, "mul"), *((i, "mul") for i in said))
    used = tuple(sorted((known, *said)))
    if _TOGETHER.search(asked):
        node = Node("+", (found[known].node, step))
        return Candidate(node, found[known].value + step_value, used, roles, ("+", op))
    target = _one_of(asking, subject, other)
    if target is None or target == holder:
        return None
    return Candidate(step, step_value, used, roles, (op,))


def compared_age_then(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "Ike is 8 years older than Pia. Pia is 11. How old will Ike be in 5 years?": one age through
    the comparison, then the span of years the question names added or taken: 11 + 8 + 5."""
    asked = question.lower()
    if len(found) != 3 or "how old" not in asked:
        return None
    start = len(text) - len(question)
    spans = [i for i, q in enumerate(found) if q.start >= start and _SPAN.match(text, q.end)]
    if len(spans) != 1:
        return None
    span = spans[0]
    later = _later(text, found[span])
    if later is None:
        return None
    keep = [i for i in range(3) if i != span]
    now = compared(text, question, [found[i] for i in keep])
    if now is None:
        return None
    op = "+" if later else "-"
    value = now.value + found[span].value if later else now.value - found[span].value
    if value <= 0:
        return None
    roles = (*((keep[i], role) for i, role in now.roles), (span, "add" if later else "sub_r"))
    return Candidate(Node(op, (now.node, found[span].node)), value, (0, 1, 2), roles, (op, *now.ops))


def _step(found: Sequence[Quantity], known: int, gap: int, plus: bool) -> Candidate | None:
    """The known amount with the difference added or taken away; None where nothing would be left."""
    value = found[known].value + found[gap].value if plus else found[known].value - found[gap].value
    if value <= 0:
        return None
    op = "+" if plus else "-"
    roles = ((known, "add" if plus else "sub_l"), (gap, "add" if plus else "sub_r"))
    return Candidate(Node(op, (found[known].node, found[gap].node)), value, (known, gap), roles, (op,))


def _comparison(text: str, found: Sequence[Quantity]) -> tuple[int, int, bool, str, str, str] | None:
    """Two numbers, one a difference said between two people and one an amount said of one of them:
    (the amount's index, the difference's, whether the comparative says more, the one compared, the
    one compared with, the one who holds the amount), or None where the words leave any in doubt."""
    if len(found) != 2 or any(q.text.endswith("/100)") for q in found):
        return None
    if MORE_STEPS.search(text):  # "3 times more than Sally" multiplies
        return None
    for gap in range(2):
        sentence = _sentence(text, found[gap])
        after = found[gap].end - _sentence_start(text, found[gap].start)
        match = _COMPARED.search(sentence, after)
        if match is None or len(sentence[after : match.start()].split()) > 2:  # "14 cards, which is 5 more"
            continue
        other = match[2]
        subject = _subject(text, _sentence_start(text, found[gap].start), sentence, other)
        if not subject or subject == other:
            return None
        known = 1 - gap
        # "Ben has 14 cards, which is 5 more than Tom": the amount in the comparing sentence is its subject's
        same = _sentence_start(text, found[known].start) == _sentence_start(text, found[gap].start)
        holder = (
            subject
            if same and found[known].start < found[gap].start
            else _one_of(_sentence(text, found[known]), subject, other)
        )
        if holder is None:
            return None
        return known, gap, match[1].lower() in _UP, subject, other, holder
    return None


def age_then(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "Jack is 14 years old. In 6 years, how old will he be?": an age and a span of years later
    ("in 6 years") or earlier ("6 years ago"), asked how old: the age plus or minus the span."""
    asked = question.lower()
    if len(found) != 2 or not asked.lstrip().startswith(("how old", "in ")) or "how old" not in asked:
        return None
    if MORE_STEPS.search(text) or _ASKS_THE_GAP.search(asked) or "than" in text.lower():
        return None
    spans = [i for i, q in enumerate(found) if _SPAN.match(text, q.end)]
    if len(spans) != 1:
        return None
    span = spans[0]
    later = _later(text, found[span])
    age = 1 - span
    if not _AGE.match(text, found[age].end) or later is None:
        return None
    op = "+" if later else "-"
    value = found[age].value + found[span].value if later else found[age].value - found[span].value
    if value <= 0:
        return None
    roles = ((age, "add" if later else "sub_l"), (span, "add" if later else "sub_r"))
    return Candidate(
        Node(op, (found[age].node, found[span].node)), value, tuple(sorted((age, span))), roles, (op,)
    )


def _later(text: str, span: Quantity) -> bool | None:
    """Whether a span of years is later ("in 6 years", "6 years from now") or earlier ("6 years ago");
    None where the words say neither or both."""
    later = _LATER.search(text[max(0, span.start - 4) : span.end + 12].lower()) is not None
    earlier = _EARLIER.match(text, span.end) is not None
    return None if later == earlier else later


def _subject(text: str, start: int, sentence: str, other: str) -> str:
    """Who a comparing sentence (from ``start``) speaks of: "Her sister" (kin), the name in it other
    than the one compared with, or for "he"/"she" the one person named before; "" where none."""
    kin = _KIN.match(sentence)
    if kin is not None:  # "Her sister collected 18 fewer shells than Amy"
        return kin[1].lower()
    names = [n for n in NAME.findall(sentence) if n not in NOT_NAMES and n != other]
    if names:
        return names[0]
    return _named_before(text, start) if _PRONOUN.match(sentence) else ""  # "He has 18 more than Diego"


def _asking(question: str) -> str:
    """What the question asks, after any "if" clause: "how many ..." in "If Joe has 15, how many ..."."""
    asks = list(_ASKING.finditer(question.lower()))
    return question[asks[-1].start() :] if asks else ""


def _sentence_start(text: str, at: int) -> int:
    ends = [m.end() for m in SENTENCE.finditer(text, 0, at)]
    return ends[-1] if ends else 0


def _sentence(text: str, quantity: Quantity) -> str:
    end = SENTENCE.search(text, quantity.end)
    return text[_sentence_start(text, quantity.start) : (end.start() if end else len(text))]


def _named_before(text: str, at: int) -> str:
    """The one person the sentence before ``at`` names, where it names exactly one."""
    before = [m.end() for m in SENTENCE.finditer(text, 0, max(at - 1, 0))]
    names = {n for n in NAME.findall(text[(before[-1] if before else 0) : at]) if n not in NOT_NAMES}
    return names.pop() if len(names) == 1 else ""


def _one_of(text: str, first: str, second: str) -> str | None:
    """Which one of two names ``text`` says, where it says exactly one."""
    said = [name for name in (first, second) if re.search(rf"\b{name}\b", text)]
    return said[0] if len(said) == 1 else None
