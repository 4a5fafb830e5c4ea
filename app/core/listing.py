"""A tool result that is one list: a query's rows as JSON or as Python writes them, a folder's tree."""

from __future__ import annotations

import ast
import json


def list_value(result: str) -> list[object] | None:
    """The list ``result`` is; None for any other text."""
    text = result.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    for parse in (json.loads, ast.literal_eval):  # literal_eval evaluates no code: literals only
        try:
            value = parse(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
        return value if isinstance(value, list) else None
    return None
