"""An argument that copies its schema's own description, refused before it reaches the server.

Asked how many products a database holds, the built-in model sent the sqlite reference server's
``read_query`` with ``"query": "SELECT SQL query to execute"``: the server's description of that
argument, word for word, which it answered with a syntax error. A value that is its parameter's
description can be no one's meaning, whatever the tool; the model is told which argument it
copied, and the server never sees the call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DESCRIBED_NOT_RUN = "Not run (it copies the tool's description):"


def described_value(arguments: Mapping[str, Any], schema: Mapping[str, Any]) -> str:
    """Why an argument is its own description ("" where none is)."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return ""
    for key, value in arguments.items():
        spec = properties.get(key)
        described = spec.get("description") if isinstance(spec, Mapping) else None
        copied = isinstance(value, str) and isinstance(described, str) and _plain(value) == _plain(described)
        if copied and _plain(value):
            return f"{key} {value!r} is the schema's description of {key}, not a value"
    return ""


def described_result(reason: str) -> str:
    return f"{DESCRIBED_NOT_RUN} {reason}. Write the {reason.split(' ', 1)[0]} the request needs."


def _plain(text: str) -> str:
    return " ".join(text.lower().strip().rstrip(".").split())
