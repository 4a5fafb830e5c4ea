"""The grammar of written-out arithmetic: precedence climbing over the message's tokens, with
the English forms that put an operation first ("subtract A from B", "the sum of A and B") or
turn a pair round ("A less than B"). What the tokens are is :mod:`app.calculon.transcript`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from fractions import Fraction

from app.calculon.evaluate import Node
from app.core.numbers import Mention


@dataclasses.dataclass(frozen=True)
class Token:
    kind: str  # "num", "ref", or an operator/phrase name from phrases.TOKENS
    value: Fraction | None = None
    text: str = ""
    percent: bool = False


class NoParse(Exception):
    pass


def _leaf(token: Token) -> Node:
    value = token.value
    if value is None:
        raise NoParse
    return Node("num", value=value / 100 if token.percent else value, text=token.text)


class Parser:
    """Precedence climbing over the tokens, with the English forms that put an operation
    first ("subtract A from B", "the sum of A and B") or turn a pair round ("A less than B")."""

    def __init__(self, tokens: list[Token], earlier: Fraction | None) -> None:
        self.tokens, self.i, self.earlier = tokens, 0, earlier

    def parse(self) -> Node:
        node = self.sum()
        if self.i != len(self.tokens):
            raise NoParse
        return node

    def peek(self, *kinds: str) -> bool:
        return self.i < len(self.tokens) and self.tokens[self.i].kind in kinds

    def take(self, *kinds: str) -> Token:
        """The next token; it must be one of ``kinds`` where any are given."""
        if self.i >= len(self.tokens) or (kinds and not self.peek(*kinds)):
            raise NoParse
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

    def percent(self, token: Token) -> Node:
        """A percentage works only on what it is "of" ("15% of 240"); "50% off" is a story."""
        share = _leaf(token)
        if self.peek("of"):
            self.take()
            return Node("*", (share, self.postfix()))
        raise NoParse

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


def _sum_of(p: Parser) -> Node:
    items = p.operand_list()
    if len(items) < 2:
        raise NoParse
    return _folded("+", items)


def _product_of(p: Parser) -> Node:
    items = p.operand_list()
    if len(items) < 2:
        raise NoParse
    return _folded("*", items)


def _average_of(p: Parser) -> Node:
    items = p.operand_list()
    if len(items) < 2:
        raise NoParse
    return Node("/", (_folded("+", items), Node("num", value=Fraction(len(items)), text=str(len(items)))))


def _difference(p: Parser) -> Node:
    a, b = p.pair("and")
    return Node("-", (a, b))


def _quotient(p: Parser) -> Node:
    a, b = p.pair("and")
    return Node("/", (a, b))


def _add(p: Parser) -> Node:
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


def _subtract(p: Parser) -> Node:
    taken, whole = p.pair("from")  # "subtract 86 from 650": 650 - 86
    return Node("-", (whole, taken))


def _multiply(p: Parser) -> Node:
    a = p.postfix()
    p.take("by", "and")
    return Node("*", (a, p.postfix()))


def _divide(p: Parser) -> Node:
    a = p.postfix()
    p.take("by")
    return Node("/", (a, p.postfix()))


def _times_word(factor: int, op: str = "*") -> Callable[[Parser], Node]:
    def build(p: Parser) -> Node:
        if p.peek("of"):
            p.take()
        return Node(op, (p.postfix(), Node("num", value=Fraction(factor), text=str(factor))))

    return build


def _root(op: str) -> Callable[[Parser], Node]:
    def build(p: Parser) -> Node:
        if p.peek("of"):
            p.take()
        return Node(op, (p.postfix(),))

    return build


def _power_word(exponent: int) -> Callable[[Parser], Node]:
    def build(p: Parser) -> Node:
        return Node("^", (p.postfix(), Node("num", value=Fraction(exponent), text=str(exponent))))

    return build


def _factorial_of(p: Parser) -> Node:
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


def percent_token(mention: Mention) -> Token:
    """A number as the transcription reads it: "25 percent" is 25, marked a percentage."""
    written = mention.text.strip()
    percent = written.endswith("%") or written.lower().endswith(("percent", "per cent"))
    values = [r.value for r in mention.readings]
    value = max(values, key=abs) if percent else values[0]
    return Token("num", value, written, percent)
