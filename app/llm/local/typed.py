"""Typed arguments (``{"a": <number>, "b": <number>}``, ``{"quantity": "144 miles", "to_unit": "km"}``)
that take the user's numbers as :mod:`operands` says: each once, a number field holding one
operand or a free number, a text field an operand with its unit or none.

A conversion's target is one of the user's own words, never the quantity's unit: "How many
feet is 2 metres?" was seen to become ``convert("2 metres", to_unit="metres")``.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from app.core.arithmetic import fixes_operators
from app.llm.local.operands import Operands

FieldKind = str  # "number", "integer", "number|string", "integer|string", "text" or "other"
Fields = tuple[tuple[str, FieldKind], ...]


def field_kinds(schema: Mapping[str, Any]) -> Fields | None:
    """The fields of an arguments object in order, when every one is required; else None."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or set(schema.get("required", ())) != set(properties):
        return None
    return tuple((name, _kind(sub)) for name, sub in properties.items())


_QUANTITY = re.compile(r"\b(?:quantity|quantities|amount|measure|measurement)\b", re.IGNORECASE)


def takes_operands(schema: Mapping[str, Any], fields: Fields) -> bool:
    """Whether a tool takes the user's numbers as its arguments: a number field, or a text field
    that its name or description calls a quantity or an amount (the converter's "144 miles").
    Other text (a time zone, "9:30", a path, an SQL query) is the tool's own: held to "an operand
    with its unit or none", convert_time's "9:30" was seen written as "9:   }"."""
    properties = schema.get("properties") or {}
    for name, kind in fields:
        if kind not in ("text", "other"):
            return True
        spec = properties.get(name)
        description = spec.get("description", "") if isinstance(spec, dict) else ""
        if kind == "text" and _QUANTITY.search(f"{name} {description}"):
            return True
    return False


def _kind(schema: Any) -> FieldKind:
    types = schema.get("type") if isinstance(schema, dict) else None
    if types == "string" and not {"enum", "const", "pattern", "format"} & set(schema):
        return "text"  # may hold an operand with its unit: "144 miles"
    types = [types] if isinstance(types, str) else list(types or ())
    numeric = [t for t in ("number", "integer") if t in types]
    if not numeric or set(types) - {"number", "integer", "string"}:
        return "other"
    return "|".join([numeric[0], *(["string"] if "string" in types else [])])


def _value(kind: FieldKind, atom: str) -> str:
    quoted = f' | "\\"" {atom} "\\""' if kind.endswith("string") else ""
    return f"({atom}{quoted}) space"


def object_rule(
    name: str, fields: Sequence[tuple[str, FieldKind]], kv_rules: Mapping[str, str], ops: Operands
) -> str | None:
    """``name ::= ...`` over every way the fields can take the operands as asked (each operand
    once, a number field holding one or a free number, a text field one with its unit or
    none); None when there is no way."""
    slots = [i for i, (_, kind) in enumerate(fields) if kind != "other"]
    choices = [*range(len(ops.slots)), None]  # an operand's index, or None
    alternatives = []
    for pick in itertools.product(choices, repeat=len(slots)):
        used = [pick.count(i) for i in range(len(ops.slots))]
        if any(u > n for u, n in zip(used, ops.counts, strict=True)) or (
            ops.every and used != list(ops.counts)
        ):
            continue
        if any(p in ops.attached and fields[i][1] != "text" for i, p in zip(slots, pick, strict=True)):
            continue
        free_numbers = any(p is None and fields[i][1] != "text" for i, p in zip(slots, pick, strict=True))
        if free_numbers and not ops.constants:
            continue
        alternatives.append(_object(fields, dict(zip(slots, pick, strict=True)), kv_rules, ops))
    return f"{name} ::= {' | '.join(alternatives)}" if alternatives else None


def _object(
    fields: Sequence[tuple[str, FieldKind]],
    picks: Mapping[int, int | None],
    kv_rules: Mapping[str, str],
    ops: Operands,
) -> str:
    # beside a quantity with its unit, a text field is the unit to convert to, in the user's words
    words = "calculon-target" if ops.targets and set(picks.values()) & ops.attached else "calculon-words"
    parts = []
    for i, (field, kind) in enumerate(fields):
        key = f'{json.dumps(json.dumps(field))} space ":" space'
        if i not in picks:
            parts.append(kv_rules[field])
        elif kind == "text" and picks[i] is None:  # no digits: an operand goes only where it is picked
            parts.append(f'{key} "\\"" {words} "\\"" space')
        elif kind == "text":
            parts.append(f'{key} "\\"" calculon-o{picks[i]} calculon-unit "\\"" space')
        else:
            atom = "calculon-c" if picks[i] is None else f"calculon-o{picks[i]}"
            parts.append(f"{key} {_value(kind, atom)}")
    return '("{" space ' + ' "," space '.join(parts) + ' "}" space)'


def kv_rule(alternative: str, field: str) -> str:
    """The converter's rule name for one field's key and value."""
    return f"{alternative}-{re.sub(r'[^a-zA-Z0-9-]+', '-', field)}-kv"


def constrain_objects(
    lines: Sequence[str],
    objects: Mapping[str, Sequence[tuple[str, FieldKind]]],
    ops: Operands,
    *,
    expression: bool = False,
) -> tuple[list[str], set[str]]:
    """The typed tools' argument rules replaced by operand-aware ones; and the rules left with
    no way to take the operands. Where the words name every operator and an ``expression``
    tool is on offer, a typed tool with two numbers is left out: its name ("divide") could
    contradict "minus", and the expression says what the words say."""
    out, dead = [], set()
    typed_out = expression and ops.every and fixes_operators(ops.reading)
    for line in lines:
        name = line.split(" ::=", 1)[0]
        if name not in objects:
            out.append(line)
            continue
        if typed_out and sum(kind != "other" for _, kind in objects[name]) >= 2:
            out.append(line)
            dead.add(name)
            continue
        kvs = {field: kv_rule(name, field) for field, _ in objects[name]}
        rule = object_rule(name, objects[name], kvs, ops)
        out.append(rule if rule is not None else line)
        if rule is None:
            dead.add(name)
    return out, dead
