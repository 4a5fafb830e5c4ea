"""The call grammar for Gemma 4's ``call:name{key:value,...}`` syntax, from the tools' schemas.

JSON-schema conversion does not apply (the syntax is not JSON), so the rules are written here,
per tool: its name, then its properties as the template writes them (app/core/gemma_values.py):
in sorted order, keys bare, required ones always there, optional ones possibly left out;
strings between ``<|"|>``, numbers and booleans bare, enums as their written values, objects
and lists by their own schemas. What a schema says that this cannot (a pattern other than one
character class, numeric bounds, $ref cycles) is left to the check of the parsed arguments
against the schema, as for the other syntaxes. The number rules are named as the JSON
converter names them (``number``, ``integer``), so Calculon mode's backed numbers replace them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from app.core.gemma_values import QUOTE, render_value

_PATTERN_CLASS = re.compile(r"^\^\[([^\]]+)\]\*\$$")
_LITERAL_QUOTE = json.dumps(QUOTE)
_DEPTH = 6  # nesting followed through $ref; deeper is any value

# A string cannot hold "<|" (its closing delimiter opens so); keys are bare words or strings.
_BASE = [
    f"gemma-string ::= {_LITERAL_QUOTE} gemma-char* {_LITERAL_QUOTE}",
    'gemma-char ::= [^<\\x00] | "<" [^|\\x00]',
    'number ::= "-"? [0-9]+ ("." [0-9]+)? ([eE] [-+]? [0-9]+)? space',
    'integer ::= "-"? [0-9]+ space',
    'space ::= ""',
    'gemma-bool ::= "true" | "false"',
    'gemma-value ::= gemma-string | number | gemma-bool | "None" | gemma-object | gemma-list',
    'gemma-object ::= "{" (gemma-pair ("," gemma-pair)*)? "}"',
    'gemma-pair ::= (gemma-key | gemma-string) ":" gemma-value',
    "gemma-key ::= [a-zA-Z_] [a-zA-Z0-9_]*",
    'gemma-list ::= "[" (gemma-value ("," gemma-value)*)? "]"',
]


def call_rules(arguments: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """``gemma-call``: ``call:`` and one tool's name and arguments, for each tool."""
    builder = _Builder({key: value for schema in arguments.values() for key, value in _defs(schema)})
    tools = [
        f"{json.dumps('call:' + name)} {builder.value(schema, f'gemma-tool{i}')}"
        for i, (name, schema) in enumerate(arguments.items())
    ]
    return [f"gemma-call ::= {' | '.join(f'({tool})' for tool in tools)}", *builder.lines, *_BASE]


def _defs(schema: Mapping[str, Any]) -> Sequence[tuple[str, Any]]:
    defs = schema.get("$defs", {})
    return list(defs.items()) if isinstance(defs, Mapping) else []


class _Builder:
    def __init__(self, defs: Mapping[str, Any]):
        self.defs = defs
        self.lines: list[str] = []
        self._depth = 0

    def _rule(self, name: str, body: str) -> str:
        self.lines.append(f"{name} ::= {body}")
        return name

    def value(self, schema: Any, name: str) -> str:
        """The rule for one value under ``schema`` (named ``name`` where it needs a rule)."""
        if not isinstance(schema, Mapping):
            return "gemma-value"
        if "const" in schema:
            return json.dumps(render_value(schema["const"]))
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return "(" + " | ".join(json.dumps(render_value(item)) for item in schema["enum"]) + ")"
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and self._depth < _DEPTH:
            self._depth += 1
            try:
                return self.value(self.defs.get(ref[len("#/$defs/") :]), name)
            finally:
                self._depth -= 1
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                options = [self.value(sub, f"{name}-{i}") for i, sub in enumerate(schema[key])]
                return "(" + " | ".join(options) + ")"
        kind = schema.get("type")
        if isinstance(kind, list):
            options = [self.value({**schema, "type": one}, f"{name}-{one}") for one in kind]
            return "(" + " | ".join(options) + ")"
        return self._typed(schema, kind, name)

    def _typed(self, schema: Mapping[str, Any], kind: Any, name: str) -> str:
        if kind == "string":
            pattern = _PATTERN_CLASS.match(str(schema.get("pattern", "")))
            if pattern:  # the one string form a pattern is kept for (the calculator's expression)
                return self._rule(name, f"{_LITERAL_QUOTE} [{pattern.group(1)}]* {_LITERAL_QUOTE}")
            return "gemma-string"
        if kind in ("number", "integer"):
            return str(kind)
        if kind == "boolean":
            return "gemma-bool"
        if kind == "null":
            return '"None"'
        if kind == "array":
            items = schema.get("items")
            if not isinstance(items, Mapping):
                return "gemma-list"
            item = self.value(items, f"{name}-item")
            return self._rule(name, f'"[" ({item} ("," {item})*)? "]"')
        properties = schema.get("properties")
        if kind in ("object", None) and isinstance(properties, Mapping) and properties:
            required = set(schema.get("required", []))
            return self._object(name, properties, required)
        return "gemma-object" if kind == "object" else "gemma-value"

    def _object(self, name: str, properties: Mapping[str, Any], required: set[str]) -> str:
        """``{k:v,...}`` in sorted order: ``name-t<j>`` is the rest after something was written,
        ``name-s<j>`` the rest when nothing was yet; each optional property may be left out."""
        keys = sorted(properties, key=str.lower)
        pairs = [
            f"{json.dumps(key + ':')} {self.value(properties[key], f'{name}-p{j}')}"
            for j, key in enumerate(keys)
        ]
        tail, start = "", ""  # the rules for the properties after j; "" past the last
        for j in reversed(range(len(keys))):
            after = f" {tail}" if tail else ""
            if keys[j] in required:
                new_tail = self._rule(f"{name}-t{j}", f'"," {pairs[j]}{after}')
                new_start = self._rule(f"{name}-s{j}", f"{pairs[j]}{after}")
            else:
                new_tail = self._rule(f"{name}-t{j}", f'("," {pairs[j]})?{after}')
                alone = f"{pairs[j]}{after}"
                new_start = self._rule(f"{name}-s{j}", f"{alone} | {start}" if start else f"({alone})?")
            tail, start = new_tail, new_start
        return self._rule(name, f'"{{" {start} "}}"')
