"""Each of the user's numbers used once: Calculon mode's grammar for a call's operands.

A backed-number grammar (:mod:`backed`) stops the model inventing a number, but
a tiny model still copies one it was given: "How many km is 144 miles?" became
``evaluate("144 * 144")``, "I save $464 a week; how much in 14 weeks?" became
``14 * 14``, and "(80 + 20) * 9" lost its 9. Here a call's arguments use each
number of the user's latest message at most as often as the message holds it,
and, on the one call a model may make per message, every one of them; words
count as their numbers (the 2 of "squared", the 3 behind "the average of three
numbers"). Other backed numbers (earlier results, 100 beside a percentage) stay
free to use. The model still picks the tool,
the operators and the order; it can no longer drop or duplicate an operand.

A tool that cannot take the operands (``multiply`` for three numbers, an
expression for one number and nothing else) is left out of the step's grammar,
so the model is steered to one that can (``evaluate``, ``convert``). The
grammar tracks which operands are left with nonterminals indexed by what is
left before and after, so it grows with 3^n for n distinct numbers: past
``MAX_SLOTS`` the step keeps the plain backed grammar.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections.abc import Iterable, Sequence

from app.core.arithmetic import Item, UserArithmetic, fixes_operators, leaves
from app.core.number_forms import mention_forms
from app.core.numbers import Mention, find_numbers
from app.llm.local.ordered import literal, ordered_lines

MAX_SLOTS = 5  # distinct numbers in one message; more, and the usage grammar is not built
MAX_COUNT = 9  # a number written more often than this is treated as free
Counts = tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Operands:
    """The user's numbers (each a set of exact forms, with how often it is written) and the
    numbers free to use beside them; ``every``: the call must use all of them."""

    slots: tuple[frozenset[str], ...]
    counts: Counts
    constants: frozenset[str]
    every: bool
    groups: tuple[Counts, ...] = ()  # operands the user bracketed together, one count vector each
    reading: tuple[Item, ...] = ()  # their order and joins, as the words give them
    attached: frozenset[int] = frozenset()  # operands written with a unit: only a text field takes them
    targets: frozenset[str] = frozenset()  # beside an attached operand: the units it may be converted to

    def slot_of(self, item: Item) -> int | None:
        return self.slots.index(item.forms) if item.forms in self.slots else None


def operands(read: UserArithmetic, free: Iterable[str], *, every: bool) -> Operands | None:
    """The operands of the user's words as app.calculon read them; None when there are too
    many for the grammar."""
    items = read.reading
    slots: dict[frozenset[str], int] = {}
    for leaf in leaves(items):
        slots[leaf.forms] = slots.get(leaf.forms, 0) + 1
    constants = set(free)
    kept = {forms: n for forms, n in slots.items() if not forms & constants and n <= MAX_COUNT}
    if len(kept) > MAX_SLOTS:
        return None
    constants |= {f for forms in slots if forms not in kept for f in forms}
    order = list(kept)
    mentions = find_numbers(read.text)
    groups = tuple(g for g in (_group(span, mentions, order) for span in read.brackets) if g)
    attached = _attached(items, order)
    targets = _targets(read.text, items) if attached else frozenset()
    return Operands(
        tuple(kept), tuple(kept.values()), frozenset(constants), every, groups, items, attached, targets
    )


def _attached(items: Sequence[Item], order: Sequence[frozenset[str]]) -> frozenset[int]:
    """One number with a unit after it ("How many km is 144 miles?") is a quantity: it goes
    into a text field with its unit, never alone into a number field (``sqrt(144)``)."""
    found = leaves(items)
    if len(found) != 1 or not found[0].unit or found[0].forms not in order:
        return frozenset()
    return frozenset({order.index(found[0].forms)})


_WORD = r"°?[^\W\d_]+"


def _targets(user_text: str, items: Sequence[Item]) -> frozenset[str]:
    """The user's words and word pairs ("square feet"), less the quantity's own unit: what a
    conversion may go to."""
    unit = {_bare(w) for leaf in leaves(items) for w in re.findall(_WORD, leaf.unit or "")}
    pairs = re.findall(rf"(?=(?<![^\W\d_°])({_WORD} {_WORD})\b)", user_text)
    found = [*re.findall(_WORD, user_text), *pairs]
    return frozenset(w for w in found if not {_bare(p) for p in w.split()} & (unit | _NOT_UNITS))


# the words of a question around its units: "How many feet is 2 metres?" went to "many"
_NOT_UNITS = frozenset(
    "a an and are as be can convert could do does from give how in into is it many me much of"  # noqa: SIM905
    " please say tell that the there this to what whats which will would you".split()
)


def _bare(word: str) -> str:
    return word.lstrip("°").lower()


def _group(
    span: tuple[int, int], mentions: Sequence[Mention], order: Sequence[frozenset[str]]
) -> Counts | None:
    inside = [m for m in mentions if span[0] < m.start and m.end < span[1]]
    counts = [0] * len(order)
    for mention in inside:
        forms = mention_forms(mention)
        if forms not in order:
            return None  # a free number: nothing to keep together
        counts[order.index(forms)] += 1
    return tuple(counts) if len(inside) >= 2 else None


def _alternatives(forms: Iterable[str]) -> str:
    return " | ".join(json.dumps(f) for f in sorted(forms, key=lambda f: (len(f), f)))


def value_rules(ops: Operands) -> list[str]:
    rules = [f"calculon-o{i} ::= {_alternatives(forms)}" for i, forms in enumerate(ops.slots)]
    # after a number in a text field, its unit: no digit, and not a decimal point that goes on
    rules.append('calculon-unit ::= " "? [^"\\\\0-9.,\\x00-\\x1f ] [^"\\\\0-9\\x00-\\x1f]*')
    rules.append('calculon-words ::= [^"\\\\0-9\\x00-\\x1f]*')
    if ops.targets:
        rules.append(f"calculon-target ::= {_alternatives(ops.targets)}")
    if ops.constants:
        rules.append(f"calculon-c ::= {_alternatives(ops.constants)}")
    return rules


def _code(counts: Counts) -> str:
    return "".join(map(str, counts))


def _below(left: Counts) -> Iterable[Counts]:
    """Every count vector from ``left`` down to none, componentwise."""
    return itertools.product(*(range(n, -1, -1) for n in left))


_PERCENT = ' "%"?'  # a percent sign follows a number, never a bracket: "(80 + 20)%" is not what was asked


class ExpressionRules:
    """An arithmetic expression that uses operand i exactly ``counts[i]`` times (with ``every``;
    at most, without), and free numbers (``calculon-c``) as often as it likes when ``free``.
    ``atoms[i]`` is the grammar text that writes operand i: a number, or a bracketed group."""

    def __init__(self, name: str, counts: Counts, atoms: Sequence[str], *, free: bool, every: bool):
        self.name, self.counts, self.atoms, self.free, self.every = name, counts, tuple(atoms), free, every
        self._t: dict[tuple[Counts, Counts], list[str]] = {}
        self._e: dict[tuple[Counts, Counts], list[str]] = {}
        self._solve()

    def _atoms(self, left: Counts, after: Counts) -> list[str]:
        if left == after:
            return [f"calculon-c{_PERCENT}"] if self.free else []
        used = [a - b for a, b in zip(left, after, strict=True)]
        if sorted(used)[-1] == 1 and sum(used) == 1:
            return [self.atoms[used.index(1)]]
        return []

    def _pairs(self) -> list[tuple[Counts, Counts]]:
        return [(u, v) for u in _below(self.counts) for v in _below(u)]

    def _solve(self) -> None:
        """Alternatives of every nonterminal that can produce something: a fixpoint, since a
        bracket makes a term of an expression over the same operands."""
        pairs = self._pairs()
        changed = True
        while changed:
            changed = False
            for u, v in pairs:
                t = self._term_alternatives(u, v)
                e = self._expr_alternatives(u, v)
                if t != self._t.get((u, v), []) or e != self._e.get((u, v), []):
                    self._t[(u, v)], self._e[(u, v)] = t, e
                    changed = True

    def _term_alternatives(self, u: Counts, v: Counts) -> list[str]:
        alts = self._atoms(u, v)
        if self._e.get((u, v)):
            alts.append(f'"(" {self._e_name(u, v)} ")"')
        return alts

    def _expr_alternatives(self, u: Counts, v: Counts) -> list[str]:
        alts = [self._t_name(u, v)] if self._t.get((u, v)) else []
        for w in _below(u):
            if all(a >= b for a, b in zip(w, v, strict=True)) and self._t.get((u, w)) and self._e.get((w, v)):
                alts.append(f"{self._t_name(u, w)} {self.name}-op {self._e_name(w, v)}")
        return alts

    def _t_name(self, u: Counts, v: Counts) -> str:
        return f"{self.name}-t{_code(u)}-{_code(v)}"

    def _e_name(self, u: Counts, v: Counts) -> str:
        return f"{self.name}-e{_code(u)}-{_code(v)}"

    def top(self) -> list[str]:
        """At least one operator: a lone number is no calculation."""
        start = self.counts
        ends = [tuple(0 for _ in start)] if self.every else list(_below(start))
        return [
            f"{self._t_name(start, w)} {self.name}-op {self._e_name(w, end)}"
            for w in _below(start)
            for end in ends
            if self._t.get((start, w))
            and self._e.get((w, end))
            and all(a >= b for a, b in zip(w, end, strict=True))
        ]

    def body(self) -> list[str] | None:
        """The rules under ``NAME-top``, or None when no expression can use the operands as asked."""
        top = self.top()
        if not top:
            return None
        rules = [f"{self.name}-top ::= {' | '.join(top)}", f'{self.name}-op ::= " "? [-+*/^%] " "?']
        rules += [f'{self._t_name(u, v)} ::= "-"? ({" | ".join(a)})' for (u, v), a in self._t.items() if a]
        rules += [f"{self._e_name(u, v)} ::= {' | '.join(a)}" for (u, v), a in self._e.items() if a]
        return rules


def expression_lines(name: str, ops: Operands) -> list[str] | None:
    """The string rule ``name`` for an expression over ``ops``: on the one call, in the order and
    with the joins the words give (:mod:`ordered`); otherwise each operand at most as often as
    written, and a bracket the user wrote around numbers ("(80 + 20) * 9") kept."""
    if ops.every and len(leaves(ops.reading)) >= 2:
        # where the words name every operator, a free number is only a way round them
        free = bool(ops.constants) and not fixes_operators(ops.reading)
        return ordered_lines(name, ops.reading, lambda leaf: _leaf_atom(ops, leaf), free=free)
    return _unordered_lines(name, ops)


def _leaf_atom(ops: Operands, leaf: Item) -> str:
    """A percentage as a percentage ("50%": not 0.5 or 50, which "40 - 50%", a share of 40 to
    the calculator, would not be); any other number as written, without a percent sign."""
    percent = _PERCENT_WORDS.match(leaf.text)
    if percent:
        return literal(f"{percent.group(1)}%")
    slot = ops.slot_of(leaf)
    return "calculon-c" if slot is None else f"calculon-o{slot}"


_PERCENT_WORDS = re.compile(r"^(.*?)\s*(?:%|percent|per cent)$", re.IGNORECASE)


def _unordered_lines(name: str, ops: Operands) -> list[str] | None:
    inner: list[str] = []
    left = list(ops.counts)
    free = bool(ops.constants)
    atoms = [f"calculon-o{i}{_PERCENT}" for i in range(len(left))]
    for k, group in enumerate(ops.groups):
        group_name = f"{name}-g{k}"
        members = [i for i, n in enumerate(group) if n]
        counts = tuple(group[i] for i in members)
        rules = ExpressionRules(
            f"{group_name}x", counts, [atoms[i] for i in members], free=free, every=True
        ).body()
        if rules is None:
            return None
        inner += [f'{group_name} ::= "(" " "? {group_name}x-top " "? ")"', *rules]
        left = [a - b for a, b in zip(left, group, strict=True)]
    groups = [f"{name}-g{k}" for k in range(len(ops.groups))]
    outer = (*left, *(1 for _ in groups))
    body = ExpressionRules(name, outer, [*atoms, *groups], free=free, every=ops.every).body()
    if body is None:
        return None
    return [f'{name} ::= "\\"" {name}-top "\\"" space', *body, *inner]


CALLS = "calculon-json ::= "


def prune(lines: Sequence[str], dead: set[str]) -> list[str] | None:
    """The call rule without the tools that hold a dead rule; None when no tool is left."""
    if not dead:
        return list(lines)
    out = []
    for line in lines:
        if line.startswith(CALLS):
            kept = [
                alt
                for alt in line[len(CALLS) :].split(" | ")
                if not any(name == alt or name.startswith(f"{alt}-") for name in dead)
            ]
            if not kept:
                return None
            line = CALLS + " | ".join(kept)
        out.append(line)
    return out


def constrain_expressions(
    lines: Sequence[str], names: Sequence[str], ops: Operands
) -> tuple[list[str], set[str]]:
    """Each arithmetic string's rules (see :func:`backed.strict_rules`) replaced by operand-aware
    ones; and the strings that cannot take the operands."""
    replaced = {n: expression_lines(n, ops) for n in names}
    ours = {f"{n}{suffix}" for n in names for suffix in ("", "-calc", "-expr", "-term", "-op")}
    out = [line for line in lines if line.split(" ::=", 1)[0] not in ours]
    for name, rules in replaced.items():
        out.extend(rules if rules is not None else [f'{name} ::= "\\x00"'])
    return out, {name for name, rules in replaced.items() if rules is None}
