"""An expression that uses the user's numbers in the order their words give, joined as the words say.

The grammar reads an expression left to right as a small machine: which of the
reading's items (:mod:`reading`) comes next, how many free numbers (an earlier
result, the 100 of a percentage) it has used, how many brackets are open, and
whether the last operand was the item before: only then does the operator
between them have to be the one the words name ("40 less than 110" admits
``110 - 40`` and not ``110 + 40``). A free number between two items lifts
that: ``40 * (100 - 50) / 100`` is a fair way to take 50% off. A group (a bracket
the user wrote, the numbers an average sums) is one operand, written as its
own bracketed machine. No sign may be put before a number: the user's own
negative numbers carry theirs, and "(79 - 14) / 7" came out as ``(-79 - 14) / 7``.

The machine is regular (brackets nest at most ``DEPTH`` deep), so its rules
grow linearly with the number of items, where the unordered grammar of
:mod:`operands` grows as 3^n; states that cannot finish are left out.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence

from app.core.arithmetic import ANY, Item

DEPTH = 2  # brackets the model may open beyond the user's own
FREE = 2  # free numbers one expression may use: enough for "40 * (100 - 50) / 100"
Atom = Callable[[Item], str]
State = tuple[str, int, int, int, bool]  # ("a" after an operand | "b" before one, item, free, depth, flag)


class Machine:
    """The rules of one expression over ``items``; ``atom`` writes a number item's grammar."""

    def __init__(self, name: str, items: Sequence[Item], atom: Atom, *, free: bool, depth: int = DEPTH):
        self.name, self.items, self.atom = name, tuple(items), atom
        self.free, self.depth = (FREE if free else 0), depth
        self.groups: list[str] = []  # the rules of the groups inside, written once each
        self._atoms = [self._item_atom(i, item) for i, item in enumerate(self.items)]

    def _item_atom(self, index: int, item: Item) -> str:
        if not item.group:
            return self.atom(item)
        inner = Machine(f"{self.name}-g{index}", item.group, self.atom, free=self.free > 0, depth=1)
        self.groups += inner.rules()
        return f'"(" " "? {inner.start} " "? ")"'

    @property
    def start(self) -> str:
        return self._rule(("b", 0, 0, 0, True))

    def rules(self) -> list[str]:
        alternatives = self._solve()
        lines = [f"{self._rule(s)} ::= {' | '.join(alts)}" for s, alts in alternatives.items()]
        return [*lines, *self.groups]

    def _rule(self, state: State) -> str:
        kind, item, free, depth, flag = state
        return f"{self.name}-{kind}{item}-{free}-{depth}-{int(flag)}"

    def _op(self, ops: str) -> str:
        if ops == "^":  # "[^]" would be a negated class, and llama.cpp has no "\\^" escape
            return '" "? "^" " "?'
        chars = "".join(c if c != "-" else "\\-" for c in ops if c != "^") + ("^" if "^" in ops else "")
        return f'" "? [{chars}] " "?'

    def _edges(self, state: State) -> list[tuple[str, State | None]]:
        """Every way on from ``state``: the text written, and the state after (None: the end)."""
        kind, k, c, d, flag = state
        n = len(self.items)
        if kind == "b":  # flag: the next item may come now
            edges: list[tuple[str, State | None]] = []
            if d < self.depth:
                edges.append(('"(" " "?', ("b", k, c, d + 1, flag)))
            if k < n and flag:
                edges.append((self._atoms[k], ("a", k + 1, c, d, True)))
            if c < self.free:
                edges.append(('calculon-c "%"?', ("a", k, c + 1, d, False)))
            return edges
        edges = [('" "? ")"', ("a", k, c, d - 1, flag))] if d else []  # flag: the last operand was item k-1
        join = self.items[k].join if k < n else ANY
        if k < n and flag and join != ANY:
            edges.append((self._op(join), ("b", k, c, d, True)))
            edges.append((self._op(ANY), ("b", k, c, d, False)))
        elif k < n or c < self.free:
            edges.append((self._op(ANY), ("b", k, c, d, True)))
        if k == n and d == 0:
            edges.append(("", None))
        return edges

    def _solve(self) -> dict[State, list[str]]:
        """The states that can reach the end, reachable from the start, with their alternatives."""
        states = [
            ("b" if b else "a", k, c, d, f)
            for b in (0, 1)
            for k in range(len(self.items) + 1)
            for c in range(self.free + 1)
            for d in range(self.depth + 1)
            for f in (False, True)
        ]
        edges = {s: self._edges(s) for s in states}
        live: set[State] = set()
        changed = True
        while changed:
            before = len(live)
            live |= {s for s, out in edges.items() if any(t is None or t in live for _, t in out)}
            changed = len(live) != before
        start: State = ("b", 0, 0, 0, True)
        seen, todo = {start}, [start]
        while todo:
            for _, t in edges[todo.pop()]:
                if t is not None and t in live and t not in seen:
                    seen.add(t)
                    todo.append(t)
        return {
            s: [
                " ".join(p for p in (text, self._rule(t) if t else "") if p) or '""'
                for text, t in out
                if t is None or t in live
            ]
            for s, out in edges.items()
            if s in seen and s in live
        }


def ordered_lines(name: str, items: Sequence[Item], atom: Atom, *, free: bool) -> list[str] | None:
    """``name ::= "\\"" expression "\\""``: the string rule for a call's expression; None when
    no expression can follow the reading. Two numbers the words join with no operator may go
    either way round: nothing in "I save $464 a week; how much in 14 weeks?" orders them, and
    held to the written order the model wrote ``464 - 14`` where it had written ``14 * 464``."""
    orders = [tuple(items)]
    if len(items) == 2 and items[1].join == ANY and not any(i.group for i in items):
        orders.append((dataclasses.replace(items[1], join=ANY), items[0]))
    machines = [Machine(f"{name}-w{i}", order, atom, free=free) for i, order in enumerate(orders)]
    lines: list[str] = []
    starts = []
    for machine in machines:
        rules = machine.rules()
        if any(line.startswith(f"{machine.start} ::=") for line in rules):
            lines += rules
            starts.append(machine.start)
    if not starts:
        return None
    return [f'{name} ::= "\\"" ({" | ".join(starts)}) "\\"" space', *lines]


def literal(text: str) -> str:
    return json.dumps(text)
