"""A call's optional number fields that nothing backs, left out of its grammar.

In Calculon mode a number field takes only the numbers of the user's words, the tools' results
and the tool's own schema. Where none exists, a field such as read_file's optional ``head`` had
no value it could take once the model wrote its key: "Read the file /etc/hostname" reached a dead
end in the grammar, and the step was decoded a second time without the number rules (6.1 s for
one call on the 0.5B). An optional field with nothing to hold is simply not offered; a required
one stays, and the step's fallback still says when it dead-ends.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

from app.core.messages import ToolSpec
from app.llm.local.backed import BackedForms

_INTEGER = re.compile(r"-?\d+")


def without_unbacked_options(tools: Sequence[ToolSpec], forms: BackedForms) -> tuple[ToolSpec, ...]:
    """``tools`` with each optional number field left out where no backed number could fill it."""
    numbers = forms.json | forms.schema
    backs = {
        "number": bool(numbers),
        "integer": bool(forms.integers | {n for n in numbers if _INTEGER.fullmatch(n)}),
    }
    return tuple(_trimmed(tool, backs) for tool in tools)


def _trimmed(tool: ToolSpec, backs: Mapping[str, bool]) -> ToolSpec:
    schema = tool.input_schema
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return tool
    required = set(schema.get("required") or ())
    empty = [
        name
        for name, field in properties.items()
        if name not in required and (kind := _number_kind(field)) and not backs[kind]
    ]
    if not empty:
        return tool
    kept = {name: field for name, field in properties.items() if name not in empty}
    return dataclasses.replace(tool, input_schema={**schema, "properties": kept})


def _number_kind(field: Any) -> str:
    """ "number" or "integer" for a field that holds only that (or null), else ""."""
    if not isinstance(field, Mapping):
        return ""
    types = field.get("type")
    named = {str(t) for t in (types if isinstance(types, list) else [types]) if t != "null"}
    return named.pop() if len(named) == 1 and named <= {"number", "integer"} else ""
