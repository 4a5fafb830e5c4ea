"""Working out a transcription's value here, apart from the model and the calculator: the
second derivation that lets a written-out formula be called established.

Exact with :class:`fractions.Fraction` wherever the arithmetic is; a root that is not exact
is worked to 40 digits and marked approximate. Sizes are bounded so a message cannot make
this slow: a power whose result would pass ``MAX_DIGITS`` digits is not worked out.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from decimal import Context, Decimal
from fractions import Fraction

MAX_DIGITS = 10_000
MAX_FACTORIAL = 1_000
_CONTEXT = Context(prec=40)


class Undefined(Exception):
    """The written arithmetic has no value (division by zero, a root of a negative number)."""


class TooBig(Exception):
    """The value would be too big to work out in good time."""


@dataclasses.dataclass(frozen=True)
class Node:
    """A formula as the user wrote it: a number, or an operation on its ``args``."""

    op: str  # "num", "+", "-", "*", "/", "^", "mod", "sqrt", "cbrt", "!"
    args: tuple[Node, ...] = ()
    value: Fraction | None = None
    text: str = ""


def evaluate(node: Node) -> tuple[Fraction, bool]:
    """The node's value and whether it is approximate; raises :class:`Undefined`, :class:`TooBig`."""
    if node.op == "num":
        if node.value is None:
            raise Undefined
        return node.value, False
    values = [evaluate(arg) for arg in node.args]
    approximate = any(a for _, a in values)
    numbers = [v for v, _ in values]
    value, inexact = _OPS[node.op](*numbers)
    return value, approximate or inexact


def _add(a: Fraction, b: Fraction) -> tuple[Fraction, bool]:
    return a + b, False


def _sub(a: Fraction, b: Fraction) -> tuple[Fraction, bool]:
    return a - b, False


def _mul(a: Fraction, b: Fraction) -> tuple[Fraction, bool]:
    return a * b, False


def _div(a: Fraction, b: Fraction) -> tuple[Fraction, bool]:
    if b == 0:
        raise Undefined
    return a / b, False


def _mod(a: Fraction, b: Fraction) -> tuple[Fraction, bool]:
    if b == 0:
        raise Undefined
    return a - b * math.floor(a / b), False


def _pow(base: Fraction, exponent: Fraction) -> tuple[Fraction, bool]:
    if exponent.denominator != 1:
        if base < 0:
            raise Undefined
        root = Decimal(base.numerator, _CONTEXT) / Decimal(base.denominator, _CONTEXT)
        return Fraction(_CONTEXT.power(root, _decimal(exponent))), True
    if base == 0 and exponent < 0:
        raise Undefined
    size = max(len(str(base.numerator)), len(str(base.denominator)))
    if abs(exponent) * size > MAX_DIGITS:
        raise TooBig
    return base ** int(exponent), False


def _sqrt(x: Fraction) -> tuple[Fraction, bool]:
    if x < 0:
        raise Undefined
    top, bottom = math.isqrt(x.numerator), math.isqrt(x.denominator)
    if top * top == x.numerator and bottom * bottom == x.denominator:
        return Fraction(top, bottom), False
    return Fraction(_decimal(x).sqrt(_CONTEXT)), True


def _cbrt(x: Fraction) -> tuple[Fraction, bool]:
    if x < 0:
        value, inexact = _cbrt(-x)
        return -value, inexact
    guess = Fraction(round(float(x) ** (1 / 3))) if x.denominator == 1 and x < 10**300 else None
    if guess is not None and guess**3 == x:
        return guess, False
    return Fraction(_CONTEXT.power(_decimal(x), Decimal(1) / Decimal(3))), True


def _factorial(x: Fraction) -> tuple[Fraction, bool]:
    if x.denominator != 1 or x < 0:
        raise Undefined
    if x > MAX_FACTORIAL:
        raise TooBig
    return Fraction(math.factorial(int(x))), False


def _decimal(x: Fraction) -> Decimal:
    return _CONTEXT.divide(Decimal(x.numerator), Decimal(x.denominator))


_OPS: dict[str, Callable[..., tuple[Fraction, bool]]] = {
    "+": _add,
    "-": _sub,
    "*": _mul,
    "/": _div,
    "mod": _mod,
    "^": _pow,
    "sqrt": _sqrt,
    "cbrt": _cbrt,
    "!": _factorial,
}

# --- showing it ----------------------------------------------------------------

_SIGN = {"+": "+", "-": "−", "*": "×", "/": "÷", "mod": "mod", "^": "^"}
_RANK = {"+": 1, "-": 1, "*": 2, "/": 2, "mod": 2, "^": 3}


def shown(node: Node) -> str:
    """The formula as the answer shows it: ``12 × 7``, ``(5 + 3) × 12``, ``√(1444)``."""
    if node.op == "num":
        return node.text or plain(node.value)
    if node.op in ("sqrt", "cbrt"):
        return f"{'√' if node.op == 'sqrt' else '∛'}({shown(node.args[0])})"
    if node.op == "!":
        return f"{_wrapped(node.args[0], 4)}!"
    left, right = node.args
    rank = _RANK[node.op]
    right_rank = rank + (0 if node.op in ("+", "*") else 1)
    if node.op == "^":  # right-associative
        return f"{_wrapped(left, rank + 1)} ^ {_wrapped(right, rank)}"
    return f"{_wrapped(left, rank)} {_SIGN[node.op]} {_wrapped(right, right_rank)}"


def _wrapped(node: Node, rank: int) -> str:
    inner = _RANK.get(node.op, 4)
    text = shown(node)
    return f"({text})" if inner < rank else text


def plain(value: Fraction | None) -> str:
    """``84``, ``71/3``: a value exactly, as a formula shows it."""
    if value is None:
        return "?"
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def converted(value: Fraction, source: str, target: str) -> Fraction | None:
    """``value`` in ``source`` units as ``target`` units, with the converter's own table; None
    where either is no unit the converter knows, or they measure different things."""
    from app.servers import units
    from app.servers.exact import CalcError

    try:
        frm, to = units.find_unit(source.strip()), units.find_unit(target.strip())
        if frm.dimension != to.dimension:
            return None
        return units.convert(value, frm, to)
    except CalcError:
        return None
