"""Candidate formulas for a word problem: every way of joining two or three of its numbers
with one or two of + − × ÷.

A word problem's formula is a reading of its story, never a transcription, so no rule here
picks one: the candidates are only the space the ranker (:mod:`app.calculon.ranker`) orders.
Each number keeps where it was written, so a formula can be labelled with the user's words
and the ranker can look at the words beside each operand.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterator, Sequence
from fractions import Fraction

from app.calculon.evaluate import Node, shown
from app.core.number_forms import exact_forms
from app.core.numbers import Mention, find_numbers

# words that make a story more than the one step a phrasing rule reads ("twice a day", "each of 4",
# "half as many"): on MAWPS and GSM8K's train split they were most of those rules' misreadings
MULTIPLIERS = re.compile(
    r"\b(?:twice|thrice|times|half|quarter|double|doubled|triple|tripled|respectively"
    r"|school week|work week|working week|weekdays?|weekends?)\b",
    re.IGNORECASE,
)
MORE_STEPS = re.compile(rf"{MULTIPLIERS.pattern}|\b(?:each|every|per)\b", re.IGNORECASE)
MAX_NUMBERS = 6  # a story with more numbers than this gets no candidates: too many readings
MAX_VALUE = Fraction(10**12)
_OPS = ("+", "-", "*", "/")
_ASCII = str.maketrans({"×": "*", "÷": "/", "−": "-"})


@dataclasses.dataclass(frozen=True)
class Quantity:
    """One number of the story: its value, where it stands in the text, and how a formula
    writes it ("(20/100)" for "20%")."""

    value: Fraction
    start: int
    end: int
    text: str

    @property
    def node(self) -> Node:
        """The quantity as a formula's leaf, written as the story's reading writes it."""
        return Node("num", value=self.value, text=self.text)


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One formula over the story's quantities; ``roles`` says how each used quantity enters it."""

    node: Node
    value: Fraction
    used: tuple[int, ...]  # indices into the quantities, in the formula's order
    roles: tuple[tuple[int, str], ...]  # (quantity, "add" / "sub_l" / "sub_r" / "mul" / "div_l" / "div_r")
    ops: tuple[str, ...]  # the operators, outer first

    @property
    def expression(self) -> str:
        """As the calculator takes it: ``(40 - 19) * 3``."""
        return shown(self.node).translate(_ASCII)

    @property
    def shown(self) -> str:
        return shown(self.node)


def quantities(text: str) -> list[Quantity]:
    """The story's numbers, in order; ordinals ("the 2nd day") and the like are not quantities."""
    found: list[Quantity] = []
    for mention in find_numbers(text):
        if mention.exempt or not mention.readings:
            continue
        found.append(_quantity(mention))
    return found


def _quantity(mention: Mention) -> Quantity:
    value = abs(mention.readings[0].value)
    if mention.text.endswith("%"):  # "20%" is 20 hundredths, and is written so for the calculator
        return Quantity(value / 100, mention.start, mention.end, f"({written(value)}/100)")
    return Quantity(value, mention.start, mention.end, written(value))


def clause(text: str, quantity: Quantity, ends: Sequence[str]) -> str:
    """The part of ``text`` a quantity stands in, between the nearest of ``ends`` either side."""
    start = max(text.rfind(mark, 0, quantity.start) for mark in ends) + 1
    after = [i for i in (text.find(mark, quantity.end) for mark in ends) if i >= 0]
    return text[start : min(after, default=len(text))]


def candidates(found: Sequence[Quantity]) -> list[Candidate]:
    """Every formula of two or three distinct quantities, one per value and shape."""
    if not 2 <= len(found) <= MAX_NUMBERS:
        return []
    seen: set[tuple[object, ...]] = set()
    out: list[Candidate] = []
    for size in (2, 3):
        for chosen in itertools.combinations(range(len(found)), size):
            for candidate in _trees(found, chosen):
                key = (candidate.value, candidate.used, candidate.ops)
                if key not in seen:
                    seen.add(key)
                    out.append(candidate)
    return out + list(_percent_changes(found))


def _percent_changes(found: Sequence[Quantity]) -> Iterator[Candidate]:
    """ "40 − 50%" and "40 + 10%", a percentage taken off or put on, as the calculator reads
    them: a form the trees above cannot write, since it uses the 40 twice."""
    for p, q in enumerate(found):
        if not q.text.endswith("/100)"):
            continue
        shown = f"{q.text[1:].split('/')[0]}%"  # "(50/100)" as "50%"
        for b, base in enumerate(found):
            if b == p or base.text.endswith("/100)"):
                continue
            changes = (("-", 1 - q.value, "pct_off"), ("+", 1 + q.value, "pct_on"), ("*", q.value, "pct_of"))
            for op, factor, role in changes:
                node = Node(
                    op,
                    (base.node, Node("num", value=q.value, text=shown)),
                )
                roles = ((b, "pct_base"), (p, role))
                yield Candidate(node, base.value * factor, (b, p), roles, (f"{op}%",))


def _trees(found: Sequence[Quantity], chosen: Sequence[int]) -> Iterator[Candidate]:
    if len(chosen) == 2:
        a, b = chosen
        for op in _OPS:
            for left, right in ((a, b), (b, a)):
                if op in "+*" and left > right:
                    continue  # the same formula as the other order
                yield from _built(found, op, _leaf(found, left), _leaf(found, right))
        return
    for pair in itertools.permutations(chosen, 2):
        rest = next(i for i in chosen if i not in pair)
        for inner in _trees(found, pair):
            for op in _OPS:
                yield from _built(found, op, inner, _leaf(found, rest))
                if op in "-/":
                    yield from _built(found, op, _leaf(found, rest), inner)


def _leaf(found: Sequence[Quantity], index: int) -> Candidate:
    q = found[index]
    node = q.node
    return Candidate(node, q.value, (index,), ((index, "leaf"),), ())


def _built(found: Sequence[Quantity], op: str, left: Candidate, right: Candidate) -> Iterator[Candidate]:
    if op in "+-" and _is_percentage(left.node) != _is_percentage(right.node):
        # "$12 and a 15% tip" is never 12 + 0.15: a share put on or taken off an amount is one
        # of the percentage changes below ("12 + 15%", 12 × 1.15)
        return
    value = _apply(op, left.value, right.value)
    if value is None or abs(value) > MAX_VALUE:
        return
    roles = tuple(_role(r, op, "l") for r in left.roles) + tuple(_role(r, op, "r") for r in right.roles)
    node = Node(op, (left.node, right.node))
    yield Candidate(node, value, left.used + right.used, roles, (op, *left.ops, *right.ops))


def _is_percentage(node: Node) -> bool:
    return node.op == "num" and node.text.endswith("/100)")


def _role(role: tuple[int, str], op: str, side: str) -> tuple[int, str]:
    """A quantity's role is set by the operator nearest to it: the innermost one."""
    index, name = role
    if name != "leaf":
        return role
    return index, {"+": "add", "*": "mul"}.get(op) or f"{'sub' if op == '-' else 'div'}_{side}"


def _apply(op: str, a: Fraction, b: Fraction) -> Fraction | None:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return a / b if b else None


def written(value: Fraction) -> str:
    """A value as a formula for the calculator writes it: ``84``, ``3.5``, ``(1/3)``."""
    exact = exact_forms(value)
    return next(iter(exact)) if exact else f"({value.numerator}/{value.denominator})"
