"""Arithmetic the user wrote out: the one kind of formula that can be established from words.

"What is 12 times 7?", "(5 + 3) * 12", "17 squared", "15% of 240", "subtract 86 from 650",
"the average of 43, 18 and 10", "how many km is 144 miles?", "now add 16 to that": each
of these names every operation between its numbers, so the formula is a transcription and
its value can be worked out here, apart from the model and the calculator. A word problem
("Paige raised 15 goldfish ... 5 were eaten. How many remained?") is not: the words between
its numbers tell a story, and which operation it needs is a reading, not a transcription.

The rule is strict on purpose. After a short opening ("what is", "calculate", "now") and
before the closing punctuation, every word must be an operator word, a number or a
reference to the previous result; one word of story and there is no transcription. A
question that is not transcribed loses nothing but the word "verified".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from fractions import Fraction

from app.calculon.evaluate import Node, TooBig, Undefined, converted, evaluate, shown
from app.calculon.phrases import CLOSING, OPENING, TOKENS, UNIT_QUESTIONS
from app.core.numbers import Mention, find_numbers


@dataclasses.dataclass(frozen=True)
class Transcript:
    """What the user's words compute. ``value`` is None where the arithmetic is undefined;
    ``shown`` is the formula as Calculon writes it; ``uses_earlier``: it works on the
    previous answer ("add 16 to that")."""

    value: Fraction | None
    shown: str
    uses_earlier: bool = False
    approximate: bool = False  # a root that is not exact: compared to 12 significant digits


@dataclasses.dataclass(frozen=True)
class _Token:
    kind: str  # "num", "ref", or an operator/phrase name from phrases.TOKENS
    value: Fraction | None = None
    text: str = ""
    percent: bool = False


def transcribe(text: str, earlier: Fraction | None = None) -> Transcript | None:
    """The arithmetic ``text`` writes out, or None where its words do not spell it out.
    ``earlier``: the value "that" and "it" stand for (the previous answer), if known."""
    unit = _conversion(text)
    if unit is not None:
        return unit
    tokens = _tokens(text)
    if tokens is None or not any(t.kind in ("num", "ref") for t in tokens):
        return None
    uses_earlier = any(t.kind == "ref" for t in tokens)
    if uses_earlier and earlier is None:
        return None
    parser = _Parser(tokens, earlier)
    try:
        node = parser.parse()
    except _NoParse:
        return None
    try:
        value, approximate = evaluate(node)
    except Undefined:
        return Transcript(None, shown(node), uses_earlier)
    except TooBig:
        return None
    return Transcript(value, shown(node), uses_earlier, approximate)


# --- tokens ------------------------------------------------------------------


def _tokens(text: str) -> list[_Token] | None:
    """The message as numbers, references and operator words; None if any other word is left."""
    mentions = find_numbers(text)
    if any(m.exempt or not m.readings for m in mentions):
        return None  # an ordinal, a list marker, a number too big to read: not plain arithmetic
    body, numbers = _with_placeholders(text, mentions)
    body = _strip(body)
    out: list[_Token] = []
    i = 0
    while i < len(body):
        if body[i] == " ":
            i += 1
            continue
        if body.startswith("\x00", i):
            end = body.index("\x01", i)
            out.append(numbers[int(body[i + 1 : end])])
            i = end + 1
            continue
        match = TOKENS.match(body, i)
        if match is None:
            return None
        out.append(_Token(match.lastgroup or "", text=match.group()))
        i = match.end()
    return out


def _with_placeholders(text: str, mentions: list[Mention]) -> tuple[str, list[_Token]]:
    parts, numbers, last = [], [], 0
    for index, mention in enumerate(mentions):
        parts.append(text[last : mention.start].lower())
        parts.append(f" \x00{index}\x01 ")
        numbers.append(_number(mention))
        last = mention.end
        if text.startswith("!", last):  # "7!" is a factorial, not an exclamation
            parts.append(" factorial ")
            last += 1
    parts.append(text[last:].lower())
    return "".join(parts), numbers


def _number(mention: Mention) -> _Token:
    written = mention.text.strip()
    percent = written.endswith("%") or written.lower().endswith(("percent", "per cent"))
    values = [r.value for r in mention.readings]
    value = max(values, key=abs) if percent else values[0]
    return _Token("num", value, written, percent)


def _strip(body: str) -> str:
    """The message without its opening ("what is", "now") and its closing ("?", "please")."""
    body = " ".join(body.replace("\u2019", "'").split())
    while True:
        before = body
        opened = OPENING.match(body)
        if opened is not None:
            body = body[opened.end() :].strip()
        closed = CLOSING.search(body)
        if closed is not None:
            body = body[: closed.start()].strip()
        if body == before:
            return body


# --- the parser ----------------------------------------------------------------


class _NoParse(Exception):
    pass


def _leaf(token: _Token) -> Node:
    value = token.value
    if value is None:
        raise _NoParse
    return Node("num", value=value / 100 if token.percent else value, text=token.text)


class _Parser:
    """Precedence climbing over the tokens, with the English forms that put an operation
    first ("subtract A from B", "the sum of A and B") or turn a pair round ("A less than B")."""

    def __init__(self, tokens: list[_Token], earlier: Fraction | None) -> None:
        self.tokens, self.i, self.earlier = tokens, 0, earlier

    def parse(self) -> Node:
        node = self.sum()
        if self.i != len(self.tokens):
            raise _NoParse
        return node

    def peek(self, *kinds: str) -> bool:
        return self.i < len(self.tokens) and self.tokens[self.i].kind in kinds

    def take(self, *kinds: str) -> _Token:
        """The next token; it must be one of ``kinds`` where any are given."""
        if self.i >= len(self.tokens) or (kinds and not self.peek(*kinds)):
            raise _NoParse
        self.i += 1
        return self.tokens[self.i - 1]

    def sum(self) -> Node:
        node = self.product()
        while self.peek("plus", "minus", "less_than", "more_than"):
            kind = self.take().kind
            right = self.product()
            if kind == "less_than":  # "40 less than 110" is 110 - 40
                node = Node("-", (right, node))
            else:
                node = Node("+" if kind in ("plus", "more_than") else "-", (node, right))
        return node

    def product(self) -> Node:
        node = self.power()
        while self.peek("times", "over", "mod"):
            kind = self.take().kind
            node = Node({"times": "*", "over": "/", "mod": "mod"}[kind], (node, self.power()))
        return node

    def power(self) -> Node:
        base = self.postfix()
        if self.peek("power"):
            self.take()
            return Node("^", (base, self.power()))
        return base

    def postfix(self) -> Node:
        node = self.primary()
        while self.peek("squared", "cubed", "factorial"):
            kind = self.take().kind
            if kind == "factorial":
                node = Node("!", (node,))
            else:
                node = Node("^", (node, Node("num", value=Fraction(2 if kind == "squared" else 3))))
        return node

    def primary(self) -> Node:
        if self.peek("num"):
            token = self.take()
            if token.percent:
                return self.percent(token)
            return _leaf(token)
        if self.peek("ref"):
            self.take()
            return Node("num", value=self.earlier, text="that")
        if self.peek("open"):
            self.take()
            node = self.sum()
            self.take("close")
            return node
        if self.peek("minus"):
            self.take()
            return Node("-", (Node("num", value=Fraction(0), text="0"), self.postfix()))
        return self.prefixed()

    def percent(self, token: _Token) -> Node:
        """A percentage works only on what it is "of", or as "off" a price."""
        share = _leaf(token)
        if self.peek("of"):
            self.take()
            return Node("*", (share, self.postfix()))
        raise _NoParse

    def prefixed(self) -> Node:
        kind = self.take(*_PREFIXED).kind
        return _PREFIXED[kind](self)

    def operand_list(self) -> list[Node]:
        items = [self.postfix()]
        while self.peek("comma", "and"):
            self.take()
            if self.peek("and"):
                self.take()
            items.append(self.postfix())
        return items

    def pair(self, joiner: str) -> tuple[Node, Node]:
        first = self.postfix()
        self.take(joiner)
        return first, self.postfix()


def _folded(op: str, items: list[Node]) -> Node:
    node = items[0]
    for item in items[1:]:
        node = Node(op, (node, item))
    return node


def _sum_of(p: _Parser) -> Node:
    items = p.operand_list()
    if len(items) < 2:
        raise _NoParse
    return _folded("+", items)


def _product_of(p: _Parser) -> Node:
    items = p.operand_list()
    if len(items) < 2:
        raise _NoParse
    return _folded("*", items)


def _average_of(p: _Parser) -> Node:
    items = p.operand_list()
    if len(items) < 2:
        raise _NoParse
    return Node("/", (_folded("+", items), Node("num", value=Fraction(len(items)), text=str(len(items)))))


def _difference(p: _Parser) -> Node:
    a, b = p.pair("and")
    return Node("-", (a, b))


def _quotient(p: _Parser) -> Node:
    a, b = p.pair("and")
    return Node("/", (a, b))


def _add(p: _Parser) -> Node:
    first = p.postfix()
    if p.peek("to"):  # "add 16 to that": that + 16
        p.take()
        return Node("+", (p.postfix(), first))
    p.take("and", "comma")
    rest = [first, p.postfix()]
    while p.peek("comma", "and"):
        p.take()
        rest.append(p.postfix())
    return _folded("+", rest)


def _subtract(p: _Parser) -> Node:
    taken, whole = p.pair("from")  # "subtract 86 from 650": 650 - 86
    return Node("-", (whole, taken))


def _multiply(p: _Parser) -> Node:
    a = p.postfix()
    p.take("by", "and")
    return Node("*", (a, p.postfix()))


def _divide(p: _Parser) -> Node:
    a = p.postfix()
    p.take("by")
    return Node("/", (a, p.postfix()))


def _times_word(factor: int, op: str = "*") -> Callable[[_Parser], Node]:
    def build(p: _Parser) -> Node:
        if p.peek("of"):
            p.take()
        return Node(op, (p.postfix(), Node("num", value=Fraction(factor), text=str(factor))))

    return build


def _root(op: str) -> Callable[[_Parser], Node]:
    def build(p: _Parser) -> Node:
        if p.peek("of"):
            p.take()
        return Node(op, (p.postfix(),))

    return build


def _power_word(exponent: int) -> Callable[[_Parser], Node]:
    def build(p: _Parser) -> Node:
        return Node("^", (p.postfix(), Node("num", value=Fraction(exponent), text=str(exponent))))

    return build


def _factorial_of(p: _Parser) -> Node:
    return Node("!", (p.postfix(),))


_PREFIXED = {
    "sum_of": _sum_of,
    "product_of": _product_of,
    "average_of": _average_of,
    "difference_between": _difference,
    "quotient_of": _quotient,
    "add": _add,
    "subtract": _subtract,
    "multiply": _multiply,
    "divide": _divide,
    "half_of": _times_word(2, "/"),
    "double": _times_word(2),
    "triple": _times_word(3),
    "square_root_of": _root("sqrt"),
    "cube_root_of": _root("cbrt"),
    "square_of": _power_word(2),
    "cube_of": _power_word(3),
    "factorial_of": _factorial_of,
}


# --- conversions ---------------------------------------------------------------


def _conversion(text: str) -> Transcript | None:
    """ "How many km is 144 miles?", "What is 109 °F in Celsius?", "Convert 5 kg to pounds."."""
    mentions = find_numbers(text)
    if len(mentions) != 1 or mentions[0].exempt or not mentions[0].readings:
        return None
    mention = mentions[0]
    body = _strip(f"{text[: mention.start]} NUMBER {text[mention.end :]}".lower())
    for pattern in UNIT_QUESTIONS:
        match = pattern.fullmatch(body)
        if match is None:
            continue
        value = mention.readings[0].value
        result = converted(value, match["source"], match["target"])
        if result is not None:
            return Transcript(result, f"{mention.text} {match['source']} in {match['target']}")
    return None
