"""Elicitation forms: the flat schema a server sends, as fields, and what the user typed, checked.

MCP's form mode allows an object of primitive properties only: strings (with an optional
``format``: email, uri, date, date-time), numbers, integers, booleans, single-choice enums
(plain ``enum``, titled ``oneOf`` with ``const``/``title``, or legacy ``enumNames``) and
multi-choice arrays of such enums. The window builds its editors from :func:`form_fields`,
the terminal parses typed text with :func:`parse_text`, and both check the whole answer
with :func:`problems` before anything goes back to the server.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

import jsonschema

# Said on every form: elicitation goes through the server and maybe the model's context.
NOT_FOR_SECRETS = "Never enter passwords, API keys or other secrets here."

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclasses.dataclass(frozen=True)
class FormField:
    """One property. ``kind``: string, number, integer, boolean, choice or choices (multi)."""

    name: str
    kind: str
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    format: str = ""
    choices: tuple[tuple[str, str], ...] = ()  # (value, label)


def form_fields(schema: Mapping[str, Any]) -> list[FormField]:
    """The schema's properties in order; a property of no known shape becomes a string field."""
    required = set(schema.get("required", ()))
    properties: Mapping[str, Any] = schema.get("properties", {})
    return [_field(name, dict(prop), name in required) for name, prop in properties.items()]


def _field(name: str, prop: dict[str, Any], required: bool) -> FormField:
    choices = _choices(prop)
    kind = prop.get("type", "string")
    if kind == "array":
        kind, choices = "choices", _choices(prop.get("items", {}))
    elif choices:
        kind = "choice"
    elif kind not in ("string", "number", "integer", "boolean"):
        kind = "string"
    return FormField(
        name,
        kind,
        str(prop.get("title") or name),
        str(prop.get("description", "")),
        required,
        prop.get("default"),
        str(prop.get("format", "")),
        choices,
    )


def _choices(prop: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    titled = prop.get("oneOf") or prop.get("anyOf")
    if titled:
        return tuple((str(o["const"]), str(o.get("title", o["const"]))) for o in titled if "const" in o)
    values = [str(v) for v in prop.get("enum", ())]
    names = prop.get("enumNames") or values
    return tuple(zip(values, (str(n) for n in names), strict=False))


def parse_text(field: FormField, text: str) -> Any:
    """A typed answer as the field's JSON value; None for an empty answer. Raises ValueError."""
    text = text.strip()
    if not text:
        return None
    if field.kind == "boolean":
        if text.lower() in ("y", "yes", "true", "1"):
            return True
        if text.lower() in ("n", "no", "false", "0"):
            return False
        raise ValueError("answer yes or no")
    if field.kind in ("integer", "number"):
        value = json.loads(text) if re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", text) else None
        if not isinstance(value, int | float) or (field.kind == "integer" and not isinstance(value, int)):
            raise ValueError(f"not {'an integer' if field.kind == 'integer' else 'a number'}: {text}")
        return value
    if field.kind == "choice":
        return _choice(field, text)
    if field.kind == "choices":
        return [_choice(field, part) for part in text.split(",") if part.strip()]
    return text


def _choice(field: FormField, text: str) -> str:
    """A choice by value, by label or by its number in the list (from 1)."""
    text = text.strip()
    for number, (value, label) in enumerate(field.choices, 1):
        if text in (value, label, str(number)):
            return value
    raise ValueError(f"not one of the choices: {text}")


def problems(schema: Mapping[str, Any], content: Mapping[str, Any]) -> dict[str, str]:
    """What is wrong with ``content``, per field name (empty: it may be sent)."""
    found: dict[str, str] = {}
    for field in form_fields(schema):
        if field.required and content.get(field.name) in (None, "", []):
            found[field.name] = "required"
    checker = jsonschema.FormatChecker(formats=())
    for name, check in _FORMATS.items():
        checker.checks(name, raises=ValueError)(check)
    try:
        validator = jsonschema.validators.validator_for(schema)(dict(schema), format_checker=checker)
        errors = list(validator.iter_errors(dict(content)))
    except jsonschema.exceptions.SchemaError as exc:
        return {"": f"the server's form is not a valid schema: {exc.message}"}
    for error in errors:
        where = str(error.absolute_path[0]) if error.absolute_path else ""
        found.setdefault(where, error.message)
    return found


def _date_time(text: str) -> bool:
    datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return True


def _uri(text: str) -> bool:
    parts = urllib.parse.urlsplit(text)
    return bool(parts.scheme and (parts.netloc or parts.path))


_FORMATS = {
    "email": lambda text: not isinstance(text, str) or bool(_EMAIL.match(text)),
    "uri": lambda text: not isinstance(text, str) or _uri(text),
    "date": lambda text: not isinstance(text, str) or bool(datetime.date.fromisoformat(text)),
    "date-time": lambda text: not isinstance(text, str) or _date_time(text),
}


def with_defaults(schema: Mapping[str, Any], content: Mapping[str, Any]) -> dict[str, Any]:
    """``content`` with each field it leaves out set to the schema's default, where it has one
    (SEP-1034): what the window's editors and the terminal's prompts start from."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    defaults = {name: prop["default"] for name, prop in properties.items() if "default" in prop}
    return {**defaults, **content}


def cleaned(content: Mapping[str, Any]) -> dict[str, Any]:
    """The answer as sent: fields left empty are left out."""
    return {k: v for k, v in content.items() if v not in (None, "", [])}


def domain(url: str) -> str:
    """The host a URL points at, shown beside it so a look-alike link stands out."""
    return urllib.parse.urlsplit(url).hostname or ""
