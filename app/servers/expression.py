"""A small, safe arithmetic expression evaluator over exact Fractions.

Grammar (``^`` and ``**`` bind tightest and group right to left; a leading
minus binds looser than a power, so ``-2^2`` is ``-4``)::

    expression := term (("+" | "-") term)*
    term       := unary (("*" | "/" | "//" | "%") unary)*
    unary      := ("+" | "-")* power
    power      := atom (("^" | "**") unary)?
    atom       := NUMBER "%"? | "(" expression ")"

A ``%`` right after a number and before an operator, a ``)`` or the end is a
percent (``20% * 150`` is 30); before an operand it is the remainder (``17 % 5``). ``//`` is
whole division, rounded down (``29 // 3`` is 9 full bags of 3, and ``29 % 3`` the 2 left over).
A percent added to or taken from an amount is a share of that amount, as on a
pocket calculator and in everyday speech: ``40 - 50%`` is 20 (a price 50% off),
``200 + 10%`` is 220.

Nothing is ever handed to ``eval``: the text is tokenised here and each step is
computed with the bounded operations in :mod:`app.servers.arith`. Errors say
where they are, counting characters from 1.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from fractions import Fraction

from app.servers.arith import checked, digits_of, divide, int_power, modulo
from app.servers.budget import Budget
from app.servers.exact import CalcError, check_length, decimal_text

MAX_DEPTH = 64  # about 7 Python frames per level: far from the interpreter limit

# Spellings a model or a person may paste in, mapped to the plain operator.
_ALIASES = str.maketrans({"×": "*", "·": "*", "÷": "/", "−": "-", "–": "-"})
_TOKEN = re.compile(r"\s*(?:(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)|(?P<op>\*\*|//|[-+*/%^()]))")


@dataclasses.dataclass(frozen=True)
class Token:
    kind: str  # "number", "op" or "end"
    text: str
    position: int  # 1-based character index, for messages


def tokenize(expression: str) -> list[Token]:
    """Split the expression into tokens, or raise CalcError naming the first bad character."""
    text = expression.translate(_ALIASES).rstrip()
    text = text.removesuffix("=").rstrip()  # "2 + 2 =" is a common way to ask
    tokens: list[Token] = []
    index = 0
    while index < len(text):
        match = _TOKEN.match(text, index)
        if match is None:
            start = index + len(text[index:]) - len(text[index:].lstrip())
            raise CalcError(f"unexpected {text[start]!r} at character {start + 1}")
        kind = "number" if match.group("number") else "op"
        tokens.append(Token(kind, match.group(kind), match.start(kind) + 1))
        index = match.end()
    tokens.append(Token("end", "", len(text) + 1))
    return tokens


def evaluate(expression: str) -> Fraction:
    """The exact value of an arithmetic expression."""
    check_length(expression, "expression")
    if not expression.strip():
        raise CalcError("the expression is empty")
    # Sums are not capped step by step (the budget bounds their work); the answer is.
    return checked(_Parser(tokenize(expression), Budget()).parse())


_BINARY: dict[str, Callable[[Fraction, Fraction], Fraction]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: checked(a * b),
    "/": divide,
    "//": lambda a, b: Fraction(math.floor(divide(a, b))),
    "%": modulo,
}


class _Parser:
    """Recursive descent that computes as it parses, so errors keep their position."""

    def __init__(self, tokens: list[Token], budget: Budget) -> None:
        self._tokens = tokens
        self._budget = budget
        self._index = 0
        self._depth = 0

    def parse(self) -> Fraction:
        value = self._expression()
        token = self._peek()
        if token.kind != "end":
            raise CalcError(f"unexpected {token.text!r} at character {token.position}")
        return value

    def _peek(self) -> Token:
        return self._tokens[self._index]

    def _take(self) -> Token:
        token = self._tokens[self._index]
        self._index += 1
        return token

    def _expression(self) -> Fraction:
        return self._chain(self._term, ("+", "-"))

    def _term(self) -> Fraction:
        return self._chain(self._unary, ("*", "/", "//", "%"))

    def _chain(self, operand: Callable[[], Fraction], operators: tuple[str, ...]) -> Fraction:
        value = operand()
        while self._peek().kind == "op" and self._peek().text in operators:
            token = self._take()
            start = self._index
            right = operand()
            if token.text in "+-" and self._bare_percent(start):
                right = _at(token, lambda a, b: a * b, value, right)  # "40 - 50%": 50% of 40
            self._budget.charge(value, right)
            value = _at(token, _BINARY[token.text], value, right)
        return value

    def _unary(self) -> Fraction:
        negative = False
        while self._peek().text in ("+", "-") and self._peek().kind == "op":
            negative ^= self._take().text == "-"
        value = self._power()
        return -value if negative else value

    def _power(self) -> Fraction:
        base = self._atom()
        if self._peek().text not in ("^", "**"):
            return base
        token = self._take()
        with self._nested(token):
            exponent = self._unary()
        if exponent.denominator != 1:
            raise CalcError(
                f"the exponent at character {token.position} is not a whole number; "
                "use the power or sqrt tool for roots"
            )
        # int_power refuses a result over the cap before computing it; within the cap, pay after.
        value = _at(token, lambda a, b: int_power(a, int(b)), base, exponent)
        self._budget.charge(base, exponent, result_digits=digits_of(value))
        return value

    def _bare_percent(self, start: int) -> bool:
        """Whether the operand read from token ``start`` on was one percentage and nothing else."""
        first, second = self._tokens[start], self._tokens[start + 1]
        return self._index - start == 2 and first.kind == "number" and second.text == "%"

    def _percent_sign(self) -> bool:
        """A "%" straight after a number with no operand after it is a percent ("20% * 150"),
        as on a pocket calculator; with an operand after it, it is the remainder ("17 % 5")."""
        if self._peek().text != "%" or self._index + 1 >= len(self._tokens):
            return False
        after = self._tokens[self._index + 1]
        if after.kind == "number" or after.text in ("(", "+", "-"):
            return False
        self._take()
        return True

    def _atom(self) -> Fraction:
        token = self._take()
        if token.kind == "number":
            value = decimal_text(token.text, f"the number at character {token.position}")
            return value / 100 if self._percent_sign() else value
        if token.text == "(":
            with self._nested(token):
                value = self._expression()
            closing = self._take()
            if closing.text != ")" or closing.kind != "op":
                raise CalcError(
                    f"expected ')' at character {closing.position} to close '(' at {token.position}"
                )
            return value
        found = "the end of the expression" if token.kind == "end" else repr(token.text)
        raise CalcError(f"expected a number or '(' at character {token.position}, found {found}")

    def _nested(self, token: Token) -> _Depth:
        return _Depth(self, token)


class _Depth:
    """Bounds nesting so deep parentheses or power towers fail cleanly, not with RecursionError."""

    def __init__(self, parser: _Parser, token: Token) -> None:
        self._parser = parser
        self._token = token

    def __enter__(self) -> None:
        self._parser._depth += 1
        if self._parser._depth > MAX_DEPTH:
            raise CalcError(f"the expression nests too deeply at character {self._token.position}")

    def __exit__(self, *exc: object) -> None:
        self._parser._depth -= 1


def _at(
    token: Token, operation: Callable[[Fraction, Fraction], Fraction], a: Fraction, b: Fraction
) -> Fraction:
    """Run one step, adding where it was to any error."""
    try:
        return operation(a, b)
    except CalcError as error:
        raise CalcError(f"{error} (at {token.text!r}, character {token.position})") from None
