"""Story shapes whose operations the story's own verbs name: one amount changed step by step
(forward, or undone to find the start), and some of it changed between two amounts said.

"I had 50 dollars, spent 12 on lunch and 8 on a book. How much do I have left?" was ranked 50 − 12:
the ranker weighs each number's neighbouring words one by one, and the reading is no pair of them.
Each rule here reads only where every number's part is said outright (a verb that takes away or
adds), and abstains otherwise; what it reads is still shown as computed, never verified. Amounts
said against another person's are :mod:`app.calculon.compared`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.calculon.candidates import MAX_NUMBERS, MORE_STEPS, Candidate, Quantity
from app.calculon.compared import NAME, NOT_NAMES, SENTENCE
from app.calculon.counted import counted_noun, unit_after, words_after
from app.calculon.evaluate import Node

# Verbs that say which way an amount goes. "bought", "made" and "took" are in neither: buying
# adds apples and takes away dollars, so it adds only where the story counts no money (_ways).
# "her friend gave her 5 more": given to the one who holds the amount, so it adds
_GIVEN_TO = (
    r"(?:gave|gives|give) (?:her|him|me|us|them)\s+"
    r"(?=[\d$]|(?:one|two|three|four|five|six|seven|eight|nine|ten|a few|some|a dozen)\b)"
)
_TAKES = re.compile(
    rf"\b(?!{_GIVEN_TO})(?:spent|spend|spends|gave|give|gives|lost|lose|loses|ate|eat|eats|sold|sell|sells|used|use|uses"
    r"|paid|pay|pays|donated|donates|broke|breaks|threw|throws|popped|withdrew|withdraws|removed|removes"
    r"|died|dies|wilted|melted|escaped|burst|spoiled|rotted"
    r"|spending|giving|losing|eating|selling|using|paying|donating|throwing|removing"
    r"|took away|took out|get off|gets off|got off|got out"
    r"|flew away|flew off|ran away|went away|walked away)\b"
)
_ADDS = re.compile(
    rf"\b(?:{_GIVEN_TO}|found|finds|received|receives|earned|earns|won|wins|picked|picks|collected|collects|added|adds"
    r"|gained|gains|deposited|deposits|get on|gets on|got on|got in|was given|were given"
    r"|(?:got|gets)(?!\s+(?:off|out|rid|sick|lost|wrong|back|away|into|to)\b)"
    r"|finding|receiving|earning|winning|picking|collecting|gaining"
    r"|came|arrived|joined)\b"
)
_HOLDS = re.compile(
    r"\b(?:had|has|have|there (?:were|are|was|is)|started|starts|began|begins|owned|owns|held"
    # what one made or bought is what one has at the start ("A baker made 48 muffins"); later in
    # the story these say neither way (buying adds apples and takes away dollars)
    r"|made|makes|baked|bakes|bought|buys)\b"
)
# "sold 3 boxes of 12": a count of containers of one size is one amount, the count times the size
_GROUPS_OF = re.compile(
    r"\s+(?:[a-z]+\s+)?(?:box|bag|pack|packet|package|crate|case|carton|tray|basket|bundle|row|stack"
    r"|batch|bunch|bottle|jar|can|roll|sheet|group|set|sack|bucket|pile|envelope|bowl|plate)(?:e?s)?\s+of\s+",
    re.IGNORECASE,
)
# a question about the amount at the end, not about the changes ("how many did she give away")
_AT_THE_END = re.compile(r"\b(?:left|remain\w*|now|in the end|at the end|end up|ends up|alive|still)\b")
_NOT_THE_END = re.compile(r"\b(?:more|fewer|less|than|need|needs|each|every|per|times|away)\b")
# a question about the amount before the changes ("how many did she have at first")
_AT_THE_START = re.compile(
    r"\b(?:at first|initially|originally|in the beginning|at the beginning|at the start"
    r"|to (?:begin|start) with|before)\b"
)
_NOT_THE_START = re.compile(r"\b(?:more|fewer|less|than|need|needs|each|every|per|times|left)\b")
_LEFT = re.compile(r"\b(?:left|remain\w*|now|still|in the end|at the end|ends? up|ended up)\b")
_SOME = re.compile(r"\b([a-z]+)\s+some\b")
_DID = re.compile(r"\bdid\s+[a-z]+\s+([a-z]+)\b")
_IRREGULAR = {"had": "have", "has": "have", "made": "make", "bought": "buy", "got": "get", "found": "find"}
_BUYS = re.compile(r"\b(?:bought|buy|buys|purchas\w*)\b")  # adds things and takes away money
# where a story counts no money, buying only adds things ("bought 12 stickers and got 8 more")
_MONEY = re.compile(
    r"[$€£¢]|\b(?:dollars?|cents?|money|costs?|price[sd]?|paid|pay|pays|spen[dt]|euros?|pounds?)\b"
)
_HAS = re.compile(r"\b(?:has|had|have|there (?:were|are|was|is)|remain\w*)\b")
_SEGMENT = re.compile(r"[.,;!?]|\b(?:and|then|but)\b")
# words after a number that name no other thing: "gave 8 to Ann", "8 more", "8 for his birthday"
_NO_THING_SAID = frozenset(
    re.findall(r"\w+", "to for from of on in at and more less away back each with by then but the a an")
)
_PARTITIVE = re.compile(r"\s+of\s+(?:the|them|those|these|her|his|their)\b")
_HOW_MANY_MUCH = re.compile(r"\bhow (?:many|much)\b")
_PLURAL = re.compile(r"\s+[A-Za-z]+s\b")


def changed_in_turn(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """As :func:`_changed_in_turn`, leaving out the numbers of other things where the question counts
    the held amount's thing: "A baker baked 56 cakes. He sold 21 cakes and 17 pastries. How many
    cakes are left?" is 56 − 21."""
    keep = _of_the_counted(text, question, found)
    if len(keep) == len(found):
        return _changed_in_turn(text, question, found)
    made = _changed_in_turn(text, question, [found[i] for i in keep])
    if made is None:
        return None
    used = tuple(keep[i] for i in made.used)
    roles = tuple((keep[i], role) for i, role in made.roles)
    return Candidate(made.node, made.value, used, roles, made.ops)


def _of_the_counted(text: str, question: str, found: Sequence[Quantity]) -> list[int]:
    """The numbers that count what the question does, or say no thing ("8 for his birthday"), where
    the first number counts it; all of them otherwise."""
    counted = counted_noun(question.lower())
    units = [unit_after(text, q) for q in found]
    if not counted or not units or units[0] != counted:
        return list(range(len(found)))
    # "14 toy cars ... bought 28 cars", "5 new necklaces": either of the two words names the thing
    named = {counted, *words_after(text, found[0])}
    return [
        i
        for i, unit in enumerate(units)
        if not unit
        or unit in _NO_THING_SAID
        or not _PLURAL.match(text, found[i].end)  # "eat 7 before being caught": no thing named
        or _in_groups(text, found, i)  # "gave away 3 sets of 10": the sets hold the thing
        or named & {unit, *words_after(text, found[i])}
    ]


def _in_groups(text: str, found: Sequence[Quantity], i: int) -> bool:
    groups = i + 1 < len(found) and _GROUPS_OF.fullmatch(text, found[i].end, found[i + 1].start)
    return bool(groups or (i > 0 and _GROUPS_OF.fullmatch(text, found[i - 1].end, found[i].start)))


def _changed_in_turn(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """One amount held, then every later number taken away or added by its own verb (or the verb
    before it in the same sentence: "spent 12 on lunch and 8 on a book"), and a question about
    what is left: the first amount with each change applied in the story's order."""
    if not 3 <= len(found) <= MAX_NUMBERS or any(q.text.endswith("/100)") or q.value <= 0 for q in found):
        return None
    if any(q.value < 1 for q in found):  # "gave 3/8 of the cards": a share, not an amount
        return None
    asked = question.lower()
    if not asks_the_end(asked) or not _same_holder(text, question):
        return None
    start = len(text) - len(question)  # a number in the question is what it asks with, no change
    if any(q.start >= start for q in found) or MORE_STEPS.search(text):
        return None
    first = _segment(text, found[0]).lower()
    if not _HOLDS.search(first) or _TAKES.search(first) or _ADDS.search(first):
        return None
    node, value = found[0].node, found[0].value
    roles: list[tuple[int, str]] = [(0, "sub_l")]
    ops: tuple[str, ...] = ()  # outer first, as candidates.py orders them
    sign = first = ""
    for i, size in _changes(text, found):
        said = _segment(text, found[i]).lower()
        takes, adds = _ways(text, said)
        if _PARTITIVE.match(text, found[i].end) and not any(_ways(text, _said_before(text, found[i]))):
            return None  # "3 of the necklaces have broken beads so she collects ...": no change of them
        if takes == adds:
            if takes or not sign or not _carries_on(text, found[i - 1], found[i], said):
                return None  # both, or neither with nothing before it to carry on
        else:
            sign = "-" if takes else "+"
        first = first or sign
        change, amount = found[i].node, found[i].value
        if size is None:
            roles.append((i, "sub_r" if sign == "-" else "add"))
            ops = (sign, *ops)
        else:  # "3 boxes of 12": 3 × 12
            change, amount = Node("*", (change, found[size].node)), amount * found[size].value
            roles += [(i, "mul"), (size, "mul")]
            ops = (sign, *ops, "*")
        node = Node(sign, (node, change))
        value = value - amount if sign == "-" else value + amount
    if value < 0 or not ops:
        return None
    roles[0] = (0, "sub_l" if first == "-" else "add")  # as the first change takes it
    return Candidate(node, value, tuple(range(len(found))), tuple(roles), ops)


def undone_in_turn(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "Mary spent 15 dollars on a book. She has 30 dollars left. How much did she have at first?":
    the amount at the end said outright, every other number a change by its own verb, and a question
    about the amount before them: the end with each change undone (what was taken added back, what
    was added taken away), in the story's order. The ranker read that story 30 − 15."""
    if not 2 <= len(found) <= MAX_NUMBERS or any(q.text.endswith("/100)") or q.value < 1 for q in found):
        return None
    asked = question.lower()
    if not (_AT_THE_START.search(asked) or _asks_the_some(text[: found[0].start].lower(), asked)):
        return None
    if _NOT_THE_START.search(asked) or not _same_holder(text, question):
        return None
    start = len(text) - len(question)
    if any(q.start >= start for q in found) or MORE_STEPS.search(text):
        return None
    ends = [i for i, q in enumerate(found) if _says_the_end(_segment(text, q).lower())]
    if len(ends) != 1:
        return None
    end = ends[0]
    rest = [i for i in range(len(found)) if i != end]
    node, value = found[end].node, found[end].value
    roles: list[tuple[int, str]] = [(end, "add")]
    ops: tuple[str, ...] = ()
    sign, before = "", None
    for i, size in _grouped(text, found, rest):
        said = _segment(text, found[i]).lower()
        if _BUYS.search(said) or _LEFT.search(said):  # "used a grant to buy 2647 books"; "2 people left"
            return None
        takes, adds = bool(_TAKES.search(said)), bool(_ADDS.search(said))
        if takes == adds:
            if takes or not sign or before is None or not _carries_on(text, before, found[i], said):
                return None
        else:
            sign = "+" if takes else "-"  # undone: what was taken comes back
        before = found[size if size is not None else i]
        change, amount = found[i].node, found[i].value
        if size is None:
            roles.append((i, "add" if sign == "+" else "sub_r"))
            ops = (sign, *ops)
        else:
            change, amount = Node("*", (change, found[size].node)), amount * found[size].value
            roles += [(i, "mul"), (size, "mul")]
            ops = (sign, *ops, "*")
        node = Node(sign, (node, change))
        value = value + amount if sign == "+" else value - amount
    if value <= 0 or not ops:
        return None
    roles[0] = (end, "add" if ops[-1] == "+" else "sub_l")  # as the first change undone takes it
    return Candidate(node, value, tuple(sorted(i for i, _ in roles)), tuple(roles), ops)


def some_changed(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """ "There were 38 children on the bus. Some got off and now there are 25. How many got off?": an
    amount held, some of it changed by a verb the question asks with, and the amount after: the
    difference, the way the verb goes."""
    asked = question.lower()
    if len(found) != 2 or MORE_STEPS.search(text) or any(q.text.endswith("/100)") for q in found):
        return None
    if any(q.start >= len(text) - len(question) for q in found) or not _HOW_MANY_MUCH.search(asked):
        return None
    start, end = found
    story = text[: len(text) - len(question)].lower()
    if not re.search(r"\bsome\b", story[start.end : end.start]) or not holds(text, start):
        return None
    if not _says_the_end(_segment(text, end).lower()) or _AT_THE_START.search(asked):
        return None
    takes, adds = bool(_TAKES.search(asked)), bool(_ADDS.search(asked))
    if takes == adds:
        return None
    # the question's verb goes the story's way: "how many got off" after "some children got off"
    if not (_TAKES if takes else _ADDS).search(story[start.end : end.start]):
        return None
    big, small = (start, end) if takes else (end, start)
    if big.value <= small.value:
        return None
    node = Node("-", (big.node, small.node))
    roles = ((found.index(big), "sub_l"), (found.index(small), "sub_r"))
    return Candidate(node, big.value - small.value, (0, 1), roles, ("-",))


def _asks_the_some(opening: str, asked: str) -> bool:
    """ "Kate baked some cupcakes. ... How many cupcakes did she bake?": the question asks with the
    verb that opened the story with an amount it did not give."""
    some, verb = _SOME.search(opening), _DID.search(asked)
    return some is not None and verb is not None and _lemma(some[1]) == _lemma(verb[1])


def _lemma(verb: str) -> str:
    verb = _IRREGULAR.get(verb, verb)
    return re.sub(r"(?:ed|d|s)$", "", verb) if len(verb) > 4 else verb.rstrip("e")


def _says_the_end(segment: str) -> bool:
    """ "she has 30 dollars left", "now there are 25 people", "7 remain": an amount after the changes."""
    return bool(_LEFT.search(segment) and _HAS.search(segment)) and not (
        _TAKES.search(segment) or _ADDS.search(segment)
    )


def _grouped(text: str, found: Sequence[Quantity], indices: list[int]) -> list[tuple[int, int | None]]:
    """``indices`` as changes, a count of containers of one size taken with its size (below)."""
    out: list[tuple[int, int | None]] = []
    k = 0
    while k < len(indices):
        i = indices[k]
        j = indices[k + 1] if k + 1 < len(indices) else None
        grouped = j == i + 1 and _GROUPS_OF.fullmatch(text, found[i].end, found[i + 1].start)
        out.append((i, j if grouped else None))
        k += 2 if grouped else 1
    return out


def _changes(text: str, found: Sequence[Quantity]) -> list[tuple[int, int | None]]:
    """Each later number that is a change, with the number that gives its size where it counts
    containers of one size ("3 boxes of 12": the 3, with the 12 as its size)."""
    return _grouped(text, found, list(range(1, len(found))))


def asks_the_end(asked: str) -> bool:
    """The question asks for the amount after the changes, not about the changes themselves."""
    return bool(_AT_THE_END.search(asked)) and not _NOT_THE_END.search(asked)


def direction(text: str, quantity: Quantity) -> str:
    """ "-" where the words around a number take it away ("gave 9 to friends"), "+" where they add
    it ("found 4 more"), "" where they say neither or both."""
    takes, adds = _ways(text, _segment(text, quantity).lower())
    return "" if takes == adds else ("-" if takes else "+")


def _ways(text: str, said: str) -> tuple[bool, bool]:
    """Whether the words ``said`` take away, and whether they add: buying adds where no money is
    counted in the story, and says neither way where it is."""
    takes, adds = bool(_TAKES.search(said)), bool(_ADDS.search(said))
    if not takes and _BUYS.search(said) and not _MONEY.search(text.lower()):
        adds = True
    return takes, adds


def holds(text: str, quantity: Quantity) -> bool:
    """The words around a number say someone has it ("Cindy has 37 envelopes"), not a change."""
    said = _segment(text, quantity).lower()
    return bool(_HOLDS.search(said)) and not (_TAKES.search(said) or _ADDS.search(said))


def _segment(text: str, quantity: Quantity) -> str:
    """The words around a number up to the nearest punctuation, "and", "then" or "but"."""
    before = [m.end() for m in _SEGMENT.finditer(text, 0, quantity.start)]
    after = _SEGMENT.search(text, quantity.end)
    return text[(before[-1] if before else 0) : (after.start() if after else len(text))]


def _said_before(text: str, quantity: Quantity) -> str:
    """The words of a number's segment before it: "gave 3" in "she gave 3 of the apples to Ann"."""
    before = [m.end() for m in _SEGMENT.finditer(text, 0, quantity.start)]
    return text[(before[-1] if before else 0) : quantity.start].lower()


def _carries_on(text: str, before: Quantity, quantity: Quantity, segment: str) -> bool:
    """ "spent 12 on lunch and 8 on a book": a number opening a short phrase of its own in the same
    sentence takes the verb before it; "a further 489 loaves are delivered" has a verb we cannot read."""
    opens = segment.strip().startswith(text[quantity.start : quantity.end].lower())
    return opens and len(segment.split()) <= 5 and SENTENCE.search(text, before.end, quantity.start) is None


def _same_holder(text: str, question: str) -> bool:
    """The question asks about the one who held the amount, or names nobody: "how many does Ann
    have now" after "Kim gave 7 to Ann" asks about someone else."""
    asked = [n for n in NAME.findall(question) if n not in NOT_NAMES]
    if not asked:
        return True
    opening = [n for n in NAME.findall(text) if n not in NOT_NAMES]
    return bool(opening) and asked == [opening[0]]
